// SPDX-License-Identifier: GPL-2.0-only
/*
 * The crc32c primitive: its variants, how a variant is checked against
 * the bitwise reference, and how a burst of calls is timed. The engine
 * passes the chained value as uint64_t; the CRC is its low 32 bits.
 */
#include <hotpath/bench.h>
#include <hotpath/crc32c.h>
#include "crc32c_bursts.h"

#include <limits.h>

static uint32_t crc32c_empty(uint32_t crc, const void *buf, size_t len)
{
	return crc;
}

static int crc32c_check(const struct hp_variant *v, const uint8_t *buf,
			size_t len, uint64_t seed, uint64_t *expected,
			uint64_t *got)
{
	uint32_t s = (uint32_t)seed;

	*expected = hp_crc32c_ref(s, buf, len);
	*got = ((hp_crc32c_fn)v->fn)(s, buf, len);
	return *expected != *got;
}

/* The common slip: a CRC that inverts before and after, as zlib's crc32()
 * and ISA-L's crc32_iscsi() do, where the kernel's crc32c() does not. */
static const char *crc32c_explain(const uint8_t *buf, size_t len,
				  uint64_t seed, uint64_t got)
{
	uint32_t inverted = ~hp_crc32c_ref(~(uint32_t)seed, buf, len);

	if (got == inverted)
		return "inverting convention? it returned ~crc32c(~seed); the "
		       "kernel's crc32c() takes and returns the raw register";
	return NULL;
}

HP_BURST_COPIES(crc32c_burst_sites, crc32c_burst);

static const char *crc32c_promise_name(uint32_t promise)
{
	return promise == HP_CRC32C_EQUAL ? "equal to the bitwise reference"
					  : "unknown";
}

#define FOLD	(HP_CPU_SSE42 | HP_CPU_PCLMUL)

