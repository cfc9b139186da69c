// SPDX-License-Identifier: GPL-2.0-only
/*
 * The csum_partial_copy primitive: size is the bytes copied (0..64 KiB).
 * Checks verify the sum, the copy, and that nothing outside the
 * destination was written; bursts copy into a static buffer at the
 * source's alignment.
 */
#include <hotpath/bench.h>
#include <hotpath/csum.h>
#include "csum_bursts.h"

#include <string.h>

#define COPY_MAX HP_CSUM_COPY_MAX

uint8_t hp_csum_copy_dst[HP_CSUM_COPY_DST_BYTES] __attribute__((aligned(64)));

static uint32_t copy_empty(const void *src, void *dst, int len, uint32_t sum)
{
	return sum;
}

static int copy_check(const struct hp_variant *v, const uint8_t *buf,
		      size_t len, uint64_t seed, uint64_t *expected,
		      uint64_t *got)
{
	hp_csum_copy_fn fn = (hp_csum_copy_fn)v->fn;
	uint8_t *d = hp_csum_copy_dst_of(buf);
	uint32_t s = (uint32_t)seed;
	size_t i;

	memset(hp_csum_copy_dst, 0xa5, sizeof(hp_csum_copy_dst));
	*expected = hp_csum_fold(hp_csum_ref(buf, (int)len, s));
	*got = hp_csum_fold(fn(buf, d, (int)len, s));
	if (*expected != *got &&
	    !(v->promise == HP_CSUM_COPY_ONES && (*expected ^ *got) == 0xffff))
		return 1;
	/* a bad copy or a stray write reports as 1 vs 0 */
	*expected = 1;
	*got = !memcmp(d, buf, len);
	for (i = 0; *got && i < (size_t)(d - hp_csum_copy_dst); i++)
		*got = hp_csum_copy_dst[i] == 0xa5;
	for (i = (size_t)(d - hp_csum_copy_dst) + len; *got && i < sizeof(hp_csum_copy_dst); i++)
		*got = hp_csum_copy_dst[i] == 0xa5;
	return *expected != *got;
}

HP_BURST_COPIES(copy_burst_sites, copy_burst);

static const char *copy_promise_name(uint32_t promise)
{
	if (promise == HP_CSUM_COPY_ONES)
		return "exact copy, nothing else written, csum_fold() equal to the "
		       "reference's in one's complement (0 and 0xffff one value)";
	return "exact copy, nothing else written, csum_fold() equal to the reference's";
}

static int copy_size_ok(size_t size)
{
	return size <= COPY_MAX;
}

static const struct hp_variant copy_variants[] = {
	{
		.name = "ref",
		.fn = hp_csum_copy_ref,
		.max_len = COPY_MAX,
		.desc = "reference: memcpy, then the RFC 1071 reference sum",
		.origin = "RFC 1071",
	},
	{
		.name = "kernel",
		.flags = HP_V_REIMPL,
		.fn = hp_csum_copy_kernel,
		.max_len = COPY_MAX,
		.desc = "64-byte loop: eight loads, one adc chain, eight stores; then words and tail",
		.origin = "Linux arch/x86/lib/csum-copy_64.S, from its description",
	},
	{
		.name = "hp",
		.flags = HP_V_OWN,
		.fn = hp_csum_copy_hp,
		.max_len = COPY_MAX,
		.desc = "per CPU and length: hp-avx2 where the CPU has AVX2 (ahead at every length measured), else memcpy then hp_csum()",
		.origin = "hotpath (c/csum/csum_copy.c)",
	},
	{
		.name = "hp-avx2",
		.fn = hp_csum_copy_avx2,
		.needs = HP_CPU_AVX2,
		.max_len = COPY_MAX,
		.desc = "one pass: 32-byte vectors loaded once, stored, summed in 64-bit lanes (whole and high halves)",
		.origin = "hotpath (c/csum/csum_copy_avx2.c)",
	},
};

static const size_t copy_sizes[] = { 40, 1500, 65536 };

const struct hp_primitive hp_prim_csum_partial_copy = {
	.name = "csum_partial_copy",
	.lab = "csum",
	.seed_name = "sum",
	.variants = copy_variants,
	.nvariants = sizeof(copy_variants) / sizeof(copy_variants[0]),
	.empty_fn = copy_empty,
	.check = copy_check,
	.burst = copy_burst_sites,
	.promise_name = copy_promise_name,
	.size_ok = copy_size_ok,
	.default_sizes = copy_sizes,
	.ndefault_sizes = 3,
};
