// SPDX-License-Identifier: GPL-2.0-only
/*
 * The csum_partial primitive: its variants, how a variant is checked
 * against the RFC 1071 reference, and how a burst of calls is timed.
 */
#include <hotpath/bench.h>
#include <hotpath/csum.h>

static uint32_t csum_empty(const void *buf, int len, uint32_t sum)
{
	return sum;
}

static int csum_check(const struct hp_variant *v, const uint8_t *buf,
		      size_t len, uint64_t seed, uint64_t *expected,
		      uint64_t *got)
{
	hp_csum_fn fn = (hp_csum_fn)v->fn;
	uint32_t s = (uint32_t)seed;

	*expected = hp_csum_fold(hp_csum_ref(buf, (int)len, s));
	*got = hp_csum_fold(fn(buf, (int)len, s));
	return *expected != *got;
}

static uint64_t csum_burst(const void *fn_, const uint8_t *buf, size_t len_,
			   uint64_t seed, enum hp_mode mode, unsigned n)
{
	hp_csum_fn fn = (hp_csum_fn)fn_;
	int len = (int)len_;
	uint32_t s = (uint32_t)seed;

	HP_OPAQUE(fn);
	HP_OPAQUE(buf);
	HP_OPAQUE(len);
	return HP_BURST_MODES(mode, n, s, fn(buf, len, s));
}

static const char *csum_promise_name(uint32_t promise)
{
	switch (promise) {
	case HP_CSUM_FOLD:
		return "csum_fold() equal to the reference's";
	default:
		return "unknown";
	}
}

static const struct hp_variant csum_variants[] = {
	{
		.name = "rfc1071-ref",
		.fn = hp_csum_ref,
		.desc = "reference: one 16-bit word at a time, folded once",
		.origin = "RFC 1071 section 4.1",
	},
	{
		.name = "kernel-5.17",
		.fn = hp_csum_kernel_5_17,
		.desc = "one 64-bit adc chain, 64-byte loop, 32/16/8 steps, tail",
		.origin = "Linux 5.17 arch/x86/lib/csum-partial_64.c (Eric Dumazet), odd-seed fix applied",
	},
};

const struct hp_primitive hp_prim_csum_partial = {
	.name = "csum_partial",
	.lab = "csum",
	.seed_name = "sum",
	.variants = csum_variants,
	.nvariants = sizeof(csum_variants) / sizeof(csum_variants[0]),
	.empty_fn = csum_empty,
	.check = csum_check,
	.burst = csum_burst,
	.promise_name = csum_promise_name,
};
