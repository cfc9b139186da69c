// SPDX-License-Identifier: GPL-2.0-only
/*
 * The AVC lab's cache model: against a plain reference over random
 * operation sequences, reclaim's promises, hash_stats against a recount,
 * slot validation, the memory a configuration costs, the workload through
 * it, the random-hash formulas against simulation, the hashes' spread on
 * the keys SELinux makes, and the avc_lookup registry's promise. The
 * hashes' vectors are test_avc_hash.c's, the workload's test_avc_workload.c's.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <hotpath/avc.h>
#include <hotpath/bench.h>

#include "check.h"
#define TEST_RNG_SEED 0x5e1a0a7c0ffee004ull
#include "testdata.h"

/* ---- set-up, validation, layout ---- */

static int init_with(struct hp_avc_cache *c, uint32_t slots,
		     uint32_t threshold, uint32_t pool, hp_avc_hash_fn hash,
		     enum hp_avc_reclaim mode)
{
	struct hp_avc_params p;

	hp_avc_params_init(&p);
	p.slots = slots;
	p.threshold = threshold;
	p.pool_nodes = pool;
	p.hash = hash;
	p.reclaim = mode;
	p.pool_seed = rnd();
	return hp_avc_init(c, &p);
}

static void test_validation(void)
{
	static const uint32_t bad[] = { 0, 3, 6, 1000, (1u << 20) + 1,
					1u << 21, 0x80000000u, 0xffffffffu };
	struct hp_avc_cache c;
	size_t i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		CHECK(init_with(&c, bad[i], 512, 0, NULL, 0) == -EINVAL,
		      "%u slots accepted", bad[i]);
	CHECK(init_with(&c, 1, 512, 0, NULL, 0) == 0, "1 slot refused");
	CHECK(c.nslots == 1 && c.mask == 0 && c.hash == hp_avc_hash_murmur3,
	      "defaults");
	hp_avc_destroy(&c);
	CHECK(init_with(&c, 1u << 20, 512, 0, NULL, 0) == 0, "2^20 refused");
	hp_avc_destroy(&c);
	CHECK(init_with(&c, 512, 100, 50, NULL, 0) == -EINVAL, "small pool");
	CHECK(init_with(&c, 512, 100, 0, NULL, 7) == -EINVAL, "reclaim 7");
	CHECK(init_with(&c, 512, 0xffffffffu, 0, NULL, 0) == -EINVAL,
	      "huge threshold");
	CHECK(init_with(&c, 512, 100, 0, NULL, 0) == 0, "threshold 100");
	CHECK(c.pool_nodes == 101, "pool %u", c.pool_nodes);
	CHECK(hp_avc_set_threshold(&c, 101) == -EINVAL, "past the pool");
	CHECK(hp_avc_set_threshold(&c, 0) == 0 && c.threshold == 0, "to 0");
	CHECK(hp_avc_set_threshold(&c, 100) == 0, "back to 100");
	hp_avc_destroy(&c);
}

static uint32_t adjacent_pairs(struct hp_avc_cache *c, uint32_t n)
{
	struct hp_avc_node *prev = NULL;
	uint32_t i, adj = 0, outside = 0;

	for (i = 0; i < n; i++) {
		struct hp_avc_node *node = hp_avc_insert(c, i + 1, 1, 1, NULL);
		uintptr_t off = (uintptr_t)node % HP_AVC_SLAB_PAGE_BYTES;

		outside += off + sizeof(*node) > HP_AVC_SLAB_PAGE_BYTES;
		if (prev && (char *)node == (char *)prev + sizeof(*node))
			adj++;
		prev = node;
	}
	CHECK(!outside, "%u nodes straddle a page", outside);
	return adj;
}

/* Nodes as the kernel lays them out, handed out scattered. */
static void test_layout(void)
{
	struct hp_avc_cache c;
	struct hp_avc_params p;
	uint32_t adj;

	CHECK(sizeof(struct hp_avc_node) == 72, "node %zu bytes",
	      sizeof(struct hp_avc_node));
	CHECK(offsetof(struct hp_avc_node, list) == 40, "list at %zu",
	      offsetof(struct hp_avc_node, list));
	CHECK(sizeof(struct hp_avc_decision) == 20, "av_decision");
	CHECK(sizeof(struct hp_avc_hlist_head) == sizeof(void *), "head");
	CHECK(init_with(&c, 4096, 2000, 0, NULL, 0) == 0, "init");
	adj = adjacent_pairs(&c, 2000);
	CHECK(adj < 20, "shuffled pool: %u of 2000 handed out adjacent", adj);
	hp_avc_destroy(&c);

	hp_avc_params_init(&p);
	p.slots = 4096;
	p.threshold = 2000;
	p.pool_sequential = true;
	CHECK(hp_avc_init(&c, &p) == 0, "init");
	adj = adjacent_pairs(&c, 2000);
	/* all but the step to each new page (2000 / 56 pages) */
	CHECK(adj == 2000 - 36, "sequential pool: %u adjacent", adj);
	CHECK(c.pool_bytes == 36 * HP_AVC_SLAB_PAGE_BYTES, "pool %zu bytes",
	      c.pool_bytes);
	hp_avc_destroy(&c);
}

