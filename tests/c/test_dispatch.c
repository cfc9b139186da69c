// SPDX-License-Identifier: GPL-2.0-only
/*
 * The dispatch rows at work (hotpath/dispatch.h): hp_csum() and
 * hp_crc32c() under every built-in row (its methods falling back where
 * this CPU lacks them) give the reference's results at every length
 * 0..4096, even and odd, with the last byte against a guard page; each
 * length reaches the step its row names; rows of many steps hold at their
 * boundaries. The row format and its file: test_dispatch_rows.c.
 */
#include <hotpath/bench.h>
#include <hotpath/crc32c.h>
#include <hotpath/csum.h>
#include <hotpath/dispatch.h>
#include <hotpath/guard.h>

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../c/crc32c/crc32c_internal.h"
#include "check.h"
#include "dispatch_cpus.h"
#define TEST_RNG_SEED 0x9e3779b97f4a7c15ull
#include "testdata.h"

static struct hp_guarded g, big;	/* 4 KiB and 1 MiB, random bytes */

static unsigned long wrong;

static void sweep(void *arg)
{
	const char *name = arg;

	for (size_t len = 0; len <= 4096; len++)
		for (size_t a = 0; a < 2; a++) {
			const uint8_t *p = hp_guarded_butt(&g, len);
			uint32_t seed = (uint32_t)rnd();

			p -= a;	/* odd and even addresses, still ending at the guard */
			if (hp_csum(p, (int)len, seed) != hp_csum_scalar(p, (int)len, seed) &&
			    wrong++ < 5)
				fprintf(stderr, "  %s: hp_csum len %zu odd %zu wrong\n", name, len,
					(size_t)((uintptr_t)p & 1));
			if (hp_crc32c(seed, p, len) != hp_crc32c_ref(seed, p, len) && wrong++ < 5)
				fprintf(stderr, "  %s: hp_crc32c len %zu wrong\n", name, len);
		}
}

static void test_every_row_is_correct_here(void)
{
	for (size_t i = 0; i < sizeof(cpus) / sizeof(*cpus); i++) {
		const struct hp_dispatch_row *row =
			hp_dispatch_builtin(cpus[i].vendor, cpus[i].family, cpus[i].model);

		hp_csum_use_row(row);
		hp_crc32c_use_row(row);
		wrong = 0;
		CHECK(!hp_guarded_call(sweep, (void *)row->name), "%s read outside", row->name);
		CHECK(wrong == 0, "row %s: %lu results wrong", row->name, wrong);
	}
	hp_csum_use_row(hp_dispatch());
	hp_crc32c_use_row(hp_dispatch());
}

/* crc32c rows of shapes no built-in row has: the stream alone (nothing
 * in the plan after the inlined stream), a first step that is not the
 * stream (nothing inlined, the plan from 0), and eight steps (the scan
 * past the two steps compared inline). */
static void test_row_shapes_are_correct_here(void)
{
	static const char *const crc[] = {
		"sse42 0",
		"fold8 0, sse42 40, sse42-seedlast 100",
		"sse42 0, sse42-seedlast 9, fold4 64, sse42-4way 100, fold8 200, "
		"sse42-3way 333, avx512 1000, avx512-fused 2000",
		"sse42 0, avx2-vpclmul 128, avx2-fused 320, avx2-vpclmul 3000, avx2-fused 4000",
		"fold8 0, avx2-fused 100, avx512 700, avx2-vpclmul 1500, avx2-fused 2500",
		/* the seed-last folds across their own edges (128, 256, 2048) */
		"sse42 0, sse42-seedlast 64, avx2-seedlast 96, avx512-seedlast 127, avx512 2047, "
		"avx512-seedlast 2049",
		"avx512-seedlast 0, avx2-seedlast 255, avx512-seedlast 257, avx2-seedlast 2040, "
		"avx2-vpclmul 3000, avx2-seedlast 4000",
	};

	for (size_t i = 0; i < sizeof(crc) / sizeof(*crc); i++) {
		struct hp_dispatch_row row;
		char text[512], err[200] = "";

		snprintf(text, sizeof(text),
			 "csum.even = scalar 0\ncsum.odd = scalar 0\ncrc32c = %s\n", crc[i]);
		CHECK(hp_dispatch_parse(text, &row, err, sizeof(err)) == 0, "%s: %s",
		      crc[i], err);
		hp_crc32c_use_row(&row);
		wrong = 0;
		CHECK(!hp_guarded_call(sweep, (void *)crc[i]), "%s read outside", crc[i]);
		CHECK(wrong == 0, "crc32c = %s: %lu results wrong", crc[i], wrong);
	}
	hp_crc32c_use_row(hp_dispatch());
}

