// SPDX-License-Identifier: GPL-2.0-only
/*
 * hotpath-bench: the one program that times anything. It checks every
 * variant against its reference, times the correct ones in short
 * interleaved bursts and prints JSON (docs/runner-protocol.md). Python
 * validates, stores and reports; it never sits inside a measurement.
 */
#define _GNU_SOURCE
#include "runner.h"
#include <hotpath/guard.h>

#include <dlfcn.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/personality.h>
#include <unistd.h>

static FILE *json_out;

static void usage_error(const char *what, const char *value,
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

static size_t parse_list(char *arg, const char *what, uint64_t max,
			 size_t *out, const char *allowed)
{
	size_t n = 0;

	for (char *tok = strtok(arg, ","); tok; tok = strtok(NULL, ",")) {
		uint64_t v;

		if (parse_u64(tok, max, &v))
			usage_error(what, tok, allowed);
		if (n == HP_MAX_LIST)
			usage_error(what, tok, "at most 256 values");
		out[n++] = v;
	}
	if (!n)
		usage_error(what, arg, allowed);
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
			usage_error("mode", tok,
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
		usage_error(name, v ? v : "", allowed);
	return x;
}

static double opt_fraction(const char *name, const char *v)
{
	char *end;
	double x = strtod(v, &end);

	if (*end || end == v || !(x >= 0 && x <= 1))
		usage_error(name, v, "a number 0..1");
	return x;
}

static double opt_positive(const char *name, const char *v)
{
	char *end;
	double x = strtod(v, &end);

	if (*end || end == v || !(x > 0 && x < 1e6))
		usage_error(name, v, "a number of cycles above 0");
	return x;
}

/* --with-needs avx2,bmi2: CPU features, named as `hotpath-bench list`. */
static uint32_t parse_needs(char *v)
{
	char allowed[256] = "comma-separated, of:";
	uint32_t bits = 0;

	for (unsigned b = 0; b < HP_CPU_NFEATURES; b++) {
		strcat(allowed, " ");
		strcat(allowed, hp_cpu_feature_name(b));
	}
	for (char *tok = strtok(v, ","); tok; tok = strtok(NULL, ",")) {
		unsigned b;

		for (b = 0; b < HP_CPU_NFEATURES; b++)
			if (!strcmp(tok, hp_cpu_feature_name(b)))
				break;
		if (b == HP_CPU_NFEATURES)
			usage_error("CPU feature", tok, allowed);
		bits |= 1u << b;
	}
	return bits;
}

/* --test-spells EVERY:LEN:FACTOR, the neighbour a test can order. */
static void parse_spells(struct hp_sampler_opts *so, const char *v)
{
	char *end;
	const char *allowed = "EVERY:LEN:FACTOR, rounds, rounds, a factor 1..10";

	so->spell.every = strtoul(v, &end, 10);
	if (*end != ':' || !so->spell.every)
		usage_error("test-spells", v, allowed);
	so->spell.len = strtoul(end + 1, &end, 10);
	if (*end != ':')
		usage_error("test-spells", v, allowed);
	so->spell.factor = strtod(end + 1, &end);
	if (*end || !(so->spell.factor >= 1 && so->spell.factor <= 10))
		usage_error("test-spells", v, allowed);
}

/* --param KEY=VALUE: handed to the primitive, which says what it takes. */
static void configure(const struct hp_primitive *p, const char *kv)
{
	char key[64];
	const char *eq = strchr(kv, '='), *why;

	if (!p->configure)
		usage_error("--param", kv, "this primitive takes no parameter");
	if (!eq || eq == kv || (size_t)(eq - kv) >= sizeof(key))
		usage_error("--param", kv, "KEY=VALUE");
	memcpy(key, kv, eq - kv);
	key[eq - kv] = 0;
	why = p->configure(key, eq + 1);
	if (why)
		usage_error("--param", kv, why);
}

static void parse_args(struct hp_run *run, int argc, char **argv)
{
	for (int i = 2; i < argc; i++) {
		const char *o = argv[i];
		char *v = i + 1 < argc ? argv[i + 1] : NULL;

		if (!strcmp(o, "--progress")) {
			run->so.progress = 1;
			continue;
		}
		if (!v)
			usage_error("option", o, "needs a value");
		i++;
		if (!strcmp(o, "--primitive")) {
			run->p = hp_primitive_find(v);
			if (!run->p)
				usage_error("primitive", v,
					    "see 'hotpath-bench list'");
		} else if (!strcmp(o, "--sizes")) {
			run->nsizes = parse_list(v, "size", HP_MAX_SIZE,
						 run->sizes,
						 "an integer 0..1073741824");
		} else if (!strcmp(o, "--aligns")) {
			run->naligns = parse_list(v, "alignment", 4095,
						  run->aligns,
						  "an integer 0..4095");
		} else if (!strcmp(o, "--modes")) {
			parse_modes(v, run->modes);
		} else if (!strcmp(o, "--variants")) {
			run->nvariants = split_names(v, run->variants);
		} else if (!strcmp(o, "--with")) {
			if (run->nwith == HP_MAX_LIST)
				usage_error("--with", v, "at most 256 of them");
			run->with[run->nwith++] = v;
		} else if (!strcmp(o, "--param")) {
			if (run->nparams == HP_MAX_PARAMS)
				usage_error("--param", v, "at most 8 of them");
			run->params[run->nparams++] = v;
		} else if (!strcmp(o, "--with-as")) {
			if (!run->nwith)
				usage_error("--with-as", v, "after a --with");
			run->with_as[run->nwith - 1] = v;
		} else if (!strcmp(o, "--with-needs")) {
			if (!run->nwith)
				usage_error("--with-needs", v, "after a --with");
			run->with_needs[run->nwith - 1] = parse_needs(v);
		} else if (!strcmp(o, "--rounds")) {
			run->so.rounds = opt_u64("rounds", v, 1, 1000000);
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
			run->time_limit_s = opt_u64("time-limit", v, 0, 86400);
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
				usage_error("unit", v, "cycles or ticks");
			run->so.unit_ticks = !strcmp(v, "ticks");
		} else {
			usage_error("option", o, "see docs/runner-protocol.md");
		}
	}
	if (!run->p && strcmp(run->command, "probe"))
		usage_error("primitive", "", "--primitive NAME is required");
	for (size_t i = 0; i < run->nparams; i++)
		configure(run->p, run->params[i]);
}

/* --with PATH.so:SYMBOL: a variant from the user's own file. */
static struct hp_variant load_user(const char *spec)
{
	struct hp_variant v = { .flags = HP_V_USER };
	char *path = strdup(spec), *sym = strrchr(path, ':');
	void *h, *fn;

	if (!sym || !sym[1])
		usage_error("--with", spec, "PATH.so:SYMBOL");
	*sym++ = 0;
	h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
	if (!h) {
		fprintf(stderr, "hotpath-bench: cannot load '%s': %s\n", path,
			dlerror());
		exit(3);
	}
	fn = dlsym(h, sym);
	if (!fn) {
		fprintf(stderr,
			"hotpath-bench: symbol '%s' not found in '%s'\n", sym,
			path);
		exit(3);
	}
	v.name = sym;
	v.fn = fn;
	v.desc = "user variant (--with)";
	v.origin = path;
	return v;
}

static int selected(const struct hp_run *run, const char *name)
{
	if (!run->nvariants)
		return 1;
	for (size_t i = 0; i < run->nvariants; i++)
		if (!strcmp(run->variants[i], name))
			return 1;
	return 0;
}

static void check_variant_names(const struct hp_run *run)
{
	for (size_t i = 0; i < run->nvariants; i++) {
		size_t k;

		for (k = 0; k < run->p->nvariants; k++)
			if (!strcmp(run->p->variants[k].name, run->variants[i]))
				break;
		if (k == run->p->nvariants)
			usage_error("variant", run->variants[i],
				    "see 'hotpath-bench list'");
	}
}

/* A brought variant's name must be its own in the run: figures are kept
 * by name, and two of one name would show one's figures as the other's. */
static void check_unique(const struct hp_run *run, const struct hp_variant *v,
			 size_t k)
{
	const char *allowed = "a name no other variant of the primitive has "
			      "(rename it with --with-as)";

	for (size_t i = 0; i < run->p->nvariants; i++)
		if (!strcmp(run->p->variants[i].name, v->name))
			usage_error("--with variant name", v->name, allowed);
	for (size_t i = 0; i < k; i++) {
		const char *other = run->with_as[i] ? run->with_as[i]
						    : strrchr(run->with[i], ':') + 1;

		if (!strcmp(other, v->name))
			usage_error("--with variant name", v->name, allowed);
	}
}

static void collect_variants(struct hp_run *run)
{
	const struct hp_primitive *p = run->p;
	size_t n = 0;

	check_variant_names(run);
	run->vr = calloc(p->nvariants + run->nwith, sizeof(*run->vr));
	for (size_t i = 0; i < p->nvariants; i++)
		if (selected(run, p->variants[i].name))
			run->vr[n++].v = &p->variants[i];
	for (size_t i = 0; i < run->nwith; i++) {
		struct hp_variant *v = malloc(sizeof(*v));

		*v = load_user(run->with[i]);
		if (run->with_as[i])
			v->name = run->with_as[i];
		v->needs = run->with_needs[i];
		check_unique(run, v, i);
		run->vr[n++].v = v;
	}
	run->nvr = n;
}

static void gate_all(struct hp_run *run)
{
	struct hp_gate_opts go = {
		.sizes = run->sizes, .nsizes = run->nsizes,
		.aligns = run->aligns, .naligns = run->naligns,
		.rng_seed = run->rng_seed,
	};
	uint32_t have = hp_cpu_features();

	for (size_t i = 0; i < run->nvr; i++) {
		struct hp_variant_result *r = &run->vr[i];
		uint32_t missing = r->v->needs & ~have;

		if (r->v->unavailable) {
			r->status = "unavailable";
			r->reason = r->v->unavailable;
			continue;
		}
		if (missing) {
			int k = snprintf(r->reason_buf, sizeof(r->reason_buf),
					 "this CPU lacks");
			for (unsigned b = 0; b < HP_CPU_NFEATURES; b++)
				if (missing & (1u << b))
					k += snprintf(r->reason_buf + k,
						      sizeof(r->reason_buf) - k,
						      " %s", hp_cpu_feature_name(b));
			r->status = "skipped";
			r->reason = r->reason_buf;
			continue;
		}
		hp_current_variant = r->v->name;
		if (hp_gate(run->p, r->v, &go, &r->fail, &r->ncases,
			    &r->dirty_upper)) {
			r->status = "wrong";
			r->reason = r->fail.what;
		} else {
			r->status = "ok";
		}
	}
}

static int size_in_domain(const struct hp_run *run, const struct hp_variant *v,
			  size_t size)
{
	if (size < v->min_len || (v->max_len && size > v->max_len))
		return 0;
	return !run->p->size_ok || run->p->size_ok(size);
}

/*
 * The burst call site a variant is timed through (bench.h): its place in
 * the primitive's table, whatever else the run times, so it is the same
 * call site in every run. The branch predictors keep what a call site
 * saw across processes (addresses repeat: no ASLR), and a site that
 * called another variant in the run before would be slow for all of
 * this one. --with variants follow the table; the last site is the
 * empty call's.
 */
static unsigned burst_site(const struct hp_run *run, const struct hp_variant *v)
{
	size_t k = (size_t)(v - run->p->variants);

	if (v < run->p->variants || k >= run->p->nvariants) {
		k = run->p->nvariants;
		for (size_t i = 0; i < run->nvr && run->vr[i].v != v; i++)
			k += !!(run->vr[i].v->flags & HP_V_USER);
	}
	return k % (HP_BURST_SITES - 1);
}

/* "size outside the variant's domain (4..4)": say what it does take. */
static const char *domain_words(const struct hp_run *run, struct hp_job *jb,
				const struct hp_variant *v)
{
	if (jb->size >= v->min_len && (!v->max_len || jb->size <= v->max_len))
		snprintf(jb->reason_buf, sizeof(jb->reason_buf),
			 "size not one %s takes (see its registry)",
			 run->p->name);
	else if (v->max_len)
		snprintf(jb->reason_buf, sizeof(jb->reason_buf),
			 "size outside the variant's domain (%zu..%zu)",
			 v->min_len, v->max_len);
	else
		snprintf(jb->reason_buf, sizeof(jb->reason_buf),
			 "size outside the variant's domain (%zu or more)",
			 v->min_len);
	return jb->reason_buf;
}

static void plan_jobs(struct hp_run *run)
{
	size_t cap = run->nvr * run->nsizes * run->naligns * HP_NMODES;

	run->jobs = calloc(cap ? cap : 1, sizeof(*run->jobs));
	for (size_t i = 0; i < run->nvr; i++) {
		const struct hp_variant_result *r = &run->vr[i];
		const struct hp_variant *v = r->v;

		for (size_t s = 0; s < run->nsizes; s++)
			for (size_t a = 0; a < run->naligns; a++)
				for (int m = 0; m < HP_NMODES; m++) {
					struct hp_job *jb;

					if (!run->modes[m])
						continue;
					jb = &run->jobs[run->njobs++];
					jb->v = v;
					jb->site = burst_site(run, v);
					jb->size = run->sizes[s];
					jb->align = run->aligns[a];
					jb->mode = m;
					jb->status = "ok";
					if (strcmp(r->status, "ok")) {
						jb->status = "not timed";
						jb->reason = r->status;
					} else if (!size_in_domain(run, v, jb->size)) {
						jb->status = "n/a";
						jb->reason = domain_words(run, jb, v);
					} else if (m == HP_LATENCY &&
						   (v->flags & HP_V_NO_LATENCY)) {
						jb->status = "n/a";
						jb->reason = v->mode_note ? v->mode_note
							: "no chain through its input";
					}
				}
	}
}

static int time_jobs(struct hp_run *run)
{
	struct hp_guarded g;
	size_t max = 0;

	for (size_t s = 0; s < run->nsizes; s++)
		if (run->sizes[s] > max)
			max = run->sizes[s];
	if (hp_guarded_alloc(&g, max + 4096)) {
		perror("hotpath-bench: buffer");
		return -1;
	}
	uint64_t st = run->rng_seed ^ 0x5eed;

	hp_fill_random(g.base, g.size, &st);
	run->so.seed = hp_rng_next(&st) & 0xffffffffu;
	run->tsc_hz = hp_tsc_hz();
	run->tsc_step = hp_tsc_granularity();
	run->perf_cpa = hp_perf_cycles_per_add(&run->perf_why);
	/* --burst-us was microseconds; the sampler wants ticks. */
	run->so.burst_ticks = (uint64_t)(run->so.burst_ticks * run->tsc_hz / 1e6);
	run->so.tsc_hz = run->tsc_hz;
	return hp_sample(run->p, run->jobs, run->njobs, g.base, &run->so,
			 &run->clk);
}

/*
 * The JSON goes to a private copy of stdout, and fd 1 becomes stderr: a
 * brought variant that prints cannot corrupt the output Python reads.
 */
static FILE *private_stdout(void)
{
	int fd = dup(STDOUT_FILENO);
	FILE *f = fd >= 0 ? fdopen(fd, "w") : NULL;

	if (!f || dup2(STDERR_FILENO, STDOUT_FILENO) < 0)
		return stdout;
	return f;
}

/* A variant that calls exit() takes the runner with it; at least say who. */
static void exit_in_variant(void)
{
	if (hp_current_variant) {
		fprintf(stderr,
			"hotpath-bench: variant '%s' called exit() while it was "
			"being checked or timed\n", hp_current_variant);
		_exit(4);
	}
}

/*
 * Jobs the trap set aside (a crash, or no return within the time limit)
 * make their variant wrong, with the case and what happened; the
 * variant's other jobs are not timed.
 */
static void set_aside_crashed(struct hp_run *run)
{
	for (size_t k = 0; k < run->njobs; k++) {
		struct hp_job *jb = &run->jobs[k];
		struct hp_variant_result *r = NULL;

		if (strcmp(jb->status, "crashed"))
			continue;
		for (size_t i = 0; i < run->nvr && !r; i++)
			if (run->vr[i].v == jb->v)
				r = &run->vr[i];
		if (!r || !strcmp(r->status, "wrong"))
			continue;
		r->status = "wrong";
		r->fail.len = jb->size;
		r->fail.align = jb->align & 63;
		r->fail.seed = run->so.seed;
		r->fail.expected = r->fail.got = 0;
		hp_fault_describe(&jb->fault, r->fail.what,
				  sizeof(r->fail.what));
		snprintf(r->reason_buf, sizeof(r->reason_buf), "%s (%s mode)",
			 r->fail.what, hp_mode_names[jb->mode]);
		r->reason = r->reason_buf;
	}
	for (size_t k = 0; k < run->njobs; k++) {
		struct hp_job *jb = &run->jobs[k];

		for (size_t i = 0; i < run->nvr; i++)
			if (run->vr[i].v == jb->v && !strcmp(run->vr[i].status, "wrong") &&
			    strcmp(jb->status, "not timed")) {
				jb->status = "not timed";
				jb->reason = "variant crashed while being timed";
				jb->nsamples = 0;
			}
	}
}

static void list_all(void)
{
	struct hp_json j;

	hp_json_init(&j, stdout);
	hp_json_obj_begin(&j);
	hp_json_key(&j, "schema");
	hp_json_str(&j, "hotpath.bench/1");
	hp_json_key(&j, "command");
	hp_json_str(&j, "list");
	hp_emit_cpu(&j, -1, 0);
	hp_json_key(&j, "primitives");
	hp_json_arr_begin(&j);
	for (const struct hp_primitive *const *pp = hp_primitives; *pp; pp++) {
		const struct hp_primitive *p = *pp;
		uint32_t have = hp_cpu_features();

		hp_json_obj_begin(&j);
		hp_json_key(&j, "name");
		hp_json_str(&j, p->name);
		hp_json_key(&j, "lab");
		hp_json_str(&j, p->lab);
		hp_json_key(&j, "seed_name");
		hp_json_str(&j, p->seed_name);
		hp_json_key(&j, "default_sizes");
		hp_json_arr_begin(&j);
		for (size_t i = 0; i < p->ndefault_sizes; i++)
			hp_json_uint(&j, p->default_sizes[i]);
		hp_json_arr_end(&j);
		hp_json_key(&j, "variants");
		hp_json_arr_begin(&j);
		for (size_t i = 0; i < p->nvariants; i++) {
			struct hp_variant_result r = { .v = &p->variants[i] };

			r.status = p->variants[i].unavailable ? "unavailable"
				: (p->variants[i].needs & ~have) ? "skipped"
								 : "unchecked";
			r.reason = p->variants[i].unavailable;
			hp_emit_variant(&j, p, &r);
		}
		hp_json_arr_end(&j);
		hp_json_obj_end(&j);
	}
	hp_json_arr_end(&j);
	hp_json_obj_end(&j);
}

/*
 * Run with address-space randomisation off, so that two runs place the
 * stack, the buffers and the code at the same addresses. With it on, a
 * run whose stack happens to alias the buffer modulo 4 KiB can measure a
 * variant several percent slower than the next run, for no reason in the
 * variant. Re-executes itself once; if that fails, carries on as it is.
 */
static void no_aslr(char **argv)
{
	int cur = personality(0xffffffff);

	if (cur == -1 || (cur & ADDR_NO_RANDOMIZE))
		return;
	if (personality(cur | ADDR_NO_RANDOMIZE) == -1)
		return;
	execv("/proc/self/exe", argv);
}

int main(int argc, char **argv)
{
	struct hp_run run = {
		.cpu = -1,
		.so = { .rounds = 400, .warmup = 20, .batch = 50,
			.burst_ticks = 10, .clean_share = 0.9,
			.freq_tolerance = 0.03 },
		.timeline_ms = 5000,
		.time_limit_s = 30,
		.interval_ms = 100,
		.rng_seed = 1,
		.modes = { 1, 1, 1 },
		.naligns = 1,
	};
	struct hp_json j;

	if (argc < 2)
		usage_error("command", "", "list, run, verify, analyze or probe");
	no_aslr(argv);
	run.command = argv[1];
	if (!strcmp(argv[1], "list")) {
		list_all();
		return 0;
	}
	if (strcmp(argv[1], "run") && strcmp(argv[1], "verify") &&
	    strcmp(argv[1], "analyze") && strcmp(argv[1], "probe"))
		usage_error("command", argv[1],
			    "list, run, verify, analyze or probe");
	parse_args(&run, argc, argv);
	run.pinned = hp_pin_cpu(run.cpu);
	if (run.cpu >= 0 && run.pinned < 0) {
		char cpu[16];

		snprintf(cpu, sizeof(cpu), "%d", run.cpu);
		usage_error("cpu", cpu, "a CPU this process may run on");
	}
	if (!strcmp(run.command, "probe")) {
		hp_json_init(&j, stdout);
		return hp_timeline(&run, &j) ? 1 : 0;
	}
	if (!run.nsizes) {
		run.nsizes = run.p->ndefault_sizes ? run.p->ndefault_sizes : 1;
		for (size_t i = 0; i < run.nsizes; i++)
			run.sizes[i] = run.p->ndefault_sizes
				? run.p->default_sizes[i] : 64;
	}
	json_out = private_stdout();
	hp_trap_arm(run.time_limit_s);
	atexit(exit_in_variant);
	if (!strcmp(run.command, "analyze") && !run.p->analyze)
		usage_error("primitive", run.p->name,
			    "one with a model to analyze (avc_lookup)");
	collect_variants(&run);
	gate_all(&run);
	if (!strcmp(run.command, "run")) {
		plan_jobs(&run);
		if (time_jobs(&run))
			return 1;
		set_aside_crashed(&run);
	}
	hp_current_variant = NULL;
	hp_json_init(&j, json_out);
	hp_emit_run(&j, &run);
	fflush(json_out);
	return 0;
}
