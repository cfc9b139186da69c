// SPDX-License-Identifier: GPL-2.0-only
/*
 * The avc_lookup primitive: the cost of avc_search_node() (hash, then walk
 * one chain) in a cache holding SIZE nodes in --param slots=S buckets
 * (default 512), for each hash function as a variant.
 *
 * Each (hash, size, slots) gets its own cache, built once and kept: the
 * live triples of the synthetic workload (c/avc/workload.c, defaults, no
 * app starts) ranked 0..SIZE-1 are inserted, with the threshold at SIZE so
 * that nothing is reclaimed, from a scattered pool. A call looks up the
 * next key of a stream of KEYS checks drawn from the same workload (Zipf
 * over the ranks: all hits, the popular ones often). With --param
 * trace=PATH, the trace's first SIZE distinct keys and its checks instead. In latency mode the
 * next key's index waits for the node found; in throughput mode lookups
 * are independent.
 *
 * The hash is called through the variant's pointer at the burst's own call
 * site (bench.h's HP_BURST_COPIES: one per variant), then the chain is
 * walked inline: the kernel inlines both, so the cost here includes one
 * direct-predicted indirect call the kernel does not pay.
 *
 * A kernel's own lookup (HP_V_KERNEL: a tree's avc.c, loaded by c/kload;
 * struct hp_avc_kernel_ops) is timed over the same cache, built with the
 * tree's avc_hash() in nodes of the tree's layout: its slots' first nodes
 * are handed to the tree's selinux_avc when a burst finds another cache
 * there (the engine's untimed first call of each sample does it), and a
 * call is its avc_search_node(), called through the same kind of pointer
 * from the same lookup loop, loaded into the kernel's image beside it
 * (hp_avc_kernel_loop(), c/kload/bursts). Only at the tree's slot count
 * (AVC_CACHE_SLOTS).
 *
 * The primitive's analyze, the cache model printed beside the timings, is
 * registry_avc_analyze.c's; what the two files share (the --param
 * settings, the random function) is in avc_internal.h.
 */
#include <hotpath/avc.h>
#include <hotpath/bench.h>

#include "avc_internal.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define KEYS HP_AVC_LOOKUP_KEYS	/* the lookup stream */
#define MAX_STATES HP_AVC_LOOKUP_MAX_STATES	/* caches kept at once */
#define MAX_NODES (1u << 20)
#define MAX_RANDOMS 16		/* random functions as the limit */

struct lookup_state {
	hp_avc_hash_fn fn;
	uint64_t secret;	/* hp__avc_ideal_hash()'s, when fn is it; else 0 */
	size_t nodes;
	uint32_t slots;
	uint64_t seed;		/* the workload's, for the nodes and the keys */
	int ready;
	struct hp_avc_cache cache;
	struct hp_avc_key keys[KEYS];
};

/* The settings both files read (avc_internal.h), as configure leaves them. */
HP_HIDDEN struct hp_avc_lookup_cfg hp__avc_cfg = {
	.slots = HP_AVC_DEF_SLOTS,
	.lookup_seed = 1,
	.lookup_seeds = 1,
	.randoms = 1,
	.checks = 1000000,
	.samples = 100,
	.seed = 1,
	.runs = 1,
};
/*
 * hash_only=1: a call is the hash's bucket function alone (the one the
 * cache takes, its mask or shift built in), called through a pointer with
 * a key made of the last bucket, no cache and no walk: what the hash adds
 * to a lookup, the call included (the same for every hash). The lab's
 * hashes only; the gate still checks each over its cache.
 */
static int cfg_hash_only;
static struct lookup_state *states[MAX_STATES];
static unsigned next_state;
/* The kernels' lookups of the run, and whose cache each holds now. */
#define MAX_KERNELS 8
static struct {
	const struct hp_avc_kernel_ops *ops;
	const struct lookup_state *holds;
} kernels[MAX_KERNELS];

static uint32_t avc_empty(uint32_t ssid, uint32_t tsid, uint16_t tclass)
{
	return 0;
}

/* A recorded trace's first @nodes distinct keys into the cache, and its
 * checks (cyclically) as the lookup stream. */
