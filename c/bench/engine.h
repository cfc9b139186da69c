/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The engine's internal interfaces, shared by the runner's files only:
 * clock and calibration, the correctness gate, the sampler (the JSON
 * writer is public: <hotpath/json.h>).
 */
#ifndef HOTPATH_ENGINE_H
#define HOTPATH_ENGINE_H

#include <hotpath/bench.h>
#include <hotpath/guard.h>
#include <hotpath/json.h>
#include <hotpath/rng.h>
#include <stdio.h>

/* vzeroupper where the CPU has AVX: the vector registers' upper halves
 * are clean again, and legacy SSE code after it pays nothing. */
void hp_clean_upper(void);
/* 1 when the upper halves are dirty (XINUSE), 0 clean, -1 unknown here. */
int hp_upper_dirty(void);

/* ---- clock.c ---- */
double hp_tsc_granularity(void);	/* smallest TSC step, ticks */
/* Ticks of an empty timed region, bare (median of 201): for timings
 * without a primitive (the timeline); the sampler measures its own through
 * the primitive's burst code (sampler.c). */
double hp_timer_overhead(void);
/* Second clock: perf cycles per dependent add, or < 0 with *why set. */
double hp_perf_cycles_per_add(const char **why);
/* Pin to @cpu (-1: the last CPU allowed); returns the CPU or -1. */
int hp_pin_cpu(int cpu);

/* ---- probe.c: the clock and the width, taken around every sample ---- */
struct hp_probe {
	double overhead;	/* ticks of an empty timed region */
	unsigned chain_reps;	/* x 100 dependent adds */
	unsigned width_iters;	/* iterations of the independent burst */
};

struct hp_probe_reading {
	double tpc;		/* TSC ticks per core cycle (the chain) */
	double cpi;		/* core cycles per width-burst iteration */
};

void hp_probe_init(struct hp_probe *pr, double tsc_hz, double overhead);

/*
 * Full width, learnt from the probes. Not the single fastest probe: one
 * whose chain ran slower than its width burst (interrupted, or the core
 * still ramping its clock up) has too large a clock and so a false, tiny
 * cost. So a probe teaches only when its clock agrees with the probe
 * before it, and full width is the K-th fastest of those, K = 1% of them
 * (4..HP_WIDTH_K).
 */
#define HP_WIDTH_K 512
struct hp_width_floor {
	double low[HP_WIDTH_K];	/* the fastest costs seen, ascending */
	unsigned nlow;
	unsigned long seen;
	double last_tpc;
	double tolerance;	/* clock agreement, as freq_tolerance */
	double reference;	/* full width seen by earlier runs (0: none) */
};

void hp_width_add(struct hp_width_floor *w, struct hp_probe_reading r);
double hp_width_best(const struct hp_width_floor *w);
/* @slow > 1 only from the test hook: the width burst is made that much
 * slower, as a neighbour would; the chain is not. */
struct hp_probe_reading hp_probe_take(const struct hp_probe *pr, double slow);

/* ---- gate.c ---- */
struct hp_gate_opts {
	const size_t *sizes;	/* extra lengths the run will time */
	size_t nsizes;
	const size_t *aligns;	/* extra alignments */
	size_t naligns;
	uint64_t rng_seed;
};

/* Checks @v against the primitive's reference; 0 when it matched every
 * case, else fills *fail. *ncases counts the cases run. *dirty_upper
 * (when not NULL): 1 if @v returned with the vector registers' upper
 * halves dirty, 0 if never, -1 if this CPU cannot tell. */
int hp_gate(const struct hp_primitive *p, const struct hp_variant *v,
	    const struct hp_gate_opts *o, struct hp_failure *fail,
	    unsigned long *ncases, int *dirty_upper);

/* ---- sampler.c ---- */
/* Where the name of the variant whose code runs now (gate or sampler) is
 * kept, NULL when none: for the last words of a runner that a variant
 * ends. The runner points it into memory its watching parent reads
 * (runner.c: watch_variants). */
extern const char *volatile *hp_current_variant;
struct hp_job {
	const struct hp_variant *v;
	unsigned site;		/* burst copy: one per variant (bench.h) */
	size_t size, align;
	enum hp_mode mode;
	const char *status;	/* "ok", "n/a", "not timed", "crashed" */
	const char *reason;
	char reason_buf[80];
	unsigned n;		/* calls per sample */
	unsigned nsamples;	/* samples taken (after warm-up) */
	unsigned cap;		/* room in the arrays below */
	double *ticks;		/* per call, overhead subtracted, per sample */
	double *values;		/* the same in the reported unit */
	double *share;		/* lower of the width shares around it */
	unsigned *probe;	/* index of the probe taken just before it */
	unsigned char *clean;	/* share and clock both held (see sampler.c) */
	unsigned nclean;
	struct hp_fault fault;	/* status "crashed": what happened */
};

struct hp_sampler_opts {
	unsigned rounds, warmup, batch;
	uint64_t burst_ticks;	/* target length of one sample */
	int unit_ticks;		/* report TSC ticks instead of cycles */
	int progress;		/* "progress DONE TOTAL" lines on stderr */
	uint64_t seed;		/* chained input of the first call */
	double tsc_hz;
	double clean_share;	/* lowest width share a clean sample may see */
	double freq_tolerance;	/* largest clock change across a clean sample */
	unsigned max_rounds;	/* the budget: rounds after warm-up, at most */
	double width_ref;	/* full width from earlier runs (--width-ref) */
	/* Test hook (--test-spells): in rounds r with r % every < len the
	 * width probes and the samples take @factor times as long. */
	struct { unsigned every, len; double factor; } spell;
};

struct hp_clock_result {
	double timer_overhead;	/* ticks of an empty timed region */
	double fenced_empty;	/* ticks per fenced empty call (median) */
	double *tpc;		/* ticks per cycle, one per batch */
	unsigned nbatches;
	unsigned rounds_taken;	/* after warm-up */
	double best_cpi;	/* full width: cycles per probe iteration */
	struct hp_width_floor floor;
	struct hp_probe_reading *probes;	/* every probe, in order */
	unsigned nprobes;
	struct hp_probe probe;
};

/* Times every job with status "ok"; buffers at @base + job->align.
 * Returns 0, or -1 when memory ran out. */
int hp_sample(const struct hp_primitive *p, struct hp_job *jobs,
	      size_t njobs, const uint8_t *base,
	      const struct hp_sampler_opts *o, struct hp_clock_result *clk);

/* ---- rng: hp_rng_next() is <hotpath/rng.h>'s ---- */
void hp_fill_random(uint8_t *buf, size_t len, uint64_t *state);

#endif /* HOTPATH_ENGINE_H */
