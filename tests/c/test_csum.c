// SPDX-License-Identifier: GPL-2.0-only
/*
 * Every csum_partial variant in the registry, within its domain, against
 * the promise it makes (checked with the registry's own check(), which
 * the correctness gate uses too): every alignment 0..63 x every length
 * 0..1536, random lengths up to 64 KiB, all-0xff and carry-edge data,
 * seeds 0, 0xffffffff and random, and the last byte against a PROT_NONE
 * guard page. The seed baseline (kernel-5.17-rc) must be wrong exactly
 * where its bug says, and the notes' misprinted two-stream step wrong.
 */
#include <hotpath/bench.h>
#include <hotpath/csum.h>
#include <hotpath/guard.h>

#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "registry_walk.h"
#define TEST_RNG_SEED 0x9e3779b97f4a7c15ull
#include "testdata.h"

extern const struct hp_primitive hp_prim_csum_partial;

#define DENSE_MAX 1536
#define BIG (64 * 1024)

static struct hp_guarded g;

/* Known-wrong variants are tested for being wrong, below. */
static int expect_wrong(const struct hp_variant *v)
{
	return !strcmp(v->name, "kernel-5.17-rc") ||
	       !strcmp(v->name, "seed-two-streams-published");
}

struct sweep {
	const struct hp_variant *v;
	unsigned long cases, bad;
	const char *pattern;
};

static void one(struct sweep *s, const uint8_t *buf, size_t len,
		uint64_t seed)
{
	uint64_t exp, got;

	s->cases++;
	if (!hp_prim_csum_partial.check(s->v, buf, len, seed, &exp, &got))
		return;
	if (s->bad++ < 3 && !expect_wrong(s->v))
		fprintf(stderr,
			"  %s (%s data): len %zu align %zu seed %#llx: expected %#llx got %#llx\n",
			s->v->name, s->pattern, len,
			(size_t)((uintptr_t)buf & 63), (unsigned long long)seed,
			(unsigned long long)exp, (unsigned long long)got);
}

static void seeds(struct sweep *s, const uint8_t *buf, size_t len)
{
	one(s, buf, len, 0);
	one(s, buf, len, 0xffffffffu);
	one(s, buf, len, rnd() & 0xffffffffu);
}

static void sweep_body(void *arg)
{
	struct sweep *s = arg;
	const struct hp_variant *v = s->v;
	size_t len, a;
	int i;

	for (len = 0; len <= DENSE_MAX; len++) {
		if (!in_domain(v, len))
			continue;
		for (a = 0; a < 64; a++)
			seeds(s, hp_guarded_place(&g, len, a), len);
		/* the last byte against the rear guard page */
		seeds(s, hp_guarded_butt(&g, len), len);
		/* the first byte against the front one: overlapping tail
		 * loads reach back from the end, never before the start */
		seeds(s, g.base, len);
	}
	for (i = 0; i < 48; i++) {
		len = rnd() % (BIG + 1);
		if (in_domain(v, len))
			seeds(s, hp_guarded_place(&g, len, rnd() & 63), len);
	}
	if (v->max_len && v->max_len <= DENSE_MAX) {
		/* narrow domains: many more buffers at every alignment */
		for (i = 0; i < 2000; i++) {
			len = v->min_len + rnd() % (v->max_len - v->min_len + 1);
			a = rnd() & 63;
			seeds(s, hp_guarded_place(&g, len, a), len);
		}
	}
}

