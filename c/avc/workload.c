// SPDX-License-Identifier: GPL-2.0-only
/*
 * A synthetic stream of AVC permission checks, reproducible from a seed:
 * sequential SIDs, a Zipf-skewed live set of triples, and bursts of new
 * triples when an app starts. hotpath/avc.h documents the parameters and
 * why their defaults are plausible.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <hotpath/avc.h>

#include "avc_internal.h"

/* Share of app-start triples whose subject is the new app (the rest are
 * system domains acting on it: binder calls, process and fd checks). */
#define APP_SUBJECT_SHARE	0.7
/* Share of the app's own checks aimed at its own new types. */
#define APP_OWN_TYPE_SHARE	0.4
/* Share of boot-time triples whose target is a domain, not a type. */
#define DOMAIN_TARGET_SHARE	0.25
/* Tries to find a triple not yet live before giving up on the shape. */
#define MAX_TRIES		64

void hp_avc_workload_params_init(struct hp_avc_workload_params *p)
{
	memset(p, 0, sizeof(*p));
	p->seed = 1;
	p->live_triples = 3000;
	p->domains = 200;
	p->types = 1500;
	p->first_sid = 28;
	p->classes = 100;
	p->zipf_s = 1.0;
	p->class_zipf_s = 1.2;
	p->burst_interval = 20000;
	p->burst_triples = 64;
	p->burst_sids = 4;
}

/* ---- random choices ---- */

/* An index below @n favouring small ones (early SIDs: the system's):
 * n * u^2 has density proportional to 1 / sqrt(index). */
static uint32_t pick_early(struct hp_avc_workload *w, uint32_t n)
{
	double u = hp_avc_rand_unit(&w->rng);
	uint32_t i = (uint32_t)(n * u * u);

	return i < n ? i : n - 1;
}

/* The first index whose cumulative weight exceeds a uniform draw. */
static uint32_t pick_cdf(struct hp_avc_workload *w, const double *cdf,
			 uint32_t n)
{
	double u = hp_avc_rand_unit(&w->rng);
	uint32_t lo = 0, hi = n - 1;

	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;

		if (cdf[mid] > u)
			hi = mid;
		else
			lo = mid + 1;
	}
	return lo;
}

/* Cumulative Zipf weights 1 / (r + 1)^s, normalised to end at 1. */
static double *zipf_cdf(uint32_t n, double s)
{
	double *cdf = malloc(sizeof(*cdf) * n), sum = 0;
	uint32_t r;

	if (!cdf)
		return NULL;
	for (r = 0; r < n; r++) {
		sum += pow(r + 1.0, -s);
		cdf[r] = sum;
	}
	for (r = 0; r < n; r++)
		cdf[r] /= sum;
	cdf[n - 1] = 1.0;
	return cdf;
}

static uint16_t pick_class(struct hp_avc_workload *w)
{
	return w->class_of_rank[pick_cdf(w, w->class_cdf, w->p.classes)];
}

/* ---- the set of live keys (linear probing, backward-shift delete) ---- */

static uint32_t key_home(const struct hp_avc_workload *w,
			 struct hp_avc_key k)
{
	return hp_avc_hash_murmur3_inl(k.ssid, k.tsid, k.tclass) & w->set_mask;
}

static bool key_eq(struct hp_avc_key a, struct hp_avc_key b)
{
	return a.ssid == b.ssid && a.tsid == b.tsid && a.tclass == b.tclass;
}

/* The set's slot holding @k, or the empty slot where it would go. */
static uint32_t set_find(const struct hp_avc_workload *w, struct hp_avc_key k)
{
	uint32_t i = key_home(w, k);

	while (w->set[i] && !key_eq(w->live[w->set[i] - 1], k))
		i = (i + 1) & w->set_mask;
	return i;
}

static bool set_has(const struct hp_avc_workload *w, struct hp_avc_key k)
{
	return w->set[set_find(w, k)] != 0;
}

/* Record live[rank], which must not be in the set yet. */
static void set_add(struct hp_avc_workload *w, uint32_t rank)
{
	w->set[set_find(w, w->live[rank])] = rank + 1;
}

/* Is @home outside the cyclic interval (hole, j]? Then the entry at j
 * may move back into the hole. */
static bool may_fill(uint32_t hole, uint32_t j, uint32_t home)
{
	if (hole < j)
		return home <= hole || home > j;
	return home <= hole && home > j;
}

/* Forget live[rank], which must be in the set. */
static void set_del(struct hp_avc_workload *w, uint32_t rank)
{
	uint32_t hole = set_find(w, w->live[rank]), j = hole;

	w->set[hole] = 0;
	for (;;) {
		j = (j + 1) & w->set_mask;
		if (!w->set[j])
			return;
		if (may_fill(hole, j, key_home(w, w->live[w->set[j] - 1]))) {
			w->set[hole] = w->set[j];
			w->set[j] = 0;
			hole = j;
		}
	}
}