/*
 * hp_csum() jumps straight to the AVX-512 method from hp_csum_avx512_from
 * bytes and to the AVX2 one from hp_csum_avx2_from (from its first compare
 * past 80 bytes): only where that method is the row's last step at both
 * parities (from the later of the two, and never below 128 bytes for
 * AVX-512, which the method alone leaves to the adc chains there), else a
 * later step or the other parity's method would be skipped. Rows of each
 * shape, as this CPU runs them (AVX-512 falling back to AVX2, or to the
 * hybrid where 256-bit operations are split; AVX2 to the adc chains:
 * `make test` runs this with features hidden too), each also swept for
 * its results. A shortcut is written "5 FROM" (AVX-512), "2 FROM" (AVX2)
 * or "-" (none).
 */
extern int64_t hp_csum_avx512_from, hp_csum_avx2_from;	/* hidden, c/csum/csum_hp.c */

static void test_csum_shortcut_only_for_the_last_method(void)
{
	static const struct {
		const char *csum;
		const char *with512, *with2, *narrow;	/* AVX-512; AVX2; AVX2, split */
	} rows[] = {
		{ "csum.even = scalar 0, avx512 256\ncsum.odd = scalar 0, avx512 256\n",
		  "5 256", "2 256", "-" },
		{ "csum.even = scalar 0, avx512 96\ncsum.odd = scalar 0, avx512 96\n",
		  "5 128", "2 96", "-" },
		{ "csum.even = scalar 0, avx512 512\ncsum.odd = scalar 0, avx512 384\n",
		  "5 512", "2 512", "-" },
		{ "csum.even = scalar 0, avx512 256, avx2 1024, avx512 2048\n"
		  "csum.odd = scalar 0, avx2 300, avx512 4097\n", "5 4097", "2 300", "-" },
		{ "csum.even = scalar 0, avx512 256, avx2 3072\n"
		  "csum.odd = scalar 0, avx512 256, avx2 3072\n", "2 3072", "2 256", "2 3072" },
		{ "csum.even = scalar 0, avx512 256\ncsum.odd = scalar 0, avx2 256\n",
		  "-", "2 256", "-" },
		{ "csum.even = scalar 0, avx2 384\ncsum.odd = scalar 0, avx2 384\n",
		  "2 384", "2 384", "2 384" },
		{ "csum.even = scalar 0, avx2 384\ncsum.odd = scalar 0, avx2 384, scalar 4096\n",
		  "-", "-", "-" },
	};
	uint32_t f = hp_cpu_features();
	int has512 = (f & (HP_CPU_AVX512F | HP_CPU_AVX512BW)) == (HP_CPU_AVX512F | HP_CPU_AVX512BW);
	int narrow = hp__csum_method_fn(HP_CSUM_PATH_AVX512) == hp_csum_avx2_hybrid;

	for (size_t i = 0; i < sizeof(rows) / sizeof(*rows); i++) {
		struct hp_dispatch_row row;
		char text[512], err[200] = "";
		const char *want = has512 ? rows[i].with512 : !(f & HP_CPU_AVX2) ? "-" :
				   narrow ? rows[i].narrow : rows[i].with2;
		int64_t want512 = INT64_MAX, want2 = INT64_MAX;

		if (want[0] != '-')
			*(want[0] == '5' ? &want512 : &want2) = strtoll(want + 2, NULL, 10);
		snprintf(text, sizeof(text), "%scrc32c = sse42 0\n", rows[i].csum);
		CHECK(hp_dispatch_parse(text, &row, err, sizeof(err)) == 0, "%s: %s", text, err);
		hp_csum_use_row(&row);
		CHECK(hp_csum_avx512_from == want512 && hp_csum_avx2_from == want2,
		      "%s: shortcuts from %lld (AVX-512), %lld (AVX2), want %s", rows[i].csum,
		      (long long)hp_csum_avx512_from, (long long)hp_csum_avx2_from, want);
		wrong = 0;
		CHECK(!hp_guarded_call(sweep, (void *)rows[i].csum), "%s read outside",
		      rows[i].csum);
		CHECK(wrong == 0, "%s: %lu results wrong", rows[i].csum, wrong);
	}
	hp_csum_use_row(hp_dispatch());
}

