// SPDX-License-Identifier: GPL-2.0-only
/*
 * CRC32C by VPCLMULQDQ folding on 256-bit registers, for CPUs that have
 * VPCLMULQDQ but no AVX-512 (Zen 3, Alder/Raptor Lake, Ice Lake client):
 * the 512-bit fold of crc32c_vpclmul_avx512.c (both are crc32c_vpclmul.h's)
 * with two 128-bit lanes per register and four registers, so eight lanes
 * fold 128 bytes per step (1024 bits, HP_FOLD_1024). No AVX-512
 * instruction: each fold is two VPCLMULQDQ and two XORs (no ternary
 * logic). The reduction is the 512-bit code's: registers to one (512 and
 * 256 bits apart, as a tree), the tail in 32-byte folds, the register's
 * two lanes to one (128 bits), then 16-byte blocks and two crc32q.
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

#include "crc32c_vpclmul_avx2.h"

/*
 * The fused method's bytes per stream per step (crc32c_vpclmul.h): each
 * step folds 128 bytes and runs FUSED2_STREAM bytes on each of the four
 * streams. Where it pays: the fold is bound by VPCLMULQDQ (two per 32
 * bytes; on Intel cores one a cycle on one port), crc32q by its own port
 * (one a cycle), so the streams add bytes the fold's port does not see.
 * FUSED2_STREAM measured on an Emerald Rapids with AVX-512 hidden
 * (docs/labs/crc32c.md, "256-bit VPCLMULQDQ").
 */
#ifndef FUSED2_STREAM
#define FUSED2_STREAM	16
#endif
#define VF_STREAM	FUSED2_STREAM

#include "crc32c_vpclmul.h"

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
 * Seed-last, as hp__crc32c_avx512_seedlast(): fold_from() from a zero
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

/* Fused: the 256-bit fold and four crc32q streams in one loop, as
 * hp__crc32c_fused512() does on 512-bit registers (crc32c_vpclmul.h). */
HP_AVX2V uint32_t hp__crc32c_fused256(uint32_t crc, const void *buf, size_t len)
{
	return fused(crc, buf, len);
}

uint32_t hp_crc32c_fused_vpclmul_avx2(uint32_t crc, const void *buf, size_t len)
{
	return hp__crc32c_fused256(crc, buf, len);
}
