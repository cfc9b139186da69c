// SPDX-License-Identifier: GPL-2.0-only
/*
 * `hotpath-bench probe`: the two instruments alone, over time. Every
 * interval it takes a handful of probes (probe.c) and sleeps the rest, so
 * a few seconds show the core's clock and the share of its width this
 * thread gets: whether a neighbour on the other hardware thread comes and
 * goes, how often, and how much it takes.
 */
#define _GNU_SOURCE
#include "runner.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define PROBES_PER_INTERVAL 32

static void sleep_ms(double ms)
{
	struct timespec ts = { (time_t)(ms / 1000),
			       (long)(fmod(ms, 1000) * 1e6) };

	if (ms > 0)
		nanosleep(&ts, NULL);
}

static double elapsed_ms(const struct timespec *t0)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (t.tv_sec - t0->tv_sec) * 1e3 + (t.tv_nsec - t0->tv_nsec) / 1e6;
}

int hp_timeline(struct hp_run *run, struct hp_json *j)
{
	unsigned nint = run->timeline_ms / run->interval_ms, k, i;
	unsigned total = nint * PROBES_PER_INTERVAL;
	struct hp_probe_reading *rd = calloc(total ? total : 1, sizeof(*rd));
	double *tmp = calloc(PROBES_PER_INTERVAL, sizeof(double));
	double best, overhead, contended = 0;
	static struct hp_width_floor floor;
	struct hp_probe pr;
	struct timespec t0;

	if (!rd || !tmp) {
		free(rd);
		free(tmp);
		return -1;
	}
	run->tsc_hz = hp_tsc_hz();
	overhead = hp_timer_overhead();
	hp_probe_init(&pr, run->tsc_hz, overhead);
	floor.tolerance = run->so.freq_tolerance;
	floor.reference = run->so.width_ref;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (k = 0; k < nint; k++) {
		double slow = 1.0;

		if (run->so.spell.every && k % run->so.spell.every <
					   run->so.spell.len)
			slow = run->so.spell.factor;
		/* The first probes after a sleep run on a cold core. */
		for (i = 0; i < 4; i++)
			hp_probe_take(&pr, slow);
		for (i = 0; i < PROBES_PER_INTERVAL; i++) {
			struct hp_probe_reading r = hp_probe_take(&pr, slow);

			rd[k * PROBES_PER_INTERVAL + i] = r;
			hp_width_add(&floor, r);
		}
		sleep_ms((k + 1) * (double)run->interval_ms - elapsed_ms(&t0));
	}

	best = hp_width_best(&floor);
	hp_json_obj_begin(j);
	hp_json_key(j, "schema");
	hp_json_str(j, "hotpath.bench/1");
	hp_json_key(j, "command");
	hp_json_str(j, "probe");
	hp_emit_cpu(j, run->pinned, 0);
	hp_json_key(j, "tsc_hz");
	hp_json_num(j, run->tsc_hz);
	hp_json_key(j, "interval_ms");
	hp_json_uint(j, run->interval_ms);
	hp_json_key(j, "probes_per_interval");
	hp_json_uint(j, PROBES_PER_INTERVAL);
	hp_json_key(j, "clean_share");
	hp_json_num(j, run->so.clean_share);
	hp_json_key(j, "best_cycles_per_iteration");
	hp_json_num(j, best);
	hp_json_key(j, "timeline");
	hp_json_arr_begin(j);
	for (k = 0; k < nint; k++) {
		const struct hp_probe_reading *r = &rd[k * PROBES_PER_INTERVAL];
		double lo = 1;

		hp_json_obj_begin(j);
		hp_json_key(j, "t_s");
		hp_json_num(j, k * run->interval_ms / 1000.0);
		for (i = 0; i < PROBES_PER_INTERVAL; i++)
			tmp[i] = r[i].tpc;
		hp_json_key(j, "ticks_per_cycle");
		hp_json_num(j, hp_median(tmp, PROBES_PER_INTERVAL));
		for (i = 0; i < PROBES_PER_INTERVAL; i++) {
			tmp[i] = best / r[i].cpi;
			lo = fmin(lo, tmp[i]);
			contended += tmp[i] < run->so.clean_share;
		}
		hp_json_key(j, "share_median");
		hp_json_num(j, hp_median(tmp, PROBES_PER_INTERVAL));
		hp_json_key(j, "share_min");
		hp_json_num(j, lo);
		hp_json_obj_end(j);
	}
	hp_json_arr_end(j);
	hp_json_key(j, "contended_fraction");
	hp_json_num(j, total ? contended / total : 0);
	hp_json_obj_end(j);
	free(rd);
	free(tmp);
	return 0;
}
