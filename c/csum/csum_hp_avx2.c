// SPDX-License-Identifier: GPL-2.0-only
/*
 * hp_csum's AVX2 path: 32-bit words summed into 64-bit lanes without
 * any carry handling, three vector operations per 32 bytes.
 *
 * The lane arithmetic is in csum_avx2_lanes.h.
 */
#include <hotpath/csum.h>

#include <immintrin.h>

#include "csum_avx2_lanes.h"
#include "csum_impl.h"

/*
 * 128 bytes into the accumulators. Written in asm because the compiler,
 * left to itself, folds each load into both of its users (a second load
 * per vector) and reassociates the adds into register copies, each a
 * costly 256-bit move on Zen 1-class cores.
 *
 * The high dwords come out two ways, alternately: a 256-bit shift holds
 * the single shift pipe of such cores for two cycles, while the byte
 * shuffle can use a second pipe, so mixing the two keeps the four vector
 * pipes busy.
 */
AVX2 static inline void block128(const uint8_t *p, __m256i *all0,
				 __m256i *all1, __m256i *hi0, __m256i *hi1,
				 __m256i m)
{
	__m256i x0, x1, x2, x3;

	__asm__("vmovdqu 0(%[p]),%[x0]\n\t"
		"vmovdqu 32(%[p]),%[x1]\n\t"
		"vmovdqu 64(%[p]),%[x2]\n\t"
		"vmovdqu 96(%[p]),%[x3]\n\t"
		"vpaddq %[x0],%[a0],%[a0]\n\t"
		"vpsrlq $32,%[x0],%[x0]\n\t"
		"vpaddq %[x1],%[a1],%[a1]\n\t"
		"vpshufb %[m],%[x1],%[x1]\n\t"
		"vpaddq %[x2],%[a0],%[a0]\n\t"
		"vpshufb %[m],%[x2],%[x2]\n\t"
		"vpaddq %[x3],%[a1],%[a1]\n\t"
		"vpsrlq $32,%[x3],%[x3]\n\t"
		"vpaddq %[x0],%[h0],%[h0]\n\t"
		"vpaddq %[x1],%[h1],%[h1]\n\t"
		"vpaddq %[x2],%[h0],%[h0]\n\t"
		"vpaddq %[x3],%[h1],%[h1]"
		: [a0] "+x"(*all0), [a1] "+x"(*all1), [h0] "+x"(*hi0),
		  [h1] "+x"(*hi1), [x0] "=&x"(x0), [x1] "=&x"(x1),
		  [x2] "=&x"(x2), [x3] "=&x"(x3)
		: [p] "r"(p), [m] "x"(m), "m"(*(const uint8_t(*)[128])p));
}

/* The vector loop's remainder: one 64-byte step, then scalar. */
AVX2 static inline uint32_t finish(const uint8_t *p, size_t n, __m256i all0,
				   __m256i all1, __m256i hi0, __m256i hi1,
				   __m256i m, uint32_t sum)
{
	uint32_t r;

	if (n >= 64) {
		__m256i x0 = _mm256_loadu_si256((const __m256i *)p);
		__m256i x1 = _mm256_loadu_si256((const __m256i *)(p + 32));

		all0 = _mm256_add_epi64(all0, x0);
		hi0 = _mm256_add_epi64(hi0, _mm256_srli_epi64(x0, 32));
		all1 = _mm256_add_epi64(all1, x1);
		hi1 = _mm256_add_epi64(hi1, _mm256_shuffle_epi8(x1, m));
		p += 64;
		n -= 64;
	}
	r = lanes_reduce(all0, all1, hi0, hi1);
	if (n)
		r = csum_add32c(r, hp_csum_scalar_nosum(p, n));
	return csum_add32c(r, sum);
}

/* The pure vector loop over @n bytes at @p, without any input sum. */
AVX2 static inline __attribute__((always_inline)) uint32_t
avx2_body(const uint8_t *p, size_t n)
{
	const __m256i m = HI_DWORDS;
	__m256i all0, all1, hi0, hi1;

	all0 = all1 = hi0 = hi1 = _mm256_setzero_si256();
	while (n >= 128) {
		block128(p, &all0, &all1, &hi0, &hi1, m);
		p += 128;
		n -= 128;
	}
	return finish(p, n, all0, all1, hi0, hi1, m, 0);
}