/* ---- SIDs ---- */

static int push_sid(uint32_t **arr, uint32_t *n, uint32_t *cap, uint32_t sid)
{
	if (*n == *cap) {
		uint32_t ncap = *cap ? *cap * 2 : 64;
		uint32_t *a = realloc(*arr, sizeof(*a) * ncap);

		if (!a)
			return -ENOMEM;
		*arr = a;
		*cap = ncap;
	}
	(*arr)[(*n)++] = sid;
	return 0;
}

/* Boot: hand out SIDs in sequence to domains and types, interleaved at
 * random as contexts are first seen. */
static int boot_sids(struct hp_avc_workload *w)
{
	uint32_t d = w->p.domains, t = w->p.types;

	while (d || t) {
		bool dom = hp_avc_rand_below(&w->rng, d + t) < d;
		int err = dom ? push_sid(&w->domains, &w->ndomains,
					 &w->cap_domains, w->next_sid) :
				push_sid(&w->types, &w->ntypes, &w->cap_types,
					 w->next_sid);

		if (err)
			return err;
		w->next_sid++;
		if (dom)
			d--;
		else
			t--;
	}
	return 0;
}

/* A boot-time triple: an early-leaning domain acting on a domain or a
 * type, in a Zipf-chosen class. */
static struct hp_avc_key boot_triple(struct hp_avc_workload *w)
{
	struct hp_avc_key k;

	k.ssid = w->domains[pick_early(w, w->ndomains)];
	if (hp_avc_rand_unit(&w->rng) < DOMAIN_TARGET_SHARE)
		k.tsid = w->domains[pick_early(w, w->ndomains)];
	else
		k.tsid = w->types[pick_early(w, w->ntypes)];
	k.tclass = pick_class(w);
	return k;
}

/* ---- app start-up ---- */

struct app {
	uint32_t domain;
	uint32_t first_type;	/* its types are first_type .. + ntypes - 1 */
	uint32_t ntypes;
};

/* New SIDs for the app: its domain, then its types. Should memory run
 * out the app reuses existing SIDs, so that next() cannot fail. */
static void app_sids(struct hp_avc_workload *w, struct app *a)
{
	uint32_t i;

	a->domain = w->domains[pick_early(w, w->ndomains)];
	a->ntypes = 0;
	a->first_type = w->next_sid;
	if (!w->p.burst_sids)
		return;
	if (push_sid(&w->domains, &w->ndomains, &w->cap_domains, w->next_sid))
		return;
	a->domain = w->next_sid++;
	a->first_type = w->next_sid;
	for (i = 1; i < w->p.burst_sids; i++) {
		if (push_sid(&w->types, &w->ntypes, &w->cap_types,
			     w->next_sid))
			return;
		w->next_sid++;
		a->ntypes++;
	}
}

static struct hp_avc_key app_triple(struct hp_avc_workload *w,
				    const struct app *a)
{
	struct hp_avc_key k;

	k.tclass = pick_class(w);
	if (hp_avc_rand_unit(&w->rng) >= APP_SUBJECT_SHARE) {
		k.ssid = w->domains[pick_early(w, w->ndomains)];
		k.tsid = a->domain;
	} else if (a->ntypes &&
		   hp_avc_rand_unit(&w->rng) < APP_OWN_TYPE_SHARE) {
		k.ssid = a->domain;
		k.tsid = a->first_type + hp_avc_rand_below(&w->rng, a->ntypes);
	} else {
		k.ssid = a->domain;
		k.tsid = w->types[pick_early(w, w->ntypes)];
	}
	return k;
}

/* A triple that is not live yet: the app's shape if one is found in a
 * few tries, else any boot-time shape. */
static struct hp_avc_key fresh_triple(struct hp_avc_workload *w,
				      const struct app *a)
{
	struct hp_avc_key k;
	int i;

	for (i = 0; i < MAX_TRIES; i++) {
		k = app_triple(w, a);
		if (!set_has(w, k))
			return k;
	}
	do
		k = boot_triple(w);
	while (set_has(w, k));
	return k;
}

/* Exponential gaps: app starts arrive as a Poisson process. */
static uint64_t next_gap(struct hp_avc_workload *w)
{
	double u = hp_avc_rand_unit(&w->rng);

	return (uint64_t)(-log1p(-u) * w->p.burst_interval);
}

/* An app starts: its triples are queued to be checked back to back and
 * take the place of live triples at random ranks (an app that stopped). */
