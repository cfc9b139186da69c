// SPDX-License-Identifier: GPL-2.0-only
/*
 * The runner's JSON output (schema hotpath.bench/1, docs/runner-protocol.md).
 */
#include <hotpath/crc32c.h>
#include <hotpath/csum.h>
#include <hotpath/dispatch.h>

#include "runner.h"

#include <stdlib.h>
#include <string.h>

const char *const hp_mode_names[HP_NMODES] = {
	"latency", "throughput", "fenced",
};

static void emit_features(struct hp_json *j, uint32_t bits)
{
	hp_json_arr_begin(j);
	for (unsigned b = 0; b < HP_CPU_NFEATURES; b++)
		if (bits & (1u << b))
			hp_json_str(j, hp_cpu_feature_name(b));
	hp_json_arr_end(j);
}

void hp_emit_cpu(struct hp_json *j, int pinned, double core_hz)
{
	struct hp_cpu_id id;

	hp_cpu_identify(&id);
	hp_json_key(j, "cpu");
	hp_json_obj_begin(j);
	hp_json_key(j, "vendor");
	hp_json_str(j, id.vendor);
	hp_json_key(j, "family");
	hp_json_uint(j, id.family);
	hp_json_key(j, "model");
	hp_json_uint(j, id.model);
	hp_json_key(j, "stepping");
	hp_json_uint(j, id.stepping);
	hp_json_key(j, "brand");
	hp_json_str(j, id.brand);
	hp_json_key(j, "hypervisor");
	hp_json_bool(j, id.hypervisor);
	hp_json_key(j, "features");
	emit_features(j, hp_cpu_features());
	hp_json_key(j, "hidden");	/* HOTPATH_CPU_HIDE's, in the features' order */
	emit_features(j, hp_cpu_hidden());
	hp_json_key(j, "pinned_cpu");
	if (pinned >= 0)
		hp_json_int(j, pinned);
	else
		hp_json_null(j);
	hp_json_key(j, "core_hz_estimate");
	if (core_hz > 0)
		hp_json_num(j, core_hz);
	else
		hp_json_null(j);
	hp_json_obj_end(j);
}

/* Bits 0..5 of enum hp_variant_flag; HP_V_ROW is said once per
 * primitive, as `facts`' row_primitives, not per variant. */
static const char *const flag_names[] = { "no_latency", "peer", "user", "kernel", "own",
					   "reimplemented" };

/* @row's steps by key: {"csum.even": [["scalar", 0], ...], ...}. */
void hp_emit_row_steps(struct hp_json *j, const struct hp_dispatch_row *row)
{
	const struct hp_steps *steps[] = { &row->csum[0], &row->csum[1], &row->crc32c };
	const int prim[] = { HP_DISPATCH_CSUM, HP_DISPATCH_CSUM, HP_DISPATCH_CRC32C };
	const char *keys[] = {
		hp_dispatch_primitives[HP_DISPATCH_CSUM].keys[0],
		hp_dispatch_primitives[HP_DISPATCH_CSUM].keys[1],
		hp_dispatch_primitives[HP_DISPATCH_CRC32C].keys[0],
	};

	hp_json_obj_begin(j);
	for (int k = 0; k < 3; k++) {
		hp_json_key(j, keys[k]);
		hp_json_arr_begin(j);
		for (int i = 0; i < steps[k]->n; i++) {
			hp_json_arr_begin(j);
			hp_json_str(j, hp_dispatch_method_name(prim[k], steps[k]->method[i]));
			hp_json_uint(j, steps[k]->from[i]);
			hp_json_arr_end(j);
		}
		hp_json_arr_end(j);
	}
	hp_json_obj_end(j);
}

/* One key's steps as this CPU runs them: each method after its fallback
 * (an avx512 step is avx2 where AVX-512 is missing or hidden), a step that
 * repeats the one before merged into it, as the plans merge them. */