/* Lengths to try beyond 0..4200: each boundary and its neighbours, and
 * the far classes' edges (powers of two) and their neighbours, up to
 * @max. Returns how many were written to @out. */
static size_t far_lengths(const uint64_t *bounds, size_t nb, uint64_t max, uint64_t *out)
{
	size_t n = 0;

	for (size_t i = 0; i < nb; i++)
		for (int d = -2; d <= 2; d++)
			if (bounds[i] + d <= max && (d >= 0 || bounds[i] >= (uint64_t)-d))
				out[n++] = bounds[i] + d;
	for (int bit = 12; bit < 64 && ((uint64_t)1 << bit) - 1 <= max; bit++)
		for (int d = -1; d <= 1; d++)
			if (((uint64_t)1 << bit) + d <= max)
				out[n++] = ((uint64_t)1 << bit) + d;
	return n;
}

/* ---- probes: a plan of them says which step a length reached ---- */
static int hit;	/* the probe's step, 0 for none */

#define CSUM_PROBE(k)                                                          \
	static uint32_t csum_probe##k(const void *buf, int len, uint32_t sum)  \
	{                                                                      \
		hit = k;                                                       \
		return 0xc5000000u + k;                                        \
	}
#define CRC_PROBE(k)                                                           \
	static uint32_t crc_probe##k(uint32_t crc, const void *buf, size_t len) \
	{                                                                      \
		hit = k;                                                       \
		return 0xcc000000u + k;                                        \
	}
CSUM_PROBE(1) CSUM_PROBE(2) CSUM_PROBE(3) CSUM_PROBE(4) CSUM_PROBE(5) CSUM_PROBE(6)
CSUM_PROBE(7)
CRC_PROBE(1) CRC_PROBE(2) CRC_PROBE(3) CRC_PROBE(4) CRC_PROBE(5) CRC_PROBE(6) CRC_PROBE(7)
static const hp_csum_fn csum_probes[] = { NULL, csum_probe1, csum_probe2, csum_probe3,
					  csum_probe4, csum_probe5, csum_probe6, csum_probe7 };
static const hp_crc32c_fn crc_probes[] = { NULL, crc_probe1, crc_probe2, crc_probe3,
					   crc_probe4, crc_probe5, crc_probe6, crc_probe7 };

/* One parity's steps: from[i], and probe[i] (0: hp_csum()'s own adc
 * chains, the scalar step). */
struct probe_steps {
	uint32_t from[HP_STEPS_MAX];
	int probe[HP_STEPS_MAX];
	int n;
};

static int probe_for(const struct probe_steps *st, uint64_t len)
{
	int i = 0;

	while (i + 1 < st->n && len >= st->from[i + 1])
		i++;
	return st->probe[i];
}

