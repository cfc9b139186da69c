// SPDX-License-Identifier: GPL-2.0-only
/*
 * Engine tests: the clock self-check (N dependent adds measure N cycles,
 * 2N twice N), the guard trap, and the correctness gate catching a wrong
 * variant and an over-reading one. Only ratios within one run are
 * asserted; absolute times are never asserted (shared machine).
 */
#include "check.h"
#include "engine.h"
#include <hotpath/csum.h>
#include <hotpath/guard.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>

extern const struct hp_primitive hp_prim_add_chain;
extern const struct hp_primitive hp_prim_csum_partial;

/* Median of a job's samples: the clean ones only, or all of them. */
static double median_of(const struct hp_job *jb, int clean_only)
{
	double *tmp = malloc(jb->nsamples * sizeof(double) + 1), m;
	unsigned n = 0;

	for (unsigned s = 0; s < jb->nsamples; s++)
		if (!clean_only || jb->clean[s])
			tmp[n++] = jb->values[s];
	m = hp_median(tmp, n);
	free(tmp);
	return m;
}

static void free_jobs(struct hp_job *jobs, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(jobs[i].ticks);
		free(jobs[i].values);
		free(jobs[i].share);
		free(jobs[i].probe);
		free(jobs[i].clean);
	}
}

static struct hp_sampler_opts engine_opts(void)
{
	struct hp_sampler_opts o = { .rounds = 300, .warmup = 20, .batch = 50,
				     .seed = 7, .clean_share = 0.9,
				     .freq_tolerance = 0.03 };

	o.tsc_hz = hp_tsc_hz();
	o.burst_ticks = (uint64_t)(10e-6 * o.tsc_hz);
	return o;
}

static void add_chain_jobs(struct hp_job *jobs, const size_t *n, size_t count)
{
	memset(jobs, 0, count * sizeof(*jobs));
	for (size_t i = 0; i < count; i++) {
		jobs[i].v = &hp_prim_add_chain.variants[0];
		jobs[i].size = n[i];
		jobs[i].mode = HP_LATENCY;
		jobs[i].status = "ok";
	}
}

/* Within 5%: N = 100 and 2N = 200 adds, and their ratio. */
static int calibrated(double m100, double m200)
{
	return fabs(m100 / 100 - 1) < 0.05 && fabs(m200 / 200 - 1) < 0.05 &&
	       fabs(m200 / m100 / 2 - 1) < 0.05;
}

/*
 * The engine measures N dependent adds as N core cycles. Up to three
 * attempts, each printed: on a shared virtual machine a neighbour or a
 * clock change now and then moves one figure by 10 to 15% for a whole
 * attempt (seen on the development machine while the runner's own
 * `hotpath calibrate` passed), while an engine fault, a wrong tick rate
 * say, fails every attempt.
 */
static void test_calibration(void)
{
	const struct hp_primitive *p = &hp_prim_add_chain;
	static const size_t n[] = { 50, 100, 200 };
	struct hp_job jobs[3];
	struct hp_sampler_opts o = engine_opts();
	struct hp_clock_result clk;
	static uint8_t buf[4096];
	double m100 = 0, m200 = 0;
	int ok = 0, spoiled = 0;

	hp_pin_cpu(-1);
	for (int attempt = 1; attempt <= 3 && !ok; attempt++) {
		add_chain_jobs(jobs, n, 3);
		memset(&clk, 0, sizeof(clk));
		CHECK(hp_sample(p, jobs, 3, buf, &o, &clk) == 0,
		      "sampler failed");
		m100 = median_of(&jobs[1], 1);
		m200 = median_of(&jobs[2], 1);
		/* 50 is printed only: at that length the call's own ~1.3
		 * cycles are 2.7% of the figure. */
		printf("calibration, attempt %d: 50 adds %.2f, 100 adds %.2f, 200 adds %.2f cycles\n",
		       attempt, median_of(&jobs[0], 1), m100, m200);
		/* No clean sample: a neighbour on the core, nothing to judge. */
		spoiled += !jobs[1].nclean || !jobs[2].nclean;
		ok = calibrated(m100, m200);
		if (!ok)
			free_jobs(jobs, 3);
	}
	if (!ok && spoiled == 3) {
		printf("calibration not checked: no clean sample in three attempts (a neighbour on the core)\n");
		return;
	}
	CHECK(ok, "100 adds %.2f, 200 adds %.2f cycles (ratio %.3f): not within 5%% in three attempts",
	      m100, m200, m200 / m100);
	/* The clean samples it wanted, or its whole budget (3 x rounds)
	 * spent trying: a neighbour on the core may spoil the rest. */
	for (int i = 0; i < 3; i++)
		CHECK(jobs[i].nclean >= o.rounds || clk.rounds_taken >= 3 * o.rounds,
		      "job %d: %u clean samples in %u rounds, wanted %u", i,
		      jobs[i].nclean, clk.rounds_taken, o.rounds);
	CHECK(clk.rounds_taken >= o.rounds &&
	      clk.nbatches == (clk.rounds_taken + o.batch - 1) / o.batch,
	      "%u batches for %u rounds", clk.nbatches, clk.rounds_taken);
	for (unsigned b = 0; b < clk.nbatches; b++)
		CHECK(clk.tpc[b] > 0.05 && clk.tpc[b] < 20,
		      "ticks per cycle %.3f is implausible", clk.tpc[b]);
	free_jobs(jobs, 3);
}

