// SPDX-License-Identifier: GPL-2.0-only
/*
 * The 256-bit fused loop in another shape: each step folds 128 bytes
 * (four ymm registers, eight VPCLMULQDQ) and runs 24 bytes on each of
 * four crc32q streams, where avx2-fused (crc32c_vpclmul_avx2.c) runs 16.
 * Which shape wins is the core's ratio of VPCLMULQDQ to crc32q: where a
 * 256-bit VPCLMULQDQ issues every other cycle (Zen 3) the fold's 128
 * bytes take 16 cycles, in which crc32q (one a cycle) runs 16 words:
 * 4 x 32 bytes. Where it issues every cycle, 4 x 16. A row names the
 * shape (avx2-fused, avx2-fused-4x24, avx2-fused-4x32) and the set-up's
 * measurement (hotpath dispatch) picks it per CPU (docs/dispatch.md,
 * "The fused loop's shape").
 */
#include <hotpath/crc32c.h>

#include "crc32c_vpclmul_avx2.h"

#define VF_STREAM	24

#include "crc32c_vpclmul.h"

HP_AVX2V uint32_t hp__crc32c_fused256_4x24(uint32_t crc, const void *buf, size_t len)
{
	return fused(crc, buf, len);
}

uint32_t hp_crc32c_fused_vpclmul_avx2_4x24(uint32_t crc, const void *buf, size_t len)
{
	return hp__crc32c_fused256_4x24(crc, buf, len);
}