static void emit_runs_key(struct hp_json *j, int prim, const struct hp_steps *steps)
{
	int last = -1;

	hp_json_arr_begin(j);
	for (int i = 0; i < steps->n; i++) {
		int m = prim == HP_DISPATCH_CSUM ?
			(int)hp__csum_method_runs((enum hp_csum_path)steps->method[i]) :
			hp__crc32c_method_runs(steps->method[i]);

		/* the checksum's first step is its adc chains, whatever it says */
		if (prim == HP_DISPATCH_CSUM && i == 0)
			m = HP_CSUM_PATH_SCALAR;
		if (m == last)
			continue;
		last = m;
		hp_json_arr_begin(j);
		hp_json_str(j, hp_dispatch_method_name(prim, m));
		hp_json_uint(j, steps->from[i]);
		hp_json_arr_end(j);
	}
	hp_json_arr_end(j);
}

/* The row's steps as hp_csum() and hp_crc32c() run them on this CPU (the
 * methods the row names, after their fallbacks): what `hotpath dispatch`
 * times each length's method alone against. */
static void emit_runs(struct hp_json *j, const struct hp_dispatch_row *row)
{
	const struct hp_dispatch_primitive *cs = &hp_dispatch_primitives[HP_DISPATCH_CSUM];

	hp_json_obj_begin(j);
	hp_json_key(j, cs->keys[0]);
	emit_runs_key(j, HP_DISPATCH_CSUM, &row->csum[0]);
	hp_json_key(j, cs->keys[1]);
	emit_runs_key(j, HP_DISPATCH_CSUM, &row->csum[1]);
	hp_json_key(j, hp_dispatch_primitives[HP_DISPATCH_CRC32C].keys[0]);
	emit_runs_key(j, HP_DISPATCH_CRC32C, &row->crc32c);
	hp_json_obj_end(j);
}

/*
 * What a dispatch row may say (hotpath/dispatch.h), for whoever reads or
 * writes one (Python's `hotpath dispatch`): the limits, and per dispatched
 * primitive its keys, hotpath's own variant and each method with the
 * variant that runs it alone.
 */
void hp_emit_dispatch_facts(struct hp_json *j)
{
	hp_json_key(j, "dispatch_facts");
	hp_json_obj_begin(j);
	hp_json_key(j, "steps_max");
	hp_json_uint(j, HP_STEPS_MAX);
	hp_json_key(j, "csum_short");
	hp_json_uint(j, HP_CSUM_SHORT);
	hp_json_key(j, "row_file_max");
	hp_json_uint(j, HP_ROW_FILE_MAX);
	hp_json_key(j, "primitives");
	hp_json_arr_begin(j);
	for (int k = 0; k < HP_DISPATCH_NPRIMITIVES; k++) {
		const struct hp_dispatch_primitive *d = &hp_dispatch_primitives[k];

		hp_json_obj_begin(j);
		hp_json_key(j, "primitive");
		hp_json_str(j, d->primitive);
		hp_json_key(j, "keys");
		hp_json_arr_begin(j);
		for (int i = 0; i < 2 && d->keys[i]; i++)
			hp_json_str(j, d->keys[i]);
		hp_json_arr_end(j);
		/* hotpath's own variant, the one that runs the row in use: its
		 * registry flags it (HP_V_OWN), not this table. */
		hp_json_key(j, "own");
		hp_json_str(j, hp_own_variant(hp_primitive_find(d->primitive)));
		hp_json_key(j, "methods");
		hp_json_arr_begin(j);
		for (int m = d->first; m < d->n; m++) {
			hp_json_obj_begin(j);
			hp_json_key(j, "name");
			hp_json_str(j, d->methods[m].name);
			hp_json_key(j, "variant");
			hp_json_str(j, d->methods[m].variant);
			hp_json_obj_end(j);
		}
		hp_json_arr_end(j);
		hp_json_obj_end(j);
	}
	hp_json_arr_end(j);
	hp_json_obj_end(j);
}

