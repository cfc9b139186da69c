// SPDX-License-Identifier: GPL-2.0-only
/*
 * The sampler: many short bursts, every job (variant x size x alignment x
 * mode) taking one sample per round, round-robin, so that whatever the
 * shared machine does to one job it does to all of them.
 *
 * A probe (probe.c: the clock and the width) is taken before the first
 * sample of a round and after every sample, so each sample sits between
 * two probes. A sample is converted to core cycles with the clock of its
 * own two probes (the core's rate can flip by 25% from one second to the
 * next), and it is clean when
 *   - both probes show at least clean_share of the core's full width (no
 *     neighbour on the other hardware thread took part of it), and
 *   - the two clocks agree within freq_tolerance (the rate did not change
 *     in the middle of the sample).
 * Full width is learnt from the run's probes (hp_width_best), so the
 * verdicts are revisited whenever it moves. Rounds go on until every job
 * has o->rounds clean samples or the budget ends (--max-rounds; by default
 * 3 x rounds, and never less than MIN_BUDGET_S seconds: a spell of the
 * neighbour lasts about a second, and a short run must outlast one). The
 * figures are made from the clean samples (hotpath.results), and a job
 * that fell short says so. Every sample is kept and sent, clean or not.
 */
#include "engine.h"
#include <hotpath/guard.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define MIN_BUDGET_S 2.0

/* The empty call is timed through a call site of its own, the last. */
#define EMPTY_SITE (HP_BURST_SITES - 1)

static uint64_t burst(const hp_burst_fn *sites, unsigned site,
		      const void *fn, const uint8_t *buf, size_t len,
		      enum hp_mode mode, unsigned n, uint64_t seed)
{
	return sites[site % HP_BURST_SITES](fn, buf, len, seed, mode, n);
}

/*
 * One burst of @jb's variant with the trap entered (guard.h): a variant
 * that crashes or does not return within the time limit is set aside, its
 * job "crashed" with what happened, and the run goes on. Returns 0 with
 * the ticks in *t, or -1.
 */
static const char *volatile current_here;
const char *volatile *hp_current_variant = &current_here;

static int job_burst(const struct hp_primitive *p, struct hp_job *jb,
		     const uint8_t *base, unsigned n, uint64_t seed,
		     uint64_t *t)
{
	sigjmp_buf env;

	*hp_current_variant = jb->v->name;
	if (sigsetjmp(env, 0)) {
		hp_trap_leave();
		jb->fault = hp_trap_fault();
		jb->status = "crashed";
		return -1;
	}
	hp_trap_enter(&env);
	*t = burst(jb->v->burst ? jb->v->burst : p->burst, jb->site, jb->v->fn,
		   base + jb->align, jb->size, jb->mode, n, seed);
	hp_trap_leave();
	hp_trap_beat++;
	return 0;
}

/* @jb's burst, or with @jb NULL the empty call's in @mode. */
static int timed(const struct hp_primitive *p, struct hp_job *jb,
		 const uint8_t *base, enum hp_mode mode, unsigned n,
		 uint64_t seed, uint64_t *t)
{
	if (jb)
		return job_burst(p, jb, base, n, seed, t);
	*t = burst(p->burst, EMPTY_SITE, p->empty_fn, base, 0, mode, n, seed);
	return 0;
}

/* Calls per sample so that one sample lasts about @target ticks; 0 when
 * the variant crashed. */
static unsigned calls_for(const struct hp_primitive *p, struct hp_job *jb,
			  const uint8_t *base, enum hp_mode mode,
			  uint64_t target, uint64_t seed)
{
	unsigned n = 1;
	uint64_t t, u;

	if (timed(p, jb, base, mode, n, seed, &t))
		return 0;
	while (t < target / 4 && n < (1u << 24)) {
		n *= 2;
		if (timed(p, jb, base, mode, n, seed, &t))
			return 0;
	}
	for (int i = 0; i < 3; i++) {
		if (timed(p, jb, base, mode, n, seed, &u))
			return 0;
		if (u < t)
			t = u;
	}
	if (t == 0)
		return n;
	double scaled = (double)n * target / t;

	return scaled < 1 ? 1 : scaled > (1u << 26) ? 1u << 26
						      : (unsigned)scaled;
}