static int build_from_trace(struct lookup_state *st)
{
	const struct hp_avc_decision avd = { .allowed = 1 };
	size_t t = 0;

	for (; t < hp__avc_cfg.ntrace && st->cache.active_nodes < st->nodes; t++) {
		const struct hp_avc_key *k = &hp__avc_cfg.trace[t];

		if (!hp_avc_search(&st->cache, k->ssid, k->tsid, k->tclass) &&
		    !hp_avc_insert(&st->cache, k->ssid, k->tsid, k->tclass, &avd))
			return -1;
	}
	for (unsigned i = 0; i < KEYS; i++)
		st->keys[i] = hp__avc_cfg.trace[i % hp__avc_cfg.ntrace];
	return 0;
}

static int build(struct lookup_state *st)
{
	struct hp_avc_workload_params wp;
	struct hp_avc_workload w;
	struct hp_avc_params cp;
	struct hp_avc_decision avd = { .allowed = 1 };
	int ret = -1;

	hp_avc_params_init(&cp);
	cp.slots = st->slots;
	cp.threshold = (uint32_t)st->nodes;
	cp.pool_nodes = (uint32_t)st->nodes + 1;
	cp.hash = st->fn;
	if (hp_avc_init(&st->cache, &cp))
		return -1;
	if (hp__avc_cfg.ntrace) {
		ret = build_from_trace(st);
		goto out_cache;
	}
	hp_avc_workload_params_init(&wp);
	wp.seed = st->seed;
	wp.live_triples = (uint32_t)st->nodes;
	wp.burst_interval = 0;
	if (hp_avc_workload_init(&w, &wp))
		goto out_cache;
	for (uint32_t r = 0; r < st->nodes; r++) {
		struct hp_avc_key k = hp_avc_workload_live(&w, r);

		if (!hp_avc_insert(&st->cache, k.ssid, k.tsid, k.tclass, &avd))
			goto out_workload;
	}
	for (unsigned i = 0; i < KEYS; i++)
		hp_avc_workload_next(&w, &st->keys[i].ssid, &st->keys[i].tsid,
				     &st->keys[i].tclass);
	ret = 0;
out_workload:
	hp_avc_workload_destroy(&w);
out_cache:
	if (ret)
		hp_avc_destroy(&st->cache);
	return ret;
}

/* The cache for (fn, nodes, slots, workload seed): kept, or built (NULL:
 * no memory). The random function's are told apart by their secret. */
static struct lookup_state *state_seeded(hp_avc_hash_fn fn, size_t nodes,
					 uint64_t seed)
{
	uint64_t secret = fn == hp__avc_ideal_hash ? hp__avc_ideal_secret : 0;
	struct lookup_state *st;

	for (unsigned i = 0; i < MAX_STATES; i++)
		if (states[i] && states[i]->fn == fn && states[i]->secret == secret &&
		    states[i]->nodes == nodes && states[i]->slots == hp__avc_cfg.slots &&
		    states[i]->seed == seed)
			return states[i];
	st = states[next_state];
	if (st && st->ready)
		hp_avc_destroy(&st->cache);
	/* a kernel holding this cache's slots must be handed the new ones */
	for (unsigned k = 0; st && k < MAX_KERNELS && kernels[k].ops; k++)
		if (kernels[k].holds == st)
			kernels[k].holds = NULL;
	if (!st && !(st = malloc(sizeof(*st))))
		return NULL;
	states[next_state] = st;
	next_state = (next_state + 1) % MAX_STATES;
	st->fn = fn;
	st->secret = secret;
	st->nodes = nodes;
	st->slots = hp__avc_cfg.slots;
	st->seed = seed;
	st->ready = !build(st);
	return st->ready ? st : NULL;
}

/* The timed cache of (fn, nodes), at the run's slots and lookup seed. */
static struct lookup_state *state_for(hp_avc_hash_fn fn, size_t nodes)
{
	return state_seeded(fn, nodes, hp__avc_cfg.lookup_seed);
}

/* @fn_ is a kernel's lookup the check has seen: its index, else -1. */
static int kernel_of(const void *fn_)
{
	for (int i = 0; i < MAX_KERNELS && kernels[i].ops; i++)
		if (kernels[i].ops == fn_)
			return i;
	return -1;
}

