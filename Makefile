# SPDX-License-Identifier: GPL-2.0-only
#
# hotpath build: the C library and runner (everything timed), the C tests,
# and the Python environment. `make help` lists the targets.
#
# No global -march: every instruction-set-specific function carries its own
# __attribute__((target(...))) and is chosen at run time from cpuid, so one
# build runs (and tests each path it can) on any x86-64 machine.

.DEFAULT_GOAL := all
BUILD ?= build
CC ?= gcc
CFLAGS_COMMON := -std=gnu11 -O2 -g -fPIC -falign-functions=64 -Wall -Wextra -Wno-unused-parameter \
	-fno-strict-aliasing -fno-plt -Ic/include
CFLAGS ?=
ALL_CFLAGS = $(CFLAGS_COMMON) $(LAB_CFLAGS) $(CFLAGS)
LDLIBS_COMMON := -ldl -lm
ALL_LDLIBS = $(LAB_LDLIBS) $(LDLIBS_COMMON)
VENV ?= .venv

# Each lab may add flags and libraries for its peers (optional packages
# detected here, never required): c/<lab>/lab.mk.
LAB_CFLAGS :=
LAB_LDLIBS :=
-include $(wildcard c/*/lab.mk)
# Fuzz targets (clang, libFuzzer): fuzz/<lab>.mk, `make fuzz-<lab>`.
-include $(wildcard fuzz/*.mk)

LIB_SRCS := $(filter-out c/bench/runner.c,$(wildcard c/bench/*.c c/*/*.c))
LIB_OBJS := $(LIB_SRCS:%.c=$(BUILD)/obj/%.o)
TEST_SRCS := $(wildcard tests/c/test_*.c)
TEST_BINS := $(TEST_SRCS:tests/c/%.c=$(BUILD)/tests/%)
HEADERS := $(wildcard c/include/hotpath/*.h c/*/*.h tests/c/*.h)

# libhpsum: hp_csum() and hp_crc32c() for user space, without the engine;
# its own soname, one header (c/include/hpsum.h), exports only those two.
HPSUM_VERSION := 1.0.0
HPSUM_LIB := libhpsum.so.$(HPSUM_VERSION)
HPSUM_SRCS := c/csum/csum_hp.c c/csum/csum_hp_plan.c c/csum/csum_hp_avx2.c c/csum/csum_hp_avx512.c \
	c/crc32c/crc32c_hotpath.c c/crc32c/crc32c_pclmul_fold.c c/crc32c/crc32c_sse42.c \
	c/crc32c/crc32c_4way.c \
	c/crc32c/crc32c_vpclmul_avx512.c c/crc32c/crc32c_vpclmul_avx2.c c/crc32c/crc32c_table.c c/crc32c/ref.c c/bench/cpu.c \
	c/crc32c/crc32c_fused256_4x24.c c/crc32c/crc32c_fused256_4x32.c \
	c/dispatch/format.c c/dispatch/choose.c c/dispatch/rows.c c/dispatch/measured.c
# Measured rows are kept per CPU and per code (c/dispatch/measured.c): this
# id changes with the methods' source, the headers, the compiler and its
# flags, so a library rebuilt from other code measures its row again.
HP_CODE_ID := $(shell cat $(HPSUM_SRCS) $(HEADERS) | { cat; $(CC) -dumpfullversion; \
	echo '$(CFLAGS_COMMON) $(LAB_CFLAGS) $(CFLAGS)'; } | sha1sum | cut -c1-12)
$(BUILD)/obj/c/dispatch/measured.o: CFLAGS_COMMON += -DHP_CODE_ID='"$(HP_CODE_ID)"'
$(BUILD)/obj/c/dispatch/measured.o: $(HPSUM_SRCS)
PREFIX ?= /usr/local

.PHONY: all build test test-c test-py lint setup help clean install record-facts
all build: $(BUILD)/hotpath-bench $(BUILD)/runner-facts.json $(BUILD)/libhotpath.so \
	$(BUILD)/user-cflags $(TEST_BINS) \
	$(BUILD)/$(HPSUM_LIB) $(BUILD)/kruntime.o

$(BUILD)/obj/%.o: %.c $(HEADERS) $(wildcard c/*/lab.mk)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -c $< -o $@

