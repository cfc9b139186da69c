// SPDX-License-Identifier: GPL-2.0-only
/*
 * CRC32C by VPCLMULQDQ folding on 256-bit registers, for CPUs that have
 * VPCLMULQDQ but no AVX-512 (Zen 3, Alder/Raptor Lake, Ice Lake client):
 * the 512-bit fold of crc32c_vpclmul_avx512.c re-done with two 128-bit
 * lanes per register and four registers, so eight lanes fold 128 bytes
 * per step (1024 bits, HP_FOLD_1024). No AVX-512 instruction: each fold
 * is two VPCLMULQDQ and two XORs (no ternary logic). The reduction is the
 * 512-bit code's: registers to one (512 and 256 bits apart, as a tree),
 * the tail in 32-byte folds, the register's two lanes to one (128 bits),
 * then 16-byte blocks and two crc32q.
 *
 * Beside it the fused method: that fold and four crc32q streams in one
 * loop, hp__crc32c_fused512()'s block design on 256-bit registers.
 *
 * Needs SSE4.2, PCLMULQDQ, AVX2 and VPCLMULQDQ (the registry's .needs).
 * Run and timed only on an Emerald Rapids with AVX-512 hidden
 * (HOTPATH_CPU_HIDE=avx512f,avx512bw), never on a real AVX2-only CPU
 * (docs/labs/crc32c.md).
 */
#include <hotpath/crc32c.h>

#include "crc32c_internal.h"

#define HP_AVX2V __attribute__((target("sse4.2,pclmul,avx2,vpclmulqdq")))

/* next ^ lo*k_lo ^ hi*k_hi in each 128-bit lane. */
static inline HP_AVX2V __m256i fold256(__m256i z, __m256i k, __m256i next)
{
	return _mm256_xor_si256(
		_mm256_xor_si256(_mm256_clmulepi64_epi128(z, k, 0x00),
				 _mm256_clmulepi64_epi128(z, k, 0x11)),
		next);
}

static inline HP_AVX2V __m256i k256(uint32_t k_lo, uint32_t k_hi)
{
	return _mm256_broadcastsi128_si256(_mm_set_epi64x(k_hi, k_lo));
}

static inline HP_AVX2V __m256i load256(const uint8_t *p)
{
	return _mm256_loadu_si256((const __m256i *)p);
}

/* The four registers (32 bytes apart) to one, as a tree: z0 and z1 64
 * bytes forward into z2 and z3 at once, then z2 32 bytes into z3. */
static inline HP_AVX2V __m256i four_to_one(__m256i z0, __m256i z1, __m256i z2,
					   __m256i z3)
{
	z2 = fold256(z0, k256(HP_FOLD_512), z2);
	z3 = fold256(z1, k256(HP_FOLD_512), z3);
	return fold256(z2, k256(HP_FOLD_256), z3);
}

/* The register's two lanes, 16 bytes apart, to the last one. */
static inline HP_AVX2V __m128i lanes_to_one(__m256i z)
{
	return _mm_xor_si128(hp_fold(_mm256_castsi256_si128(z), hp_fold_k(HP_FOLD_128)),
			     _mm256_extracti128_si256(z, 1));
}

/* The fold of @len >= 128 bytes from @crc (0: the seed-last method). */
static inline __attribute__((always_inline)) HP_AVX2V uint32_t
fold_from(uint32_t crc, const uint8_t *p, size_t len)
{
	__m256i z0, z1, z2, z3, k;
	__m128i a, kx;

	/* The CRC so far joins the first four bytes. */
	z0 = _mm256_xor_si256(load256(p), _mm256_setr_epi32((int)crc, 0, 0, 0, 0, 0, 0, 0));
	z1 = load256(p + 32);
	z2 = load256(p + 64);
	z3 = load256(p + 96);
	p += 128;
	len -= 128;

	k = k256(HP_FOLD_1024);
	for (; len >= 128; len -= 128, p += 128) {
		z0 = fold256(z0, k, load256(p));
		z1 = fold256(z1, k, load256(p + 32));
		z2 = fold256(z2, k, load256(p + 64));
		z3 = fold256(z3, k, load256(p + 96));
	}
	/* Then the whole 32-byte blocks, one fold each (the 512-bit code's
	 * 64-byte tail folds, halved). */
	z3 = four_to_one(z0, z1, z2, z3);
	k = k256(HP_FOLD_256);
	for (; len >= 32; len -= 32, p += 32)
		z3 = fold256(z3, k, load256(p));
	a = lanes_to_one(z3);

	kx = hp_fold_k(HP_FOLD_128);
	for (; len >= 16; len -= 16, p += 16)
		a = _mm_xor_si128(hp_fold(a, kx), hp_loadu128(p));
	return hp_crc32_stream(hp_fold_finish(a), p, len);
}

HP_AVX2V uint32_t hp__crc32c_avx2(uint32_t crc, const void *buf, size_t len)
{
	if (len < 128)
		return hp__crc32c_fold4(crc, buf, len);
	return fold_from(crc, buf, len);
}