/* Why the kernel's lookup cannot run over this primitive's caches, or NULL. */
static const char *kernel_mismatch(const struct hp_avc_kernel_ops *ops)
{
	if (ops->node_size != sizeof(struct hp_avc_node) ||
	    ops->list_offset != offsetof(struct hp_avc_node, list) ||
	    ops->tsid_offset != offsetof(struct hp_avc_node, ae.tsid) ||
	    ops->tclass_offset != offsetof(struct hp_avc_node, ae.tclass))
		return "the tree's struct avc_node is laid out otherwise than the lab's nodes";
	if (ops->slots != hp__avc_cfg.slots)
		return "the tree's avc.c has another slot count (AVC_CACHE_SLOTS) than --slots";
	return NULL;
}

/* The cache of (the kernel's hash, @nodes) in the kernel's selinux_avc. */
static const struct lookup_state *kernel_state(int k, size_t nodes)
{
	const struct lookup_state *st = state_for(kernels[k].ops->hash, nodes);

	if (st && kernels[k].holds != st) {
		kernels[k].ops->adopt((void *const *)st->cache.slots);
		kernels[k].holds = st;
	}
	return st;
}

/* Mean chain nodes compared per lookup of @st's key stream (hits: the
 * found node's place in its chain, 1 for the head). */
static double mean_walk(const struct lookup_state *st)
{
	unsigned long nodes = 0;

	for (unsigned i = 0; i < KEYS; i++) {
		const struct hp_avc_key *k = &st->keys[i];
		uint32_t slot = hp_avc_slot(&st->cache, k->ssid, k->tsid,
					    k->tclass);
		const struct hp_avc_hlist_node *pos;

		for (pos = st->cache.slots[slot].first; pos; pos = pos->next) {
			const struct hp_avc_entry *e = &hp_avc_node_of(
				(struct hp_avc_hlist_node *)pos)->ae;

			nodes++;
			if (e->ssid == k->ssid && e->tclass == k->tclass &&
			    e->tsid == k->tsid)
				break;
		}
	}
	return (double)nodes / KEYS;
}

double hp__avc_timed_walk(hp_avc_hash_fn fn, size_t nodes, uint64_t seed)
{
	const struct lookup_state *st = state_seeded(fn, nodes, seed);

	return st ? mean_walk(st) : -1;
}

static int avc_size_ok(size_t size)
{
	return size >= 1 && size <= MAX_NODES && !(size & (size - 1));
}

/*
 * What every hash must give: a cache that finds each key it holds and
 * none it does not. (Which bucket a key lands in is the hash's business;
 * the hashes' own values are checked against vectors in tests/c/test_avc.c.)
 */
/* A kernel's lookup over its cache of @len nodes: each node it holds found
 * as itself, a key never inserted not found (counted into *got). */
static int kernel_check(const struct hp_variant *v, size_t len, uint64_t seed,
			uint64_t *expected, uint64_t *got)
{
	const struct hp_avc_kernel_ops *ops = v->fn;
	int k = kernel_of(ops);
	const struct lookup_state *st;
	uint64_t wrong = 0;

	*expected = 0;
	if (k < 0) {
		for (k = 0; k < MAX_KERNELS && kernels[k].ops; k++)
			;
		if (k == MAX_KERNELS || kernel_mismatch(ops)) {
			*got = len;
			return 1;
		}
		kernels[k].ops = ops;
	}
	st = kernel_state(k, len);
	if (!st) {
		*got = len;
		return 1;
	}
	for (uint32_t b = 0; b < st->cache.nslots; b++)
		for (struct hp_avc_hlist_node *pos = st->cache.slots[b].first; pos;
		     pos = pos->next) {
			const struct hp_avc_entry *e = &hp_avc_node_of(pos)->ae;

			wrong += ops->search(e->ssid, e->tsid, e->tclass) != hp_avc_node_of(pos);
		}
	wrong += !!ops->search((uint32_t)seed | 0x80000000u, 1, 1);
	*got = wrong;
	return *expected != *got;
}

