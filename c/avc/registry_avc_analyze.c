// SPDX-License-Identifier: GPL-2.0-only
/*
 * The avc_lookup primitive's analysis (`hotpath-bench analyze`; `hotpath
 * avc --stats`, the seed table): the cache model the runner prints beside
 * the timings of registry_avc_lookup.c. The workload's checks (or a
 * trace's) run through a cache at each size, hash_stats sampled as the
 * seed sampled it; beside them the formula's random-hash limit, random
 * functions through the same model, and the nodes a timed lookup
 * compares over the lookup file's own caches (hp__avc_timed_walk()).
 * Nothing here is timed; the settings are configure's (hp__avc_cfg,
 * avc_internal.h).
 */
#include <hotpath/avc.h>
#include <hotpath/bench.h>
#include <hotpath/json.h>
#include <hotpath/rng.h>

#include "avc_internal.h"

#include <stdint.h>
#include <string.h>

#define MAX_STATES HP_AVC_LOOKUP_MAX_STATES	/* the lookup file's caches */

/* What hash_stats said over one run of the workload through a cache. */
struct model_means {
	double entries, used, longest, hit_rate;
	unsigned long checks, taken;
};

/* The secret of the random function hp__avc_ideal_hash() (below) stands
 * for now. */
HP_HIDDEN uint64_t hp__avc_ideal_secret = 0x2545f4914f6cdd1dull;

/*
 * A stand-in for a perfectly random function of the key: splitmix64's
 * finaliser over the packed key and a secret. Run through the same model,
 * it shows what reclaim leaves of any hash's spread: the limit a real hash
 * can be held to, beside the formula's. One random function is one draw:
 * eight secrets give a mean longest chain of 5.02 to 5.35 at 8192/8192
 * (issue 42), so analyze runs hp__avc_cfg.randoms of them (secrets: the
 * first fixed, the others splitmix64's numbers from it) and gives their
 * mean and range.
 */
uint32_t hp__avc_ideal_hash(uint32_t ssid, uint32_t tsid, uint16_t tclass)
{
	uint64_t x = ((uint64_t)ssid << 32 | tsid) ^
		     ((uint64_t)tclass << 17) ^ hp__avc_ideal_secret;

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
	/* a trace: once, whole */
	m->checks = hp__avc_cfg.ntrace ? hp__avc_cfg.ntrace : hp__avc_cfg.checks;
	every = m->checks / hp__avc_cfg.samples ? m->checks / hp__avc_cfg.samples : 1;
	hp_avc_params_init(&cp);
	cp.slots = hp__avc_cfg.slots;
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

		if (hp__avc_cfg.ntrace)
			k = hp__avc_cfg.trace[i - 1];
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
	m->used /= (double)m->taken * hp__avc_cfg.slots;
	m->longest /= m->taken;
	m->hit_rate = c->stats.lookups ? (double)c->stats.hits / c->stats.lookups
				       : 0;
	return 0;
}

/* run_model() over hp__avc_cfg.runs workload seeds (a trace: once), the
 * means averaged; @c is the last run's cache, for the caller to read and
 * free. */
static int run_models(hp_avc_hash_fn fn, size_t size, struct hp_avc_cache *c,
		      struct model_means *m)
{
	unsigned long runs = hp__avc_cfg.ntrace ? 1 : hp__avc_cfg.runs;
	struct model_means one;