/*
 * The neighbour filter, with the test hook's neighbour: in two rounds of
 * every four the width probes and the samples take twice as long (what a
 * busy neighbour does to throughput-bound code). The figures from the
 * clean samples must not move; all samples pooled would move them by half.
 */
static void test_spells(void)
{
	static const size_t n[] = { 100 };
	struct hp_job job;
	struct hp_sampler_opts o = engine_opts();
	struct hp_clock_result clk = { 0 };
	static uint8_t buf[4096];
	double clean, all;

	o.rounds = 200;
	o.spell.every = 4;
	o.spell.len = 2;
	o.spell.factor = 2.0;
	add_chain_jobs(&job, n, 1);
	CHECK(hp_sample(&hp_prim_add_chain, &job, 1, buf, &o, &clk) == 0,
	      "sampler failed");
	clean = median_of(&job, 1);
	all = median_of(&job, 0);
	printf("spells: 100 adds %.2f cycles from %u clean of %u samples, %.2f from all\n",
	       clean, job.nclean, job.nsamples, all);
	CHECK(!job.nclean || fabs(clean / 100 - 1) < 0.05, "clean figure %.2f, not 100", clean);
	/* Made up: the clean samples it wanted, or the whole budget spent
	 * (a real neighbour on the core may spoil the rounds between spells). */
	CHECK((job.nclean >= o.rounds || clk.rounds_taken >= 3 * o.rounds) &&
	      job.nsamples >= 2 * o.rounds - 4,
	      "%u clean of %u: the spell rounds must be set aside and made up",
	      job.nclean, job.nsamples);
	/* One job: sample s is round warmup + s. */
	for (unsigned s = 0; s < job.nsamples; s++)
		if (job.clean[s] && (o.warmup + s) % o.spell.every < o.spell.len) {
			CHECK(0, "sample %u of a spell round was kept", s);
			break;
		}
	free_jobs(&job, 1);
}

struct touch {
	const uint8_t *p;
	size_t off;
};

static void touch(void *arg)
{
	struct touch *t = arg;
	volatile uint8_t x = t->p[t->off];

	(void)x;
}

static void test_guard(void)
{
	struct hp_guarded g;
	uint8_t *b;

	CHECK(hp_guarded_alloc(&g, 100) == 0, "alloc");
	b = hp_guarded_butt(&g, 10);
	struct touch in = { b, 9 }, past = { b, 10 }, before = { g.base, 0 };

	CHECK(hp_guarded_call(touch, &in) == 0, "last byte must be readable");
	CHECK(hp_guarded_call(touch, &past) == -1, "byte past end must fault");
	before.p = g.base - 1;
	CHECK(hp_guarded_call(touch, &before) == -1,
	      "byte before start must fault");
	for (size_t len = 0; len < 200; len++)
		for (size_t a = 0; a < 64; a++) {
			uint8_t *q = hp_guarded_place(&g, len, a);

			if ((uintptr_t)q % 64 != a ||
			    q + len > g.base + g.size ||
			    q + len + 64 <= g.base + g.size) {
				CHECK(0, "place(%zu, %zu) off", len, a);
				goto out;
			}
		}
	CHECK(1, "placement");
out:
	hp_guarded_free(&g);
}

/* Right except on one case: the gate must name it. */
static uint32_t wrong_at_77(const void *buf, int len, uint32_t sum)
{
	uint32_t r = hp_csum_ref(buf, len, sum);

	return len == 77 ? r + 1 : r;
}

/* Reads one byte past the end: the gate must catch the over-read. */
static uint32_t overreads(const void *buf, int len, uint32_t sum)
{
	const volatile uint8_t *p = buf;

	if (len)
		sum += p[len] & 0;
	return hp_csum_ref(buf, len, sum);
}

static void test_gate(void)
{
	const struct hp_primitive *p = &hp_prim_csum_partial;
	struct hp_variant wrong = { .name = "wrong", .fn = wrong_at_77 };
	struct hp_variant over = { .name = "over", .fn = overreads };
	struct hp_variant k517 = p->variants[1];
	struct hp_gate_opts o = { .rng_seed = 3 };
	struct hp_failure f;
	unsigned long n;

	CHECK(hp_gate(p, &k517, &o, &f, &n, NULL) == 0, "kernel-5.17 must pass");
	CHECK(n > 50000, "gate ran only %lu cases", n);
	CHECK(hp_gate(p, &wrong, &o, &f, &n, NULL) == 1, "wrong variant passed");
	CHECK(f.len == 77 && !strcmp(f.what, "mismatch"),
	      "first failure at len %zu (%s)", f.len, f.what);
	CHECK(f.expected != f.got, "expected and got must differ");
	CHECK(hp_gate(p, &over, &o, &f, &n, NULL) == 1, "over-read passed");
	CHECK(!strcmp(f.what, "read outside the buffer"), "what: %s", f.what);
}

int main(void)
{
	test_guard();
	test_gate();
	test_calibration();
	test_spells();
	return check_summary("test_engine");
}