/* Ticks of an empty timed region as the samples pay it: through the
 * primitive's own burst code, the empty call's site, no call (median of
 * 201). hp_timer_overhead() (clock.c) is the bare region, for timings
 * without a primitive. */
static double burst_timer_overhead(const struct hp_primitive *p,
				   const uint8_t *buf)
{
	double v[201];

	for (int i = 0; i < 201; i++)
		v[i] = burst(p->burst, EMPTY_SITE, p->empty_fn, buf, 0, HP_LATENCY,
			     0, 0);
	return hp_median(v, 201);
}

static void *grow(void *ptr, unsigned cap, size_t elem)
{
	return realloc(ptr, (size_t)cap * elem);
}

static int job_room(struct hp_job *jb)
{
	unsigned cap;

	if (jb->nsamples < jb->cap)
		return 0;
	cap = jb->cap ? 2 * jb->cap : 64;
	if (!(jb->ticks = grow(jb->ticks, cap, sizeof(double))) ||
	    !(jb->values = grow(jb->values, cap, sizeof(double))) ||
	    !(jb->share = grow(jb->share, cap, sizeof(double))) ||
	    !(jb->probe = grow(jb->probe, cap, sizeof(unsigned))) ||
	    !(jb->clean = grow(jb->clean, cap, 1)))
		return -1;
	jb->cap = cap;
	return 0;
}

static int add_probe(struct hp_clock_result *clk, unsigned *cap,
		     struct hp_probe_reading r)
{
	if (clk->nprobes == *cap) {
		unsigned c = *cap ? 2 * *cap : 1024;
		void *q = grow(clk->probes, c, sizeof(*clk->probes));

		if (!q)
			return -1;
		clk->probes = q;
		*cap = c;
	}
	clk->probes[clk->nprobes++] = r;
	hp_width_add(&clk->floor, r);
	clk->best_cpi = hp_width_best(&clk->floor);
	return 0;
}

/* Decide samples [from, nsamples) of @jb against the current full width. */
static void judge(struct hp_job *jb, unsigned from,
		  const struct hp_clock_result *clk,
		  const struct hp_sampler_opts *o)
{
	for (unsigned s = from; s < jb->nsamples; s++) {
		const struct hp_probe_reading *a = &clk->probes[jb->probe[s]];
		const struct hp_probe_reading *b = a + 1;
		double sa = clk->best_cpi / a->cpi, sb = clk->best_cpi / b->cpi;
		double lo = fmin(a->tpc, b->tpc);
		int clock_held = fabs(a->tpc - b->tpc) <= o->freq_tolerance * lo;
		int clean = fmin(sa, sb) >= o->clean_share && clock_held;

		jb->share[s] = fmin(sa, sb);
		jb->clean[s] = clean;
		jb->nclean += clean;
	}
}

static void rejudge_all(struct hp_job *jobs, size_t njobs,
			const struct hp_clock_result *clk,
			const struct hp_sampler_opts *o)
{
	for (size_t j = 0; j < njobs; j++) {
		jobs[j].nclean = 0;
		judge(&jobs[j], 0, clk, o);
	}
}

static double spell_factor(const struct hp_sampler_opts *o, unsigned r)
{
	if (!o->spell.every || r % o->spell.every >= o->spell.len)
		return 1.0;
	return o->spell.factor;
}

static unsigned fewest_clean(const struct hp_job *jobs, size_t njobs)
{
	unsigned least = UINT32_MAX;

	for (size_t j = 0; j < njobs; j++)
		if (!strcmp(jobs[j].status, "ok") && jobs[j].nclean < least)
			least = jobs[j].nclean;
	return least;
}

