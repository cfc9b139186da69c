// SPDX-License-Identifier: GPL-2.0-only
/*
 * hp_csum's AVX-512 path: the AVX2 path's lane arithmetic (csum_hp_avx2.c)
 * on 64-byte vectors, reading only whole aligned 64-byte blocks. Needs
 * AVX512F and AVX512BW (byte-masked loads); registered as needing both so
 * that it is only chosen on cores with full-width integer units.
 *
 * Why aligned blocks: a 64-byte load that is not 64-byte aligned always
 * crosses a cache line and costs two. The sum therefore runs over the
 * aligned blocks that hold the buffer: the first and last are loaded with
 * a byte mask that zeroes the bytes outside [buf, buf + len) (a masked
 * load does not touch them, so a guard page after the buffer stays
 * untouched), zeros add nothing, and the block sum, taken from the block
 * boundary, is put back at the buffer's own byte offset by a rotate. No
 * scalar head or tail is left.
 *
 * Measured on a Zen 5 (EPYC family 26 model 2, 2 vCPUs under KVM,
 * 2026-11-25; `hotpath csum --sizes 256..65536 --align 0,1 --variants
 * hp-csum-avx512 --with` the previous loop, core cycles, latency): the
 * previous loop (unaligned loads, a scalar tail, two accumulator pairs
 * that the compiler copied every iteration) took 263 cycles at 8 KiB odd
 * and 145 even; this one 113 and 111. From L2 (64 KiB) both run near
 * 45 bytes/cycle: 1454 odd against 2140, but 1464 even against 1415.
 */
#include <hotpath/csum.h>

#include <immintrin.h>

#include "csum_impl.h"

#define AVX512 __attribute__((target("avx512f,avx512bw")))

/* One 64-byte vector into a pair of accumulators (ALL += x, HI += x >> 32). */
#define ADD64(x, all, hi)                                              \
	do {                                                           \
		(all) = _mm512_add_epi64((all), (x));                  \
		(hi) = _mm512_add_epi64((hi), _mm512_srli_epi64((x), 32)); \
	} while (0)

/*
 * 128 aligned bytes into two accumulator pairs. In asm because the
 * compiler, left to itself, loads each vector twice (once per user) and
 * copies every accumulator once per iteration.
 */
AVX512 static inline void block128(const uint8_t *p, __m512i *all0,
				   __m512i *all1, __m512i *hi0, __m512i *hi1)
{
	__m512i x0, x1;

	__asm__("vmovdqa64 0(%[p]),%[x0]\n\t"
		"vmovdqa64 64(%[p]),%[x1]\n\t"
		"vpaddq %[x0],%[a0],%[a0]\n\t"
		"vpsrlq $32,%[x0],%[x0]\n\t"
		"vpaddq %[x1],%[a1],%[a1]\n\t"
		"vpsrlq $32,%[x1],%[x1]\n\t"
		"vpaddq %[x0],%[h0],%[h0]\n\t"
		"vpaddq %[x1],%[h1],%[h1]"
		: [a0] "+v"(*all0), [a1] "+v"(*all1), [h0] "+v"(*hi0),
		  [h1] "+v"(*hi1), [x0] "=&v"(x0), [x1] "=&v"(x1)
		: [p] "r"(p), "m"(*(const uint8_t(*)[128])p));
}

/* Any @len from 65 on (the first and last blocks differ). */
AVX512 static inline __attribute__((always_inline)) uint32_t
avx512_body(const void *buf, size_t len, uint32_t sum)
{
	const uint8_t *p = buf;
	size_t k = (uintptr_t)p & 63, n;
	__m512i all0, all1, all2, all3, hi0, hi1, hi2, hi3, all, hi, t;
	uint32_t r;

	/* p: the block holding the first byte; n: bytes from p to the end */
	p -= k;
	n = k + (size_t)len;
	all1 = hi1 = all2 = hi2 = all3 = hi3 = _mm512_setzero_si512();
	{
		__m512i x = _mm512_maskz_loadu_epi8(~0ull << k, p);

		all0 = x;
		hi0 = _mm512_srli_epi64(x, 32);
	}
	p += 64;
	n -= 64;
	/* Four accumulator pairs: with two, each updated once per 128
	 * bytes, the Zen 5 took 280 cycles at 16 KiB; with four, 216. */
	while (n >= 256) {
		block128(p, &all0, &all1, &hi0, &hi1);
		block128(p + 128, &all2, &all3, &hi2, &hi3);
		p += 256;
		n -= 256;
	}
	all0 = _mm512_add_epi64(all0, all2);
	all1 = _mm512_add_epi64(all1, all3);
	hi0 = _mm512_add_epi64(hi0, hi2);
	hi1 = _mm512_add_epi64(hi1, hi3);
	if (n >= 128) {
		block128(p, &all0, &all1, &hi0, &hi1);
		p += 128;
		n -= 128;
	}
	if (n >= 64) {
		__m512i x = _mm512_load_si512((const void *)p);

		ADD64(x, all1, hi1);
		p += 64;
		n -= 64;
	}
	if (n) {
		__m512i x = _mm512_maskz_loadu_epi8(~0ull >> (64 - n), p);

		ADD64(x, all0, hi0);
	}
	all = _mm512_add_epi64(all0, all1);
	hi = _mm512_add_epi64(hi0, hi1);
	/* ALL = L + 2^32 H (mod 2^64) per lane, H exact: recover L. */
	t = _mm512_add_epi64(_mm512_sub_epi64(all, _mm512_slli_epi64(hi, 32)),
			     hi);
	r = csum_fold64((uint64_t)_mm512_reduce_add_epi64(t));
	/* byte i of the block sum is byte i - k of the buffer's */
	if (k & 3)
		r = csum_ror32(r, 8 * (k & 3));
	return csum_add32c(r, sum);
}

/**
 * hp_csum_avx512() - hp_csum's AVX-512 path, for any length.
 * @buf: bytes, any alignment
 * @len: length in bytes, >= 0
 * @sum: 32-bit partial sum to continue from
 *
 * Return: the same bits as hp_csum_scalar().
 */
AVX512 uint32_t hp_csum_avx512(const void *buf, int len, uint32_t sum)
{
	if (len < 128)
		return hp_csum_scalar_local(buf, len, sum);
	return avx512_body(buf, (size_t)len, sum);
}

/* hp_csum_avx512() past its short-length test, for hp_csum()'s shortcut,
 * which takes it from 128 bytes only (csum_hp_plan.c). */
AVX512 uint32_t hp__csum_avx512_long(const void *buf, int64_t len, uint32_t sum)
{
	return avx512_body(buf, (size_t)len, sum);
}