$(BUILD)/libhotpath.a: $(LIB_OBJS)
	@rm -f $@
	ar rcs $@ $^

$(BUILD)/libhotpath.so: $(LIB_OBJS)
	$(CC) -shared -o $@ $^ $(ALL_LDLIBS)

# The runner takes the variants and its timing loops from libhotpath.so (found
# beside it): a --with library is then mapped near them. Linked with the
# variants in the executable, far from every shared library, a --with
# variant paid about 3 cycles a call more than the same code built in (on a
# Zen 3: a copy of kernel-2024 took 12.1 cycles at 8 bytes against 9.0).
$(BUILD)/hotpath-bench: $(BUILD)/obj/c/bench/runner.o $(BUILD)/libhotpath.so
	$(CC) -rdynamic -o $@ $< -L$(BUILD) -lhotpath -Wl,-rpath,'$$ORIGIN' $(ALL_LDLIBS)

# What this build takes and tells apart (input limits, CPU feature names,
# the primitives that run the dispatch row, what a row may say), kept
# beside the runner: Python reads it there (hotpath.runner.runner_facts)
# and copies none of it.
$(BUILD)/runner-facts.json: $(BUILD)/hotpath-bench
	$< facts > $@.$$$$ && mv -f $@.$$$$ $@


# hotpath's kernel runtime: loaded into every image of the kernel's own
# objects (c/kload), in the low 2 GiB beside them; built as the kernel
# builds its code (kernel code model, no PIC, no red zone, no SIMD).
KRUNTIME_SRCS := $(wildcard c/kload/runtime/*.c c/kload/runtime/*.S)
KRUNTIME_CFLAGS := -std=gnu11 -O2 -Wall -fno-pic -mcmodel=kernel -mno-red-zone \
	-mgeneral-regs-only -fno-stack-protector -ffreestanding -fno-asynchronous-unwind-tables
$(BUILD)/obj/kruntime/%.o: c/kload/runtime/%
	@mkdir -p $(dir $@)
	$(CC) $(KRUNTIME_CFLAGS) -c $< -o $@
# The timing loops loaded beside the kernel's code (c/kload/bursts): the
# library's own flags and bodies, for the low 2 GiB (no PIC).
$(BUILD)/obj/kruntime/bursts.o: c/kload/bursts/bursts.c $(HEADERS)
	@mkdir -p $(dir $@)
	$(CC) $(filter-out -fPIC,$(ALL_CFLAGS)) -fno-pic -c $< -o $@
$(BUILD)/kruntime.o: $(KRUNTIME_SRCS:c/kload/runtime/%=$(BUILD)/obj/kruntime/%.o) \
		$(BUILD)/obj/kruntime/bursts.o
	$(LD) -r -o $@ $^

$(BUILD)/$(HPSUM_LIB): $(HPSUM_SRCS:%.c=$(BUILD)/obj/%.o) c/hpsum.map
	$(CC) -shared -Wl,--no-undefined -Wl,--version-script=c/hpsum.map \
		-Wl,-soname,libhpsum.so.1 -o $@ $(filter %.o,$^)

# make install PREFIX=DIR: the library, its header and hpsum.pc.
install: $(BUILD)/$(HPSUM_LIB)
	install -d $(DESTDIR)$(PREFIX)/lib/pkgconfig $(DESTDIR)$(PREFIX)/include
	install -m 0755 $< $(DESTDIR)$(PREFIX)/lib/
	ln -sf $(HPSUM_LIB) $(DESTDIR)$(PREFIX)/lib/libhpsum.so.1
	ln -sf libhpsum.so.1 $(DESTDIR)$(PREFIX)/lib/libhpsum.so
	install -m 0644 c/include/hpsum.h $(DESTDIR)$(PREFIX)/include/
	sed -e 's|@PREFIX@|$(PREFIX)|' -e 's|@VERSION@|$(HPSUM_VERSION)|' c/hpsum.pc.in \
		> $(DESTDIR)$(PREFIX)/lib/pkgconfig/hpsum.pc

# The flags a user's --with FILE.c is compiled with: the library's own, its
# include path absolute (a relative one would let a header in the user's
# current folder stand in for the library's).
$(BUILD)/user-cflags: Makefile $(wildcard c/*/lab.mk)
	@mkdir -p $(BUILD)
	@echo "$(subst -Ic/include,-I$(CURDIR)/c/include,$(CFLAGS_COMMON)) $(CFLAGS)" > $@

