// SPDX-License-Identifier: GPL-2.0-only
/*
 * The csum_partial primitive: its variants, how a variant is checked
 * against its promise, and how a burst of calls is timed.
 */
#include <hotpath/bench.h>
#include <hotpath/csum.h>
#include "csum_bursts.h"

#include <stdint.h>

#ifdef HOTPATH_CSUM_HAVE_DPDK
#define DPDK_UNAVAILABLE NULL
#else
#define DPDK_UNAVAILABLE \
	"DPDK headers not installed (HOTPATH_WITH_DPDK=1 ./scripts/setup.sh)"
#endif

static uint32_t csum_empty(const void *buf, int len, uint32_t sum)
{
	return sum;
}

/*
 * Raw promises compare the 32 bits themselves with kernel 5.17's, the
 * fold promises compare csum_fold() with the reference's. A raw promise
 * is checked on its fold too, so that it never hides a wrong 5.17.
 */
static int csum_check(const struct hp_variant *v, const uint8_t *buf,
		      size_t len, uint64_t seed, uint64_t *expected,
		      uint64_t *got)
{
	hp_csum_fn fn = (hp_csum_fn)v->fn;
	uint32_t s = (uint32_t)seed;
	uint32_t raw = fn(buf, (int)len, s);
	int even = !((uintptr_t)buf & 1);

	if (v->promise == HP_CSUM_RAW ||
	    (v->promise == HP_CSUM_RAW_EVEN && even)) {
		*expected = hp_csum_kernel_5_17(buf, (int)len, s);
		*got = raw;
		if (*expected != *got)
			return 1;
	}
	if (v->promise == HP_CSUM_FOLD_NOSEED)
		s = 0;
	*expected = hp_csum_fold(hp_csum_ref(buf, (int)len, s));
	*got = hp_csum_fold(raw);
	return *expected != *got;
}

HP_BURST_COPIES(csum_burst_sites, csum_burst);

static const char *csum_promise_name(uint32_t promise)
{
	switch (promise) {
	case HP_CSUM_FOLD:
		return "csum_fold() equal to the reference's";
	case HP_CSUM_RAW_EVEN:
		return "raw 32 bits equal to kernel-5.17's at even addresses, csum_fold() equal at odd";
	case HP_CSUM_RAW:
		return "raw 32 bits equal to kernel-5.17's";
	case HP_CSUM_FOLD_NOSEED:
		return "csum_fold() equal to the reference's with seed 0 (input sum ignored)";
	default:
		return "unknown";
	}
}

#define SEED "seed 000 (csum_partial notes, A. van de Ven)"
#define ONLY40 .min_len = 40, .max_len = 40

