// SPDX-License-Identifier: GPL-2.0-only
/*
 * The sampler: many short bursts, every job (variant x size x alignment x
 * mode) taking one sample per round, round-robin, so that whatever the
 * shared machine does to one job it does to all of them. Each round also
 * takes one calibration sample (ticks per core cycle) and one fenced
 * empty call, and samples are converted with the median of their own
 * batch of rounds, so frequency drift is followed rather than averaged.
 */
#include "engine.h"

#include <stdlib.h>
#include <string.h>

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

double hp_median(double *v, size_t n)
{
	if (!n)
		return 0;
	qsort(v, n, sizeof(*v), cmp_double);
	return n & 1 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

static uint64_t burst(const struct hp_primitive *p, const void *fn,
		      const uint8_t *buf, size_t len, enum hp_mode mode,
		      unsigned n, uint64_t seed)
{
	return p->burst(fn, buf, len, seed, mode, n);
}

/* Calls per sample so that one sample lasts about @target ticks. */
static unsigned calls_for(const struct hp_primitive *p, const void *fn,
			  const uint8_t *buf, size_t len, enum hp_mode mode,
			  uint64_t target, uint64_t seed)
{
	unsigned n = 1;
	uint64_t t = burst(p, fn, buf, len, mode, n, seed);

	while (t < target / 4 && n < (1u << 24)) {
		n *= 2;
		t = burst(p, fn, buf, len, mode, n, seed);
	}
	for (int i = 0; i < 3; i++) {
		uint64_t u = burst(p, fn, buf, len, mode, n, seed);

		if (u < t)
			t = u;
	}
	if (t == 0)
		return n;
	double scaled = (double)n * target / t;

	return scaled < 1 ? 1 : scaled > (1u << 26) ? 1u << 26
						      : (unsigned)scaled;
}

static double timer_overhead(const struct hp_primitive *p, const uint8_t *buf)
{
	double v[201];

	for (int i = 0; i < 201; i++)
		v[i] = burst(p, p->empty_fn, buf, 0, HP_LATENCY, 0, 0);
	return hp_median(v, 201);
}

int hp_sample(const struct hp_primitive *p, struct hp_job *jobs,
	      size_t njobs, const uint8_t *base,
	      const struct hp_sampler_opts *o, struct hp_clock_result *clk)
{
	unsigned total = o->warmup + o->rounds, r, b;
	unsigned nb = (o->rounds + o->batch - 1) / o->batch;
	unsigned creps = hp_calib_reps(o->burst_ticks);
	unsigned en = 0;
	double *calib = calloc(o->rounds, sizeof(double));
	double *empty = calloc(o->rounds, sizeof(double));
	double *tmp = calloc(o->batch, sizeof(double));
	double *emp_b = calloc(nb, sizeof(double));
	int fenced = 0;
	size_t j;

	if (!calib || !empty || !tmp || !emp_b)
		return -1;
	clk->timer_overhead = timer_overhead(p, base);
	for (j = 0; j < njobs; j++) {
		struct hp_job *jb = &jobs[j];

		if (strcmp(jb->status, "ok"))
			continue;
		jb->n = calls_for(p, jb->v->fn, base + jb->align, jb->size,
				  jb->mode, o->burst_ticks, o->seed);
		jb->ticks = calloc(o->rounds, sizeof(double));
		jb->values = calloc(o->rounds, sizeof(double));
		if (!jb->ticks || !jb->values)
			return -1;
		fenced |= jb->mode == HP_FENCED;
	}
	if (fenced)
		en = calls_for(p, p->empty_fn, base, 0, HP_FENCED,
			       o->burst_ticks, o->seed);

	for (r = 0; r < total; r++) {
		int keep = r >= o->warmup;
		unsigned k = keep ? r - o->warmup : 0;
		double c = hp_calib_burst(creps);

		if (keep)
			calib[k] = (c - clk->timer_overhead) / (100.0 * creps);
		if (fenced) {
			double e = burst(p, p->empty_fn, base, 0, HP_FENCED, en,
					 o->seed);

			if (keep)
				empty[k] = (e - clk->timer_overhead) / en;
		}
		/* Rotate the starting job so no job always runs first. */
		for (size_t i = 0; i < njobs; i++) {
			struct hp_job *jb = &jobs[(i + r) % njobs];

			if (strcmp(jb->status, "ok"))
				continue;
			/* One untimed call first: the job before this one may
			 * have evicted this buffer or retrained the branch
			 * predictors, and a sample of a few long calls would
			 * carry that cold start into its figure. */
			burst(p, jb->v->fn, base + jb->align, jb->size,
			      jb->mode, 1, o->seed);
			double t = burst(p, jb->v->fn, base + jb->align,
					 jb->size, jb->mode, jb->n, o->seed);

			if (keep)
				jb->ticks[k] = (t - clk->timer_overhead) / jb->n;
		}
		if (o->progress && (r % 16 == 15 || r + 1 == total))
			fprintf(stderr, "progress %u %u\n", r + 1, total);
	}

	/* Per batch: ticks per cycle and the fenced empty call. */
	clk->nbatches = nb;
	clk->tpc = calloc(nb, sizeof(double));
	if (!clk->tpc)
		return -1;
	for (b = 0; b < nb; b++) {
		unsigned lo = b * o->batch;
		unsigned hi = lo + o->batch > o->rounds ? o->rounds
							: lo + o->batch;

		memcpy(tmp, calib + lo, (hi - lo) * sizeof(double));
		clk->tpc[b] = hp_median(tmp, hi - lo);
		memcpy(tmp, empty + lo, (hi - lo) * sizeof(double));
		emp_b[b] = fenced ? hp_median(tmp, hi - lo) : 0;
	}
	clk->fenced_empty = fenced ? hp_median(empty, o->rounds) : 0;
	for (j = 0; j < njobs; j++) {
		struct hp_job *jb = &jobs[j];

		if (strcmp(jb->status, "ok"))
			continue;
		for (r = 0; r < o->rounds; r++) {
			b = r / o->batch;
			if (jb->mode == HP_FENCED)
				jb->ticks[r] -= emp_b[b];
			jb->values[r] = o->unit_ticks ? jb->ticks[r]
						      : jb->ticks[r] / clk->tpc[b];
		}
	}
	free(calib);
	free(empty);
	free(tmp);
	free(emp_b);
	return 0;
}
