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
 */
#include <hotpath/avc.h>
#include <hotpath/bench.h>
#include <hotpath/rng.h>

#include <hotpath/json.h>

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define KEYS HP_AVC_LOOKUP_KEYS	/* the lookup stream */
#define MAX_STATES 64		/* caches kept at once */
#define MAX_NODES (1u << 20)
#define MAX_RANDOMS 16		/* random functions as the limit */

/* The secret of the random function ideal_hash() (below) stands for now. */
static uint64_t ideal_secret = 0x2545f4914f6cdd1dull;

struct lookup_state {
	hp_avc_hash_fn fn;
	uint64_t secret;	/* ideal_hash()'s, when fn is it; else 0 */
	size_t nodes;
	uint32_t slots;
	uint64_t seed;		/* the workload's, for the nodes and the keys */
	int ready;
	struct hp_avc_cache cache;
	struct hp_avc_key keys[KEYS];
};

static uint32_t cfg_slots = HP_AVC_DEF_SLOTS;
/*
 * The workload seed the timed cache's nodes and key stream are drawn from
 * (lookup_seed=N), and for analyze how many seeds from it the timed walk
 * is averaged over (lookup_seeds=K): which keys share a chain, and so how
 * many nodes a lookup compares, is one seed's luck, as much as a node per
 * lookup between two hashes of equal spread. One process times one seed;
 * the seed table times several, one process each, and averages.
 */
static uint64_t cfg_lookup_seed = 1;
static unsigned long cfg_lookup_seeds = 1;
/* analyze: random functions (secrets of ideal_hash()) run through the
 * model as the random hash's limit, their mean and range given */
static unsigned long cfg_randoms = 1;
/*
 * hash_only=1: a call is the hash's bucket function alone (the one the
 * cache takes, its mask or shift built in), called through a pointer with
 * a key made of the last bucket, no cache and no walk: what the hash adds
 * to a lookup, the call included (the same for every hash). The lab's
 * hashes only; the gate still checks each over its cache.
 */
static int cfg_hash_only;
/* analyze: checks the workload makes, hash_stats samples taken among them */
static unsigned long cfg_checks = 1000000, cfg_samples = 100;
/* analyze: the synthetic workload's first seed, and how many seeds (runs)
 * the means are taken over: a longest chain from one run is a maximum, and
 * moves by a node from one seed to the next */