static void csum_probe_plan(int odd, const struct probe_steps *st)
{
	hp_csum_fn fn[HP_STEPS_MAX];

	for (int i = 0; i < st->n; i++)
		fn[i] = st->probe[i] ? csum_probes[st->probe[i]] : hp_csum_scalar;
	hp__csum_plan_fns(odd, st->from, fn, st->n);
}

/* hp_csum() at @len reaches @want (0: its adc chains, which then sum the
 * buffer as hp_csum_scalar() does; only called where the buffer holds
 * @len bytes). */
static void csum_reaches(const char *row, int odd, uint64_t len, int want)
{
	const uint8_t *p = (const uint8_t *)big.base + odd;
	hp_csum_fn by_lookup = hp__csum_fn_for(p, (int)len);
	hp_csum_fn want_fn = want ? csum_probes[want] : hp_csum_scalar;

	CHECK(by_lookup == want_fn, "%s: len %llu odd %d: the lookup gives another step",
	      row, (unsigned long long)len, odd);
	if (!want && len + 1 > big.size)
		return;
	hit = 0;
	if (want)
		CHECK(hp_csum(p, (int)len, 7) == 0xc5000000u + want && hit == want,
		      "%s: len %llu odd %d: hp_csum() reached step %d, want %d", row,
		      (unsigned long long)len, odd, hit, want);
	else
		CHECK(hp_csum(p, (int)len, 7) == hp_csum_scalar(p, (int)len, 7) && hit == 0,
		      "%s: len %llu odd %d: hp_csum() reached probe %d, want its adc chains",
		      row, (unsigned long long)len, odd, hit);
}

/*
 * Plans of up to HP_STEPS_MAX probes per parity, their boundaries on and
 * off the 32-byte classes' edges, past 4 KiB on and off the powers of two,
 * and a scalar step after vector ones: every length 0..4200 and every
 * boundary's neighbours reach their own step through hp_csum()'s asm
 * (hp_csum_last_from never applies to probes).
 */
static void test_csum_lengths_reach_their_step(void)
{
	static const struct {
		const char *name;
		struct probe_steps even, odd;
	} rows[] = {
		{ "eight steps",
		  { { 0, 256, 300, 512, 1000, 2048, 4097, 65536 }, { 0, 1, 2, 3, 4, 5, 6, 7 }, 8 },
		  { { 0, 384, 385, 4000, 4096, 8191, 65537, 1u << 24 },
		    { 0, 2, 1, 3, 4, 5, 6, 7 }, 8 } },
		{ "one parity scalar",
		  { { 0, 256 }, { 0, 1 }, 2 }, { { 0 }, { 0 }, 1 } },
		{ "scalar again",
		  { { 0, 300, 600, 700, 5000 }, { 0, 1, 0, 2, 0 }, 5 },
		  { { 0, 1024, 1040 }, { 0, 3, 4 }, 3 } },
		{ "back inside a class",
		  { { 0, 256, 4100, 4200, 70000, 70001 }, { 0, 1, 2, 1, 3, 1 }, 6 },
		  { { 0, 300, 310 }, { 0, 2, 1 }, 3 } },
		{ "late first step",
		  { { 0, 2047, 100000 }, { 0, 1, 2 }, 3 },
		  { { 0, 70000 }, { 0, 3 }, 2 } },
	};

	for (size_t r = 0; r < sizeof(rows) / sizeof(*rows); r++) {
		const struct probe_steps *st[2] = { &rows[r].even, &rows[r].odd };
		uint64_t bounds[2 * HP_STEPS_MAX], lens[600];
		size_t nb = 0, nl;

		csum_probe_plan(0, st[0]);
		csum_probe_plan(1, st[1]);
		for (int odd = 0; odd < 2; odd++)
			for (int i = 1; i < st[odd]->n; i++)
				bounds[nb++] = st[odd]->from[i];
		nl = far_lengths(bounds, nb, INT32_MAX, lens);
		lens[nl++] = INT32_MAX;
		for (int odd = 0; odd < 2; odd++) {
			for (uint64_t len = 0; len <= 4200; len++)
				csum_reaches(rows[r].name, odd, len, probe_for(st[odd], len));
			for (size_t i = 0; i < nl; i++)
				csum_reaches(rows[r].name, odd, lens[i], probe_for(st[odd], lens[i]));
		}
	}
	hp_csum_use_row(hp_dispatch());
}

