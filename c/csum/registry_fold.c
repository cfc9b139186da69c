// SPDX-License-Identifier: GPL-2.0-only
/*
 * The csum_fold primitive. Its size is fixed at 4 (the input's bytes);
 * each check runs the seed, the buffer's first word and the values where
 * carries are decided.
 */
#include <hotpath/bench.h>
#include <hotpath/csum.h>
#include "csum_bursts.h"

#include <string.h>

static uint16_t fold_empty(uint32_t sum)
{
	return (uint16_t)sum;
}

static const uint32_t edges[] = {
	0, 1, 0xffff, 0x10000, 0x1fffe, 0xfffe0001u, 0xffff0000u,
	0x0000ffffu, 0xfffeffffu, 0xffffffffu, 0x80008000u, 0x7fff8001u,
};

static int fold_check(const struct hp_variant *v, const uint8_t *buf,
		      size_t len, uint64_t seed, uint64_t *expected,
		      uint64_t *got)
{
	hp_fold_fn fn = (hp_fold_fn)v->fn;
	uint32_t in[2 + sizeof(edges) / sizeof(*edges)];
	size_t n = 0, i;

	in[n++] = (uint32_t)seed;
	if (len >= 4)
		memcpy(&in[n++], buf, 4);
	for (i = 0; i < sizeof(edges) / sizeof(*edges); i++)
		in[n++] = edges[i];
	for (i = 0; i < n; i++) {
		*expected = hp_csum_fold(in[i]);
		*got = fn(in[i]);
		if (*expected != *got)
			return 1;
	}
	return 0;
}

HP_BURST_COPIES(fold_burst_sites, fold_burst);

static const char *fold_promise_name(uint32_t promise)
{
	return "equal to the reference's csum_fold()";
}

static int fold_size_ok(size_t size)
{
	return size == 4;
}

static const struct hp_variant fold_variants[] = {
	{
		.name = "ref",
		.fn = hp_fold_ref,
		.min_len = 4, .max_len = 4,
		.desc = "reference: fold twice in C, complement",
		.origin = "RFC 1071",
	},
	{
		.name = "kernel",
		.flags = HP_V_REIMPL,
		.fn = hp_fold_kernel,
		.min_len = 4, .max_len = 4,
		.desc = "halves added in the top 16 bits, adc $0xffff, complement",
		.origin = "Linux arch/x86/include/asm/checksum_64.h csum_fold(), from its description",
	},
	{
		.name = "hp",
		.flags = HP_V_OWN,
		.fn = hp_fold_hp,
		.min_len = 4, .max_len = 4,
		.desc = "sum + rol(sum, 16): the end-around sum in the top half, no flags",
		.origin = "hotpath (c/csum/fold.c)",
	},
};

static const size_t fold_sizes[] = { 4 };

const struct hp_primitive hp_prim_csum_fold = {
	.name = "csum_fold",
	.lab = "csum",
	.seed_name = "sum",
	.variants = fold_variants,
	.nvariants = sizeof(fold_variants) / sizeof(fold_variants[0]),
	.empty_fn = fold_empty,
	.check = fold_check,
	.burst = fold_burst_sites,
	.promise_name = fold_promise_name,
	.size_ok = fold_size_ok,
	.default_sizes = fold_sizes,
	.ndefault_sizes = 1,
};
