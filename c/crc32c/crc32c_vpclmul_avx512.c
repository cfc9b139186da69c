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

/* The fold itself is crc32c_vpclmul.h's, on these registers. */
#define VF_TARGET	HP_AVX512
#define VF_BYTES	64
#define VF_K1		HP_FOLD_512
#define VF_K2		HP_FOLD_1024
#define VF_K4		HP_FOLD_2048
typedef __m512i vf_t;

static inline HP_AVX512 __m512i vf_fold(__m512i z, __m512i k, __m512i next)
{
	/* next ^ lo*k_lo ^ hi*k_hi in each 128-bit lane, one ternary XOR */
	return _mm512_ternarylogic_epi64(_mm512_clmulepi64_epi128(z, k, 0x00),
					 _mm512_clmulepi64_epi128(z, k, 0x11),
					 next, 0x96);
}

static inline HP_AVX512 __m512i vf_k(uint32_t k_lo, uint32_t k_hi)
{
	return _mm512_broadcast_i32x4(_mm_set_epi64x(k_hi, k_lo));
}

static inline HP_AVX512 __m512i vf_load(const uint8_t *p)
{
	return _mm512_loadu_si512(p);
}

/* The CRC so far joins the first four bytes. */
static inline HP_AVX512 __m512i vf_load_crc(const uint8_t *p, uint32_t crc)
{
	return _mm512_xor_si512(vf_load(p),
				_mm512_zextsi128_si512(_mm_cvtsi32_si128((int)crc)));
}

/* The register's four lanes, 16 bytes apart, to the last one. */
static inline HP_AVX512 __m128i lanes_to_one(__m512i z)
{
	__m128i a0 = _mm512_extracti32x4_epi32(z, 0);
	__m128i a1 = _mm512_extracti32x4_epi32(z, 1);
	__m128i a2 = _mm512_extracti32x4_epi32(z, 2);
	__m128i a3 = _mm512_extracti32x4_epi32(z, 3);

	return _mm_xor_si128(
		_mm_xor_si128(hp_fold(a0, hp_fold_k(HP_FOLD_384)),
			      hp_fold(a1, hp_fold_k(HP_FOLD_256))),
		_mm_xor_si128(hp_fold(a2, hp_fold_k(HP_FOLD_128)), a3));
}

/*
 * The fused method's bytes per stream per step (crc32c_vpclmul.h): each
 * step folds 256 bytes and runs FUSED_STREAM bytes on each of the four
 * streams. The fold is bound by VPCLMULQDQ (on a Zen 5 about 16
 * bytes/cycle, ISA-L's too), while the crc32 unit sits idle; four crc32q
 * streams beside it add what that unit does on its own.
 *
 * FUSED_STREAM measured on a Zen 5 (EPYC family 26 model 2, 2026-11-25,
 * core cycles at 1 MiB / 64 KiB, against 66.0k / 4.14k for the fold
 * alone): 32 bytes 47.0k / 2.94k, 40 45.9k / 2.88k, 48 45.1k / 2.82k,
 * 56 50.5k / 3.09k, 64 53.0k / 3.27k, 80 58.4k / 3.62k.
 */
#define FUSED_STREAM	48
#define VF_STREAM	FUSED_STREAM

#include "crc32c_vpclmul.h"

HP_AVX512 uint32_t hp__crc32c_avx512(uint32_t crc, const void *buf, size_t len)
{
	if (len < 256)
		return hp__crc32c_fold4(crc, buf, len);
	return fold_from(crc, buf, len);
}

uint32_t hp_crc32c_vpclmul_avx512(uint32_t crc, const void *buf, size_t len)
{
	return hp__crc32c_avx512(crc, buf, len);
}

/* 64 to 255 bytes from a zero CRC: one register, the next 64 bytes
 * folded into it 512 bits on, then fold_from()'s 16-byte tail. */
static inline __attribute__((always_inline)) HP_AVX512 uint32_t
fold_short0(const uint8_t *p, size_t len)
{
	__m512i z = vf_load(p);
	__m128i a, kx;

	for (p += 64, len -= 64; len >= 64; len -= 64, p += 64)
		z = vf_fold(z, vf_k(HP_FOLD_512), vf_load(p));
	a = lanes_to_one(z);
	kx = hp_fold_k(HP_FOLD_128);
	for (; len >= 16; len -= 16, p += 16)
		a = _mm_xor_si128(hp_fold(a, kx), hp_loadu128(p));
	return hp_crc32_stream(hp_fold_finish(a), p, len);
}

/*
 * Seed-last (crc32c_sse42.c's sse42-seedlast says why): fold_from()
 * from a zero CRC, and the input CRC times x^(8 len) by one PCLMULQDQ and
 * one crc32q, XORed in last. hp__crc32c_avx512() takes the CRC into its
 * first register, so a chain of calls (the lab's latency mode, a CRC
 * carried over fragments) waits for the whole fold and its reduction:
 * here only for the multiply. 128 to 255 bytes: fold_short0() (17.2 /
 * 17.1 cycles at 128 bytes, latency / throughput, against 19.2 / 19.1
 * for the 256-bit seed-last fold, Emerald Rapids); below 128 one
 * seed-last crc32q stream, which beat one zmm register there (64 bytes
 * 13 against 18 to 20). From HP_SEEDLAST_FOLD_MAX the CRC-first fold,
 * whose chain through the CRC is by then hidden behind the other
 * registers' loads and folds (2048 bytes: 73.2 / 73.2 against 74.2 /
 * 74.2 seed-last; docs/labs/crc32c.md, "Seed-last folds").
 */
#define SL512_FROM 128
HP_AVX512 uint32_t hp__crc32c_avx512_seedlast(uint32_t crc, const void *buf,
					      size_t len)
{
	if (len < SL512_FROM)
		return hp__crc32c_seedlast(crc, buf, len);
	if (len < 256)
		return fold_short0(buf, len) ^
		       hp_clmul_shift(crc, hp_crc32c_seed_k[len]);
	if (len >= HP_SEEDLAST_FOLD_MAX)
		return fold_from(crc, buf, len);
	return fold_from(0, buf, len) ^
	       hp_clmul_shift(crc, hp_crc32c_seed_k[len]);
}

uint32_t hp_crc32c_vpclmul_avx512_seedlast(uint32_t crc, const void *buf,
					   size_t len)
{
	return hp__crc32c_avx512_seedlast(crc, buf, len);
}

/* Fused: the 512-bit fold and four crc32q streams in one loop
 * (crc32c_vpclmul.h). */
HP_AVX512 uint32_t hp__crc32c_fused512(uint32_t crc, const void *buf,
				       size_t len)
{
	return fused(crc, buf, len);
}

uint32_t hp_crc32c_fused_vpclmul(uint32_t crc, const void *buf, size_t len)
{
	return hp__crc32c_fused512(crc, buf, len);
}
