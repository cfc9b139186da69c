// SPDX-License-Identifier: GPL-2.0-only
/*
 * The AVC lab's cache model, its mechanics: slot validation and layout,
 * the model against a plain reference over random operation sequences,
 * and reclaim's promises. What it measures (hash_stats, memory, the
 * workload, the random-hash limits, the hashes' spread, the avc_lookup
 * registry) is test_avc_stats.c's; the hashes' vectors are
 * test_avc_hash.c's, the workload's test_avc_workload.c's.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <hotpath/avc.h>

#include "check.h"
#define TEST_RNG_SEED 0x5e1a0a7c0ffee004ull
#include "testdata.h"
#include "avc_setup.h"

/* ---- set-up, validation, layout ---- */

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
	/* the default hash, murmur3, as its bucket function for 1 slot */
	CHECK(c.nslots == 1 && c.mask == 0 &&
	      c.hash == hp_avc_hash_for_slots(hp_avc_hash_murmur3, 1) &&
	      c.hash(1, 2, 3) == 0, "defaults");
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
	/* the bucket function the cache takes (hp: its top bits) */
	ref.hash = hp_avc_hash_for_slots(cfg->hash, cfg->slots);
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

int main(void)
{
	test_validation();
	test_layout();
	test_against_reference();
	test_reclaim();
	test_threshold_trigger();
	return check_summary("test_avc");
}