/* Ticks to the reported unit, each sample with its own probes' clock;
 * a fenced sample less the empty fenced call of its batch of rounds. */
static void convert(struct hp_job *jb, const struct hp_clock_result *clk,
		    const double *empty_batch, const unsigned *round_of,
		    const struct hp_sampler_opts *o)
{
	for (unsigned s = 0; s < jb->nsamples; s++) {
		const struct hp_probe_reading *a = &clk->probes[jb->probe[s]];
		double tpc = (a[0].tpc + a[1].tpc) / 2;

		if (jb->mode == HP_FENCED)
			jb->ticks[s] -= empty_batch[round_of[jb->probe[s]] /
						    o->batch];
		jb->values[s] = o->unit_ticks ? jb->ticks[s] : jb->ticks[s] / tpc;
	}
}

/*
 * One call of hp_sample(): its arguments and what it carries from round to
 * round, together so that each step below (one sample, one round, the
 * clean decision, the budget, the conversion) is a function of its own
 * without a long list of arguments.
 */
struct sampling {
	const struct hp_primitive *p;
	struct hp_job *jobs;
	size_t njobs;
	const uint8_t *base;
	const struct hp_sampler_opts *o;
	struct hp_clock_result *clk;
	unsigned pcap;		/* room in clk->probes */
	unsigned *round_of;	/* kept round of each probe */
	double *empty;		/* the fenced empty call of each kept round */
	unsigned nempty, ecap;
	unsigned en;		/* calls per fenced empty sample */
	int fenced;		/* some job is fenced: time the empty call too */
};

/*
 * The budget: rounds go on while warm-up plus max_rounds (by default 3 x
 * rounds) are not all taken, or, with no --max-rounds, while the run is
 * shorter than MIN_BUDGET_S (it must outlast a spell of the neighbour).
 * Taken from the clock before anything else is timed, as the run's start.
 */
struct budget {
	unsigned max_rounds;
	uint64_t t_start, min_ticks;
};

static struct budget budget_of(const struct hp_sampler_opts *o)
{
	struct budget bg;

	bg.max_rounds = o->max_rounds ? o->max_rounds : 3 * o->rounds;
	bg.t_start = hp_tsc_begin();
	bg.min_ticks = o->max_rounds ? 0 : (uint64_t)(MIN_BUDGET_S * o->tsc_hz);
	return bg;
}

/* Whether round @r may run; the clock is read only once the rounds are
 * spent. */
static int within_budget(const struct budget *bg, const struct sampling *s,
			 unsigned r)
{
	return r < s->o->warmup + bg->max_rounds ||
	       hp_tsc_begin() - bg->t_start < bg->min_ticks;
}

/*
 * What the rounds need that is learnt once, before the first: the cost of
 * the timing itself, a fresh full width and probe, and the calls per
 * sample of every job (and of the fenced empty call, when a job is
 * fenced).
 */
static void prepare(struct sampling *s)
{
	const struct hp_sampler_opts *o = s->o;
	struct hp_clock_result *clk = s->clk;

	clk->timer_overhead = burst_timer_overhead(s->p, s->base);
	memset(&clk->floor, 0, sizeof(clk->floor));
	clk->floor.tolerance = o->freq_tolerance;
	clk->floor.reference = o->width_ref;
	clk->best_cpi = INFINITY;
	hp_probe_init(&clk->probe, o->tsc_hz, clk->timer_overhead);
	for (size_t j = 0; j < s->njobs; j++) {
		struct hp_job *jb = &s->jobs[j];

		if (strcmp(jb->status, "ok"))
			continue;
		jb->n = calls_for(s->p, jb, s->base, jb->mode, o->burst_ticks,
				  o->seed);
		s->fenced |= jb->n && jb->mode == HP_FENCED;
	}
	if (s->fenced)
		s->en = calls_for(s->p, NULL, s->base, HP_FENCED,
				  o->burst_ticks, o->seed);
}

