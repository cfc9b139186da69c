/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The AVX2 lane arithmetic shared by hp_csum's vector path and the fused
 * copy-and-checksum: 32-bit words summed into 64-bit lanes without any
 * carry handling.
 *
 * Each 64-bit lane x = lo + 2^32 hi is added whole into ALL (wrapping,
 * so carries out of bit 63 are lost) and its high half alone into HI
 * (exact: a lane needs 2^32 additions to overflow). Modulo 2^64,
 * ALL = L + 2^32 H, so L = ALL - (H << 32) exactly, since L < 2^64 too.
 * Then L + H is congruent to the sum of all 32-bit words modulo 2^32 - 1,
 * which is what the Internet checksum needs. No shuffles, no carries:
 * one shift and two adds per vector.
 */
#ifndef HOTPATH_CSUM_AVX2_LANES_H
#define HOTPATH_CSUM_AVX2_LANES_H

#include <immintrin.h>
#include <stdint.h>

#include "csum_impl.h"

#define AVX2 __attribute__((target("avx2")))

AVX2 static inline __m256i lanes_total(__m256i all, __m256i hi)
{
	__m256i lo = _mm256_sub_epi64(all, _mm256_slli_epi64(hi, 32));

	return _mm256_add_epi64(lo, hi);
}

/* Horizontal sum of the lanes, folded to the canonical 32 bits. */
AVX2 static inline uint32_t lanes_reduce(__m256i all0, __m256i all1,
					 __m256i hi0, __m256i hi1)
{
	__m256i t = lanes_total(_mm256_add_epi64(all0, all1),
				_mm256_add_epi64(hi0, hi1));
	__m128i s = _mm_add_epi64(_mm256_castsi256_si128(t),
				  _mm256_extracti128_si256(t, 1));

	s = _mm_add_epi64(s, _mm_unpackhi_epi64(s, s));
	/* A plain 64-bit total (< 2^61 for any int length): fold it. */
	return csum_fold64((uint64_t)_mm_cvtsi128_si64(s));
}

/* bytes 4..7 and 12..15 of each 16 down to 0..3 and 8..11, zeroed above:
 * the high dword of each 64-bit lane, zero-extended */
#define HI_DWORDS _mm256_setr_epi8(4, 5, 6, 7, -1, -1, -1, -1,		\
				   12, 13, 14, 15, -1, -1, -1, -1,	\
				   4, 5, 6, 7, -1, -1, -1, -1,		\
				   12, 13, 14, 15, -1, -1, -1, -1)

#endif /* HOTPATH_CSUM_AVX2_LANES_H */
