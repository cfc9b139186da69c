// SPDX-License-Identifier: GPL-2.0-only
/*
 * The csum_ipv6_magic primitive. Its size is 40, the pseudo-header's
 * bytes; the buffer gives saddr (0..15), daddr (16..31), the upper-layer
 * length as a little-endian u32 (32..35) and the next header (36).
 */
#include <hotpath/bench.h>
#include <hotpath/csum.h>
#include "csum_bursts.h"

#include <string.h>

static uint16_t v6_empty(const void *saddr, const void *daddr, uint32_t len,
			 uint8_t proto, uint32_t sum)
{
	return (uint16_t)sum;
}

static int v6_check(const struct hp_variant *v, const uint8_t *buf,
		    size_t size, uint64_t seed, uint64_t *expected,
		    uint64_t *got)
{
	hp_ipv6_magic_fn fn = (hp_ipv6_magic_fn)v->fn;
	static const uint32_t lens[] = { 0, 1, 0xffff, 0x10000, 0xffffffffu };
	static const uint8_t protos[] = { 0, 6, 17, 58, 0xff };
	uint32_t len;
	uint8_t proto;
	size_t i;

	hp_ipv6_fields(buf, &len, &proto);
	*expected = hp_ipv6_magic_ref(buf, buf + 16, len, proto, (uint32_t)seed);
	*got = fn(buf, buf + 16, len, proto, (uint32_t)seed);
	for (i = 0; *expected == *got && i < 5; i++) {
		*expected = hp_ipv6_magic_ref(buf, buf + 16, lens[i],
					      protos[i], (uint32_t)seed);
		*got = fn(buf, buf + 16, lens[i], protos[i], (uint32_t)seed);
	}
	return *expected != *got;
}

HP_BURST_COPIES(v6_burst_sites, v6_burst);

static const char *v6_promise_name(uint32_t promise)
{
	return "equal to the reference's checksum";
}

static int v6_size_ok(size_t size)
{
	return size == 40;
}

static const struct hp_variant v6_variants[] = {
	{
		.name = "ref",
		.fn = hp_ipv6_magic_ref,
		.min_len = 40, .max_len = 40,
		.desc = "reference: the 40-byte pseudo-header built and summed",
		.origin = "RFC 8200 section 8.1, RFC 1071",
	},
	{
		.name = "kernel",
		.flags = HP_V_REIMPL,
		.fn = hp_ipv6_magic_kernel,
		.min_len = 40, .max_len = 40,
		.desc = "seed, length and protocol first, then one adc chain over the addresses",
		.origin = "Linux arch/x86/lib/csum-wrappers_64.c csum_ipv6_magic(), from its description",
	},
	{
		.name = "hp",
		.flags = HP_V_OWN,
		.fn = hp_ipv6_magic_hp,
		.min_len = 40, .max_len = 40,
		.desc = "addresses on two chains folded first, seed added last",
		.origin = "hotpath (c/csum/ipv6_magic.c)",
	},
};

static const size_t v6_sizes[] = { 40 };

const struct hp_primitive hp_prim_csum_ipv6_magic = {
	.name = "csum_ipv6_magic",
	.lab = "csum",
	.seed_name = "sum",
	.variants = v6_variants,
	.nvariants = sizeof(v6_variants) / sizeof(v6_variants[0]),
	.empty_fn = v6_empty,
	.check = v6_check,
	.burst = v6_burst_sites,
	.promise_name = v6_promise_name,
	.size_ok = v6_size_ok,
	.default_sizes = v6_sizes,
	.ndefault_sizes = 1,
};