/* hp_crc32c() and hp_crc32c_inline() at @len reach probe @want (0: the
 * inlined stream, which then gives the reference's CRC; only called where
 * the buffer holds @len bytes). */
static void crc_reaches(const char *row, uint64_t len, int want)
{
	const uint8_t *p = big.base;
	hp_crc32c_fn want_fn = want ? crc_probes[want] : hp__crc32c_sse42;

	CHECK(hp__crc32c_fn_for(len) == want_fn,
	      "%s: len %llu: the lookup gives another step", row, (unsigned long long)len);
	if (!want && len > big.size)
		return;
	for (int inl = 0; inl < 2; inl++) {
		uint32_t got;

		hit = 0;
		got = inl ? hp_crc32c_inline(5, p, len) : hp_crc32c(5, p, len);
		if (want)
			CHECK(got == 0xcc000000u + want && hit == want,
			      "%s: len %llu: %s reached step %d, want %d", row,
			      (unsigned long long)len, inl ? "hp_crc32c_inline()" : "hp_crc32c()",
			      hit, want);
		else
			CHECK(got == hp_crc32c_ref(5, p, len) && hit == 0,
			      "%s: len %llu: %s reached probe %d, want the inlined stream", row,
			      (unsigned long long)len, inl ? "hp_crc32c_inline()" : "hp_crc32c()",
			      hit);
	}
}

/* The same for hp_crc32c(): 16-byte classes, far classes by the highest
 * set bit up to 64; the inlined stream first or not. */
static void test_crc32c_lengths_reach_their_step(void)
{
	static const struct {
		const char *name;
		struct probe_steps st;
		int inline_first;
	} rows[] = {
		{ "eight steps, the stream inlined",
		  { { 0, 9, 64, 100, 200, 333, 4097, 65536 }, { 0, 1, 2, 3, 4, 5, 6, 7 }, 8 }, 1 },
		{ "eight steps, nothing inlined",
		  { { 0, 40, 48, 4095, 4096, 1u << 20, 3000000000u, 4000000001u },
		    { 1, 2, 3, 4, 5, 6, 7, 1 }, 8 }, 0 },
		{ "the stream, then one step",
		  { { 0, 4097 }, { 0, 1 }, 2 }, 1 },
		{ "the stream alone", { { 0 }, { 0 }, 1 }, 1 },
	};

	for (size_t r = 0; r < sizeof(rows) / sizeof(*rows); r++) {
		const struct probe_steps *st = &rows[r].st;
		hp_crc32c_fn fn[HP_STEPS_MAX];
		uint64_t bounds[HP_STEPS_MAX], lens[600];
		size_t nl;

		if (rows[r].inline_first && !(hp_cpu_features() & HP_CPU_SSE42))
			continue;	/* the inlined stream is crc32 instructions */

		for (int i = 0; i < st->n; i++) {
			fn[i] = st->probe[i] ? crc_probes[st->probe[i]] : hp__crc32c_sse42;
			bounds[i] = st->from[i];
		}
		hp__crc32c_plan_fns(st->from, fn, st->n, rows[r].inline_first);
		nl = far_lengths(bounds + 1, st->n - 1, UINT64_MAX, lens);
		lens[nl++] = UINT64_MAX;
		for (uint64_t len = 0; len <= 4200; len++)
			crc_reaches(rows[r].name, len, probe_for(st, len));
		for (size_t i = 0; i < nl; i++)
			crc_reaches(rows[r].name, lens[i], probe_for(st, lens[i]));
	}
	hp_crc32c_use_row(hp_dispatch());
}