static const struct hp_variant csum_variants[] = {
	{
		.name = "rfc1071-ref",
		.fn = hp_csum_ref,
		.desc = "reference: one 16-bit word at a time, folded once",
		.origin = "RFC 1071 section 4.1",
	},
	{
		.name = "kernel-5.17",
		.flags = HP_V_REIMPL,
		.fn = hp_csum_kernel_5_17,
		.desc = "one 64-bit adc chain, 64-byte loop, 32/16/8 steps, tail; odd addresses realigned",
		.origin = "Linux 5.17 arch/x86/lib/csum-partial_64.c (Eric Dumazet), odd-seed fix applied",
	},
	{
		.name = "kernel-5.17-rc",
		.flags = HP_V_REIMPL,
		.fn = hp_csum_kernel_5_17_rc,
		.desc = "seed baseline: 5.17 before the odd-seed fix; odd address + seed not a multiple of 257 gives a wrong sum",
		.origin = "first version of Eric Dumazet's 5.17 rewrite, as " SEED " benchmarked it",
	},
	{
		.name = "seed-specialised",
		.fn = hp_csum_seed_specialised,
		.promise = HP_CSUM_RAW,
		.desc = "ladder step 1: a len == 40 branch, both arms the unchanged 5.17 code",
		.origin = SEED,
	},
	{
		.name = "seed-no-odd",
		.fn = hp_csum_seed_no_odd,
		.promise = HP_CSUM_RAW_EVEN,
		.desc = "ladder step 2: 5.17 with the odd-address handling removed",
		.origin = SEED,
	},
	{
		.name = "seed-dead-code",
		.fn = hp_csum_seed_dead_code,
		ONLY40,
		.promise = HP_CSUM_RAW_EVEN,
		.desc = "ladder step 3: one 40-byte adc chain, one fold; 40 bytes only",
		.origin = SEED,
	},
	{
		.name = "seed-adx",
		.fn = hp_csum_seed_adx,
		.needs = HP_CPU_ADX,
		ONLY40,
		.promise = HP_CSUM_RAW_EVEN,
		.desc = "ladder step 4: adcx and adox chains side by side; 40 bytes only",
		.origin = SEED,
	},
	{
		.name = "seed-two-streams",
		.fn = hp_csum_seed_two_streams,
		ONLY40,
		.promise = HP_CSUM_RAW_EVEN,
		.desc = "ladder step 5: two plain adc chains (the notes' addq typo fixed); 40 bytes only",
		.origin = SEED,
	},
	{
		.name = "seed-two-streams-published",
		.fn = hp_csum_seed_two_streams_published,
		ONLY40,
		.promise = HP_CSUM_RAW_EVEN,
		.desc = "ladder step 5 as printed: addq on word 3 drops a carry (wrong on carry-heavy data); 40 bytes only",
		.origin = SEED,
	},
	{
		.name = "seed-32bit",
		.fn = hp_csum_seed_32bit,
		ONLY40,
		.promise = HP_CSUM_RAW_EVEN,
		.desc = "ladder step 6: ten 32-bit words on four streams, no 64->32 fold; 40 bytes only",
		.origin = SEED,
	},
	{
		.name = "seed-zero-sum",
		.fn = hp_csum_seed_zero_sum,
		.flags = HP_V_NO_LATENCY,
		ONLY40,
		.promise = HP_CSUM_FOLD_NOSEED,
		.desc = "ladder step 7: assumes a zero input sum, two 20-byte halves; 40 bytes only",
		.origin = SEED,
		.mode_note = "ignores its input sum, so calls have no chain between them: latency is not defined",
	},
	{
		.name = "kernel-2023",
		.flags = HP_V_REIMPL,
		.fn = hp_csum_kernel_2023,
		.promise = HP_CSUM_RAW,
		.desc = "5.17 plus a len == 40 chain and a 64-byte loop of two 32-byte chains with a carry count",
		.origin = "Linux 6.5 \"x86/csum: Improve performance of `csum_partial`\" (Noah Goldstein), from its description",
	},
	{
		.name = "kernel-2024",
		.flags = HP_V_REIMPL,
		.fn = hp_csum_kernel_2024,
		.promise = HP_CSUM_RAW_EVEN,
		.desc = "40-byte blocks of five adcq, 80-byte loop of two 40-byte chains, no odd-address handling",
		.origin = "Linux 2024 csum_partial clean-up (Linus Torvalds, Noah Goldstein), from its description",
	},
	{
		.name = "dpdk",
		.fn = hp_csum_dpdk,
		.flags = HP_V_PEER,
		.max_len = 65536,
		.desc = "DPDK rte_raw_cksum(): 16-bit words into a 32-bit accumulator, folded, seed added after; up to 64 KiB",
		.origin = "DPDK lib/net/rte_ip.h (Debian libdpdk-dev), used as a header-only inline",
		.unavailable = DPDK_UNAVAILABLE,
	},
	{
		.name = "hp-csum",
		.flags = HP_V_OWN | HP_V_ROW,
		.fn = hp_csum,
		.promise = HP_CSUM_RAW_EVEN,
		.desc = "hotpath: seed added last; asm adc ladder entered from a chain of compares, vector method from the CPU's dispatch row",
		.origin = "hotpath (c/csum/csum_hp.c)",
	},
	{
		.name = "hp-csum-scalar",
		.fn = hp_csum_scalar,
		.promise = HP_CSUM_RAW_EVEN,
		.desc = "hotpath's adc path: two 40-byte chains per 80 bytes, then an adc ladder entered from a chain of compares for the last 1..80, seed added last",
		.origin = "hotpath (c/csum/csum_hp.c)",
	},
	{
		.name = "hp-csum-avx2",
		.fn = hp_csum_avx2,
		.needs = HP_CPU_AVX2,
		.promise = HP_CSUM_RAW_EVEN,
		.desc = "hotpath's AVX2 path: 64-bit lanes, whole-lane and high-half sums, 3 ops per 32 bytes",
		.origin = "hotpath (c/csum/csum_hp_avx2.c)",
	},
	{
		.name = "hp-csum-avx2-hybrid",
		.fn = hp_csum_avx2_hybrid,
		.needs = HP_CPU_AVX2,
		.promise = HP_CSUM_RAW_EVEN,
		.desc = "hotpath's AVX2 path for Zen 1-class cores: 128 bytes on vectors and 128 on four adc chains per step",
		.origin = "hotpath (c/csum/csum_hp_avx2.c)",
	},
	{
		.name = "hp-csum-avx512",
		.fn = hp_csum_avx512,
		.needs = HP_CPU_AVX512F | HP_CPU_AVX512BW,
		.promise = HP_CSUM_RAW_EVEN,
		.desc = "hotpath's AVX-512 path: the AVX2 method on aligned 64-byte blocks, first and last loaded with a byte mask",
		.origin = "hotpath (c/csum/csum_hp_avx512.c)",
	},
};

static const size_t csum_default_sizes[] = { 40, 64, 256, 1500, 65536 };

const struct hp_primitive hp_prim_csum_partial = {
	.name = "csum_partial",
	.lab = "csum",
	.seed_name = "sum",
	.variants = csum_variants,
	.nvariants = sizeof(csum_variants) / sizeof(csum_variants[0]),
	.empty_fn = csum_empty,
	.check = csum_check,
	.burst = csum_burst_sites,
	.promise_name = csum_promise_name,
	.default_sizes = csum_default_sizes,
	.ndefault_sizes = sizeof(csum_default_sizes) / sizeof(csum_default_sizes[0]),
};
