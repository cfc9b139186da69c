/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * What the AVC lab's files share: uniform draws from the library's seeded
 * generator (<hotpath/rng.h>), so that the pool's shuffle and the workload
 * replay from their seeds on any machine and libc; and what the avc_lookup
 * primitive's two files share (below).
 */
#ifndef HOTPATH_AVC_INTERNAL_H
#define HOTPATH_AVC_INTERNAL_H

#include <hotpath/avc.h>
#include <hotpath/rng.h>
#include <stddef.h>
#include <stdint.h>

#ifndef HP_HIDDEN
/* Between the lab's own files only: not exported from libhotpath.so. */
#define HP_HIDDEN __attribute__((visibility("hidden")))
#endif

/* Uniform in [0, n), n > 0: the high half of a 64x32 product (Lemire's
 * method without the rejection step; the bias, below n / 2^32, is far
 * under anything the lab measures). */
static inline uint32_t hp_avc_rand_below(uint64_t *state, uint32_t n)
{
	return (uint32_t)(((hp_rng_next(state) >> 32) * (uint64_t)n) >> 32);
}

/* Uniform in [0, 1), 53 bits. */
static inline double hp_avc_rand_unit(uint64_t *state)
{
	return (double)(hp_rng_next(state) >> 11) * 0x1.0p-53;
}

/*
 * The avc_lookup primitive: the timed lookups (registry_avc_lookup.c: the
 * caches, the bursts, the check, configure, the variants) and the cache
 * model's analysis printed beside the timings (registry_avc_analyze.c).
 */
struct hp_json;
struct hp_variant;

/* Timed caches kept at once (registry_avc_lookup.c); lookup_seeds=K
 * takes at most half of them. */
#define HP_AVC_LOOKUP_MAX_STATES 64

/* avc_lookup's --param settings (registry_avc_lookup.c's configure) that
 * both files read. */
struct hp_avc_lookup_cfg {
	uint32_t slots;
	/*
	 * The workload seed the timed cache's nodes and key stream are drawn
	 * from (lookup_seed=N), and for analyze how many seeds from it the
	 * timed walk is averaged over (lookup_seeds=K): which keys share a
	 * chain, and so how many nodes a lookup compares, is one seed's luck,
	 * as much as a node per lookup between two hashes of equal spread.
	 * One process times one seed; the seed table times several, one
	 * process each, and averages.
	 */
	uint64_t lookup_seed;
	unsigned long lookup_seeds;
	/* analyze: random functions (secrets of hp__avc_ideal_hash()) run
	 * through the model as the random hash's limit, their mean and range
	 * given */
	unsigned long randoms;
	/* analyze: checks the workload makes, hash_stats samples taken among
	 * them */
	unsigned long checks, samples;
	/* analyze: the synthetic workload's first seed, and how many seeds
	 * (runs) the means are taken over: a longest chain from one run is a
	 * maximum, and moves by a node from one seed to the next */
	uint64_t seed;
	unsigned long runs;
	/* analyze: a recorded trace instead of the synthetic workload (the
	 * timed caches too) */
	struct hp_avc_key *trace;
	size_t ntrace;
};
extern HP_HIDDEN struct hp_avc_lookup_cfg hp__avc_cfg;

/* registry_avc_analyze.c: the random function of the key (a stand-in for a
 * perfect hash), its secret the one it stands for now. */
extern HP_HIDDEN uint64_t hp__avc_ideal_secret;
HP_HIDDEN uint32_t hp__avc_ideal_hash(uint32_t ssid, uint32_t tsid, uint16_t tclass);
/* registry_avc_analyze.c: the primitive's analyze. */
HP_HIDDEN int hp__avc_analyze(const struct hp_variant *v, size_t size, struct hp_json *j);
/* registry_avc_lookup.c: mean chain nodes compared per lookup of the timed
 * cache of (@fn, @nodes) at the run's slots and workload seed @seed; -1
 * when the cache could not be built. */
HP_HIDDEN double hp__avc_timed_walk(hp_avc_hash_fn fn, size_t nodes, uint64_t seed);

#endif /* HOTPATH_AVC_INTERNAL_H */
