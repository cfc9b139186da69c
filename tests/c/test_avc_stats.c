// SPDX-License-Identifier: GPL-2.0-only
/*
 * What the AVC lab's cache model measures: hash_stats, cache_stats and the
 * chain histogram against a recount, the memory a configuration costs, the
 * workload through the cache, the random-hash formulas against simulation,
 * the hashes' spread on the keys SELinux makes, and the avc_lookup
 * registry's promise. The mechanics are test_avc.c's.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <hotpath/avc.h>
#include <hotpath/bench.h>

#include "check.h"
#define TEST_RNG_SEED 0x5e1a0a7c0ffee004ull
#include "testdata.h"
#include "avc_setup.h"

/* ---- hash_stats, cache_stats, histogram, memory ---- */

static void recount(const struct hp_avc_cache *c, uint32_t *entries,
		    uint32_t *used, uint32_t *longest, uint32_t *hist)
{
	uint32_t s;

	*entries = *used = *longest = 0;
	for (s = 0; s < c->nslots; s++) {
		struct hp_avc_hlist_node *pos;
		uint32_t len = 0;

		for (pos = c->slots[s].first; pos; pos = pos->next)
			len++;
		*entries += len;
		*used += len > 0;
		*longest = len > *longest ? len : *longest;
		hist[len < 8 ? len : 7]++;
	}
}

static void check_stats_text(const struct hp_avc_cache *c)
{
	uint32_t e, u, l, hist[8] = { 0 }, got[8];
	char want[200], buf[200];
	int n;

	recount(c, &e, &u, &l, hist);
	snprintf(want, sizeof(want), "entries: %u\nbuckets used: %u/%u\n"
		 "longest chain: %u\n", e, u, c->nslots, l);
	n = hp_avc_hash_stats(c, buf, sizeof(buf));
	CHECK(!strcmp(buf, want) && n == (int)strlen(want), "got \"%s\" "
	      "want \"%s\"", buf, want);
	CHECK(e == c->active_nodes, "entries %u, active %u", e,
	      c->active_nodes);
	CHECK(hp_avc_chain_histogram(c, got, 8) == l &&
	      !memcmp(got, hist, sizeof(hist)), "histogram");
	n = hp_avc_hash_stats(c, buf, 10);
	CHECK(n == 9 && !strncmp(buf, want, 9) && !buf[9], "cut to fit: %d", n);
	CHECK(hp_avc_hash_stats(c, buf, 0) == 0, "no room");
}

static void test_stats(void)
{
	struct hp_avc_cache c;
	char want[200], buf[200];
	uint32_t i, hist1;
	size_t h;

	for (h = 0; h < 5; h++) {
		init_with(&c, 256, 1500, 0, hp_avc_hashes[h].fn, 0);
		check_stats_text(&c);
		for (i = 0; i < 4000; i++)
			hp_avc_access(&c, 28 + rnd() % 60, 28 + rnd() % 60,
				      1 + rnd() % 20);
		check_stats_text(&c);
		CHECK(hp_avc_chain_histogram(&c, &hist1, 1) >= 1 &&
		      hist1 == c.nslots, "one bin holds every bucket");
		CHECK(c.stats.lookups == c.stats.hits + c.stats.misses &&
		      c.stats.allocations == c.stats.misses &&
		      c.stats.frees == c.stats.reclaims, "counters add up");
		snprintf(want, sizeof(want), "lookups hits misses allocations "
			 "reclaims frees\n%llu %llu %llu %llu %llu %llu\n",
			 (unsigned long long)c.stats.lookups,
			 (unsigned long long)c.stats.lookups - c.stats.misses,
			 (unsigned long long)c.stats.misses,
			 (unsigned long long)c.stats.allocations,
			 (unsigned long long)c.stats.reclaims,
			 (unsigned long long)c.stats.frees);
		hp_avc_cache_stats(&c, buf, sizeof(buf));
		CHECK(!strcmp(buf, want), "cache_stats \"%s\"", buf);
		hp_avc_flush(&c);
		check_stats_text(&c);
		hp_avc_destroy(&c);
	}
}

static void test_memory(void)
{
	struct hp_avc_memory m;

	/* 512 slots x 12 = 6144; 512 nodes x 72 = 36864 in ceil(512 / 56)
	 * = 10 pages = 40960; total 47104 */
	hp_avc_memory(512, 512, &m);
	CHECK(m.slot_bytes == 6144 && m.node_bytes == 36864 &&
	      m.node_slab_bytes == 40960 && m.total == 47104, "512/512");
	/* 16384 x 12 = 196608; 8192 x 72 = 589824 in 147 pages = 602112 */
	hp_avc_memory(16384, 8192, &m);
	CHECK(m.slot_bytes == 196608 && m.node_bytes == 589824 &&
	      m.node_slab_bytes == 602112 && m.total == 798720, "16384/8192");
	hp_avc_memory(1, 0, &m);
	CHECK(m.total == 12 && m.node_slab_bytes == 0, "empty");
}

