/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The runner's command-line options and its result, shared between the
 * argument parser (args.c), the runner (runner.c) and the JSON emitter
 * (emit.c).
 */
#ifndef HOTPATH_RUNNER_H
#define HOTPATH_RUNNER_H

#include "engine.h"

#define HP_MAX_LIST 256
#define HP_MAX_PARAMS 8
/* What the runner takes (args.c refuses beyond it); `hotpath-bench facts`
 * states them, so hotpath refuses the same values before it runs anything. */
#define HP_MAX_SIZE (1ul << 30)		/* bytes: larger buffers are not hot paths */
#define HP_MAX_ALIGN 4095		/* an offset from a 4096-byte page boundary */
#define HP_MAX_ROUNDS 1000000
#define HP_MAX_TIME_LIMIT 86400		/* seconds a variant call may run: a day */

struct hp_variant_result {
	const struct hp_variant *v;
	const char *status;	/* ok, wrong, skipped, unavailable */
	const char *reason;
	struct hp_failure fail;
	unsigned long ncases;
	int dirty_upper;	/* hp_gate()'s: left AVX upper state dirty */
	char reason_buf[224];
};

struct hp_run {
	const char *command;
	const struct hp_primitive *p;
	size_t sizes[HP_MAX_LIST], nsizes;
	size_t aligns[HP_MAX_LIST], naligns;
	int modes[HP_NMODES];
	const char *variants[HP_MAX_LIST];
	size_t nvariants;
	const char *params[HP_MAX_PARAMS];	/* --param KEY=VALUE */
	size_t nparams;
	const char *with[HP_MAX_LIST];
	const char *with_as[HP_MAX_LIST];	/* --with-as: its name */
	uint32_t with_needs[HP_MAX_LIST];	/* --with-needs: CPU bits */
	/* --with-origin: where its code comes from (a kernel tree's file
	 * and version), --with-desc: its one line, --with-kernel: the
	 * kernel's own code (HP_V_KERNEL) */
	const char *with_origin[HP_MAX_LIST], *with_desc[HP_MAX_LIST];
	uint32_t with_flags[HP_MAX_LIST];
	uint32_t with_promise[HP_MAX_LIST];	/* --with-promise: primitive's */
	size_t with_min_len[HP_MAX_LIST];	/* --with-min-len: its domain */
	size_t nwith;
	int cpu;
	struct hp_sampler_opts so;
	unsigned timeline_ms, interval_ms;	/* the probe command */
	unsigned time_limit_s;	/* a variant call that runs longer is stopped */
	uint64_t rng_seed;

	/* results */
	struct hp_variant_result *vr;
	size_t nvr;
	struct hp_job *jobs;
	size_t njobs;
	struct hp_clock_result clk;
	double tsc_hz;
	double tsc_step;
	double perf_cpa;	/* perf cycles per add, < 0 if none */
	const char *perf_why;
	int pinned;
};

#define HP_WARN_DIRTY_UPPER \
	"leaves AVX upper state dirty: SSE code after it pays (vzeroupper missing)"

/* ---- args.c ---- */
/* "hotpath-bench: WHAT 'VALUE': ALLOWED" on stderr, exit 2. */
void hp_usage_error(const char *what, const char *value, const char *allowed)
	__attribute__((noreturn));
/* Options after argv[1] (the command) into @run; bad ones exit 2. */
void hp_parse_args(struct hp_run *run, int argc, char **argv);

void hp_emit_cpu(struct hp_json *j, int pinned, double core_hz);
/* The dispatch row in use, its source and where measured rows are kept. */
void hp_emit_dispatch(struct hp_json *j);
struct hp_dispatch_row;
void hp_emit_row_steps(struct hp_json *j, const struct hp_dispatch_row *row);
void hp_emit_dispatch_facts(struct hp_json *j);
void hp_emit_variant(struct hp_json *j, const struct hp_primitive *p,
		     const struct hp_variant_result *r);
void hp_emit_run(struct hp_json *j, const struct hp_run *run);
/* The probe command: the clock and the width over time, as JSON. */
int hp_timeline(struct hp_run *run, struct hp_json *j);

/* ---- listing.c: the commands that measure nothing; exit status ---- */
int hp_facts_command(void);
int hp_cpu_command(void);
int hp_list_command(void);
int hp_row_command(int argc, char **argv);

#endif /* HOTPATH_RUNNER_H */