/* The dispatch row hp_csum() and hp_crc32c() use here (hotpath/dispatch.h). */
void hp_emit_dispatch(struct hp_json *j)
{
	const struct hp_dispatch_row *row = hp_dispatch();
	char text[1024];

	hp_dispatch_format(row, text, sizeof(text));
	hp_json_key(j, "dispatch");
	hp_json_obj_begin(j);
	hp_json_key(j, "name");
	hp_json_str(j, row->name);
	hp_json_key(j, "source");
	hp_json_str(j, row->source);
	hp_json_key(j, "text");
	hp_json_str(j, text);
	hp_json_key(j, "steps");
	hp_emit_row_steps(j, row);
	hp_json_key(j, "runs");
	emit_runs(j, row);
	/* where `hotpath dispatch --save` and `--system` keep this CPU's row */
	hp_dispatch_key(text, sizeof(text));
	hp_json_key(j, "key");
	hp_json_str(j, text);
	for (int system = 0; system < 2; system++) {
		const char *why = hp_dispatch_refused(system);

		hp_json_key(j, system ? "system_row" : "user_row");
		if (hp_dispatch_measured_path(system, text, sizeof(text)))
			hp_json_null(j);
		else
			hp_json_str(j, text);
		/* a row there that the library would not take, and why */
		hp_json_key(j, system ? "system_refused" : "user_refused");
		if (why)
			hp_json_str(j, why);
		else
			hp_json_null(j);
	}
	hp_json_obj_end(j);
}

void hp_emit_variant(struct hp_json *j, const struct hp_primitive *p,
		     const struct hp_variant_result *r)
{
	const struct hp_variant *v = r->v;

	hp_json_obj_begin(j);
	hp_json_key(j, "name");
	hp_json_str(j, v->name);
	hp_json_key(j, "desc");
	hp_json_str(j, v->desc ? v->desc : "");
	hp_json_key(j, "origin");
	hp_json_str(j, v->origin ? v->origin : "");
	hp_json_key(j, "needs");
	emit_features(j, v->needs);
	hp_json_key(j, "flags");
	hp_json_arr_begin(j);
	for (unsigned b = 0; b < sizeof(flag_names) / sizeof(*flag_names); b++)
		if (v->flags & (1u << b))
			hp_json_str(j, flag_names[b]);
	hp_json_arr_end(j);
	hp_json_key(j, "mode_note");
	hp_json_str(j, v->mode_note);
	hp_json_key(j, "domain");
	hp_json_obj_begin(j);
	hp_json_key(j, "min_len");
	hp_json_uint(j, v->min_len);
	hp_json_key(j, "max_len");
	if (v->max_len)
		hp_json_uint(j, v->max_len);
	else
		hp_json_null(j);
	hp_json_obj_end(j);
	hp_json_key(j, "promise");
	hp_json_str(j, p->promise_name(v->promise));
	hp_json_key(j, "status");
	hp_json_str(j, r->status);
	hp_json_key(j, "reason");
	hp_json_str(j, r->reason);
	hp_json_key(j, "checked_cases");
	hp_json_uint(j, r->ncases);
	hp_json_key(j, "warnings");
	hp_json_arr_begin(j);
	if (r->dirty_upper > 0)
		hp_json_str(j, HP_WARN_DIRTY_UPPER);
	hp_json_arr_end(j);
	hp_json_key(j, "failure");
	if (strcmp(r->status, "wrong")) {
		hp_json_null(j);
	} else {
		hp_json_obj_begin(j);
		hp_json_key(j, "len");
		hp_json_uint(j, r->fail.len);
		hp_json_key(j, "align");
		hp_json_uint(j, r->fail.align);
		hp_json_key(j, "seed");
		hp_json_uint(j, r->fail.seed);
		hp_json_key(j, "expected");
		hp_json_uint(j, r->fail.expected);
		hp_json_key(j, "got");
		hp_json_uint(j, r->fail.got);
		hp_json_key(j, "what");
		hp_json_str(j, r->fail.what);
		hp_json_obj_end(j);
	}
	hp_json_obj_end(j);
}

/* Full width as this run learnt it, without the earlier runs' reference. */
static double learnt_width(const struct hp_width_floor *w)
{
	struct hp_width_floor own = *w;

	own.reference = 0;
	return hp_width_best(&own);
}