static void app_start(struct hp_avc_workload *w)
{
	struct app a;
	uint32_t i;

	app_sids(w, &a);
	for (i = 0; i < w->p.burst_triples; i++) {
		uint32_t rank = hp_avc_rand_below(&w->rng, w->p.live_triples);
		struct hp_avc_key k = fresh_triple(w, &a);

		set_del(w, rank);
		w->live[rank] = k;
		set_add(w, rank);
		w->burst[i] = k;
	}
	w->burst_len = w->p.burst_triples;
	w->burst_pos = 0;
	w->until_burst = next_gap(w);
	w->app_starts++;
}

/* ---- public ---- */

static int check_params(const struct hp_avc_workload_params *p)
{
	double distinct = (double)p->domains *
			  ((double)p->domains + p->types) * p->classes;

	if (!p->live_triples || !p->domains || !p->types || !p->classes ||
	    p->classes > 65535 || !(p->zipf_s >= 0) ||
	    !(p->class_zipf_s >= 0))
		return -EINVAL;
	/* drawing distinct triples must stay easy */
	if (p->live_triples > distinct / 4)
		return -EINVAL;
	if ((double)p->first_sid + p->domains + p->types > 0x7fffffff)
		return -EINVAL;
	return 0;
}

static int alloc_tables(struct hp_avc_workload *w)
{
	const struct hp_avc_workload_params *p = &w->p;
	uint32_t set_size = 16;

	while (set_size < 2 * p->live_triples)
		set_size *= 2;
	w->set_mask = set_size - 1;
	w->set = calloc(set_size, sizeof(*w->set));
	w->live = calloc(p->live_triples, sizeof(*w->live));
	w->burst = calloc(p->burst_triples ? p->burst_triples : 1,
			  sizeof(*w->burst));
	w->class_of_rank = calloc(p->classes, sizeof(*w->class_of_rank));
	w->class_cdf = zipf_cdf(p->classes, p->class_zipf_s);
	w->rank_cdf = zipf_cdf(p->live_triples, p->zipf_s);
	if (!w->set || !w->live || !w->burst || !w->class_of_rank ||
	    !w->class_cdf || !w->rank_cdf)
		return -ENOMEM;
	return 0;
}

/* Class numbers 1..classes in a seeded order of popularity. */
static void shuffle_classes(struct hp_avc_workload *w)
{
	uint32_t i;

	for (i = 0; i < w->p.classes; i++)
		w->class_of_rank[i] = (uint16_t)(i + 1);
	for (i = w->p.classes - 1; i > 0; i--) {
		uint32_t j = hp_avc_rand_below(&w->rng, i + 1);
		uint16_t t = w->class_of_rank[i];

		w->class_of_rank[i] = w->class_of_rank[j];
		w->class_of_rank[j] = t;
	}
}

int hp_avc_workload_init(struct hp_avc_workload *w,
			 const struct hp_avc_workload_params *p)
{
	uint32_t r;
	int err;

	memset(w, 0, sizeof(*w));
	err = check_params(p);
	if (err)
		return err;
	w->p = *p;
	w->rng = p->seed;
	w->next_sid = p->first_sid;
	err = alloc_tables(w);
	if (!err)
		err = boot_sids(w);
	if (err) {
		hp_avc_workload_destroy(w);
		return err;
	}
	shuffle_classes(w);
	for (r = 0; r < p->live_triples; r++) {
		do
			w->live[r] = boot_triple(w);
		while (set_has(w, w->live[r]));
		set_add(w, r);
	}
	if (p->burst_interval)
		w->until_burst = next_gap(w);
	return 0;
}

void hp_avc_workload_next(struct hp_avc_workload *w, uint32_t *ssid,
			  uint32_t *tsid, uint16_t *tclass)
{
	struct hp_avc_key k;

	if (w->burst_pos == w->burst_len && w->p.burst_interval &&
	    w->p.burst_triples) {
		if (!w->until_burst)
			app_start(w);
		else
			w->until_burst--;
	}
	if (w->burst_pos < w->burst_len)
		k = w->burst[w->burst_pos++];
	else
		k = w->live[pick_cdf(w, w->rank_cdf, w->p.live_triples)];
	w->emitted++;
	*ssid = k.ssid;
	*tsid = k.tsid;
	*tclass = k.tclass;
}

struct hp_avc_key hp_avc_workload_live(const struct hp_avc_workload *w,
				       uint32_t rank)
{
	return w->live[rank];
}

void hp_avc_workload_destroy(struct hp_avc_workload *w)
{
	free(w->domains);
	free(w->types);
	free(w->class_of_rank);
	free(w->class_cdf);
	free(w->rank_cdf);
	free(w->live);
	free(w->set);
	free(w->burst);
	memset(w, 0, sizeof(*w));
}
