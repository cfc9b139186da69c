/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * A synthetic stream of SELinux permission checks, reproducible from a
 * seed, for the AVC cache model (c/avc/workload.c).
 */
#ifndef HOTPATH_AVC_WORKLOAD_H
#define HOTPATH_AVC_WORKLOAD_H

#include <stddef.h>
#include <stdint.h>

/* ---- synthetic workload ---- */

/*
 * A stream of permission checks (ssid, tsid, tclass) shaped like a phone's:
 *
 * - SIDs are small integers handed out in sequence, as the kernel's sidtab
 *   does: @first_sid follows the initial SIDs (27 in recent kernels, so
 *   28), then boot-time contexts in first-seen order, domains (subjects)
 *   and types (objects) interleaved at random. Each app start adds
 *   @burst_sids new SIDs (its domain with fresh MLS categories, then its
 *   data, cache and socket types).
 * - A live set of @live_triples distinct triples, ranked by popularity;
 *   each check picks rank r with probability proportional to
 *   1 / r^@zipf_s. Subjects favour early (system) domains, targets mix
 *   domains and types, classes are Zipf(@class_zipf_s) over @classes
 *   class numbers in a seeded order.
 * - App start-up: on average every @burst_interval checks an app starts;
 *   its @burst_triples new triples are checked back to back, then take
 *   the place of as many live triples at random ranks (the app that
 *   stopped), so the live set keeps its size and its skew.
 *
 * Why these defaults are plausible: the seed measured > 90,000 checks/s
 * on an 8-core phone whose 512-node cache missed often enough to matter,
 * and its 8192-node, 8192-bucket run showed 60% of buckets used with
 * MurmurHash3, which a random hash gives at about 7,500 entries: so the
 * working set under stress is a few thousand triples (default 3000, try
 * 300 to 8000). Access to cached objects is commonly Zipf-like with s near
 * 1; Android policies have about 130 classes, a few dozen of them (file,
 * dir, binder, fd, process, capability, socket classes) taking most
 * checks; an app cold start touches tens to a hundred new triples.
 */
struct hp_avc_workload_params {
	uint64_t seed;
	uint32_t live_triples;	/* distinct triples in play (3000) */
	uint32_t domains;	/* subject SIDs at boot (200) */
	uint32_t types;		/* object SIDs at boot (1500) */
	uint32_t first_sid;	/* first SID handed out (28) */
	uint32_t classes;	/* tclass in 1..classes (100) */
	double zipf_s;		/* skew of triple popularity (1.0) */
	double class_zipf_s;	/* skew of class choice (1.2) */
	uint32_t burst_interval;	/* mean checks between app starts
					 * (20000); 0: no app starts */
	uint32_t burst_triples;	/* new triples per app start (64) */
	uint32_t burst_sids;	/* new SIDs per app start (4) */
};

struct hp_avc_key {
	uint32_t ssid;
	uint32_t tsid;
	uint16_t tclass;
};

/* A recorded trace (c/avc/trace.c: one "ssid,tsid,tclass" per line, '#'
 * comments) into *@keys (freed and replaced), *@nkeys the count; NULL, or
 * why not (a static buffer), naming the first bad line by its number. */
const char *hp_avc_load_trace(const char *path, struct hp_avc_key **keys, size_t *nkeys);

struct hp_avc_workload {
	struct hp_avc_workload_params p;
	uint64_t rng;
	uint32_t next_sid;
	uint32_t *domains;		/* subject SIDs, in order handed out */
	uint32_t ndomains;
	uint32_t cap_domains;
	uint32_t *types;		/* object SIDs */
	uint32_t ntypes;
	uint32_t cap_types;
	uint16_t *class_of_rank;	/* class number by popularity */
	double *class_cdf;
	double *rank_cdf;		/* Zipf CDF over live ranks */
	struct hp_avc_key *live;	/* by rank, most popular first */
	/* open-addressing set of the live keys: no duplicates */
	uint32_t *set;			/* index + 1 into live, 0: empty */
	uint32_t set_mask;
	struct hp_avc_key *burst;	/* the app start being played */
	uint32_t burst_len, burst_pos;
	uint64_t until_burst;		/* checks left before the next */
	uint64_t emitted;
	uint64_t app_starts;
};

/* Fill @p with the defaults above. */
void hp_avc_workload_params_init(struct hp_avc_workload_params *p);

/**
 * hp_avc_workload_init() - build the boot-time SIDs and the live set.
 * @w: the workload
 * @p: its parameters; the same parameters give the same stream
 *
 * Return: 0; -EINVAL if @p->live_triples is 0 or above a quarter of the
 * distinct triples the boot SIDs and classes allow (domains x (domains +
 * types) x classes), @p->domains, @p->types or @p->classes is 0, a skew
 * is negative or NaN, or @p->classes > 65535; -ENOMEM.
 */
int hp_avc_workload_init(struct hp_avc_workload *w,
			 const struct hp_avc_workload_params *p);

/* The next permission check. */
void hp_avc_workload_next(struct hp_avc_workload *w, uint32_t *ssid,
			  uint32_t *tsid, uint16_t *tclass);

/* The live triple of popularity rank @rank (0 is the most popular). */
struct hp_avc_key hp_avc_workload_live(const struct hp_avc_workload *w,
				       uint32_t rank);

void hp_avc_workload_destroy(struct hp_avc_workload *w);

#endif /* HOTPATH_AVC_WORKLOAD_H */
