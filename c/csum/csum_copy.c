// SPDX-License-Identifier: GPL-2.0-only
/*
 * csum_partial_copy(): copy and checksum in one call.
 */
#include <hotpath/csum.h>

#include <string.h>

#include "csum_impl.h"

uint32_t hp_csum_copy_ref(const void *src, void *dst, int len, uint32_t sum)
{
	memcpy(dst, src, (size_t)len);
	return hp_csum_ref(src, len, sum);
}

/* 64 bytes: eight loads into registers, one adc chain, eight stores. */
static inline uint64_t copy64(uint64_t acc, const uint8_t *s, uint8_t *d)
{
	uint64_t r0, r1, r2, r3;

	__asm__("movq 0(%[s]),%[r0]\n\t"
		"movq 8(%[s]),%[r1]\n\t"
		"movq 16(%[s]),%[r2]\n\t"
		"movq 24(%[s]),%[r3]\n\t"
		"addq %[r0],%[acc]\n\t"
		"adcq %[r1],%[acc]\n\t"
		"adcq %[r2],%[acc]\n\t"
		"adcq %[r3],%[acc]\n\t"
		"movq %[r0],0(%[d])\n\t"
		"movq %[r1],8(%[d])\n\t"
		"movq %[r2],16(%[d])\n\t"
		"movq %[r3],24(%[d])\n\t"
		"movq 32(%[s]),%[r0]\n\t"
		"movq 40(%[s]),%[r1]\n\t"
		"movq 48(%[s]),%[r2]\n\t"
		"movq 56(%[s]),%[r3]\n\t"
		"adcq %[r0],%[acc]\n\t"
		"adcq %[r1],%[acc]\n\t"
		"adcq %[r2],%[acc]\n\t"
		"adcq %[r3],%[acc]\n\t"
		"adcq $0,%[acc]\n\t"
		"movq %[r0],32(%[d])\n\t"
		"movq %[r1],40(%[d])\n\t"
		"movq %[r2],48(%[d])\n\t"
		"movq %[r3],56(%[d])"
		: [acc] "+r"(acc), [r0] "=&r"(r0), [r1] "=&r"(r1),
		  [r2] "=&r"(r2), [r3] "=&r"(r3),
		  "=m"(*(uint8_t(*)[64])d)
		: [s] "r"(s), [d] "r"(d), "m"(*(const uint8_t(*)[64])s)
		: "cc");
	return acc;
}

/*
 * The kernel's x86-64 copy-and-checksum (arch/x86/lib/csum-copy_64.S),
 * from its description: a 64-byte loop of eight loads, one adc chain and
 * eight stores; then 8-byte words; then 4/2/1-byte pieces; the sum folded
 * to 32 bits. (The kernel's exception tables for user copies have no
 * counterpart here.)
 */
uint32_t hp_csum_copy_kernel(const void *src, void *dst, int len,
			     uint32_t sum)
{
	const uint8_t *s = src;
	uint8_t *d = dst;
	uint64_t acc = sum;
	size_t n = (size_t)len;

	for (; n >= 64; n -= 64, s += 64, d += 64)
		acc = copy64(acc, s, d);
	for (; n >= 8; n -= 8, s += 8, d += 8) {
		uint64_t w = csum_load64(s);

		memcpy(d, &w, 8);
		acc = csum_add64c(acc, w);
	}
	if (n) {
		uint64_t w = csum_load_tail(s, (unsigned int)n);

		memcpy(d, &w, n);
		acc = csum_add64c(acc, w);
	}
	return csum_add32c(acc >> 32, (uint32_t)acc);
}

/*
 * hotpath: copy with the C library's memcpy (tuned per CPU), then sum the
 * destination with hp_csum() while it is still in L1. On the development
 * machine's narrow vector side this beats a fused loop (docs/labs/csum.md).
 */
uint32_t hp_csum_copy_hp(const void *src, void *dst, int len, uint32_t sum)
{
	memcpy(dst, src, (size_t)len);
	return hp_csum(dst, len, sum);
}
