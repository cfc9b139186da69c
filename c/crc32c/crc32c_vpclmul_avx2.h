/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The 256-bit registers of crc32c_vpclmul.h's fold (SSE4.2, PCLMULQDQ,
 * AVX2, VPCLMULQDQ; no AVX-512): for crc32c_vpclmul_avx2.c and the
 * fused loop's other shapes (crc32c_fused256_4x24.c, _4x32.c), each of which
 * then sets VF_STREAM and includes crc32c_vpclmul.h.
 */
#ifndef HOTPATH_CRC32C_VPCLMUL_AVX2_H
#define HOTPATH_CRC32C_VPCLMUL_AVX2_H

#include "crc32c_internal.h"

#define HP_AVX2V __attribute__((target("sse4.2,pclmul,avx2,vpclmulqdq")))

/* The fold itself is crc32c_vpclmul.h's, on these registers. */
#define VF_TARGET	HP_AVX2V
#define VF_BYTES	32
#define VF_K1		HP_FOLD_256
#define VF_K2		HP_FOLD_512
#define VF_K4		HP_FOLD_1024
typedef __m256i vf_t;

/* next ^ lo*k_lo ^ hi*k_hi in each 128-bit lane. */
static inline HP_AVX2V __m256i vf_fold(__m256i z, __m256i k, __m256i next)
{
	return _mm256_xor_si256(
		_mm256_xor_si256(_mm256_clmulepi64_epi128(z, k, 0x00),
				 _mm256_clmulepi64_epi128(z, k, 0x11)),
		next);
}

static inline HP_AVX2V __m256i vf_k(uint32_t k_lo, uint32_t k_hi)
{
	return _mm256_broadcastsi128_si256(_mm_set_epi64x(k_hi, k_lo));
}

static inline HP_AVX2V __m256i vf_load(const uint8_t *p)
{
	return _mm256_loadu_si256((const __m256i *)p);
}

/* The CRC so far joins the first four bytes. */
static inline HP_AVX2V __m256i vf_load_crc(const uint8_t *p, uint32_t crc)
{
	return _mm256_xor_si256(vf_load(p), _mm256_setr_epi32((int)crc, 0, 0, 0, 0, 0, 0, 0));
}

/* The register's two lanes, 16 bytes apart, to the last one. */
static inline HP_AVX2V __m128i lanes_to_one(__m256i z)
{
	return _mm_xor_si128(hp_fold(_mm256_castsi256_si128(z), hp_fold_k(HP_FOLD_128)),
			     _mm256_extracti128_si256(z, 1));
}

#endif /* HOTPATH_CRC32C_VPCLMUL_AVX2_H */
