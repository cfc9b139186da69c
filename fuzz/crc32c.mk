# SPDX-License-Identifier: GPL-2.0-only
#
# libFuzzer differential target for the CRC32C lab (clang, Debian clang-14).
# `make fuzz-crc32c` builds it and runs it for FUZZ_SECONDS (default 60);
# crashes are written to $(BUILD)/fuzz/. Included from the top Makefile.

FUZZ_CC ?= $(firstword $(foreach c,clang clang-14,$(shell command -v $(c) 2>/dev/null)))
FUZZ_SECONDS ?= 60
# the dispatch rows name hp_csum's methods too, as libhpsum does
CRC32C_FUZZ_SRCS := fuzz/crc32c_fuzz.c $(wildcard c/crc32c/*.c) $(wildcard c/dispatch/*.c) \
	c/csum/csum_hp.c c/csum/csum_hp_plan.c c/csum/csum_hp_avx2.c c/csum/csum_hp_avx512.c c/bench/cpu.c

$(BUILD)/fuzz/crc32c_fuzz: $(CRC32C_FUZZ_SRCS) $(HEADERS) fuzz/crc32c.mk
	@mkdir -p $(dir $@)
	@test -n "$(FUZZ_CC)" || { echo "fuzz-crc32c: clang not found (apt-get install clang)"; exit 2; }
	$(FUZZ_CC) -std=gnu11 -O1 -g -fsanitize=fuzzer,address,undefined \
		-Ic/include $(LAB_CFLAGS) -o $@ $(CRC32C_FUZZ_SRCS) $(LAB_LDLIBS)

.PHONY: fuzz-crc32c
fuzz-crc32c: $(BUILD)/fuzz/crc32c_fuzz
	@mkdir -p $(BUILD)/fuzz/crc32c-corpus
	$< -max_total_time=$(FUZZ_SECONDS) -max_len=70000 \
		-artifact_prefix=$(BUILD)/fuzz/ $(BUILD)/fuzz/crc32c-corpus
