// SPDX-License-Identifier: GPL-2.0-only
/*
 * csum_partial_copy(): copy and checksum in one call.
 */
#include <hotpath/bench.h>
#include <hotpath/csum.h>

#include <limits.h>
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
 * Length from which hp_csum_copy_hp() takes the fused AVX2 pass instead of
 * memcpy and hp_csum(). Measured on the development machine (Zen 1-class
 * EPYC guest; hotpath-bench run --primitive csum_partial_copy, the old
 * path loaded with --with, latency and throughput, two runs each): the
 * fused pass, with its own short path below its vector loop, is ahead at
 * every length tried from 0 to 64 KiB, aligned or 1 byte off. Latency,
 * fused vs memcpy + hp_csum: 14 vs 17 cycles at 0 bytes, 12 vs 22 at 8,
 * 15 vs 20 at 40, 18 vs 24 at 64, 40 vs 43 at 256, 142 vs 221 at 1500,
 * 342 vs 510 at 4 KiB, 6.4k vs 9.6k at 64 KiB; 1 byte off, 146 vs 240 at
 * 1500 (throughput). So the crossover there is 0. No other AVX2 core has been
 * measured: elsewhere this is the development machine's figure until
 * someone measures it there.
 */
#define HP_CSUM_COPY_FUSED_MIN 0

/* INT_MAX: never fused (no AVX2). Set once at load. */
static int fused_min = INT_MAX;

__attribute__((constructor)) static void hp_csum_copy_init(void)
{
	if (hp_cpu_features() & HP_CPU_AVX2)
		fused_min = HP_CSUM_COPY_FUSED_MIN;
}

/* Out of line, so that the fused path's call is a compare and a jump,
 * with no stack frame set up for memcpy first. */
static __attribute__((noinline)) uint32_t
copy_then_sum(const void *src, void *dst, int len, uint32_t sum)
{
	memcpy(dst, src, (size_t)len);
	return hp_csum(dst, len, sum);
}

/**
 * hp_csum_copy_hp() - hotpath's csum_partial_copy, per CPU and length.
 * @src: bytes to copy, any alignment
 * @dst: where to copy them, any alignment, not overlapping @src
 * @len: length in bytes, >= 0
 * @sum: 32-bit partial sum to continue from
 *
 * With AVX2, from HP_CSUM_COPY_FUSED_MIN bytes, one pass that copies and
 * sums each vector (hp_csum_copy_avx2()); otherwise the C library's
 * memcpy (tuned per CPU), then hp_csum() on the destination while it is
 * still in L1.
 *
 * Return: the canonical 32-bit sum of @sum and the bytes; csum_fold() of
 * it equals the reference's.
 */
uint32_t hp_csum_copy_hp(const void *src, void *dst, int len, uint32_t sum)
{
	if (len < fused_min)
		return copy_then_sum(src, dst, len, sum);
	return hp_csum_copy_avx2(src, dst, len, sum);
}