/* Rows of many steps, boundaries off the classes' edges and past 4 KiB
 * (their methods falling back where this CPU lacks them). */
static const char *const many_steps[] = {
	"name = many\n"
	"csum.even = scalar 0, avx512 256, avx2 1000, avx512 2048, avx2 4097, avx512 65536\n"
	"csum.odd = scalar 0, avx2 300, avx512 512, avx2 4000, avx512 4097, avx2-hybrid 8192, "
	"avx2 65536, avx512 65537\n"
	"crc32c = sse42 0, sse42-seedlast 40, sse42-4way-seedlast 100, fold4 200, "
	"sse42-3way 1000, avx512 4097, avx512-fused 65536, sse42-4way 65537\n",
	"name = many-uninlined\n"
	"csum.even = scalar 0, avx2 257, avx512 4095\n"
	"csum.odd = scalar 0, avx512 333, avx2 65535\n"
	"crc32c = fold8 0, sse42 40, sse42-seedlast 48, avx512 4096, fold4 5000, "
	"sse42-4way-seedlast 8193, avx512-fused 65535, avx512 1048576\n",
	"name = many-avx2\n"
	"csum.even = scalar 0\n"
	"csum.odd = scalar 0\n"
	"crc32c = sse42 0, avx2-vpclmul 129, avx2-fused 200, fold8 1000, avx2-fused 4097, "
	"avx2-vpclmul 49151, avx2-fused 49153, avx512 1000000\n",
	"name = many-seedlast\n"
	"csum.even = scalar 0\n"
	"csum.odd = scalar 0\n"
	"crc32c = sse42 0, avx2-seedlast 100, avx512-seedlast 129, avx2-seedlast 1000, "
	"avx512-seedlast 2047, avx512 2048, avx2-seedlast 4097, avx512-seedlast 65536\n",
};

/*
 * The CRC methods' fallbacks on this CPU (HOTPATH_CPU_HIDE included):
 * avx512-fused -> avx512 -> avx2-vpclmul (AVX2 and VPCLMULQDQ) -> fold8,
 * avx2-fused -> avx2-vpclmul -> fold8; fold8's own fallback below that;
 * avx512-seedlast -> avx2-seedlast (AVX2 and VPCLMULQDQ) ->
 * sse42-4way-seedlast, whose own fallback below that.
 */