static int avc_check(const struct hp_variant *v, const uint8_t *buf,
		     size_t len, uint64_t seed, uint64_t *expected,
		     uint64_t *got)
{
	struct lookup_state *st;

	if (v->flags & HP_V_KERNEL)
		return kernel_check(v, len, seed, expected, got);
	st = state_for((hp_avc_hash_fn)v->fn, len);
	const struct hp_avc_cache *c;
	uint64_t wrong = 0, held = 0;

	*expected = 0;		/* keys not found, and strangers found */
	if (!st) {
		*got = len;
		return 1;
	}
	c = &st->cache;
	for (uint32_t b = 0; b < c->nslots; b++)
		for (struct hp_avc_hlist_node *pos = c->slots[b].first; pos;
		     pos = pos->next) {
			const struct hp_avc_entry *e = &hp_avc_node_of(pos)->ae;
			uint32_t slot = hp_avc_slot(c, e->ssid, e->tsid,
						    e->tclass);

			held++;
			wrong += hp_avc_search_slot(c, slot, e->ssid, e->tsid,
						    e->tclass) !=
				 hp_avc_node_of(pos);
		}
	wrong += hp__avc_cfg.ntrace ? held > len : held != len;
	/* a key never inserted: SIDs are far below this */
	wrong += !!hp_avc_search(c, (uint32_t)seed | 0x80000000u, 1, 1);
	*got = wrong;
	return *expected != *got;
}

/* The bucket of a key made of @s (hash_only): its three fields all depend
 * on @s, so in latency mode each call waits for the last bucket. */
static inline __attribute__((always_inline)) uint64_t
hash_step(hp_avc_hash_fn fn, uint64_t s)
{
	uint32_t x = (uint32_t)s;

	return fn(x, x + 7, (uint16_t)(x + 1));
}

/* One lookup; the next key's index waits for @s in latency mode. @fn is
 * the cache's bucket function: with @masked (a constant where inlined)
 * its value is the bucket (the lab's hashes, c/avc/bucket.c, the mask or
 * hp's shift built in, as the kernel's constant slot count has it), else
 * a hash the loop masks (a --with variant's). */
static inline __attribute__((always_inline)) uint64_t
lookup_step(const struct lookup_state *st, hp_avc_hash_fn fn, unsigned *i,
	    uint64_t s, int masked)
{
	const struct hp_avc_key *k;
	uint32_t slot;

	__asm__("and $0,%0" : "+r"(s));
	k = &st->keys[(*i + s) & (KEYS - 1)];
	(*i)++;
	slot = fn(k->ssid, k->tsid, k->tclass);
	if (!masked)
		slot &= st->cache.mask;
	return (uintptr_t)hp_avc_search_slot(&st->cache, slot, k->ssid,
					     k->tsid, k->tclass);
}

static inline __attribute__((always_inline)) uint64_t
avc_burst(const void *fn_, const uint8_t *buf, size_t len, uint64_t seed,
	  enum hp_mode mode, unsigned n)
{
	hp_avc_hash_fn fn = (hp_avc_hash_fn)fn_;
	const struct lookup_state *st;
	unsigned i = 0;
	uint64_t s = seed;
	int k = kernel_of(fn_);

	if (fn == avc_empty) {	/* the empty call: the loop, no lookup */
		HP_OPAQUE(fn);
		return HP_BURST_MODES(mode, n, s, s + (fn(0, 0, 0) & 0));
	}
	if (cfg_hash_only && k < 0) {
		fn = hp_avc_hash_for_slots(fn, hp__avc_cfg.slots);
		HP_OPAQUE(fn);
		return HP_BURST_MODES(mode, n, s, hash_step(fn, s));
	}
	if (k >= 0) {	/* the loop in the kernel's image, beside its code */
		st = kernel_state(k, len);
		if (!st)
			return 0;
		return kernels[k].ops->loop(kernels[k].ops->search, st->keys, mode, n, s);
	}
	st = state_for(fn, len);
	if (!st)
		return 0;
	/* the lab's hashes: the bucket function with the slot count's mask
	 * or shift built in (hp_avc_hash_for_slots), nothing masked after */
	if (st->cache.hash != fn) {
		fn = st->cache.hash;
		HP_OPAQUE(fn);
		HP_OPAQUE(st);
		return HP_BURST_MODES(mode, n, s, lookup_step(st, fn, &i, s, 1));
	}
	HP_OPAQUE(fn);
	HP_OPAQUE(st);
	return HP_BURST_MODES(mode, n, s, lookup_step(st, fn, &i, s, 0));
}

HP_BURST_COPIES(avc_burst_sites, avc_burst);

