// SPDX-License-Identifier: GPL-2.0-only
/*
 * The runner's command line: every option of docs/runner-protocol.md into
 * a struct hp_run, and the one way a bad value is refused (exit 2, one
 * line naming the value and what is allowed).
 */
#include "runner.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

void hp_usage_error(const char *what, const char *value,
		    const char *allowed)
{
	fprintf(stderr, "hotpath-bench: %s '%s': %s\n", what, value, allowed);
	exit(2);
}

static int parse_u64(const char *s, uint64_t max, uint64_t *out)
{
	char *end;
	unsigned long long v;

	if (!*s || *s == '-' || *s == '+')
		return -1;
	errno = 0;
	v = strtoull(s, &end, 0);
	if (errno || *end || v > max)
		return -1;
	*out = v;
	return 0;
}

static size_t parse_list(char *arg, const char *what, uint64_t max, size_t *out)
{
	char allowed[64];
	size_t n = 0;

	snprintf(allowed, sizeof(allowed), "an integer 0..%llu", (unsigned long long)max);

	for (char *tok = strtok(arg, ","); tok; tok = strtok(NULL, ",")) {
		uint64_t v;

		if (parse_u64(tok, max, &v))
			hp_usage_error(what, tok, allowed);
		if (n == HP_MAX_LIST)
			hp_usage_error(what, tok, "at most 256 values");
		out[n++] = v;
	}
	if (!n)
		hp_usage_error(what, arg, allowed);
	return n;
}

static size_t split_names(char *arg, const char **out)
{
	size_t n = 0;

	for (char *tok = strtok(arg, ","); tok && n < HP_MAX_LIST;
	     tok = strtok(NULL, ","))
		out[n++] = tok;
	return n;
}

static void parse_modes(char *arg, int *modes)
{
	memset(modes, 0, sizeof(int) * HP_NMODES);
	for (char *tok = strtok(arg, ","); tok; tok = strtok(NULL, ",")) {
		int m;

		for (m = 0; m < HP_NMODES; m++)
			if (!strcmp(tok, hp_mode_names[m]))
				break;
		if (m == HP_NMODES)
			hp_usage_error("mode", tok,
				    "one of latency, throughput, fenced");
		modes[m] = 1;
	}
}

static uint64_t opt_u64(const char *name, const char *v, uint64_t lo,
			uint64_t hi)
{
	uint64_t x;
	char allowed[96];

	snprintf(allowed, sizeof(allowed), "an integer %llu..%llu",
		 (unsigned long long)lo, (unsigned long long)hi);
	if (!v || parse_u64(v, hi, &x) || x < lo)
		hp_usage_error(name, v ? v : "", allowed);
	return x;
}

static double opt_fraction(const char *name, const char *v)
{
	char *end;
	double x = strtod(v, &end);

	if (*end || end == v || !(x >= 0 && x <= 1))
		hp_usage_error(name, v, "a number 0..1");
	return x;
}

static double opt_positive(const char *name, const char *v)
{
	char *end;
	double x = strtod(v, &end);

	if (*end || end == v || !(x > 0 && x < 1e6))
		hp_usage_error(name, v, "a number of cycles above 0");
	return x;
}

/* --with-needs avx2,bmi2: CPU features, named as `hotpath-bench list`. */
static uint32_t parse_needs(char *v)
{
	uint32_t bits;
	char bad[64];

	if (hp_cpu_parse_features(v, &bits, bad, sizeof(bad)))
		hp_usage_error("CPU feature", bad, hp_cpu_features_allowed());
	return bits;
}

/* --test-spells EVERY:LEN:FACTOR, the neighbour a test can order. */
static void parse_spells(struct hp_sampler_opts *so, const char *v)
{
	char *end;
	const char *allowed = "EVERY:LEN:FACTOR, rounds, rounds, a factor 1..10";

	so->spell.every = strtoul(v, &end, 10);
	if (*end != ':' || !so->spell.every)
		hp_usage_error("test-spells", v, allowed);
	so->spell.len = strtoul(end + 1, &end, 10);
	if (*end != ':')
		hp_usage_error("test-spells", v, allowed);
	so->spell.factor = strtod(end + 1, &end);
	if (*end || !(so->spell.factor >= 1 && so->spell.factor <= 10))
		hp_usage_error("test-spells", v, allowed);
}

/* --param KEY=VALUE: handed to the primitive, which says what it takes. */
static void configure(const struct hp_primitive *p, const char *kv)
{
	char key[64];
	const char *eq = strchr(kv, '='), *why;

	if (!p->configure)
		hp_usage_error("--param", kv, "this primitive takes no parameter");
	if (!eq || eq == kv || (size_t)(eq - kv) >= sizeof(key))
		hp_usage_error("--param", kv, "KEY=VALUE");
	memcpy(key, kv, eq - kv);
	key[eq - kv] = 0;
	why = p->configure(key, eq + 1);
	if (why)
		hp_usage_error("--param", kv, why);
}

/* The --with that an option such as --with-as describes: the last one. */
static size_t last_with(const struct hp_run *run, const char *o, const char *v)
{
	if (!run->nwith)
		hp_usage_error(o, v, "after a --with");
	return run->nwith - 1;
}