static void test_crc32c_fallbacks(void)
{
	const uint32_t fold = HP_CPU_SSE42 | HP_CPU_PCLMUL;
	const uint32_t need512 = fold | HP_CPU_AVX512F | HP_CPU_AVX512BW | HP_CPU_AVX512VL |
				 HP_CPU_VPCLMUL;
	const uint32_t need256 = fold | HP_CPU_AVX2 | HP_CPU_VPCLMUL;
	uint32_t f = hp_cpu_features();
	hp_crc32c_fn fold8 = hp__crc32c_method_fn(HP_CRC32C_FOLD8);
	hp_crc32c_fn v256 = (f & need256) == need256 ? hp__crc32c_avx2 : fold8;
	hp_crc32c_fn v512 = (f & need512) == need512 ? hp__crc32c_avx512 : v256;

	CHECK(hp__crc32c_method_fn(HP_CRC32C_AVX2_VPCLMUL) == v256, "avx2-vpclmul's fallback");
	CHECK(hp__crc32c_method_fn(HP_CRC32C_AVX2_FUSED) ==
	      ((f & need256) == need256 ? hp__crc32c_fused256 : fold8), "avx2-fused's fallback");
	/* the fused loop's other shapes: their own code, else avx2-fused's fallback */
	CHECK(hp__crc32c_method_fn(HP_CRC32C_AVX2_FUSED_4X24) ==
	      ((f & need256) == need256 ? hp__crc32c_fused256_4x24 : fold8),
	      "avx2-fused-4x24's fallback");
	CHECK(hp__crc32c_method_fn(HP_CRC32C_AVX2_FUSED_4X32) ==
	      ((f & need256) == need256 ? hp__crc32c_fused256_4x32 : fold8),
	      "avx2-fused-4x32's fallback");
	CHECK(hp__crc32c_method_fn(HP_CRC32C_AVX512) == v512, "avx512's fallback");
	CHECK(hp__crc32c_method_fn(HP_CRC32C_AVX512_FUSED) ==
	      ((f & need512) == need512 ? hp__crc32c_fused512 : v512), "avx512-fused's fallback");
	hp_crc32c_fn sl4 = hp__crc32c_method_fn(HP_CRC32C_SSE42_4WAY_SEEDLAST);
	hp_crc32c_fn sl256 = (f & need256) == need256 ? hp__crc32c_avx2_seedlast : sl4;
	hp_crc32c_fn sl512 = (f & need512) == need512 ? hp__crc32c_avx512_seedlast : sl256;

	CHECK(hp__crc32c_method_fn(HP_CRC32C_AVX2_SEEDLAST) == sl256, "avx2-seedlast's fallback");
	CHECK(hp__crc32c_method_fn(HP_CRC32C_AVX512_SEEDLAST) == sl512,
	      "avx512-seedlast's fallback");
	printf("  crc32c fallbacks here: avx512-seedlast -> %s\n",
	       sl512 == hp__crc32c_avx512_seedlast ? "avx512-seedlast" :
	       sl512 == hp__crc32c_avx2_seedlast ? "avx2-seedlast" :
	       sl512 == hp__crc32c_4way_seedlast ? "sse42-4way-seedlast" : "its fallback");
	printf("  crc32c fallbacks here: avx512 -> %s, avx2-fused -> %s\n",
	       v512 == hp__crc32c_avx512 ? "avx512" : v512 == hp__crc32c_avx2 ? "avx2-vpclmul" :
	       "fold8's",
	       (f & need256) == need256 ? "avx2-fused" : "fold8's");
}

static enum hp_crc32c_method row_method(const struct hp_steps *st, uint64_t len)
{
	int i = 0;

	while (i + 1 < st->n && len >= st->from[i + 1])
		i++;
	return st->method[i];
}

/* Under @row, every length 0..4200 and every boundary's neighbours: the
 * function hp_csum() and hp_crc32c() run is the row's step's method on
 * this CPU. */
static void choose_steps(const struct hp_dispatch_row *row)
{
	uint64_t bounds[3 * HP_STEPS_MAX], lens[800];
	size_t nb = 0, nl;

	hp_csum_use_row(row);
	hp_crc32c_use_row(row);
	for (int odd = 0; odd < 2; odd++)
		for (int i = 1; i < row->csum[odd].n; i++)
			bounds[nb++] = row->csum[odd].from[i];
	for (int i = 1; i < row->crc32c.n; i++)
		bounds[nb++] = row->crc32c.from[i];
	nl = far_lengths(bounds, nb, INT32_MAX, lens);
	for (size_t i = 0; i < nl + 4201; i++) {
		uint64_t len = i < nl ? lens[i] : i - nl;	/* then 0..4200 */

		for (int odd = 0; odd < 2; odd++) {
			const void *p = (const uint8_t *)big.base + odd;
			hp_csum_fn want = hp__csum_method_fn(
				(enum hp_csum_path)row_method(&row->csum[odd], len));

			CHECK(hp__csum_fn_for(p, (int)len) == want,
			      "row %s: hp_csum len %llu odd %d runs another method", row->name,
			      (unsigned long long)len, odd);
		}
		CHECK(hp__crc32c_fn_for(len) == hp__crc32c_method_fn(row_method(&row->crc32c, len)),
		      "row %s: hp_crc32c len %llu runs another method", row->name,
		      (unsigned long long)len);
	}
}