/* The width probe's summary: full width, shares seen, rounds it took. */
static void emit_width(struct hp_json *j, const struct hp_run *run)
{
	const struct hp_clock_result *c = &run->clk;
	double *share = calloc(c->nprobes ? c->nprobes : 1, sizeof(double));
	double lo = 1, contended = 0;

	for (unsigned i = 0; share && i < c->nprobes; i++) {
		share[i] = c->best_cpi / c->probes[i].cpi;
		lo = share[i] < lo ? share[i] : lo;
		contended += share[i] < run->so.clean_share;
	}
	hp_json_key(j, "width");
	hp_json_obj_begin(j);
	hp_json_key(j, "best_cycles_per_iteration");
	hp_json_num(j, c->best_cpi);
	hp_json_key(j, "learnt_cycles_per_iteration");
	hp_json_num(j, learnt_width(&c->floor));
	hp_json_key(j, "reference_cycles_per_iteration");
	if (run->so.width_ref > 0)
		hp_json_num(j, run->so.width_ref);
	else
		hp_json_null(j);
	hp_json_key(j, "clean_share");
	hp_json_num(j, run->so.clean_share);
	hp_json_key(j, "freq_tolerance");
	hp_json_num(j, run->so.freq_tolerance);
	hp_json_key(j, "probes");
	hp_json_uint(j, c->nprobes);
	hp_json_key(j, "share_min");
	hp_json_num(j, lo);
	hp_json_key(j, "share_median");
	hp_json_num(j, share ? hp_median(share, c->nprobes) : 0);
	hp_json_key(j, "contended_fraction");
	hp_json_num(j, c->nprobes ? contended / c->nprobes : 0);
	hp_json_key(j, "rounds_wanted");
	hp_json_uint(j, run->so.rounds);
	hp_json_key(j, "rounds_taken");
	hp_json_uint(j, c->rounds_taken);
	hp_json_key(j, "max_rounds");
	hp_json_uint(j, run->so.max_rounds ? run->so.max_rounds
					   : 3 * run->so.rounds);
	hp_json_obj_end(j);
	free(share);
}

static void emit_clock(struct hp_json *j, const struct hp_run *run)
{
	const struct hp_clock_result *c = &run->clk;

	hp_json_key(j, "clock");
	hp_json_obj_begin(j);
	hp_json_key(j, "source");
	hp_json_str(j, "tsc");
	hp_json_key(j, "unit");
	hp_json_str(j, run->so.unit_ticks ? "ticks" : "cycles");
	hp_json_key(j, "unit_long");
	hp_json_str(j, run->so.unit_ticks
		? "TSC ticks (not core cycles)"
		: "core cycles (calibrated against a dependent add chain, from TSC)");
	hp_json_key(j, "tsc_hz");
	hp_json_num(j, run->tsc_hz);
	hp_json_key(j, "tsc_granularity_ticks");
	hp_json_num(j, run->tsc_step);
	hp_json_key(j, "ticks_per_cycle");
	hp_json_arr_begin(j);
	for (unsigned b = 0; b < c->nbatches; b++)
		hp_json_num(j, c->tpc[b]);
	hp_json_arr_end(j);
	emit_width(j, run);
	hp_json_key(j, "timer_overhead_ticks");
	hp_json_num(j, c->timer_overhead);
	hp_json_key(j, "fenced_empty_ticks");
	hp_json_num(j, c->fenced_empty);
	hp_json_key(j, "perf_cycles");
	hp_json_obj_begin(j);
	hp_json_key(j, "available");
	hp_json_bool(j, run->perf_cpa > 0);
	hp_json_key(j, "reason");
	hp_json_str(j, run->perf_why);
	hp_json_key(j, "cycles_per_add");
	if (run->perf_cpa > 0)
		hp_json_num(j, run->perf_cpa);
	else
		hp_json_null(j);
	hp_json_obj_end(j);
	hp_json_obj_end(j);
}

static void emit_numbers(struct hp_json *j, const char *key, const double *v,
			 unsigned n)
{
	hp_json_key(j, key);
	hp_json_arr_begin(j);
	for (unsigned r = 0; r < n; r++)
		hp_json_num(j, v[r]);
	hp_json_arr_end(j);
}

static void emit_figure(struct hp_json *j, const struct hp_job *jb)
{
	unsigned n = jb->nsamples;

	hp_json_obj_begin(j);
	hp_json_key(j, "variant");
	hp_json_str(j, jb->v->name);
	hp_json_key(j, "size");
	hp_json_uint(j, jb->size);
	hp_json_key(j, "align");
	hp_json_uint(j, jb->align);
	hp_json_key(j, "mode");
	hp_json_str(j, hp_mode_names[jb->mode]);
	hp_json_key(j, "status");
	hp_json_str(j, jb->status);
	hp_json_key(j, "reason");
	hp_json_str(j, jb->reason);
	hp_json_key(j, "calls_per_sample");
	hp_json_uint(j, jb->n);
	emit_numbers(j, "values", jb->values, n);
	emit_numbers(j, "ticks", jb->ticks, n);
	emit_numbers(j, "share", jb->share, n);
	hp_json_key(j, "clean");
	hp_json_arr_begin(j);
	for (unsigned r = 0; r < n; r++)
		hp_json_uint(j, jb->clean[r]);
	hp_json_arr_end(j);
	hp_json_obj_end(j);
}