/* ---- the model against a plain reference ---- */

#define REF_SLOTS	64
#define REF_CHAIN	512

struct ref_entry {
	uint32_t ssid, tsid;
	uint16_t tclass;
	uint32_t allowed;
};

/* The AVC written the plain way: arrays for chains, head first. */
struct ref {
	uint32_t nslots, threshold, lru_hint, active;
	bool whole;
	hp_avc_hash_fn hash;
	uint32_t len[REF_SLOTS];
	struct ref_entry chain[REF_SLOTS][REF_CHAIN];
	struct hp_avc_stats st;
};

static struct ref ref;

static bool same_key(const struct ref_entry *e, uint32_t s, uint32_t t,
		     uint16_t c)
{
	return e->ssid == s && e->tsid == t && e->tclass == c;
}

static void ref_remove(uint32_t slot, uint32_t i)
{
	memmove(&ref.chain[slot][i], &ref.chain[slot][i + 1],
		sizeof(ref.chain[0][0]) * (ref.len[slot] - i - 1));
	ref.len[slot]--;
	ref.active--;
	ref.st.frees++;
}

static uint32_t ref_reclaim(void)
{
	uint32_t try, freed = 0;

	for (try = 0; try < ref.nslots; try++) {
		uint32_t slot = ++ref.lru_hint % ref.nslots;

		while (ref.len[slot]) {
			ref_remove(slot, 0);
			ref.st.reclaims++;
			if (++freed >= 16 && !ref.whole)
				return freed;
		}
		if (freed >= 16)
			return freed;
	}
	return freed;
}

static int ref_find(uint32_t slot, uint32_t s, uint32_t t, uint16_t c)
{
	uint32_t i;

	for (i = 0; i < ref.len[slot]; i++)
		if (same_key(&ref.chain[slot][i], s, t, c))
			return (int)i;
	return -1;
}

static void ref_insert(uint32_t s, uint32_t t, uint16_t c, uint32_t allowed)
{
	struct ref_entry e = { s, t, c, allowed };
	uint32_t slot;
	int i;

	ref.st.allocations++;
	if (++ref.active > ref.threshold)
		ref_reclaim();
	slot = ref.hash(s, t, c) % ref.nslots;
	i = ref_find(slot, s, t, c);
	if (i >= 0) {
		ref.chain[slot][i] = e;
		ref.active--;
		ref.st.frees++;
		return;
	}
	memmove(&ref.chain[slot][1], &ref.chain[slot][0],
		sizeof(e) * ref.len[slot]);
	ref.chain[slot][0] = e;
	ref.len[slot]++;
}

static const struct ref_entry *ref_lookup(uint32_t s, uint32_t t, uint16_t c)
{
	uint32_t slot = ref.hash(s, t, c) % ref.nslots;
	int i = ref_find(slot, s, t, c);

	ref.st.lookups++;
	if (i < 0) {
		ref.st.misses++;
		return NULL;
	}
	ref.st.hits++;
	return &ref.chain[slot][i];
}

static void ref_flush(void)
{
	uint32_t slot;

	for (slot = 0; slot < ref.nslots; slot++)
		while (ref.len[slot])
			ref_remove(slot, 0);
}

/* Every chain, in order, and every counter. Return: mismatches. */
static int compare_all(const struct hp_avc_cache *c)
{
	uint32_t slot, total = 0;
	int bad = 0;

	for (slot = 0; slot < c->nslots; slot++) {
		struct hp_avc_hlist_node *pos = c->slots[slot].first;
		uint32_t i = 0;

		for (; pos; pos = pos->next, i++) {
			const struct hp_avc_node *n = hp_avc_node_of(pos);
			const struct ref_entry *e = &ref.chain[slot][i];

			bad += i >= ref.len[slot] || e->allowed !=
			       n->ae.avd.allowed || !same_key(e, n->ae.ssid,
							      n->ae.tsid,
							      n->ae.tclass);
		}
		bad += i != ref.len[slot];
		total += i;
	}
	bad += total != c->active_nodes || c->active_nodes != ref.active;
	bad += c->lru_hint != ref.lru_hint;
	bad += !!memcmp(&c->stats, &ref.st, sizeof(ref.st));
	return bad;
}

