// SPDX-License-Identifier: GPL-2.0-only
/*
 * CRC32C by VPCLMULQDQ folding on 512-bit registers: the PCLMULQDQ fold of
 * crc32c_pclmul_fold.c with four 128-bit lanes per register and four
 * registers, so sixteen lanes fold 256 bytes per step. The reduction is
 * the same as the 128-bit code's: registers to one register (512 bits
 * apart), its four lanes to one (384/256/128 bits), then 16-byte blocks
 * and two crc32q.
 *
 * The registry marks it as needing AVX512F|AVX512BW|AVX512VL|VPCLMUL: the
 * engine lists it as skipped on CPUs without and times it, after checking
 * it against the reference, where the CPU has them (run and tested on a
 * Zen 5, 2026-11-25).
 */
#include <hotpath/crc32c.h>

#include "crc32c_internal.h"

#define HP_AVX512 __attribute__((target("sse4.2,pclmul,avx512f,avx512bw,avx512vl,vpclmulqdq")))

/* {x^2079, x^2015}: 2048 bits forward, one whole step of 256 bytes. */
#define HP_FOLD_2048	0xdcb17aa4u, 0xb9e02b86u

static inline HP_AVX512 __m512i fold512(__m512i z, __m512i k, __m512i next)
{
	/* next ^ lo*k_lo ^ hi*k_hi in each 128-bit lane, one ternary XOR */
	return _mm512_ternarylogic_epi64(_mm512_clmulepi64_epi128(z, k, 0x00),
					 _mm512_clmulepi64_epi128(z, k, 0x11),
					 next, 0x96);
}

static inline HP_AVX512 __m512i k512(uint32_t k_lo, uint32_t k_hi)
{
	return _mm512_broadcast_i32x4(_mm_set_epi64x(k_hi, k_lo));
}

HP_AVX512 uint32_t hp__crc32c_avx512(uint32_t crc, const void *buf, size_t len)
{
	const uint8_t *p = buf;
	__m512i z0, z1, z2, z3, k;
	__m128i a0, a1, a2, a3, kx;

	if (len < 256)
		return hp__crc32c_fold4(crc, buf, len);

	z0 = _mm512_xor_si512(_mm512_loadu_si512(p),
			      _mm512_zextsi128_si512(
				      _mm_cvtsi32_si128((int)crc)));
	z1 = _mm512_loadu_si512(p + 64);
	z2 = _mm512_loadu_si512(p + 128);
	z3 = _mm512_loadu_si512(p + 192);
	p += 256;
	len -= 256;

	k = k512(HP_FOLD_2048);
	for (; len >= 256; len -= 256, p += 256) {
		z0 = fold512(z0, k, _mm512_loadu_si512(p));
		z1 = fold512(z1, k, _mm512_loadu_si512(p + 64));
		z2 = fold512(z2, k, _mm512_loadu_si512(p + 128));
		z3 = fold512(z3, k, _mm512_loadu_si512(p + 192));
	}
	/* The four registers to one as a tree (z0 and z1 128 bytes forward
	 * into z2 and z3 at once, then z2 into z3): two dependent folds,
	 * not three, 7 to 14 cycles less latency at 256 to 1420 bytes on a
	 * Zen 5 (EPYC family 26 model 2; 512 bytes 62.2 -> 54.7), the same
	 * throughput. Then the remaining whole 64-byte blocks: folding the
	 * tail 16 bytes at a time instead, one dependent multiply each, cost
	 * up to 15 in a row (710 bytes: 170.9 cycles against 62.2 at 512;
	 * 91.4 with 64-byte blocks). */
	z2 = fold512(z0, k512(HP_FOLD_1024), z2);
	z3 = fold512(z1, k512(HP_FOLD_1024), z3);
	k = k512(HP_FOLD_512);
	z3 = fold512(z2, k, z3);
	for (; len >= 64; len -= 64, p += 64)
		z3 = fold512(z3, k, _mm512_loadu_si512(p));

	/* The register's four lanes, 16 bytes apart, to the last one. */
	a0 = _mm512_extracti32x4_epi32(z3, 0);
	a1 = _mm512_extracti32x4_epi32(z3, 1);
	a2 = _mm512_extracti32x4_epi32(z3, 2);
	a3 = _mm512_extracti32x4_epi32(z3, 3);
	a3 = _mm_xor_si128(
		_mm_xor_si128(hp_fold(a0, hp_fold_k(HP_FOLD_384)),
			      hp_fold(a1, hp_fold_k(HP_FOLD_256))),
		_mm_xor_si128(hp_fold(a2, hp_fold_k(HP_FOLD_128)), a3));

	kx = hp_fold_k(HP_FOLD_128);
	for (; len >= 16; len -= 16, p += 16)
		a3 = _mm_xor_si128(hp_fold(a3, kx), hp_loadu128(p));
	return hp_crc32_stream(hp_fold_finish(a3), p, len);
}

uint32_t hp_crc32c_vpclmul_avx512(uint32_t crc, const void *buf, size_t len)
{
	return hp__crc32c_avx512(crc, buf, len);
}