	memset(m, 0, sizeof(*m));
	for (unsigned long r = 0; r < runs; r++) {
		if (r)
			hp_avc_destroy(c);
		if (run_model(fn, size, hp__avc_cfg.seed + r, c, &one))
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
		if (r->randoms && r->size == size && r->slots == hp__avc_cfg.slots &&
		    r->checks == hp__avc_cfg.checks && r->samples == hp__avc_cfg.samples &&
		    r->runs == hp__avc_cfg.runs && r->randoms == hp__avc_cfg.randoms &&
		    r->seed == hp__avc_cfg.seed && r->trace == hp__avc_cfg.trace &&
		    r->lookup_seeds == hp__avc_cfg.lookup_seeds &&
		    r->lookup_seed == hp__avc_cfg.lookup_seed)
			return r;
	}
	r = &kept[next];
	next = (next + 1) % 8;
	memset(r, 0, sizeof(*r));
	for (unsigned long f = 0; f < hp__avc_cfg.randoms; f++) {
		double walks[MAX_STATES / 2], walk;
		struct model_means m;
		struct hp_avc_cache c;

		hp__avc_ideal_secret = f ? hp_rng_next(&secrets) : secrets;
		if (run_models(hp__avc_ideal_hash, size, &c, &m))
			return NULL;
		hp_avc_destroy(&c);
		walk = mean_walks(hp__avc_ideal_hash, size, walks);
		if (walk < 0)
			return NULL;
		r->walk += walk / hp__avc_cfg.randoms;
		r->walk_lo = f && r->walk_lo < walk ? r->walk_lo : walk;
		r->walk_hi = f && r->walk_hi > walk ? r->walk_hi : walk;
		r->used += m.used / hp__avc_cfg.randoms;
		r->longest += m.longest / hp__avc_cfg.randoms;
		r->used_lo = f && r->used_lo < m.used ? r->used_lo : m.used;
		r->used_hi = f && r->used_hi > m.used ? r->used_hi : m.used;
		r->longest_lo = f && r->longest_lo < m.longest ? r->longest_lo : m.longest;
		r->longest_hi = f && r->longest_hi > m.longest ? r->longest_hi : m.longest;
	}
	r->size = size;
	r->slots = hp__avc_cfg.slots;
	r->checks = hp__avc_cfg.checks;
	r->samples = hp__avc_cfg.samples;
	r->runs = hp__avc_cfg.runs;
	r->seed = hp__avc_cfg.seed;
	r->trace = hp__avc_cfg.trace;
	r->randoms = hp__avc_cfg.randoms;
	r->lookup_seeds = hp__avc_cfg.lookup_seeds;
	r->lookup_seed = hp__avc_cfg.lookup_seed;
	return r;
}

/* Mean nodes compared per timed lookup over the lookup seeds
 * hp__avc_cfg.lookup_seed.., one mean each into @each; -1 when a cache
 * could not be built. */
static double mean_walks(hp_avc_hash_fn fn, size_t size, double *each)
{
	double sum = 0;

	for (unsigned long k = 0; k < hp__avc_cfg.lookup_seeds; k++) {
		double walk = hp__avc_timed_walk(fn, size, hp__avc_cfg.lookup_seed + k);

		if (walk < 0)
			return -1;
		each[k] = walk;
		sum += each[k];
	}
	return sum / hp__avc_cfg.lookup_seeds;
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
 * cache of @size nodes (the threshold) in hp__avc_cfg.slots buckets,
 * inserting on a miss and reclaiming as the kernel does; hash_stats is
 * sampled hp__avc_cfg.samples times, evenly, as the seed sampled it once
 * a second. Beside the means: the formula's random-hash limit for as many
 * entries, and hp__avc_cfg.randoms random functions (hp__avc_ideal_hash())
 * through the same model. And the nodes a timed lookup compares, per
 * lookup seed.
 */
int hp__avc_analyze(const struct hp_variant *v, size_t size, struct hp_json *j)
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
	hp_avc_memory(hp__avc_cfg.slots, (uint32_t)size, &mem);

	hp_json_obj_begin(j);
	hp_json_key(j, "slots");
	hp_json_uint(j, hp__avc_cfg.slots);
	hp_json_key(j, "nodes");
	hp_json_uint(j, size);
	hp_json_key(j, "checks");
	hp_json_uint(j, m.checks);
	hp_json_key(j, "samples");
	hp_json_uint(j, m.taken);
	hp_json_key(j, "runs");
	hp_json_uint(j, hp__avc_cfg.ntrace ? 1ul : hp__avc_cfg.runs);
	hp_json_key(j, "workload");
	hp_json_str(j, hp__avc_cfg.ntrace ? "trace" : "synthetic");
	hp_json_key(j, "mean_entries");
	hp_json_fixed(j, m.entries, 2);
	hp_json_key(j, "mean_utilisation");
	hp_json_fixed(j, m.used, 5);
	hp_json_key(j, "mean_longest_chain");
	hp_json_fixed(j, m.longest, 3);
	hp_json_key(j, "limit_utilisation");
	hp_json_fixed(j, hp_avc_expected_used(m.entries, hp__avc_cfg.slots) / hp__avc_cfg.slots, 5);
	hp_json_key(j, "limit_longest_chain");
	hp_json_fixed(j, hp_avc_expected_longest((uint32_t)(m.entries + 0.5), hp__avc_cfg.slots), 3);
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
	hp_json_uint(j, hp__avc_cfg.lookup_seed);
	hp_json_key(j, "timed_walks");
	hp_json_arr_begin(j);
	for (unsigned long k = 0; k < hp__avc_cfg.lookup_seeds; k++)
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