/* ---- the workload through the cache ---- */

static void test_workload_cache(void)
{
	struct hp_avc_workload_params wp;
	struct hp_avc_workload w;
	struct hp_avc_cache c;
	uint32_t i;

	hp_avc_workload_params_init(&wp);
	hp_avc_workload_init(&w, &wp);
	init_with(&c, 512, 512, 0, hp_avc_hash_hp, HP_AVC_RECLAIM_KERNEL);
	for (i = 0; i < 300000; i++) {
		uint32_t s, t;
		uint16_t k;

		hp_avc_workload_next(&w, &s, &t, &k);
		hp_avc_access(&c, s, t, k);
	}
	CHECK(c.active_nodes <= 512 && c.active_nodes >= 512 - 16,
	      "active %u", c.active_nodes);
	CHECK(c.stats.allocations == c.stats.misses &&
	      c.stats.allocations - c.stats.frees == c.active_nodes,
	      "allocations - frees = active");
	CHECK(c.stats.hits > c.stats.misses, "a cache that hits: %llu/%llu",
	      (unsigned long long)c.stats.hits,
	      (unsigned long long)c.stats.lookups);
	check_stats_text(&c);
	hp_avc_destroy(&c);
	hp_avc_workload_destroy(&w);
}

/* ---- a random hash's limits, against simulation ---- */

static uint32_t bins[8192];

static void simulate(uint32_t n, uint32_t m, int trials, double *used,
		     double *longest, double *se)
{
	double su = 0, sl = 0, sl2 = 0;
	int t;

	for (t = 0; t < trials; t++) {
		uint32_t i, u = 0, l = 0;

		memset(bins, 0, sizeof(bins[0]) * m);
		for (i = 0; i < n; i++)
			bins[((rnd() >> 32) * m) >> 32]++;
		for (i = 0; i < m; i++) {
			u += bins[i] > 0;
			l = bins[i] > l ? bins[i] : l;
		}
		su += u;
		sl += l;
		sl2 += (double)l * l;
	}
	*used = su / trials;
	*longest = sl / trials;
	*se = sqrt((sl2 / trials - *longest * *longest) / trials);
}

/*
 * Tolerance: the mean of the simulation within 4 standard errors, plus
 * 0.1 for the longest chain (the formula treats the buckets as
 * independent; seen to be off by at most 0.08 at m = 20, 0.03 at
 * m >= 512), and 0.5% of m for the buckets used.
 */
static void test_random_limits(void)
{
	static const uint32_t cases[][3] = {
		{ 512, 512, 300 }, { 1024, 512, 300 }, { 2048, 512, 200 },
		{ 100, 1000, 400 }, { 3000, 1024, 200 }, { 20, 20, 1000 },
		{ 8192, 8192, 40 }, { 16, 1, 10 },
	};
	size_t i;

	CHECK(hp_avc_expected_used(0, 512) == 0, "no keys");
	CHECK(fabs(hp_avc_expected_used(1, 512) - 1) < 1e-12, "one key");
	CHECK(hp_avc_expected_longest(0, 512) == 0 &&
	      hp_avc_expected_longest(7, 1) == 7, "edges");
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		uint32_t n = cases[i][0], m = cases[i][1];
		double u, l, se, eu = hp_avc_expected_used(n, m);
		double el = hp_avc_expected_longest(n, m);

		simulate(n, m, (int)cases[i][2], &u, &l, &se);
		CHECK(fabs(u - eu) < 0.005 * m + 1,
		      "%u in %u: used %.2f vs %.2f", n, m, u, eu);
		CHECK(fabs(l - el) < 4 * se + 0.1, "%u in %u: longest %.3f vs "
		      "%.3f (se %.3f)", n, m, l, el, se);
	}
}

/* ---- the hashes on the keys SELinux makes ---- */

/* Fill a cache with a lattice of sequential SIDs; no reclaim. */
static void lattice_fill(hp_avc_hash_fn fn, uint32_t m, uint32_t a,
			 uint32_t b, uint32_t nc, struct hp_avc_hash_counts *hc)
{
	struct hp_avc_cache c;
	uint32_t x, y, z;

	init_with(&c, m, a * b * nc, 0, fn, 0);
	for (x = 0; x < a; x++)
		for (y = 0; y < b; y++)
			for (z = 1; z <= nc; z++)
				hp_avc_insert(&c, 28 + x, 28 + y, z, NULL);
	hp_avc_get_hash_counts(&c, hc);
	hp_avc_destroy(&c);
}

