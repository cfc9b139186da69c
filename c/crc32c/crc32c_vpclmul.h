/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The VPCLMULQDQ fold, written once for both register widths: included by
 * crc32c_vpclmul_avx2.c (256-bit registers, two 128-bit lanes each) and
 * crc32c_vpclmul_avx512.c (512-bit, four lanes), each compiled for its
 * own target. The file defines first:
 *
 *   VF_TARGET		its __attribute__((target(...)))
 *   vf_t		the register type
 *   VF_BYTES		the register's width in bytes (32, 64)
 *   VF_K1, VF_K2, VF_K4	the fold constants for one, two and four
 *			registers forward (HP_FOLD_256/512/1024 for 256
 *			bits; HP_FOLD_512/1024/2048 for 512)
 *   VF_STREAM		the fused method's bytes per crc32q stream per step
 *
 * and these, each static inline and compiled for VF_TARGET:
 *
 *   vf_t vf_fold(vf_t z, vf_t k, vf_t next)	next ^ lo*k_lo ^ hi*k_hi
 *						in each 128-bit lane
 *   vf_t vf_k(uint32_t k_lo, uint32_t k_hi)	the constants in each lane
 *   vf_t vf_load(const uint8_t *p)		an unaligned load
 *   vf_t vf_load_crc(const uint8_t *p, uint32_t crc)	a load, the CRC
 *						so far XORed into its first
 *						four bytes
 *   __m128i lanes_to_one(vf_t z)		the register's lanes, 16
 *						bytes apart, to the last one
 *
 * Everything here carries VF_TARGET and is static, so each width's code is
 * compiled in its file, for its target, as when each file held its own
 * copy; inlined or not, nothing runs an instruction its file's target does
 * not allow. fold_from() and fused() are always_inline; four_to_one() and
 * fused_block() plain inline, as they were in each file (GCC inlines
 * four_to_one() anyway; always_inline on it moved instructions in the
 * 512-bit code).
 */
#ifndef HOTPATH_CRC32C_VPCLMUL_H
#define HOTPATH_CRC32C_VPCLMUL_H

#include "crc32c_internal.h"

#define VF_STEP (4 * VF_BYTES)	/* bytes folded per step: four registers */

/*
 * The four registers to one as a tree (z0 and z1 two registers forward
 * into z2 and z3 at once, then z2 into z3): two dependent folds, not
 * three, 7 to 14 cycles less latency at 256 to 1420 bytes for the 512-bit
 * fold on a Zen 5 (EPYC family 26 model 2; 512 bytes 62.2 -> 54.7), the
 * same throughput.
 */
static inline VF_TARGET vf_t four_to_one(vf_t z0, vf_t z1, vf_t z2, vf_t z3)
{
	z2 = vf_fold(z0, vf_k(VF_K2), z2);
	z3 = vf_fold(z1, vf_k(VF_K2), z3);
	return vf_fold(z2, vf_k(VF_K1), z3);
}

/* The fold of @len >= VF_STEP bytes from @crc (0: the seed-last method). */
static inline __attribute__((always_inline)) VF_TARGET uint32_t
fold_from(uint32_t crc, const uint8_t *p, size_t len)
{
	vf_t z0, z1, z2, z3, k;
	__m128i a, kx;

	z0 = vf_load_crc(p, crc);
	z1 = vf_load(p + VF_BYTES);
	z2 = vf_load(p + 2 * VF_BYTES);
	z3 = vf_load(p + 3 * VF_BYTES);
	p += VF_STEP;
	len -= VF_STEP;

	k = vf_k(VF_K4);
	for (; len >= VF_STEP; len -= VF_STEP, p += VF_STEP) {
		z0 = vf_fold(z0, k, vf_load(p));
		z1 = vf_fold(z1, k, vf_load(p + VF_BYTES));
		z2 = vf_fold(z2, k, vf_load(p + 2 * VF_BYTES));
		z3 = vf_fold(z3, k, vf_load(p + 3 * VF_BYTES));
	}
	/* Then the remaining whole registers, one fold each: folding the
	 * tail 16 bytes at a time instead, one dependent multiply each, cost
	 * up to 15 in a row for the 512-bit fold on a Zen 5 (710 bytes: 170.9
	 * cycles against 62.2 at 512; 91.4 with 64-byte blocks). */
	z3 = four_to_one(z0, z1, z2, z3);
	k = vf_k(VF_K1);
	for (; len >= VF_BYTES; len -= VF_BYTES, p += VF_BYTES)
		z3 = vf_fold(z3, k, vf_load(p));
	a = lanes_to_one(z3);

	kx = hp_fold_k(HP_FOLD_128);
	for (; len >= 16; len -= 16, p += 16)
		a = _mm_xor_si128(hp_fold(a, kx), hp_loadu128(p));
	return hp_crc32_stream(hp_fold_finish(a), p, len);
}