static uint32_t hash_two(uint32_t s, uint32_t t, uint16_t c)
{
	return s & 1;	/* a bad hash: long chains, many replacements */
}

struct diff_cfg {
	hp_avc_hash_fn hash;
	uint32_t slots, threshold;
	enum hp_avc_reclaim mode;
};

/* One random operation on both. Return: mismatches. */
static int diff_step(struct hp_avc_cache *c, uint32_t step)
{
	uint32_t s = 1 + rnd() % 8, t = 1 + rnd() % 8, op = rnd() % 100;
	uint16_t k = 1 + rnd() % 4;
	struct hp_avc_decision avd = { .allowed = step };
	const struct ref_entry *e;
	struct hp_avc_node *n;

	if (op < 55) {
		n = hp_avc_lookup(c, s, t, k);
		e = ref_lookup(s, t, k);
		return !n != !e || (n && (n->ae.avd.allowed != e->allowed ||
					  n->ae.ssid != s || n->ae.tsid != t ||
					  n->ae.tclass != k));
	}
	if (op < 95) {
		n = hp_avc_insert(c, s, t, k, &avd);
		ref_insert(s, t, k, step);
		return !n || n->ae.ssid != s || n->ae.avd.allowed != step ||
		       hp_avc_search(c, s, t, k) != n;
	}
	if (op < 97) {
		uint32_t th = rnd() % 80;

		ref.threshold = th;
		return hp_avc_set_threshold(c, th) != 0;
	}
	if (op < 98) {
		hp_avc_flush(c);
		ref_flush();
		return c->active_nodes != 0;
	}
	return hp_avc_reclaim_node(c) != ref_reclaim();
}

static void diff_run(const struct diff_cfg *cfg)
{
	struct hp_avc_cache c;
	uint32_t step;
	int bad = 0;

	memset(&ref, 0, sizeof(ref));
	ref.nslots = cfg->slots;
	ref.threshold = cfg->threshold;
	ref.whole = cfg->mode == HP_AVC_RECLAIM_WHOLE_BUCKETS;
	ref.hash = cfg->hash;
	if (init_with(&c, cfg->slots, cfg->threshold, 100, cfg->hash,
		      cfg->mode)) {
		CHECK(0, "init %u slots", cfg->slots);
		return;
	}
	for (step = 1; step <= 2500 && !bad; step++) {
		bad += diff_step(&c, step);
		if (!(step % 16))
			bad += compare_all(&c);
	}
	bad += compare_all(&c);
	CHECK(!bad, "model differs from the reference at step %u (%u slots, "
	      "threshold %u, mode %d)", step - 1, cfg->slots, cfg->threshold,
	      cfg->mode);
	hp_avc_destroy(&c);
}

static void test_against_reference(void)
{
	static const uint32_t slots[] = { 1, 4, 64 };
	static const uint32_t thresholds[] = { 0, 1, 16, 50 };
	hp_avc_hash_fn hashes[6];
	struct diff_cfg cfg;
	size_t h, s, t;
	int mode;

	for (h = 0; h < 5; h++)
		hashes[h] = hp_avc_hashes[h].fn;
	hashes[5] = hash_two;
	for (h = 0; h < 6; h++)
		for (s = 0; s < 3; s++)
			for (t = 0; t < 4; t++)
				for (mode = 0; mode < 2; mode++) {
					cfg.hash = hashes[h];
					cfg.slots = slots[s];
					cfg.threshold = thresholds[t];
					cfg.mode = mode;
					diff_run(&cfg);
				}
}

/* ---- reclaim's promises ---- */

#define RC_SLOTS	64
#define RC_MAX		400

static struct hp_avc_node *before[RC_SLOTS][RC_MAX];
static uint32_t before_len[RC_SLOTS];

static void snapshot(const struct hp_avc_cache *c)
{
	uint32_t s;

	for (s = 0; s < c->nslots; s++) {
		struct hp_avc_hlist_node *pos = c->slots[s].first;

		for (before_len[s] = 0; pos; pos = pos->next)
			before[s][before_len[s]++] = hp_avc_node_of(pos);
	}
}

