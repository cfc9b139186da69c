# SPDX-License-Identifier: GPL-2.0-only
#
# libFuzzer differential target for the csum lab (clang, Debian clang-14).
# `make fuzz-csum` builds it and runs it for FUZZ_SECONDS (default 60);
# crashes are written to $(BUILD)/fuzz/. Included from the top Makefile.

FUZZ_CC ?= $(firstword $(foreach c,clang clang-14,$(shell command -v $(c) 2>/dev/null)))
FUZZ_SECONDS ?= 60
CSUM_FUZZ_SRCS := fuzz/csum_fuzz.c $(wildcard c/csum/*.c) $(wildcard c/dispatch/*.c) c/bench/cpu.c

$(BUILD)/fuzz/csum_fuzz: $(CSUM_FUZZ_SRCS) $(HEADERS) fuzz/csum.mk
	@mkdir -p $(dir $@)
	@test -n "$(FUZZ_CC)" || { echo "fuzz-csum: clang not found (apt-get install clang)"; exit 2; }
	$(FUZZ_CC) -std=gnu11 -O1 -g -fsanitize=fuzzer,address,undefined \
		-Ic/include $(LAB_CFLAGS) -o $@ $(CSUM_FUZZ_SRCS) $(LAB_LDLIBS)

.PHONY: fuzz-csum
fuzz-csum: $(BUILD)/fuzz/csum_fuzz
	@mkdir -p $(BUILD)/fuzz/csum-corpus
	$< -max_total_time=$(FUZZ_SECONDS) -max_len=70000 \
		-artifact_prefix=$(BUILD)/fuzz/ $(BUILD)/fuzz/csum-corpus