$(BUILD)/tests/%: tests/c/%.c $(BUILD)/libhotpath.a $(HEADERS)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -Itests/c -Ic/bench -o $@ $< $(BUILD)/libhotpath.a $(ALL_LDLIBS)

# The fallbacks (a row's method the CPU lacks, a --with file's needs=) run
# here whatever this CPU has: the tests that reach them again, with AVX-512
# hidden (VPCLMULQDQ kept: the 256-bit CRC fold, as on a Zen 3 or an
# Alder Lake), then AVX-512 and VPCLMULQDQ, then every detected feature
# (HOTPATH_CPU_HIDE, c/bench/cpu.c).
FALLBACK_TESTS := test_dispatch test_csum_hp test_csum test_crc32c test_skb
HIDE_AVX512_ONLY := avx512f,avx512bw,avx512vl
HIDE_AVX512 := $(HIDE_AVX512_ONLY),vpclmulqdq
HIDE_ALL := sse4.2,pclmulqdq,avx2,bmi2,adx,$(HIDE_AVX512)

# The C tests take the built-in rows, never a row measured for this
# machine (the user's cache): an empty cache folder of their own.
test-c: export XDG_CACHE_HOME = $(abspath $(BUILD))/test-cache
test-c: $(TEST_BINS)
	@set -e; for t in $(TEST_BINS); do echo "== $$t"; $$t; done
	@set -e; for h in $(HIDE_AVX512_ONLY) $(HIDE_AVX512) $(HIDE_ALL); do for t in $(FALLBACK_TESTS); do \
		echo "== HOTPATH_CPU_HIDE=$$h $(BUILD)/tests/$$t"; \
		HOTPATH_CPU_HIDE=$$h $(BUILD)/tests/$$t; done; done

$(VENV)/.stamp: pyproject.toml scripts/setup.sh
	./scripts/setup.sh --deps-only
	@touch $@

test-py: $(VENV)/.stamp all
	$(VENV)/bin/python -m pytest -q tests/py

lint: $(VENV)/.stamp
	$(VENV)/bin/ruff check python tests/py
	$(VENV)/bin/ruff format --check python tests/py
	$(VENV)/bin/mypy python/hotpath

# The whole test suite: C tests, Python tests, lint and types.
test: test-c test-py lint

setup:
	./scripts/setup.sh

# The Python tests' stand-in runner (tests/py/fake_runner.py) states the
# real runner's facts: its runner-facts.json, recorded here, never written
# by hand (tests/py/test_real_runner.py checks that the two agree).
record-facts: $(BUILD)/runner-facts.json
	python3 -m json.tool --indent 1 $< > tests/py/fixtures/runner-facts.json

clean:
	rm -rf $(BUILD)

help:
	@echo "make            build the library, runner and C tests into $(BUILD)/"
	@echo "make test       the whole test suite (C, Python, lint, types)"
	@echo "make setup      install dependencies into $(VENV)/ and build"