static void test_every_row_chooses_its_steps(void)
{
	for (size_t i = 0; i < sizeof(cpus) / sizeof(*cpus); i++)
		choose_steps(hp_dispatch_builtin(cpus[i].vendor, cpus[i].family, cpus[i].model));
	for (size_t i = 0; i < sizeof(many_steps) / sizeof(*many_steps); i++) {
		struct hp_dispatch_row row;
		char err[200] = "";

		CHECK(hp_dispatch_parse(many_steps[i], &row, err, sizeof(err)) == 0, "%s: %s",
		      many_steps[i], err);
		choose_steps(&row);
	}
	hp_csum_use_row(hp_dispatch());
	hp_crc32c_use_row(hp_dispatch());
}

/* The many-step rows' results: 0..4096 as every row, and each boundary's
 * neighbours past that, against the reference, ending at the guard. */
static void boundaries(void *arg)
{
	const struct hp_dispatch_row *row = arg;
	uint64_t bounds[3 * HP_STEPS_MAX], lens[800];
	size_t nb = 0, nl;

	for (int odd = 0; odd < 2; odd++)
		for (int i = 1; i < row->csum[odd].n; i++)
			bounds[nb++] = row->csum[odd].from[i];
	for (int i = 1; i < row->crc32c.n; i++)
		bounds[nb++] = row->crc32c.from[i];
	nl = far_lengths(bounds, nb, big.size - 1, lens);
	for (size_t i = 0; i < nl; i++)
		for (size_t a = 0; a < 2; a++) {
			size_t len = lens[i];
			const uint8_t *p = hp_guarded_butt(&big, len) - a;
			uint32_t seed = (uint32_t)rnd();

			if (hp_csum(p, (int)len, seed) != hp_csum_scalar(p, (int)len, seed) &&
			    wrong++ < 5)
				fprintf(stderr, "  %s: hp_csum len %zu odd %zu wrong\n", row->name,
					len, (size_t)((uintptr_t)p & 1));
			if (hp_crc32c(seed, p, len) != hp_crc32c_ref(seed, p, len) && wrong++ < 5)
				fprintf(stderr, "  %s: hp_crc32c len %zu wrong\n", row->name, len);
		}
}

static void test_many_steps_are_correct_here(void)
{
	for (size_t i = 0; i < sizeof(many_steps) / sizeof(*many_steps); i++) {
		struct hp_dispatch_row row;
		char err[200] = "";

		CHECK(hp_dispatch_parse(many_steps[i], &row, err, sizeof(err)) == 0, "%s: %s",
		      many_steps[i], err);
		hp_csum_use_row(&row);
		hp_crc32c_use_row(&row);
		wrong = 0;
		CHECK(!hp_guarded_call(sweep, row.name), "%s read outside", row.name);
		CHECK(!hp_guarded_call(boundaries, &row), "%s read outside", row.name);
		CHECK(wrong == 0, "row %s: %lu results wrong", row.name, wrong);
	}
	hp_csum_use_row(hp_dispatch());
	hp_crc32c_use_row(hp_dispatch());
}

int main(void)
{
	if (hp_guarded_alloc(&g, 4096 + 64) || hp_guarded_alloc(&big, (1 << 20) + 4096)) {
		perror("hp_guarded_alloc");
		return 2;
	}
	fill_random(g.base, g.size);
	fill_random(big.base, big.size);
	test_every_row_is_correct_here();
	test_row_shapes_are_correct_here();
	test_csum_shortcut_only_for_the_last_method();
	test_csum_lengths_reach_their_step();
	test_crc32c_lengths_reach_their_step();
	test_every_row_chooses_its_steps();
	test_many_steps_are_correct_here();
	test_crc32c_fallbacks();
	hp_guarded_free(&big);
	hp_guarded_free(&g);
	return check_summary("test_dispatch");
}
