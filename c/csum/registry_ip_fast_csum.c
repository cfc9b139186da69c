// SPDX-License-Identifier: GPL-2.0-only
/*
 * The ip_fast_csum primitive. Size is the header's bytes (4 * ihl): a
 * multiple of 4 from 20 to 60. The function takes no running sum, so
 * there is no chain between calls and latency mode is not defined.
 */
#include <hotpath/bench.h>
#include <hotpath/csum.h>
#include "csum_bursts.h"

static uint16_t ipf_empty(const void *iph, unsigned int ihl)
{
	return (uint16_t)ihl;
}

static int ipf_check(const struct hp_variant *v, const uint8_t *buf,
		     size_t len, uint64_t seed, uint64_t *expected,
		     uint64_t *got)
{
	hp_ip_fast_fn fn = (hp_ip_fast_fn)v->fn;

	*expected = hp_ip_fast_csum_ref(buf, (unsigned int)(len / 4));
	*got = fn(buf, (unsigned int)(len / 4));
	return *expected != *got;
}

HP_BURST_COPIES(ipf_burst_sites, ipf_burst);

static const char *ipf_promise_name(uint32_t promise)
{
	return "equal to the reference's checksum";
}

static int ipf_size_ok(size_t size)
{
	return size % 4 == 0 && size >= 20 && size <= 60;
}

static const struct hp_variant ipf_variants[] = {
	{
		.name = "ref",
		.fn = hp_ip_fast_csum_ref,
		.min_len = 20, .max_len = 60,
		.desc = "reference: RFC 1071 over 4 * ihl bytes, folded",
		.origin = "RFC 791, RFC 1071",
	},
	{
		.name = "kernel",
		.flags = HP_V_REIMPL,
		.fn = hp_ip_fast_csum_kernel,
		.min_len = 20, .max_len = 60,
		.desc = "32-bit adc chain, one dword per loop iteration, carry kept in flags, csum_fold",
		.origin = "Linux arch/x86/include/asm/checksum_64.h ip_fast_csum(), from its description",
	},
	{
		.name = "hp",
		.flags = HP_V_OWN,
		.fn = hp_ip_fast_csum_hp,
		.min_len = 20, .max_len = 60,
		.desc = "8-byte words on two short chains, rotate-and-add folds",
		.origin = "hotpath (c/csum/ip_fast_csum.c)",
	},
};

static const size_t ipf_sizes[] = { 20, 60 };

const struct hp_primitive hp_prim_ip_fast_csum = {
	.name = "ip_fast_csum",
	.lab = "csum",
	.seed_name = "none",
	.variants = ipf_variants,
	.nvariants = sizeof(ipf_variants) / sizeof(ipf_variants[0]),
	.empty_fn = ipf_empty,
	.check = ipf_check,
	.burst = ipf_burst_sites,
	.promise_name = ipf_promise_name,
	.size_ok = ipf_size_ok,
	.default_sizes = ipf_sizes,
	.ndefault_sizes = 2,
};