static uint64_t cfg_seed = 1;
static unsigned long cfg_runs = 1;
/* analyze: a recorded trace instead of the synthetic workload */
static struct hp_avc_key *trace;
static size_t ntrace;
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

	for (; t < ntrace && st->cache.active_nodes < st->nodes; t++) {
		const struct hp_avc_key *k = &trace[t];

		if (!hp_avc_search(&st->cache, k->ssid, k->tsid, k->tclass) &&
		    !hp_avc_insert(&st->cache, k->ssid, k->tsid, k->tclass, &avd))
			return -1;
	}
	for (unsigned i = 0; i < KEYS; i++)
		st->keys[i] = trace[i % ntrace];
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
	if (ntrace) {
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

static uint32_t ideal_hash(uint32_t ssid, uint32_t tsid, uint16_t tclass);

/* The cache for (fn, nodes, slots, workload seed): kept, or built (NULL:
 * no memory). The random function's are told apart by their secret. */
static struct lookup_state *state_seeded(hp_avc_hash_fn fn, size_t nodes,
					 uint64_t seed)
{
	uint64_t secret = fn == ideal_hash ? ideal_secret : 0;
	struct lookup_state *st;

	for (unsigned i = 0; i < MAX_STATES; i++)
		if (states[i] && states[i]->fn == fn && states[i]->secret == secret &&
		    states[i]->nodes == nodes && states[i]->slots == cfg_slots &&
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
	st->slots = cfg_slots;
	st->seed = seed;
	st->ready = !build(st);
	return st->ready ? st : NULL;
}

/* The timed cache of (fn, nodes), at the run's slots and lookup seed. */
static struct lookup_state *state_for(hp_avc_hash_fn fn, size_t nodes)
{
	return state_seeded(fn, nodes, cfg_lookup_seed);
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
	if (ops->slots != cfg_slots)
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
	wrong += ntrace ? held > len : held != len;
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
		fn = hp_avc_hash_for_slots(fn, cfg_slots);
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
		return hp_avc_load_trace(value, &trace, &ntrace);
	v = strtoul(value, &end, 10);

	if (*end || !*value || *value == '-')
		return "slots=S, checks=C, samples=K, seed=N, runs=R, lookup_seed=N, "
		       "lookup_seeds=K, randoms=R, hash_only=0|1 (integers), trace=PATH";
	if (!strcmp(key, "slots")) {
		if (!v || v > HP_AVC_MAX_SLOTS || (v & (v - 1)))
			return "slots: a power of two, 1..1048576";
		cfg_slots = (uint32_t)v;
	} else if (!strcmp(key, "checks")) {
		if (!v || v > 1000000000ul)
			return "checks: 1..1000000000";
		cfg_checks = v;
	} else if (!strcmp(key, "seed")) {
		cfg_seed = v;
	} else if (!strcmp(key, "runs")) {
		if (!v || v > 100)
			return "runs: 1..100";
		cfg_runs = v;
	} else if (!strcmp(key, "lookup_seed")) {
		cfg_lookup_seed = v;
	} else if (!strcmp(key, "lookup_seeds")) {
		if (!v || v > MAX_STATES / 2)
			return "lookup_seeds: 1..32";
		cfg_lookup_seeds = v;
	} else if (!strcmp(key, "randoms")) {
		if (!v || v > MAX_RANDOMS)
			return "randoms: 1..16";
		cfg_randoms = v;
	} else if (!strcmp(key, "hash_only")) {
		if (v > 1)
			return "hash_only: 0 or 1";
		cfg_hash_only = (int)v;
	} else if (!strcmp(key, "samples")) {
		if (!v || v > 100000ul)
			return "samples: 1..100000";
		cfg_samples = v;
	} else {
		return "slots=S, checks=C, samples=K, seed=N, runs=R, lookup_seed=N, "
		       "lookup_seeds=K, randoms=R, hash_only=0|1 or trace=PATH";
	}
	return NULL;
}

/* What hash_stats said over one run of the workload through a cache. */
struct model_means {
	double entries, used, longest, hit_rate;
	unsigned long checks, taken;
};

/*
 * A stand-in for a perfectly random function of the key: splitmix64's
 * finaliser over the packed key and a secret. Run through the same model,
 * it shows what reclaim leaves of any hash's spread: the limit a real hash
 * can be held to, beside the formula's. One random function is one draw:
 * eight secrets give a mean longest chain of 5.02 to 5.35 at 8192/8192
 * (issue 42), so analyze runs cfg_randoms of them (secrets: the first
 * fixed, the others splitmix64's numbers from it) and gives their mean and
 * range.
 */
static uint32_t ideal_hash(uint32_t ssid, uint32_t tsid, uint16_t tclass)
{
	uint64_t x = ((uint64_t)ssid << 32 | tsid) ^
		     ((uint64_t)tclass << 17) ^ ideal_secret;

	return (uint32_t)hp_rng_next(&x);
}

/* The workload (or the trace, once) through a cache of @size nodes with
 * @fn; @c is left for the caller to read and destroy. */
static int run_model(hp_avc_hash_fn fn, size_t size, uint64_t seed,
		     struct hp_avc_cache *c, struct model_means *m)
{
	struct hp_avc_workload_params wp;
	struct hp_avc_workload w;
	struct hp_avc_params cp;
	struct hp_avc_hash_counts hc;
	unsigned long every;

	memset(m, 0, sizeof(*m));
	m->checks = ntrace ? ntrace : cfg_checks;	/* a trace: once, whole */
	every = m->checks / cfg_samples ? m->checks / cfg_samples : 1;
	hp_avc_params_init(&cp);
	cp.slots = cfg_slots;
	cp.threshold = (uint32_t)size;
	cp.hash = fn;
	hp_avc_workload_params_init(&wp);
	wp.seed = seed;
	if (hp_avc_init(c, &cp))
		return -1;
	if (hp_avc_workload_init(&w, &wp)) {
		hp_avc_destroy(c);
		return -1;
	}
	for (unsigned long i = 1; i <= m->checks; i++) {
		struct hp_avc_key k;

		if (ntrace)
			k = trace[i - 1];
		else
			hp_avc_workload_next(&w, &k.ssid, &k.tsid, &k.tclass);
		hp_avc_access(c, k.ssid, k.tsid, k.tclass);
		if (i % every)
			continue;
		hp_avc_get_hash_counts(c, &hc);
		m->entries += hc.entries;
		m->used += hc.buckets_used;
		m->longest += hc.longest_chain;
		m->taken++;
	}
	hp_avc_workload_destroy(&w);
	m->entries /= m->taken;
	m->used /= (double)m->taken * cfg_slots;
	m->longest /= m->taken;
	m->hit_rate = c->stats.lookups ? (double)c->stats.hits / c->stats.lookups
				       : 0;
	return 0;
}

/* run_model() over cfg_runs workload seeds (a trace: once), the means
 * averaged; @c is the last run's cache, for the caller to read and free. */
static int run_models(hp_avc_hash_fn fn, size_t size, struct hp_avc_cache *c,
		      struct model_means *m)
{
	unsigned long runs = ntrace ? 1 : cfg_runs;
	struct model_means one;

	memset(m, 0, sizeof(*m));
	for (unsigned long r = 0; r < runs; r++) {
		if (r)
			hp_avc_destroy(c);
		if (run_model(fn, size, cfg_seed + r, c, &one))
			return -1;
		m->entries += one.entries / runs;
		m->used += one.used / runs;
		m->longest += one.longest / runs;
		m->hit_rate += one.hit_rate / runs;
		m->checks += one.checks;
		m->taken += one.taken;
	}
	return 0;
}

/* The random functions' means at one configuration, their mean and range. */
struct random_means {
	size_t size;
	uint32_t slots;
	unsigned long checks, samples, runs, randoms;
	uint64_t seed;
	const struct hp_avc_key *trace;
	double used, longest;			/* mean over the functions */
	double used_lo, used_hi, longest_lo, longest_hi;
	/* nodes a timed lookup compares, over the lookup seeds: the mean
	 * over the functions, and their range */
	unsigned long lookup_seeds;
	uint64_t lookup_seed;
	double walk, walk_lo, walk_hi;
};

static double mean_walks(hp_avc_hash_fn fn, size_t size, double *each);

/* The random functions through the model at @size nodes: the same for
 * every hash of a run, so computed once per configuration and kept. */
static const struct random_means *random_limits(size_t size)
{
	static struct random_means kept[8];
	static unsigned next;
	struct random_means *r;
	uint64_t secrets = 0x2545f4914f6cdd1dull;

	for (unsigned i = 0; i < 8; i++) {
		r = &kept[i];
		if (r->randoms && r->size == size && r->slots == cfg_slots &&
		    r->checks == cfg_checks && r->samples == cfg_samples &&
		    r->runs == cfg_runs && r->randoms == cfg_randoms &&
		    r->seed == cfg_seed && r->trace == trace &&
		    r->lookup_seeds == cfg_lookup_seeds &&
		    r->lookup_seed == cfg_lookup_seed)
			return r;
	}
	r = &kept[next];
	next = (next + 1) % 8;
	memset(r, 0, sizeof(*r));
	for (unsigned long f = 0; f < cfg_randoms; f++) {
		double walks[MAX_STATES / 2], walk;
		struct model_means m;
		struct hp_avc_cache c;

		ideal_secret = f ? hp_rng_next(&secrets) : secrets;
		if (run_models(ideal_hash, size, &c, &m))
			return NULL;
		hp_avc_destroy(&c);
		walk = mean_walks(ideal_hash, size, walks);
		if (walk < 0)
			return NULL;
		r->walk += walk / cfg_randoms;
		r->walk_lo = f && r->walk_lo < walk ? r->walk_lo : walk;
		r->walk_hi = f && r->walk_hi > walk ? r->walk_hi : walk;
		r->used += m.used / cfg_randoms;
		r->longest += m.longest / cfg_randoms;
		r->used_lo = f && r->used_lo < m.used ? r->used_lo : m.used;
		r->used_hi = f && r->used_hi > m.used ? r->used_hi : m.used;
		r->longest_lo = f && r->longest_lo < m.longest ? r->longest_lo : m.longest;
		r->longest_hi = f && r->longest_hi > m.longest ? r->longest_hi : m.longest;
	}
	r->size = size;
	r->slots = cfg_slots;
	r->checks = cfg_checks;
	r->samples = cfg_samples;
	r->runs = cfg_runs;
	r->seed = cfg_seed;
	r->trace = trace;
	r->randoms = cfg_randoms;
	r->lookup_seeds = cfg_lookup_seeds;
	r->lookup_seed = cfg_lookup_seed;
	return r;
}

/* Mean nodes compared per timed lookup over the lookup seeds
 * cfg_lookup_seed.., one mean each into @each; -1 when a cache could
 * not be built. */
static double mean_walks(hp_avc_hash_fn fn, size_t size, double *each)
{
	double sum = 0;

	for (unsigned long k = 0; k < cfg_lookup_seeds; k++) {
		const struct lookup_state *st =
			state_seeded(fn, size, cfg_lookup_seed + k);

		if (!st)
			return -1;
		each[k] = mean_walk(st);
		sum += each[k];
	}
	return sum / cfg_lookup_seeds;
}

/* "key": [lo, hi], each with @digits decimals. */
static void json_range(struct hp_json *j, const char *key, double lo, double hi, int digits)
{
	hp_json_key(j, key);
	hp_json_arr_begin(j);
	hp_json_fixed(j, lo, digits);
	hp_json_fixed(j, hi, digits);
	hp_json_arr_end(j);
}

/*
 * The seed's measurement, modelled: the workload's checks run through a
 * cache of @size nodes (the threshold) in cfg_slots buckets, inserting on
 * a miss and reclaiming as the kernel does; hash_stats is sampled
 * cfg_samples times, evenly, as the seed sampled it once a second. Beside
 * the means: the formula's random-hash limit for as many entries, and
 * cfg_randoms random functions (ideal_hash()) through the same model. And
 * the nodes a timed lookup compares, per lookup seed.
 */
static int avc_analyze(const struct hp_variant *v, size_t size, struct hp_json *j)
{
	/* a kernel's lookup: the statistics of its own avc_hash() */
	hp_avc_hash_fn fn = v->flags & HP_V_KERNEL
		? ((const struct hp_avc_kernel_ops *)v->fn)->hash : (hp_avc_hash_fn)v->fn;
	const struct random_means *ideal = random_limits(size);
	double walks[MAX_STATES / 2];
	double walk = ideal ? mean_walks(fn, size, walks) : -1;
	struct model_means m;
	struct hp_avc_cache c;
	struct hp_avc_memory mem;
	char hs[512], cs[512];
	uint32_t hist[16];

	/* everything first: a failure writes nothing */
	if (walk < 0 || run_models(fn, size, &c, &m))
		return -1;
	hp_avc_hash_stats(&c, hs, sizeof(hs));
	hp_avc_cache_stats(&c, cs, sizeof(cs));
	hp_avc_chain_histogram(&c, hist, 16);
	hp_avc_destroy(&c);
	hp_avc_memory(cfg_slots, (uint32_t)size, &mem);

	hp_json_obj_begin(j);
	hp_json_key(j, "slots");
	hp_json_uint(j, cfg_slots);
	hp_json_key(j, "nodes");
	hp_json_uint(j, size);
	hp_json_key(j, "checks");
	hp_json_uint(j, m.checks);
	hp_json_key(j, "samples");
	hp_json_uint(j, m.taken);
	hp_json_key(j, "runs");
	hp_json_uint(j, ntrace ? 1ul : cfg_runs);
	hp_json_key(j, "workload");
	hp_json_str(j, ntrace ? "trace" : "synthetic");
	hp_json_key(j, "mean_entries");
	hp_json_fixed(j, m.entries, 2);
	hp_json_key(j, "mean_utilisation");
	hp_json_fixed(j, m.used, 5);
	hp_json_key(j, "mean_longest_chain");
	hp_json_fixed(j, m.longest, 3);
	hp_json_key(j, "limit_utilisation");
	hp_json_fixed(j, hp_avc_expected_used(m.entries, cfg_slots) / cfg_slots, 5);
	hp_json_key(j, "limit_longest_chain");
	hp_json_fixed(j, hp_avc_expected_longest((uint32_t)(m.entries + 0.5), cfg_slots), 3);
	hp_json_key(j, "randoms");
	hp_json_uint(j, ideal->randoms);
	hp_json_key(j, "random_utilisation");
	hp_json_fixed(j, ideal->used, 5);
	json_range(j, "random_utilisation_range", ideal->used_lo, ideal->used_hi, 5);
	hp_json_key(j, "random_longest_chain");
	hp_json_fixed(j, ideal->longest, 3);
	json_range(j, "random_longest_chain_range", ideal->longest_lo, ideal->longest_hi, 3);
	hp_json_key(j, "memory_bytes");
	hp_json_uint(j, mem.total);
	hp_json_key(j, "hit_rate");
	hp_json_fixed(j, m.hit_rate, 5);
	hp_json_key(j, "timed_walk");
	hp_json_fixed(j, walk, 4);
	hp_json_key(j, "random_timed_walk");
	hp_json_fixed(j, ideal->walk, 4);
	json_range(j, "random_timed_walk_range", ideal->walk_lo, ideal->walk_hi, 4);
	hp_json_key(j, "lookup_seed");
	hp_json_uint(j, cfg_lookup_seed);
	hp_json_key(j, "timed_walks");
	hp_json_arr_begin(j);
	for (unsigned long k = 0; k < cfg_lookup_seeds; k++)
		hp_json_fixed(j, walks[k], 4);
	hp_json_arr_end(j);
	hp_json_key(j, "hash_stats");
	hp_json_str(j, hs);
	hp_json_key(j, "cache_stats");
	hp_json_str(j, cs);
	hp_json_key(j, "chain_histogram");
	hp_json_arr_begin(j);
	for (int b = 0; b < 16; b++)
		hp_json_uint(j, hist[b]);
	hp_json_arr_end(j);
	hp_json_obj_end(j);
	return 0;
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
	.analyze = avc_analyze,
	.unavailable = avc_unavailable,
	.default_sizes = avc_sizes,
	.ndefault_sizes = 3,
};