/* The round's fenced empty call, kept (per call, less the timing's cost)
 * after warm-up: fenced samples are taken less it (convert()). Returns -1
 * when out of memory. */
static int empty_sample(struct sampling *s, int keep)
{
	double e = burst(s->p->burst, EMPTY_SITE, s->p->empty_fn, s->base, 0,
			 HP_FENCED, s->en, s->o->seed);

	if (keep && s->nempty == s->ecap) {
		s->ecap = s->ecap ? 2 * s->ecap : 256;
		if (!(s->empty = grow(s->empty, s->ecap, sizeof(double))))
			return -1;
	}
	if (keep)
		s->empty[s->nempty++] = (e - s->clk->timer_overhead) / s->en;
	return 0;
}

/*
 * One sample of @jb, between the probe before it (already taken) and the
 * probe after it (taken here); kept after warm-up. A crashed variant takes
 * no sample. Sits on the timed path, so inline: nothing between the
 * untimed call, the timed burst and the probe but the vector clean-up.
 * Returns -1 when out of memory.
 */
static inline int take_sample(struct sampling *s, struct hp_job *jb,
			      double slow, int keep)
{
	struct hp_clock_result *clk = s->clk;
	uint64_t t;

	/* One untimed call first: the job before this one may have evicted
	 * this buffer or retrained the branch predictors, and a sample of a
	 * few long calls would carry that cold start into its figure. */
	if (job_burst(s->p, jb, s->base, 1, s->o->seed, &t))
		return 0;
	/* A variant that leaves the vector registers' upper halves dirty
	 * makes legacy-SSE code after it pay (the gate warns about it): none
	 * carries it into the next sample, or into the probe. */
	hp_clean_upper();
	if (job_burst(s->p, jb, s->base, jb->n, s->o->seed, &t))
		return 0;
	hp_clean_upper();
	if (add_probe(clk, &s->pcap, hp_probe_take(&clk->probe, slow)))
		return -1;
	if (!keep)
		return 0;
	if (job_room(jb))
		return -1;
	jb->ticks[jb->nsamples] = (t * slow - clk->timer_overhead) / jb->n;
	jb->probe[jb->nsamples] = clk->nprobes - 2;
	jb->nsamples++;
	return 0;
}

/*
 * Round @r: the fenced empty call, the probe before the first sample, and
 * one sample of every job still "ok", starting from a different job each
 * round so that no job always runs first. Returns -1 when out of memory.
 */
static int sample_round(struct sampling *s, unsigned r, int keep)
{
	double slow = spell_factor(s->o, r);

	if (s->fenced && empty_sample(s, keep))
		return -1;
	hp_clean_upper();
	if (add_probe(s->clk, &s->pcap, hp_probe_take(&s->clk->probe, slow)))
		return -1;
	for (size_t i = 0; i < s->njobs; i++) {
		struct hp_job *jb = &s->jobs[(i + r) % s->njobs];

		if (strcmp(jb->status, "ok"))
			continue;
		if (take_sample(s, jb, slow, keep))
			return -1;
	}
	return 0;
}

/* The kept round (counted from the end of warm-up) of the probes it took
 * from @first_probe on: convert() takes each sample's batch from it.
 * Returns -1 when out of memory. */
static int mark_round(struct sampling *s, unsigned r, unsigned first_probe)
{
	struct hp_clock_result *clk = s->clk;

	if (!(s->round_of = grow(s->round_of, s->pcap, sizeof(unsigned))))
		return -1;
	for (unsigned q = first_probe; q < clk->nprobes; q++)
		s->round_of[q] = r - s->o->warmup;
	clk->rounds_taken = r - s->o->warmup + 1;
	return 0;
}

/*
 * The clean decision after a round: when the round moved full width
 * (@before is what it was) every kept sample is judged again against the
 * new one; otherwise only the round's own sample of each job.
 */