/* Standard deviation of the buckets used by @n random keys in @m: from
 * the exact variance of the number of empty buckets. */
static double used_sd(double n, double m)
{
	double e1 = pow(1 - 1 / m, n), e2 = pow(1 - 2 / m, n);
	double var = m * (m - 1) * e2 + m * e1 - m * m * e1 * e1;

	return sqrt(var > 0 ? var : 0);
}

/*
 * murmur3, jhash and hp must use the buckets as a random function would
 * (buckets used no lower than 4 standard deviations under the
 * expectation, longest chain below the expected one plus 3) on lattices
 * of sequential SIDs; orig must fail that, which shows the test can tell.
 */
static void test_hash_spread(void)
{
	static const uint32_t shapes[][4] = {
		/* slots, ssids, tsids, classes */
		{ 512, 64, 8, 1 }, { 512, 8, 64, 1 }, { 4096, 32, 32, 4 },
		{ 8192, 128, 16, 4 }, { 1024, 4, 16, 32 },
		{ 16384, 1, 8192, 1 },
	};
	static const char *const good[] = { "murmur3", "jhash", "hp" };
	struct hp_avc_hash_counts hc;
	size_t s, g;
	int orig_bad = 0;

	for (s = 0; s < sizeof(shapes) / sizeof(shapes[0]); s++) {
		const uint32_t *sh = shapes[s];
		uint32_t n = sh[1] * sh[2] * sh[3];
		double eu = hp_avc_expected_used(n, sh[0]);
		double low = eu - 4 * used_sd(n, sh[0]);
		double el = hp_avc_expected_longest(n, sh[0]);

		for (g = 0; g < 3; g++) {
			hp_avc_hash_fn fn = hp_avc_hash_find(good[g])->fn;

			lattice_fill(fn, sh[0], sh[1], sh[2], sh[3], &hc);
			CHECK(hc.buckets_used > low &&
			      hc.longest_chain < el + 3, "%s on shape %zu: "
			      "%u used (%.0f), longest %u (%.1f)", good[g], s,
			      hc.buckets_used, eu, hc.longest_chain, el);
		}
		lattice_fill(hp_avc_hash_orig, sh[0], sh[1], sh[2], sh[3], &hc);
		orig_bad += hc.buckets_used < low;
	}
	CHECK(orig_bad >= 3, "orig passed %d of 6 lattices", 6 - orig_bad);
}

/* A hash that is not a function of its key: no cache can find with it. */
static uint32_t fickle(uint32_t ssid, uint32_t tsid, uint16_t tclass)
{
	static uint32_t n;

	return ssid ^ n++;
}

/*
 * The avc_lookup primitive's promise, on every variant of its registry
 * (a new hash is covered by its row), at the sizes the gate checks, with
 * two slot counts; and a hash that is no function must fail it.
 */
static void test_lookup_registry(void)
{
	extern const struct hp_primitive hp_prim_avc_lookup;
	const struct hp_primitive *p = &hp_prim_avc_lookup;
	static const char *const slots[] = { "512", "8" };
	struct hp_variant bad = p->variants[0];
	uint64_t e, g;

	for (size_t k = 0; k < 2; k++) {
		CHECK(p->configure("slots", slots[k]) == NULL, "slots=%s", slots[k]);
		for (size_t i = 0; i < p->nvariants; i++)
			for (size_t n = 1; n <= 4096; n *= 4) {
				int wrong = p->check(&p->variants[i], NULL, n,
						     7, &e, &g);

				CHECK(!wrong, "%s, %zu nodes, %s slots: %llu wrong",
				      p->variants[i].name, n, slots[k],
				      (unsigned long long)g);
			}
	}
	CHECK(p->configure("slots", "3") != NULL, "slots=3 must be refused");
	CHECK(p->configure("buckets", "8") != NULL, "an unknown key refused");
	CHECK(p->configure("slots", "512") == NULL, "back to 512");
	bad.fn = fickle;
	CHECK(p->check(&bad, NULL, 64, 7, &e, &g) != 0,
	      "a hash that is no function must fail");
}

int main(void)
{
	test_lookup_registry();
	test_stats();
	test_memory();
	test_workload_cache();
	test_random_limits();
	test_hash_spread();
	return check_summary("test_avc_stats");
}
