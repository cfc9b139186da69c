// SPDX-License-Identifier: GPL-2.0-only
/*
 * Every csum_partial_copy variant in the registry, copying between two
 * guarded buffers: every length 0..1536 at every source alignment 0..63
 * and four destination alignments, random lengths up to 64 KiB, random,
 * all-0xff and carry-edge data, seeds 0, 0xffffffff and random. Both the
 * source's and the destination's last byte sit against a PROT_NONE guard
 * page in one sweep, their first byte against the front guard page in
 * another, so that a read or write one byte outside faults.
 *
 * Each case checks csum_fold() of the result against the reference, the
 * copy byte for byte, and that the bytes around the destination kept
 * their poison. hotpath's own variants promise more (the canonical sum),
 * so their raw bits must also equal hp_csum_scalar()'s.
 */
#include <hotpath/bench.h>
#include <hotpath/csum.h>
#include <hotpath/guard.h>

#include <string.h>

#include "check.h"
#define TEST_RNG_SEED 0xd1b54a32d192ed03ull
#include "testdata.h"

extern const struct hp_primitive hp_prim_csum_partial_copy;

#define DENSE_MAX 1536
#define BIG (64 * 1024)
#define AROUND 64	/* poisoned bytes checked on each side of dst */
#define POISON 0xa5
#define NDST 4		/* destination alignments per source alignment */

static struct hp_guarded gs, gd;	/* source, destination */


struct sweep {
	const struct hp_variant *v;
	hp_csum_copy_fn fn;
	int raw;		/* raw bits must equal hp_csum_scalar()'s */
	const char *pattern;
	unsigned long cases, bad;
	/* the case in progress, named if it faults */
	size_t len, sa, da;
};

static int poisoned(const uint8_t *p, const uint8_t *end)
{
	for (; p < end; p++)
		if (*p != POISON)
			return 0;
	return 1;
}

/* One call: the destination and its surroundings poisoned first. */
static void one(struct sweep *s, const uint8_t *src, uint8_t *dst,
		size_t len, uint32_t seed, uint16_t want)
{
	uint8_t *lo = dst - gd.base < AROUND ? gd.base : dst - AROUND;
	uint8_t *end = gd.base + gd.size;
	uint8_t *hi = (size_t)(end - dst) - len < AROUND ? end :
		      dst + len + AROUND;
	const char *what = NULL;
	uint32_t got;

	s->cases++;
	s->len = len;
	s->sa = (uintptr_t)src & 63;
	s->da = (uintptr_t)dst & 63;
	memset(lo, POISON, (size_t)(hi - lo));
	got = s->fn(src, dst, (int)len, seed);
	if (hp_csum_fold(got) != want)
		what = "csum_fold differs from the reference's";
	else if (s->raw && got != hp_csum_scalar(src, (int)len, seed))
		what = "raw sum differs from hp_csum_scalar()'s";
	else if (memcmp(dst, src, len))
		what = "copy differs from the source";
	else if (!poisoned(lo, dst))
		what = "wrote before the destination";
	else if (!poisoned(dst + len, hi))
		what = "wrote after the destination";
	if (what && s->bad++ < 3)
		fprintf(stderr,
			"  %s (%s data): len %zu src align %zu dst align %zu seed %#x: %s (got %#x)\n",
			s->v->name, s->pattern, len, s->sa, s->da, seed, what,
			got);
}

/* The three seeds of a case, with their reference folds. */
static void seeds(const uint8_t *src, size_t len, uint32_t seed[3],
		  uint16_t want[3])
{
	seed[0] = 0;
	seed[1] = 0xffffffffu;
	seed[2] = (uint32_t)rnd();
	for (int k = 0; k < 3; k++)
		want[k] = hp_csum_fold(hp_csum_ref(src, (int)len, seed[k]));
}

static void sweep_body(void *arg)
{
	/* aligned, odd, off by a few bytes, and past a 32-byte boundary */
	static const size_t dst_aligns[NDST] = { 0, 1, 7, 33 };
	struct sweep *s = arg;
	uint32_t seed[3];
	uint16_t want[3];
	const uint8_t *src;
	size_t len, sa, i;
	int k;

	for (len = 0; len <= DENSE_MAX; len++) {
		for (sa = 0; sa < 64; sa++) {
			src = hp_guarded_place(&gs, len, sa);
			seeds(src, len, seed, want);
			for (i = 0; i < NDST; i++)
				for (k = 0; k < 3; k++)
					one(s, src,
					    hp_guarded_place(&gd, len,
							     dst_aligns[i]),
					    len, seed[k], want[k]);
		}
		/* last bytes against the rear guards, then first bytes
		 * against the front ones */
		src = hp_guarded_butt(&gs, len);
		seeds(src, len, seed, want);
		for (k = 0; k < 3; k++)
			one(s, src, hp_guarded_butt(&gd, len), len, seed[k],
			    want[k]);
		seeds(gs.base, len, seed, want);
		for (k = 0; k < 3; k++)
			one(s, gs.base, gd.base, len, seed[k], want[k]);
	}
	for (i = 0; i < 64; i++) {
		len = rnd() % (BIG + 1);
		src = hp_guarded_place(&gs, len, rnd() & 63);
		seeds(src, len, seed, want);
		for (k = 0; k < 3; k++)
			one(s, src, hp_guarded_place(&gd, len, rnd() & 63),
			    len, seed[k], want[k]);
		src = hp_guarded_butt(&gs, len);
		seeds(src, len, seed, want);
		one(s, src, hp_guarded_butt(&gd, len), len, seed[2], want[2]);
	}
}

static void test_variant(const struct hp_variant *v)
{
	static const char *const names[] = { "random", "all-0xff",
					     "carry-edge" };
	struct sweep s = {
		.v = v,
		.fn = (hp_csum_copy_fn)v->fn,
		.raw = !strncmp(v->name, "hp", 2),
	};
	int pat;

	if (v->unavailable || (v->needs & ~hp_cpu_features())) {
		printf("  %-16s skipped: %s\n", v->name,
		       v->unavailable ? v->unavailable :
		       "this CPU lacks a needed feature");
		return;
	}
	for (pat = 0; pat < 3; pat++) {
		s.pattern = names[pat];
		if (pat == 0)
			fill_random(gs.base, gs.size);
		else if (pat == 1)
			memset(gs.base, 0xff, gs.size);
		else
			fill_carry_edge(gs.base, gs.size);
		CHECK(!hp_guarded_call(sweep_body, &s),
		      "%s (%s data) touched a guard page: len %zu src align %zu dst align %zu",
		      v->name, s.pattern, s.len, s.sa, s.da);
	}
	CHECK(s.bad == 0, "%s: %lu of %lu cases wrong", v->name, s.bad,
	      s.cases);
	printf("  %-16s %9lu cases, %lu wrong\n", v->name, s.cases, s.bad);
}

int main(void)
{
	const struct hp_primitive *p = &hp_prim_csum_partial_copy;

	if (hp_guarded_alloc(&gs, BIG + 4096) ||
	    hp_guarded_alloc(&gd, BIG + 4096)) {
		perror("hp_guarded_alloc");
		return 2;
	}
	for (size_t i = 0; i < p->nvariants; i++)
		test_variant(&p->variants[i]);
	hp_guarded_free(&gs);
	hp_guarded_free(&gd);
	return check_summary("test_csum_copy");
}