static void judge_round(struct sampling *s, double before)
{
	if (s->clk->best_cpi != before) {
		rejudge_all(s->jobs, s->njobs, s->clk, s->o);
		return;
	}
	for (size_t j = 0; j < s->njobs; j++)
		if (!strcmp(s->jobs[j].status, "ok"))
			judge(&s->jobs[j], s->jobs[j].nsamples - 1, s->clk,
			      s->o);
}

/* The stop rule: true once every job has its o->rounds clean samples;
 * says how far the run is every 16 rounds and at the end (--progress). */
static int enough_clean(const struct sampling *s, unsigned r)
{
	const struct hp_sampler_opts *o = s->o;
	unsigned least = fewest_clean(s->jobs, s->njobs);

	if (o->progress && (r % 16 == 15 || least >= o->rounds))
		fprintf(stderr, "progress %u %u\n",
			least < o->rounds ? least : o->rounds, o->rounds);
	return least >= o->rounds;
}

/*
 * After the rounds: per batch of rounds the median clock and fenced empty
 * call, the fenced empty call of the whole run, and every job's samples
 * converted with them. Returns -1 when out of memory.
 */
static int finish(struct sampling *s)
{
	const struct hp_sampler_opts *o = s->o;
	struct hp_clock_result *clk = s->clk;
	unsigned nb = (clk->rounds_taken + o->batch - 1) / o->batch;
	double *emp_b = NULL, *tmp = NULL;
	int ret = -1;

	clk->nbatches = nb;
	clk->tpc = calloc(nb ? nb : 1, sizeof(double));
	emp_b = calloc(nb ? nb : 1, sizeof(double));
	tmp = calloc(clk->nprobes > s->nempty ? clk->nprobes + 1
					      : s->nempty + 1,
		     sizeof(double));
	if (!clk->tpc || !emp_b || !tmp)
		goto out;
	for (unsigned b = 0; b < nb; b++) {
		unsigned n = 0, lo = b * o->batch, hi = lo + o->batch;

		for (unsigned q = 0; q < clk->nprobes; q++)
			if (s->round_of[q] >= lo && s->round_of[q] < hi)
				tmp[n++] = clk->probes[q].tpc;
		clk->tpc[b] = hp_median(tmp, n);
		if (s->fenced) {
			n = 0;
			for (unsigned k = lo; k < hi && k < s->nempty; k++)
				tmp[n++] = s->empty[k];
			emp_b[b] = hp_median(tmp, n);
		}
	}
	if (s->fenced) {
		memcpy(tmp, s->empty, s->nempty * sizeof(double));
		clk->fenced_empty = hp_median(tmp, s->nempty);
	}
	for (size_t j = 0; j < s->njobs; j++)
		if (!strcmp(s->jobs[j].status, "ok"))
			convert(&s->jobs[j], clk, emp_b, s->round_of, o);
	ret = 0;
out:
	free(emp_b);
	free(tmp);
	return ret;
}

int hp_sample(const struct hp_primitive *p, struct hp_job *jobs,
	      size_t njobs, const uint8_t *base,
	      const struct hp_sampler_opts *o, struct hp_clock_result *clk)
{
	struct budget bg = budget_of(o);
	struct sampling s = {
		.p = p, .jobs = jobs, .njobs = njobs, .base = base, .o = o,
		.clk = clk,
	};
	int ret = -1;

	prepare(&s);
	for (unsigned r = 0; within_budget(&bg, &s, r); r++) {
		int keep = r >= o->warmup;
		double before = clk->best_cpi;
		unsigned first_probe = clk->nprobes;

		if (sample_round(&s, r, keep))
			goto out;
		if (!keep) {
			/* Warm-up probes teach the full width, nothing else. */
			clk->nprobes = 0;
			continue;
		}
		if (mark_round(&s, r, first_probe))
			goto out;
		judge_round(&s, before);
		if (enough_clean(&s, r))
			break;
	}
	ret = finish(&s);
out:
	free(s.round_of);
	free(s.empty);
	return ret;
}