void hp_parse_args(struct hp_run *run, int argc, char **argv)
{
	for (int i = 2; i < argc; i++) {
		const char *o = argv[i];
		char *v = i + 1 < argc ? argv[i + 1] : NULL;

		if (!strcmp(o, "--progress")) {
			run->so.progress = 1;
			continue;
		}
		if (!strcmp(o, "--with-kernel")) {
			run->with_flags[last_with(run, o, "")] |= HP_V_KERNEL;
			continue;
		}
		if (!v)
			hp_usage_error("option", o, "needs a value");
		i++;
		if (!strcmp(o, "--primitive")) {
			run->p = hp_primitive_find(v);
			if (!run->p)
				hp_usage_error("primitive", v,
					    "see 'hotpath-bench list'");
		} else if (!strcmp(o, "--sizes")) {
			run->nsizes = parse_list(v, "size", HP_MAX_SIZE, run->sizes);
		} else if (!strcmp(o, "--aligns")) {
			run->naligns = parse_list(v, "alignment", HP_MAX_ALIGN, run->aligns);
		} else if (!strcmp(o, "--modes")) {
			parse_modes(v, run->modes);
		} else if (!strcmp(o, "--variants")) {
			run->nvariants = split_names(v, run->variants);
		} else if (!strcmp(o, "--with")) {
			if (run->nwith == HP_MAX_LIST)
				hp_usage_error("--with", v, "at most 256 of them");
			run->with[run->nwith++] = v;
		} else if (!strcmp(o, "--param")) {
			if (run->nparams == HP_MAX_PARAMS)
				hp_usage_error("--param", v, "at most 8 of them");
			run->params[run->nparams++] = v;
		} else if (!strcmp(o, "--with-as")) {
			run->with_as[last_with(run, o, v)] = v;
		} else if (!strcmp(o, "--with-needs")) {
			run->with_needs[last_with(run, o, v)] = parse_needs(v);
		} else if (!strcmp(o, "--with-origin")) {
			run->with_origin[last_with(run, o, v)] = v;
		} else if (!strcmp(o, "--with-desc")) {
			run->with_desc[last_with(run, o, v)] = v;
		} else if (!strcmp(o, "--with-promise")) {
			run->with_promise[last_with(run, o, v)] =
				(uint32_t)opt_u64("with-promise", v, 0, 15);
		} else if (!strcmp(o, "--with-min-len")) {
			run->with_min_len[last_with(run, o, v)] =
				(size_t)opt_u64("with-min-len", v, 0, HP_MAX_SIZE);
		} else if (!strcmp(o, "--rounds")) {
			run->so.rounds = opt_u64("rounds", v, 1, HP_MAX_ROUNDS);
		} else if (!strcmp(o, "--warmup")) {
			run->so.warmup = opt_u64("warmup", v, 0, 1000000);
		} else if (!strcmp(o, "--burst-us")) {
			run->so.burst_ticks = opt_u64("burst-us", v, 1, 100000);
		} else if (!strcmp(o, "--cpu")) {
			run->cpu = !strcmp(v, "-1") ? -1
				: (int)opt_u64("cpu", v, 0, 4095);
		} else if (!strcmp(o, "--rng-seed")) {
			run->rng_seed = opt_u64("rng-seed", v, 0, UINT64_MAX);
		} else if (!strcmp(o, "--clean-share")) {
			run->so.clean_share = opt_fraction("clean-share", v);
		} else if (!strcmp(o, "--freq-tolerance")) {
			run->so.freq_tolerance = opt_fraction("freq-tolerance", v);
		} else if (!strcmp(o, "--width-ref")) {
			run->so.width_ref = opt_positive("width-ref", v);
		} else if (!strcmp(o, "--time-limit")) {
			run->time_limit_s = opt_u64("time-limit", v, 0, HP_MAX_TIME_LIMIT);
		} else if (!strcmp(o, "--max-rounds")) {
			run->so.max_rounds = opt_u64("max-rounds", v, 1, 10000000);
		} else if (!strcmp(o, "--test-spells")) {
			parse_spells(&run->so, v);
		} else if (!strcmp(o, "--seconds")) {
			run->timeline_ms = 1000 * opt_u64("seconds", v, 1, 3600);
		} else if (!strcmp(o, "--interval-ms")) {
			run->interval_ms = opt_u64("interval-ms", v, 10, 60000);
		} else if (!strcmp(o, "--unit")) {
			if (strcmp(v, "cycles") && strcmp(v, "ticks"))
				hp_usage_error("unit", v, "cycles or ticks");
			run->so.unit_ticks = !strcmp(v, "ticks");
		} else {
			hp_usage_error("option", o, "see docs/runner-protocol.md");
		}
	}
	/* Test hook: the neighbour of `pytest --spoiled`, which spoils every
	 * sample. A full width no probe reaches leaves none clean, so the
	 * suite can show that no test needs an idle machine. */
	if (getenv("HOTPATH_TEST_SPOILED"))
		run->so.width_ref = 1e-9;
	if (!run->p && strcmp(run->command, "probe"))
		hp_usage_error("primitive", "", "--primitive NAME is required");
	for (size_t i = 0; i < run->nparams; i++)
		configure(run->p, run->params[i]);
}