/* `analyze`: the primitive's model of each correct variant at each size. */
static void emit_analyses(struct hp_json *j, const struct hp_run *run)
{
	hp_json_key(j, "analyses");
	hp_json_arr_begin(j);
	for (size_t i = 0; i < run->nvr; i++) {
		if (strcmp(run->vr[i].status, "ok"))
			continue;
		for (size_t s = 0; s < run->nsizes; s++) {
			hp_json_obj_begin(j);
			hp_json_key(j, "variant");
			hp_json_str(j, run->vr[i].v->name);
			hp_json_key(j, "size");
			hp_json_uint(j, run->sizes[s]);
			hp_json_key(j, "result");
			if (run->p->analyze(run->vr[i].v, run->sizes[s], j))
				hp_json_null(j);	/* nothing written */
			hp_json_obj_end(j);
		}
	}
	hp_json_arr_end(j);
}

void hp_emit_run(struct hp_json *j, const struct hp_run *run)
{
	const struct hp_primitive *p = run->p;
	int timed = !strcmp(run->command, "run");
	double tpc = 0;

	if (timed && run->clk.nbatches) {
		double tmp[run->clk.nbatches];

		memcpy(tmp, run->clk.tpc, sizeof(tmp));
		tpc = hp_median(tmp, run->clk.nbatches);
	}
	hp_json_obj_begin(j);
	hp_json_key(j, "schema");
	hp_json_str(j, "hotpath.bench/1");
	hp_json_key(j, "command");
	hp_json_str(j, run->command);
	hp_json_key(j, "primitive");
	hp_json_str(j, p->name);
	hp_json_key(j, "lab");
	hp_json_str(j, p->lab);
	hp_json_key(j, "seed_name");
	hp_json_str(j, p->seed_name);
	if (timed)
		emit_clock(j, run);
	hp_emit_cpu(j, run->pinned, tpc > 0 ? run->tsc_hz / tpc : 0);
	hp_emit_dispatch(j);
	hp_json_key(j, "settings");
	hp_json_obj_begin(j);
	hp_json_key(j, "rounds");
	hp_json_uint(j, run->so.rounds);
	hp_json_key(j, "warmup_rounds");
	hp_json_uint(j, run->so.warmup);
	hp_json_key(j, "burst_ticks");
	hp_json_uint(j, run->so.burst_ticks);
	hp_json_key(j, "batch_rounds");
	hp_json_uint(j, run->so.batch);
	hp_json_key(j, "rng_seed");
	hp_json_uint(j, run->rng_seed);
	hp_json_key(j, "params");
	hp_json_arr_begin(j);
	for (size_t i = 0; i < run->nparams; i++)
		hp_json_str(j, run->params[i]);
	hp_json_arr_end(j);
	if (run->so.spell.every) {
		/* A run with the test hook's neighbour is never a real figure. */
		hp_json_key(j, "test_spells");
		hp_json_obj_begin(j);
		hp_json_key(j, "every");
		hp_json_uint(j, run->so.spell.every);
		hp_json_key(j, "len");
		hp_json_uint(j, run->so.spell.len);
		hp_json_key(j, "factor");
		hp_json_num(j, run->so.spell.factor);
		hp_json_obj_end(j);
	}
	hp_json_obj_end(j);
	hp_json_key(j, "variants");
	hp_json_arr_begin(j);
	for (size_t i = 0; i < run->nvr; i++)
		hp_emit_variant(j, p, &run->vr[i]);
	hp_json_arr_end(j);
	if (!strcmp(run->command, "analyze"))
		emit_analyses(j, run);
	if (timed) {
		hp_json_key(j, "figures");
		hp_json_arr_begin(j);
		for (size_t i = 0; i < run->njobs; i++)
			emit_figure(j, &run->jobs[i]);
		hp_json_arr_end(j);
	}
	hp_json_obj_end(j);
}