/* Is slot @s now the last @keep nodes of what it was? */
static bool kept_tail(const struct hp_avc_cache *c, uint32_t s, uint32_t keep)
{
	struct hp_avc_hlist_node *pos = c->slots[s].first;
	uint32_t i = before_len[s] - keep;

	for (; pos; pos = pos->next, i++)
		if (i >= before_len[s] || hp_avc_node_of(pos) != before[s][i])
			return false;
	return i == before_len[s];
}

static uint32_t now_len(const struct hp_avc_cache *c, uint32_t s)
{
	struct hp_avc_hlist_node *pos;
	uint32_t n = 0;

	for (pos = c->slots[s].first; pos; pos = pos->next)
		n++;
	return n;
}

/* Check one pass that visited ri->buckets slots from ri->first_slot. */
static int check_pass(const struct hp_avc_cache *c, bool whole,
		      uint32_t total, uint32_t freed)
{
	const struct hp_avc_reclaim_info *ri = &c->last_reclaim;
	uint32_t last = (ri->first_slot + ri->buckets - 1) & c->mask;
	uint32_t i, sum = 0;
	int bad = 0;

	for (i = 0; i < c->nslots; i++) {
		uint32_t s = (ri->first_slot + i) & c->mask;
		uint32_t gone = before_len[s] - now_len(c, s);

		if (i >= ri->buckets) {
			bad += !kept_tail(c, s, before_len[s]);
			continue;
		}
		sum += gone;
		if (s != last || whole)
			bad += now_len(c, s) != 0;
		else
			bad += !kept_tail(c, s, now_len(c, s));
	}
	bad += sum != freed || ri->nodes != freed;
	if (total < 16)
		return bad + (freed != total);
	if (!whole)
		return bad + (freed != 16);
	/* whole buckets: stopped at the first bucket that reached 16 */
	return bad + (freed < 16) + (freed - before_len[last] >= 16);
}

static void test_reclaim(void)
{
	struct hp_avc_cache c;
	int trial, bad = 0;

	for (trial = 0; trial < 400; trial++) {
		bool whole = trial & 1;
		uint32_t i, total, n = rnd() % 300, hint, freed;
		uint64_t reclaims;

		init_with(&c, RC_SLOTS, 1000, 0, hp_avc_hash_hp, whole);
		for (i = 0; i < n; i++)
			hp_avc_insert(&c, 1 + rnd() % 40, 1 + rnd() % 40,
				      1 + rnd() % 8, NULL);
		total = c.active_nodes;
		c.lru_hint = hint = (uint32_t)rnd();
		reclaims = c.stats.reclaims;
		snapshot(&c);
		freed = hp_avc_reclaim_node(&c);
		bad += check_pass(&c, whole, total, freed);
		bad += c.active_nodes != total - freed;
		bad += c.stats.reclaims - reclaims != freed;
		bad += c.lru_hint != hint + c.last_reclaim.buckets;
		bad += c.last_reclaim.first_slot != ((hint + 1) & c.mask);
		hp_avc_destroy(&c);
	}
	CHECK(!bad, "%d reclaim passes broke a promise", bad);
}

/* Over the threshold, an insert reclaims before it links. */
static void test_threshold_trigger(void)
{
	struct hp_avc_cache c;
	uint32_t i;

	init_with(&c, 512, 512, 0, hp_avc_hash_murmur3, HP_AVC_RECLAIM_KERNEL);
	for (i = 0; i < 512; i++)
		hp_avc_insert(&c, 28 + i, 40, 6, NULL);
	CHECK(c.active_nodes == 512 && c.last_reclaim.passes == 0,
	      "no reclaim up to the threshold: %u", c.active_nodes);
	hp_avc_insert(&c, 1000, 40, 6, NULL);
	CHECK(c.last_reclaim.passes == 1 && c.last_reclaim.nodes == 16,
	      "one pass of 16");
	CHECK(c.active_nodes == 512 + 1 - 16, "active %u", c.active_nodes);
	CHECK(hp_avc_search(&c, 1000, 40, 6), "the new node is linked");
	CHECK(c.stats.allocations == 513 && c.stats.reclaims == 16 &&
	      c.stats.frees == 16, "counters");
	hp_avc_destroy(&c);
}

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
	test_validation();
	test_layout();
	test_against_reference();
	test_reclaim();
	test_threshold_trigger();
	test_stats();
	test_memory();
	test_workload_cache();
	test_random_limits();
	test_hash_spread();
	return check_summary("test_avc");
}
