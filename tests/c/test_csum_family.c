// SPDX-License-Identifier: GPL-2.0-only
/*
 * The rest of the checksum family against their references: csum_fold
 * (32 million inputs and every carry edge), ip_fast_csum (ihl 5..15 at
 * every alignment), csum_ipv6_magic (random and edge fields and seeds),
 * csum_partial_copy (lengths 0..1536 at source and destination
 * alignments, random lengths to 64 KiB, no stray writes). Inputs sit
 * against PROT_NONE guard pages.
 */
#include <hotpath/bench.h>
#include <hotpath/csum.h>
#include <hotpath/guard.h>

#include <string.h>

#include "check.h"
#define TEST_RNG_SEED 0x853c49e6748fea9bull
#include "testdata.h"

extern const struct hp_primitive hp_prim_csum_fold;
extern const struct hp_primitive hp_prim_ip_fast_csum;
extern const struct hp_primitive hp_prim_csum_ipv6_magic;
extern const struct hp_primitive hp_prim_csum_partial_copy;

static struct hp_guarded g;

static void fill(int ones)
{
	if (ones)
		memset(g.base, 0xff, g.size);
	else
		for (size_t i = 0; i < g.size; i++)
			g.base[i] = (uint8_t)rnd();
}

static void test_fold(void)
{
	const hp_fold_fn fns[] = { hp_fold_kernel, hp_fold_hp };
	unsigned long bad[2] = { 0, 0 };
	uint32_t x, i;

	for (i = 0; i < (1u << 25); i++) {
		x = i * 0x9e3779b1u;
		for (int k = 0; k < 2; k++)
			bad[k] += fns[k](x) != hp_csum_fold(x);
	}
	/* every low half with the high halves where carries are decided */
	for (i = 0; i < (1u << 16); i++) {
		static const uint32_t his[] = { 0, 1, 0x7fff, 0x8000, 0xfffe,
						0xffff };
		for (size_t h = 0; h < 6; h++) {
			x = his[h] << 16 | i;
			for (int k = 0; k < 2; k++)
				bad[k] += fns[k](x) != hp_csum_fold(x);
		}
	}
	CHECK(!bad[0], "csum_fold kernel: %lu wrong", bad[0]);
	CHECK(!bad[1], "csum_fold hp: %lu wrong", bad[1]);
}

struct gated {
	const struct hp_primitive *p;
	const struct hp_variant *v;
	unsigned long cases, bad;
};

static void run_case(struct gated *s, const uint8_t *buf, size_t len,
		     uint64_t seed)
{
	uint64_t exp, got;

	s->cases++;
	if (s->p->check(s->v, buf, len, seed, &exp, &got) && s->bad++ < 3)
		fprintf(stderr, "  %s %s: len %zu align %zu seed %#llx: expected %#llx got %#llx\n",
			s->p->name, s->v->name, len,
			(size_t)((uintptr_t)buf & 63),
			(unsigned long long)seed, (unsigned long long)exp,
			(unsigned long long)got);
}

static void sweep_fixed(void *arg)
{
	struct gated *s = arg;
	size_t len, a;
	int i;

	for (len = s->v->min_len; len <= s->v->max_len; len++) {
		if (s->p->size_ok && !s->p->size_ok(len))
			continue;
		for (a = 0; a < 64; a++)
			for (i = 0; i < 8; i++)
				run_case(s, hp_guarded_place(&g, len, a), len,
					 i == 0 ? 0 : i == 1 ? 0xffffffffu :
					 (uint32_t)rnd());
		run_case(s, hp_guarded_butt(&g, len), len, (uint32_t)rnd());
	}
}

static void sweep_copy(void *arg)
{
	struct gated *s = arg;
	size_t len, a;
	int i;

	for (len = 0; len <= 1536; len++)
		for (a = 0; a < 8; a++)
			run_case(s, hp_guarded_place(&g, len, a * 9), len,
				 (uint32_t)rnd());
	for (len = 0; len <= 1536; len += 7)
		run_case(s, hp_guarded_butt(&g, len), len, 0xffffffffu);
	for (i = 0; i < 64; i++) {
		len = rnd() % (64 * 1024 + 1);
		run_case(s, hp_guarded_place(&g, len, rnd() & 63), len,
			 (uint32_t)rnd());
	}
}

static void test_primitive(const struct hp_primitive *p,
			   void (*sweep)(void *))
{
	for (size_t i = 0; i < p->nvariants; i++) {
		struct gated s = { .p = p, .v = &p->variants[i] };

		/* hp-avx2 and the like: skipped, saying so, on CPUs without */
		if (s.v->needs & ~hp_cpu_features()) {
			printf("  %-18s %-8s skipped: this CPU lacks a needed feature\n",
			       p->name, s.v->name);
			continue;
		}
		for (int ones = 0; ones < 2; ones++) {
			fill(ones);
			CHECK(!hp_guarded_call(sweep, &s),
			      "%s %s read outside its buffer", p->name,
			      s.v->name);
		}
		CHECK(s.bad == 0, "%s %s: %lu of %lu cases wrong", p->name,
		      s.v->name, s.bad, s.cases);
		printf("  %-18s %-8s %8lu cases, %lu wrong\n", p->name,
		       s.v->name, s.cases, s.bad);
	}
}

int main(void)
{
	if (hp_guarded_alloc(&g, 64 * 1024 + 4096)) {
		perror("hp_guarded_alloc");
		return 2;
	}
	test_fold();
	test_primitive(&hp_prim_csum_fold, sweep_fixed);
	test_primitive(&hp_prim_ip_fast_csum, sweep_fixed);
	test_primitive(&hp_prim_csum_ipv6_magic, sweep_fixed);
	test_primitive(&hp_prim_csum_partial_copy, sweep_copy);
	/* sizes outside a primitive's meaning are refused */
	CHECK(!hp_prim_ip_fast_csum.size_ok(22) &&
	      !hp_prim_ip_fast_csum.size_ok(16) &&
	      !hp_prim_ip_fast_csum.size_ok(64) &&
	      hp_prim_ip_fast_csum.size_ok(60), "ip_fast_csum sizes");
	CHECK(!hp_prim_csum_fold.size_ok(8), "csum_fold sizes");
	CHECK(!hp_prim_csum_ipv6_magic.size_ok(41), "ipv6_magic sizes");
	hp_guarded_free(&g);
	return check_summary("test_csum_family");
}
