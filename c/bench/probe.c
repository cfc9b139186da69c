// SPDX-License-Identifier: GPL-2.0-only
/*
 * The two instruments taken around every sample: the clock and the width.
 *
 * The clock is a chain of dependent one-cycle adds: however busy the rest
 * of the core is, each add waits for the previous one, so ticks per add is
 * ticks per core cycle at that moment (frequency).
 *
 * The width is a burst of independent work: six add chains, two loads and
 * two vector adds per iteration, more than the core can dispatch in the
 * chains' latency, so it runs at the core's full width. A neighbour on the
 * other hardware thread of the same physical core (cloud hosts run SMT and
 * hide it from the guest) takes dispatch slots and execution ports and
 * slows it; the dependent chain does not notice. Its cost in core cycles
 * per iteration is frequency-free, so the lowest cost seen in a run is the
 * full width of this core and a probe's share is lowest / its own.
 *
 * Each part lasts about PROBE_TARGET_NS; a probe is two short bursts, in
 * the same regime as the samples around it.
 */
#include "engine.h"

#include <math.h>
#include <stdalign.h>

#define PROBE_TARGET_NS 600.0

/* One iteration of the width burst: 12 adds in 6 chains (2 deep), 2 loads
 * from L1, 2 independent SSE2 adds, the loop's own dec/jnz. */
static uint64_t width_burst(unsigned iters)
{
	static alignas(64) uint64_t line[8] = { 1, 2, 3, 4, 5, 6, 7, 8 };
	uint64_t a = 1, b = 2, c = 3, d = 4, e = 5, f = 6, l0, l1;
	const uint64_t *p = line;
	uint64_t one = 1; /* a register: add-immediate is folded on Intel */
	unsigned n = iters;
	uint64_t t0, t1;
	double x0 = 0, x1 = 0, x2 = 0;

	HP_OPAQUE(p);
	HP_OPAQUE(one);
	t0 = hp_tsc_begin();
	__asm__ volatile(
		"1:\n\t"
		"add %[one],%[a]\n\tadd %[one],%[b]\n\tadd %[one],%[c]\n\t"
		"add %[one],%[d]\n\tadd %[one],%[e]\n\tadd %[one],%[f]\n\t"
		"mov (%[p]),%[l0]\n\tmov 8(%[p]),%[l1]\n\t"
		"paddq %[x0],%[x1]\n\tpaddq %[x0],%[x2]\n\t"
		"add %[one],%[a]\n\tadd %[one],%[b]\n\tadd %[one],%[c]\n\t"
		"add %[one],%[d]\n\tadd %[one],%[e]\n\tadd %[one],%[f]\n\t"
		"dec %[n]\n\tjnz 1b"
		: [a] "+r"(a), [b] "+r"(b), [c] "+r"(c), [d] "+r"(d),
		  [e] "+r"(e), [f] "+r"(f), [l0] "=&r"(l0), [l1] "=&r"(l1),
		  [x1] "+x"(x1), [x2] "+x"(x2), [n] "+r"(n)
		: [p] "r"(p), [x0] "x"(x0), [one] "r"(one)
		: "cc", "memory");
	t1 = hp_tsc_end();
	HP_CONSUME(a + b + c + d + e + f + l0 + l1);
	HP_CONSUME(x1);
	HP_CONSUME(x2);
	return t1 - t0;
}

void hp_probe_init(struct hp_probe *pr, double tsc_hz, double overhead)
{
	double target = PROBE_TARGET_NS * 1e-9 * tsc_hz;
	double chain = 1e30, width = 1e30;

	/* Per unit costs from the best of a few pilots (cold ones skipped). */
	for (int i = 0; i < 8; i++) {
		double c = (double)hp_calib_burst(16) / 16;
		double w = (double)width_burst(64) / 64;

		if (c < chain)
			chain = c;
		if (w < width)
			width = w;
	}
	pr->overhead = overhead;
	pr->chain_reps = chain > 0 ? (unsigned)(target / chain) : 8;
	pr->width_iters = width > 0 ? (unsigned)(target / width) : 64;
	if (pr->chain_reps < 8)
		pr->chain_reps = 8;
	if (pr->width_iters < 64)
		pr->width_iters = 64;
}

struct hp_probe_reading hp_probe_take(const struct hp_probe *pr, double slow)
{
	struct hp_probe_reading r;
	double c, w;

	/* Untimed first: a sample that streamed a megabyte through the caches
	 * leaves the probe's code and its line cold, and a cold probe reads
	 * as a narrower core (0.78 of full width after each such sample). */
	hp_calib_burst(1);
	width_burst(8);
	c = (double)hp_calib_burst(pr->chain_reps) - pr->overhead;
	w = (double)width_burst(pr->width_iters) - pr->overhead;

	r.tpc = c / (100.0 * pr->chain_reps);
	/* The test hook's neighbour slows the width burst, never the chain. */
	r.cpi = w * slow / pr->width_iters / r.tpc;
	return r;
}

void hp_width_add(struct hp_width_floor *w, struct hp_probe_reading r)
{
	double prev = w->last_tpc;
	unsigned i;

	w->last_tpc = r.tpc;
	if (!(r.cpi > 0) || !(prev > 0) ||
	    fabs(r.tpc - prev) > w->tolerance * fmin(r.tpc, prev))
		return;
	w->seen++;
	if (w->nlow == HP_WIDTH_K && r.cpi >= w->low[HP_WIDTH_K - 1])
		return;
	i = w->nlow < HP_WIDTH_K ? w->nlow++ : HP_WIDTH_K - 1;
	for (; i > 0 && w->low[i - 1] > r.cpi; i--)
		w->low[i] = w->low[i - 1];
	w->low[i] = r.cpi;
}

double hp_width_best(const struct hp_width_floor *w)
{
	unsigned long k = w->seen / 100;

	double learnt;

	k = k < 4 ? 4 : k > HP_WIDTH_K ? HP_WIDTH_K : k;
	learnt = w->nlow ? w->low[(k > w->nlow ? w->nlow : k) - 1] : INFINITY;
	/* A neighbour busy for the whole of this run would make its own
	 * best a contended one; earlier runs on this machine know better. */
	return w->reference > 0 && w->reference < learnt ? w->reference : learnt;
}