/* Four independent 32-byte adc chains over 128 bytes. */
static inline void adc128(const uint8_t *p, uint64_t acc[4])
{
	acc[0] = csum_adc32(acc[0], p);
	acc[1] = csum_adc32(acc[1], p + 32);
	acc[2] = csum_adc32(acc[2], p + 64);
	acc[3] = csum_adc32(acc[3], p + 96);
}

/* 128 bytes on the vectors and the next 128 on four adc chains, at once. */
AVX2 static inline __attribute__((always_inline)) uint32_t
hybrid_body(const uint8_t *p, size_t n)
{
	const __m256i m = HI_DWORDS;
	__m256i all0, all1, hi0, hi1;
	uint64_t acc[4] = { 0, 0, 0, 0 };

	all0 = all1 = hi0 = hi1 = _mm256_setzero_si256();
	while (n >= 256) {
		block128(p, &all0, &all1, &hi0, &hi1, m);
		adc128(p + 128, acc);
		p += 256;
		n -= 256;
	}
	if (n >= 128) {
		block128(p, &all0, &all1, &hi0, &hi1, m);
		p += 128;
		n -= 128;
	}
	acc[0] = csum_add64c(acc[0], acc[1]);
	acc[2] = csum_add64c(acc[2], acc[3]);
	return finish(p, n, all0, all1, hi0, hi1, m,
		      csum_fold64(csum_add64c(acc[0], acc[2])));
}

/*
 * @body over @n >= 64 bytes at @p, from a 32-byte boundary when the
 * buffer is long. A 32-byte load that crosses a cache line costs two, and
 * from an odd address every other one does; but moving to the boundary
 * costs a scalar sum of the first 1..31 bytes and a rotate, about 15
 * cycles. Measured on the development machine (hybrid loop, odd address,
 * latency): 4408 -> 3937 cycles at 64 KiB, but 275 -> 283 at 4 KiB and
 * 143 -> 153 at 2 KiB; hence from 8 KiB only. The rest's sum, taken from its own start,
 * is put back at its byte offset from @p: rotated left 8 bits per byte of
 * offset modulo 4, since 2^32 = 1 modulo 2^32 - 1.
 */
#define HP_CSUM_ALIGN_MIN 8192

static inline __attribute__((always_inline)) uint32_t
from_boundary(const uint8_t *p, size_t n,
	      uint32_t (*body)(const uint8_t *, size_t))
{
	size_t k = -(uintptr_t)p & 31;
	uint32_t head, rest;

	if (!k || n < HP_CSUM_ALIGN_MIN)
		return body(p, n);
	head = hp_csum_scalar_nosum(p, k);
	rest = body(p + k, n - k);
	if (k & 3)
		rest = csum_ror32(rest, 32 - 8 * (k & 3));
	return csum_add32c(head, rest);
}

/**
 * hp_csum_avx2() - hp_csum's AVX2 path, for any length.
 * @buf: bytes, any alignment
 * @len: length in bytes, >= 0
 * @sum: 32-bit partial sum to continue from
 *
 * Return: the same bits as hp_csum_scalar().
 */
AVX2 uint32_t hp_csum_avx2(const void *buf, int len, uint32_t sum)
{
	if (len < 64)
		return csum_add32c(hp_csum_scalar_nosum(buf, (size_t)len), sum);
	return csum_add32c(from_boundary(buf, (size_t)len, avx2_body), sum);
}

/* hp_csum_avx2() past its short-length test, for hp_csum()'s shortcut. */
AVX2 uint32_t hp__csum_avx2_long(const void *buf, int64_t len, uint32_t sum)
{
	return csum_add32c(from_boundary(buf, (size_t)len, avx2_body), sum);
}

/**
 * hp_csum_avx2_hybrid() - AVX2 plus adc chains, for cores whose vector
 * side is the bottleneck.
 * @buf: bytes, any alignment
 * @len: length in bytes, >= 0
 * @sum: 32-bit partial sum to continue from
 *
 * On Zen 1-class cores a 256-bit operation is two 128-bit ones, and loads
 * into vector registers count against the same four-wide vector side, so
 * the pure vector loop tops out near 16 bytes/cycle with the integer
 * units idle. Giving every other 128 bytes to four adc chains runs both
 * sides at once. Elsewhere the vector side alone is faster.
 *
 * Return: the same bits as hp_csum_scalar().
 */
AVX2 uint32_t hp_csum_avx2_hybrid(const void *buf, int len, uint32_t sum)
{
	if (len < 64)
		return csum_add32c(hp_csum_scalar_nosum(buf, (size_t)len), sum);
	return csum_add32c(from_boundary(buf, (size_t)len, hybrid_body), sum);
}