static const char *avc_configure(const char *key, const char *value)
{
	char *end;
	unsigned long v;

	if (!strcmp(key, "trace"))
		return hp_avc_load_trace(value, &hp__avc_cfg.trace, &hp__avc_cfg.ntrace);
	v = strtoul(value, &end, 10);

	if (*end || !*value || *value == '-')
		return "slots=S, checks=C, samples=K, seed=N, runs=R, lookup_seed=N, "
		       "lookup_seeds=K, randoms=R, hash_only=0|1 (integers), trace=PATH";
	if (!strcmp(key, "slots")) {
		if (!v || v > HP_AVC_MAX_SLOTS || (v & (v - 1)))
			return "slots: a power of two, 1..1048576";
		hp__avc_cfg.slots = (uint32_t)v;
	} else if (!strcmp(key, "checks")) {
		if (!v || v > 1000000000ul)
			return "checks: 1..1000000000";
		hp__avc_cfg.checks = v;
	} else if (!strcmp(key, "seed")) {
		hp__avc_cfg.seed = v;
	} else if (!strcmp(key, "runs")) {
		if (!v || v > 100)
			return "runs: 1..100";
		hp__avc_cfg.runs = v;
	} else if (!strcmp(key, "lookup_seed")) {
		hp__avc_cfg.lookup_seed = v;
	} else if (!strcmp(key, "lookup_seeds")) {
		if (!v || v > MAX_STATES / 2)
			return "lookup_seeds: 1..32";
		hp__avc_cfg.lookup_seeds = v;
	} else if (!strcmp(key, "randoms")) {
		if (!v || v > MAX_RANDOMS)
			return "randoms: 1..16";
		hp__avc_cfg.randoms = v;
	} else if (!strcmp(key, "hash_only")) {
		if (v > 1)
			return "hash_only: 0 or 1";
		cfg_hash_only = (int)v;
	} else if (!strcmp(key, "samples")) {
		if (!v || v > 100000ul)
			return "samples: 1..100000";
		hp__avc_cfg.samples = v;
	} else {
		return "slots=S, checks=C, samples=K, seed=N, runs=R, lookup_seed=N, "
		       "lookup_seeds=K, randoms=R, hash_only=0|1 or trace=PATH";
	}
	return NULL;
}

static const char *avc_promise_name(uint32_t promise)
{
	return "the cache built with it finds every key it holds, and no other";
}

#define HASH(vname, f, d, o, fl)					\
	{ .name = vname, .fn = f, .min_len = 1, .max_len = MAX_NODES,	\
	  .desc = d, .origin = o, .flags = fl }

static const struct hp_variant avc_variants[] = {
	HASH("orig", hp_avc_hash_orig,
	     "ssid ^ (tsid << 2) ^ (tclass << 4): avc_hash() before 6.19, re-implemented "
	     "(the kernel's own: linux-6.1, linux-6.12)",
	     "security/selinux/avc.c before 6.19, re-implemented", HP_V_REIMPL),
	HASH("muladd", hp_avc_hash_muladd,
	     "the seed's multiply-add hash", "seed 004", 0),
	HASH("murmur3", hp_avc_hash_murmur3,
	     "MurmurHash3 over (ssid, tsid, tclass): av_hash() in Linux 6.19, re-implemented "
	     "(no Debian package has 6.19)",
	     "security/selinux/avc.c, Linux 6.19, re-implemented", HP_V_REIMPL),
	HASH("jhash", hp_avc_hash_jhash, "jhash_3words(ssid, tsid, tclass, 0)",
	     "include/linux/jhash.h", 0),
	HASH("hp", hp_avc_hash_hp,
	     "hotpath's own: ssid, tsid, tclass times constants, xored, the top bits",
	     "hotpath (c/avc/hash.c)", HP_V_OWN),
};

static const size_t avc_sizes[] = { 512, 2048, 8192 };

static const char *avc_unavailable(const struct hp_variant *v)
{
	if (v->flags & HP_V_KERNEL && cfg_hash_only)
		return "hash_only: a kernel's lookup has no bucket function of its own to time";
	return v->flags & HP_V_KERNEL ? kernel_mismatch(v->fn) : NULL;
}

const struct hp_primitive hp_prim_avc_lookup = {
	.name = "avc_lookup",
	.lab = "avc",
	.seed_name = "node",
	.variants = avc_variants,
	.nvariants = sizeof(avc_variants) / sizeof(avc_variants[0]),
	.empty_fn = avc_empty,
	.check = avc_check,
	.burst = avc_burst_sites,
	.promise_name = avc_promise_name,
	.size_ok = avc_size_ok,
	.configure = avc_configure,
	.analyze = hp__avc_analyze,
	.unavailable = avc_unavailable,
	.default_sizes = avc_sizes,
	.ndefault_sizes = 3,
};