static void test_variant(const struct hp_variant *v)
{
	struct sweep s = { .v = v };
	static const char *const names[] = { "random", "all-0xff",
					     "carry-edge" };
	int pat, faulted = 0;

	for (pat = 0; pat < 3; pat++) {
		s.pattern = names[pat];
		if (pat == 0)
			fill_random(g.base, g.size);
		else if (pat == 1)
			memset(g.base, 0xff, g.size);
		else
			fill_carry_edge(g.base, g.size);
		if (hp_guarded_call(sweep_body, &s))
			faulted = 1;
	}
	CHECK(!faulted, "%s read outside its buffer", v->name);
	if (expect_wrong(v))
		CHECK(s.bad > 0, "%s should be wrong somewhere (%lu cases)",
		      v->name, s.cases);
	else
		CHECK(s.bad == 0, "%s: %lu of %lu cases broke its promise",
		      v->name, s.bad, s.cases);
	printf("  %-28s %8lu cases, %lu off its promise%s\n", v->name,
	       s.cases, s.bad, expect_wrong(v) ? " (expected)" : "");
}

/*
 * The first 5.17 code byte-swaps the sum of an odd buffer back at the end
 * but adds the seed unswapped: its fold is off by (2^8 - 1) * seed modulo
 * 0xffff, zero exactly when the seed is a multiple of 257 (0 and ~0 are).
 */
static void test_rc_bug(void)
{
	unsigned long wrong_as_predicted = 0, right_as_predicted = 0;
	size_t len, a;
	int i;

	fill_random(g.base, g.size);
	for (i = 0; i < 3000; i++) {
		uint32_t seed;
		uint8_t *buf;

		len = 1 + rnd() % 300;
		a = rnd() & 63;
		switch (i % 4) {
		case 0:
			seed = 0;
			break;
		case 1:
			seed = 257u * (uint32_t)(rnd() % 16711935u);
			break;
		default:
			seed = (uint32_t)rnd();
		}
		buf = hp_guarded_place(&g, len, a);
		int bug = (a & 1) && seed % 257;
		int ok = hp_csum_fold(hp_csum_kernel_5_17_rc(buf, (int)len,
							     seed)) ==
			 hp_csum_fold(hp_csum_ref(buf, (int)len, seed));

		CHECK(ok == !bug,
		      "kernel-5.17-rc: len %zu align %zu seed %#x: %s", len, a,
		      seed, ok ? "right, expected wrong" : "wrong, expected right");
		if (bug && !ok)
			wrong_as_predicted++;
		if (!bug && ok)
			right_as_predicted++;
	}
	printf("  kernel-5.17-rc: wrong on %lu odd+seed cases, right on %lu others, as predicted\n",
	       wrong_as_predicted, right_as_predicted);
}

/*
 * Canonical sums: every variant with a raw promise returns the same bits
 * as kernel 5.17 at even addresses, whatever its chain shape.
 */
static void test_raw_agreement(void)
{
	const hp_csum_fn fns[] = { hp_csum, hp_csum_scalar,
				   hp_csum_kernel_2024, hp_csum_seed_no_odd };
	size_t len;

	fill_random(g.base, g.size);
	for (len = 0; len <= 2048; len += 2) {
		const uint8_t *buf = hp_guarded_place(&g, len, 0);
		uint32_t s = (uint32_t)rnd();
		uint32_t k = hp_csum_kernel_5_17(buf, (int)len, s);

		for (size_t i = 0; i < sizeof(fns) / sizeof(*fns); i++)
			CHECK(fns[i](buf, (int)len, s) == k,
			      "fn %zu len %zu: raw differs from 5.17", i, len);
	}
}

int main(void)
{
	const struct hp_primitive *p = &hp_prim_csum_partial;

	if (hp_guarded_alloc(&g, BIG + 4096)) {
		perror("hp_guarded_alloc");
		return 2;
	}
	for (size_t i = 0; i < p->nvariants; i++) {
		const struct hp_variant *v = &p->variants[i];
		const char *why = skip_reason(v);

		if (why) {
			printf("  %-28s skipped: %s\n", v->name, why);
			continue;
		}
		test_variant(v);
	}
	test_rc_bug();
	test_raw_agreement();
	CHECK(!strcmp(p->promise_name(HP_CSUM_RAW),
		      "raw 32 bits equal to kernel-5.17's"),
	      "promise names");
	hp_guarded_free(&g);
	return check_summary("test_csum");
}