/*
 * The fused method: the fold and four crc32q streams in one loop. Each
 * step folds VF_STEP bytes and runs VF_STREAM bytes on each stream: a
 * block of m steps is its first VF_STEP * m bytes folded, then four
 * quarters of VF_STREAM * m bytes, one per stream, all from zero, merged
 * by one PCLMULQDQ per part and one crc32q (stream constants from
 * crc32c_sse42.c). Blocks of up to FUSED_MAX_STEPS steps (the stream
 * constants reach 4 KiB per stream); the CRC so far is carried over each
 * block by one more multiply, so no block waits for the one before. The
 * last bytes, fewer than a step: sse42-4way-seedlast, which takes the CRC
 * last too.
 */
#define FUSED_STEP	(VF_STEP + 4 * VF_STREAM)
#define FUSED_MAX_STEPS	(HP_STREAM_K_MAX / VF_STREAM)

/* fused_k[m] = x^(8 * FUSED_STEP * m - 33): a CRC carried over m steps. */
static uint32_t fused_k[FUSED_MAX_STEPS + 1];

__attribute__((constructor)) static void fused_k_init(void)
{
	hp_fused_k_fill(fused_k, FUSED_MAX_STEPS, FUSED_STEP);
}

/* The CRC, from zero, of the block of @m steps at @p. */
static inline VF_TARGET uint32_t fused_block(const uint8_t *p, size_t m)
{
	const size_t s = VF_STREAM * m;
	const uint8_t *b = p + VF_STEP * m;
	const uint32_t *k = hp_crc32c_stream_k[s / 8 - 1];
	const vf_t kf = vf_k(VF_K4);
	vf_t z0 = vf_load(p), z1 = vf_load(p + VF_BYTES);
	vf_t z2 = vf_load(p + 2 * VF_BYTES), z3 = vf_load(p + 3 * VF_BYTES);
	uint64_t c[4] = { 0, 0, 0, 0 };

	for (size_t i = 1;; i++) {
		hp_fused_streams(c, b, s, VF_STREAM);
		b += VF_STREAM;
		if (i == m)
			break;
		p += VF_STEP;
		z0 = vf_fold(z0, kf, vf_load(p));
		z1 = vf_fold(z1, kf, vf_load(p + VF_BYTES));
		z2 = vf_fold(z2, kf, vf_load(p + 2 * VF_BYTES));
		z3 = vf_fold(z3, kf, vf_load(p + 3 * VF_BYTES));
	}
	return hp_fused_merge(hp_fold_finish(lanes_to_one(four_to_one(z0, z1, z2, z3))),
			      c, k);
}

static inline __attribute__((always_inline)) VF_TARGET uint32_t
fused(uint32_t crc, const uint8_t *p, size_t len)
{
	while (len >= FUSED_STEP) {
		size_t m = len / FUSED_STEP;

		if (m > FUSED_MAX_STEPS)
			m = FUSED_MAX_STEPS;
		crc = fused_block(p, m) ^ hp_clmul_shift(crc, fused_k[m]);
		p += FUSED_STEP * m;
		len -= FUSED_STEP * m;
	}
	return hp__crc32c_4way_seedlast(crc, p, len);
}

#endif /* HOTPATH_CRC32C_VPCLMUL_H */