static const struct hp_variant crc32c_variants[] = {
	{
		.name = "bitwise-ref",
		.fn = hp_crc32c_ref,
		.desc = "reference: one bit at a time, reflected 0x82F63B78",
		.origin = "the CRC definition (Castagnoli 1993, RFC 3720 B.4)",
	},
	{
		.name = "bytewise-table",
		.fn = hp_crc32c_bytewise,
		.desc = "one 256-entry table lookup per byte",
		.origin = "Sarwate 1988; Linux lib/crc32 generic path",
	},
	{
		.name = "slice-by-8",
		.fn = hp_crc32c_slice8,
		.desc = "eight table lookups per 8 bytes, eight tables",
		.origin = "Intel slicing-by-8 (Kounavis, Berry 2005)",
	},
	{
		.name = "sse42-1stream",
		.fn = hp_crc32c_sse42,
		.needs = HP_CPU_SSE42,
		.desc = "one dependent crc32q stream, then crc32l/w/b",
		.origin = "Linux arch/x86 crc32c below 512 bytes",
	},
	{
		.name = "sse42-3way",
		.fn = hp_crc32c_sse42_3way,
		.needs = FOLD,
		.desc = "three crc32q streams over thirds, merged by PCLMULQDQ",
		.origin = "Linux crc32c-3way (Intel iSCSI CRC32 paper), from any length",
	},
	{
		.name = "sse42-4way",
		.fn = hp_crc32c_sse42_4way,
		.needs = FOLD,
		.desc = "four crc32q streams (remainder first), one merge; 16 KiB blocks pipelined",
		.origin = "hotpath's own, after the Intel iSCSI CRC32 paper's three streams",
	},
	{
		.name = "sse42-seedlast",
		.fn = hp_crc32c_sse42_seedlast,
		.needs = FOLD,
		.desc = "one crc32q stream from zero, input CRC multiplied in last (PCLMULQDQ)",
		.origin = "hotpath's own (CRC linearity); below 512 bytes, one stream above",
	},
	{
		.name = "sse42-4way-seedlast",
		.fn = hp_crc32c_sse42_4way_seedlast,
		.needs = FOLD,
		.desc = "sse42-4way from zero, input CRC multiplied in last within its merge",
		.origin = "hotpath's own; below 512 bytes, sse42-4way above",
	},
	{
		.name = "kernel-x86",
		.flags = HP_V_REIMPL,
		.fn = hp_crc32c_kernel_x86,
		.needs = FOLD,
		.desc = "one stream below 512 bytes, three from 512",
		.origin = "Linux arch/x86 crc32c dispatch (CRC32C_PCLMUL_BREAKEVEN)",
	},
	{
		.name = "pclmul-fold4",
		.fn = hp_crc32c_pclmul_fold4,
		.needs = FOLD,
		.desc = "PCLMULQDQ folding, 4 x 128-bit lanes, crc32q to reduce",
		.origin = "Intel, Fast CRC Computation Using PCLMULQDQ (2009)",
	},
	{
		.name = "pclmul-fold8",
		.fn = hp_crc32c_pclmul_fold8,
		.needs = FOLD,
		.desc = "PCLMULQDQ folding, 8 x 128-bit lanes, crc32q to reduce",
		.origin = "Intel, Fast CRC Computation Using PCLMULQDQ (2009)",
	},
	{
		.name = "vpclmul-avx512",
		.fn = hp_crc32c_vpclmul_avx512,
		.needs = FOLD | HP_CPU_AVX512F | HP_CPU_AVX512BW |
			 HP_CPU_AVX512VL | HP_CPU_VPCLMUL,
		.desc = "VPCLMULQDQ folding, 4 zmm x 4 lanes, the tail in 64-byte folds",
		.origin = "Intel PCLMULQDQ folding widened to 512 bits",
	},
	{
		.name = "fused-crc32-vpclmul",
		.fn = hp_crc32c_fused_vpclmul,
		.needs = FOLD | HP_CPU_AVX512F | HP_CPU_AVX512BW |
			 HP_CPU_AVX512VL | HP_CPU_VPCLMUL,
		.desc = "per 448 B: 256 B on the 512-bit fold, 4 x 48 B on four crc32q streams, one merge per block",
		.origin = "hotpath's own",
	},
	{
		.name = "vpclmul-avx2",
		.fn = hp_crc32c_vpclmul_avx2,
		.needs = FOLD | HP_CPU_AVX2 | HP_CPU_VPCLMUL,
		.desc = "VPCLMULQDQ folding, 4 ymm x 2 lanes, the tail in 32-byte folds; no AVX-512",
		.origin = "hotpath's own: vpclmul-avx512 on 256-bit registers",
	},
	{
		.name = "fused-crc32-vpclmul-avx2",
		.fn = hp_crc32c_fused_vpclmul_avx2,
		.needs = FOLD | HP_CPU_AVX2 | HP_CPU_VPCLMUL,
		.desc = "per 192 B: 128 B on the 256-bit fold, 4 x 16 B on four crc32q streams, one merge per block",
		.origin = "hotpath's own",
	},
	{
		.name = "fused-crc32-vpclmul-avx2-4x24",
		.fn = hp_crc32c_fused_vpclmul_avx2_4x24,
		.needs = FOLD | HP_CPU_AVX2 | HP_CPU_VPCLMUL,
		.desc = "per 224 B: 128 B on the 256-bit fold, 4 x 24 B on four crc32q streams, one merge per block",
		.origin = "hotpath's own: fused-crc32-vpclmul-avx2 in another shape",
	},
	{
		.name = "fused-crc32-vpclmul-avx2-4x32",
		.fn = hp_crc32c_fused_vpclmul_avx2_4x32,
		.needs = FOLD | HP_CPU_AVX2 | HP_CPU_VPCLMUL,
		.desc = "per 256 B: 128 B on the 256-bit fold, 4 x 32 B on four crc32q streams, one merge per block",
		.origin = "hotpath's own: fused-crc32-vpclmul-avx2 in another shape",
	},
	{
		.name = "vpclmul-avx512-seedlast",
		.fn = hp_crc32c_vpclmul_avx512_seedlast,
		.needs = FOLD | HP_CPU_AVX512F | HP_CPU_AVX512BW |
			 HP_CPU_AVX512VL | HP_CPU_VPCLMUL,
		.desc = "vpclmul-avx512 from zero, input CRC multiplied in last (PCLMULQDQ)",
		.origin = "hotpath's own; sse42-seedlast below 128 bytes, vpclmul-avx512 from 2048",
	},
	{
		.name = "vpclmul-avx2-seedlast",
		.fn = hp_crc32c_vpclmul_avx2_seedlast,
		.needs = FOLD | HP_CPU_AVX2 | HP_CPU_VPCLMUL,
		.desc = "vpclmul-avx2 from zero, input CRC multiplied in last (PCLMULQDQ)",
		.origin = "hotpath's own; sse42-seedlast below 128 bytes, vpclmul-avx2 from 2048",
	},
	{
		.name = "fused-crc32-pclmul",
		.fn = hp_crc32c_fused,
		.needs = FOLD,
		.desc = "8-lane fold of 128 B with one crc32q stream over 24 B per step",
		.origin = "hotpath (stream CRC injected into the next folded block)",
	},
	{
		.name = "isal-crc32_iscsi",
		.fn = hp_crc32c_isal,
		.flags = HP_V_PEER,
		.max_len = INT_MAX,
		.desc = "ISA-L crc32_iscsi, its own run-time dispatch",
		.origin = "Intel ISA-L (libisal)",
#ifndef HOTPATH_HAVE_ISAL
		.unavailable = "built without ISA-L (install libisal-dev and rebuild)",
#endif
	},
	{
		.name = "dpdk-rte_hash_crc",
		.fn = hp_crc32c_dpdk,
		.flags = HP_V_PEER,
		.max_len = UINT32_MAX,
		.desc = "DPDK rte_hash_crc (crc32q/l/w/b)",
		.origin = "DPDK lib/hash/rte_hash_crc.h",
#ifndef HOTPATH_HAVE_DPDK
		.unavailable = "built without DPDK (make HOTPATH_WITH_DPDK=1 with libdpdk-dev)",
#endif
	},
	{
		.name = "hotpath",
		.flags = HP_V_OWN | HP_V_ROW,
		.fn = hp_crc32c,
		.desc = "hp_crc32c: per-CPU, per-length choice of the above",
		.origin = "hotpath (crossovers measured, docs/labs/crc32c.md)",
	},
};

const struct hp_primitive hp_prim_crc32c = {
	.name = "crc32c",
	.lab = "crc32c",
	.seed_name = "crc",
	.variants = crc32c_variants,
	.nvariants = sizeof(crc32c_variants) / sizeof(crc32c_variants[0]),
	.empty_fn = crc32c_empty,
	.check = crc32c_check,
	.explain = crc32c_explain,
	.burst = crc32c_burst_sites,
	.promise_name = crc32c_promise_name,
};