uint32_t hp_crc32c_vpclmul_avx2(uint32_t crc, const void *buf, size_t len)
{
	return hp__crc32c_avx2(crc, buf, len);
}

/*
 * Seed-last, as hp__crc32c_avx512_seedlast(): the fold above from a zero
 * CRC, the input CRC times x^(8 len) XORed in last. Below 128 bytes one
 * seed-last crc32q stream (hp__crc32c_seedlast), from
 * HP_SEEDLAST_FOLD_MAX the CRC-first fold.
 */
HP_AVX2V uint32_t hp__crc32c_avx2_seedlast(uint32_t crc, const void *buf,
					   size_t len)
{
	if (len < 128)
		return hp__crc32c_seedlast(crc, buf, len);
	if (len >= HP_SEEDLAST_FOLD_MAX)
		return fold_from(crc, buf, len);
	return fold_from(0, buf, len) ^
	       hp_clmul_shift(crc, hp_crc32c_seed_k[len]);
}

uint32_t hp_crc32c_vpclmul_avx2_seedlast(uint32_t crc, const void *buf,
					 size_t len)
{
	return hp__crc32c_avx2_seedlast(crc, buf, len);
}

/*
 * Fused: the 256-bit fold and four crc32q streams in one loop, as
 * hp__crc32c_fused512() does on 512-bit registers. Each step folds 128
 * bytes and runs FUSED2_STREAM bytes on each stream: a block of m steps
 * is its first 128m bytes folded, then four quarters of FUSED2_STREAM * m
 * bytes, one per stream, all from zero, merged by one PCLMULQDQ per part
 * and one crc32q. Blocks of up to FUSED2_MAX_STEPS steps (the stream
 * constants reach 4 KiB per stream); the CRC so far is carried over each
 * block by one more multiply, so no block waits for the one before. The
 * last bytes, fewer than a step: sse42-4way-seedlast.
 *
 * Where it pays: the fold is bound by VPCLMULQDQ (two per 32 bytes; on
 * Intel cores one a cycle on one port), crc32q by its own port (one a
 * cycle), so the streams add bytes the fold's port does not see.
 * FUSED2_STREAM measured on an Emerald Rapids with AVX-512 hidden
 * (docs/labs/crc32c.md, "256-bit VPCLMULQDQ").
 */
#ifndef FUSED2_STREAM
#define FUSED2_STREAM	16
#endif
#define FUSED2_STEP	(128 + 4 * FUSED2_STREAM)
#define FUSED2_MAX_STEPS (HP_STREAM_K_MAX / FUSED2_STREAM)

/* fused2_k[m] = x^(8 * FUSED2_STEP * m - 33): a CRC carried over m steps. */
static uint32_t fused2_k[FUSED2_MAX_STEPS + 1];

__attribute__((constructor)) static void fused2_k_init(void)
{
	hp_fused_k_fill(fused2_k, FUSED2_MAX_STEPS, FUSED2_STEP);
}

/* The CRC, from zero, of the block of @m steps at @p. */
static inline HP_AVX2V uint32_t fused2_block(const uint8_t *p, size_t m)
{
	const size_t s = FUSED2_STREAM * m;
	const uint8_t *b = p + 128 * m;
	const uint32_t *k = hp_crc32c_stream_k[s / 8 - 1];
	const __m256i kf = k256(HP_FOLD_1024);
	__m256i z0 = load256(p), z1 = load256(p + 32);
	__m256i z2 = load256(p + 64), z3 = load256(p + 96);
	uint64_t c[4] = { 0, 0, 0, 0 };

	for (size_t i = 1;; i++) {
		hp_fused_streams(c, b, s, FUSED2_STREAM);
		b += FUSED2_STREAM;
		if (i == m)
			break;
		p += 128;
		z0 = fold256(z0, kf, load256(p));
		z1 = fold256(z1, kf, load256(p + 32));
		z2 = fold256(z2, kf, load256(p + 64));
		z3 = fold256(z3, kf, load256(p + 96));
	}
	return hp_fused_merge(hp_fold_finish(lanes_to_one(four_to_one(z0, z1, z2, z3))),
			      c, k);
}

HP_AVX2V uint32_t hp__crc32c_fused256(uint32_t crc, const void *buf, size_t len)
{
	const uint8_t *p = buf;

	while (len >= FUSED2_STEP) {
		size_t m = len / FUSED2_STEP;

		if (m > FUSED2_MAX_STEPS)
			m = FUSED2_MAX_STEPS;
		crc = fused2_block(p, m) ^ hp_clmul_shift(crc, fused2_k[m]);
		p += FUSED2_STEP * m;
		len -= FUSED2_STEP * m;
	}
	return hp__crc32c_4way_seedlast(crc, p, len);
}

uint32_t hp_crc32c_fused_vpclmul_avx2(uint32_t crc, const void *buf, size_t len)
{
	return hp__crc32c_fused256(crc, buf, len);
}
