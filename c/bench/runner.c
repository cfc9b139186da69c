// SPDX-License-Identifier: GPL-2.0-only
/*
 * hotpath-bench: the one program that times anything. It checks every
 * variant against its reference, times the correct ones in short
 * interleaved bursts and prints JSON (docs/runner-protocol.md). Python
 * validates, stores and reports; it never sits inside a measurement.
 */
#define _GNU_SOURCE
#include "runner.h"
#include <hotpath/dispatch.h>
#include <hotpath/guard.h>
#include "../kload/kload.h"

#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/personality.h>
#include <sys/wait.h>
#include <unistd.h>

static FILE *json_out;
static pid_t worker_pid;	/* the process that runs the variants */

static int is_kload(const char *path)
{
	return strlen(path) > 6 && !strcmp(path + strlen(path) - 6, ".kload");
}

/* --with PATH.so:SYMBOL: a variant from the user's own file (or
 * SPEC.kload:SYMBOL: the kernel's own objects, c/kload). One that
 * needs CPU features this one lacks is never loaded (hotpath does not even
 * build it): gate_all lists it skipped. */
static struct hp_variant load_user(const char *spec, uint32_t needs)
{
	struct hp_variant v = { .flags = HP_V_USER, .needs = needs };
	char *path = strdup(spec), *sym = strrchr(path, ':');
	void *h, *fn;

	if (!sym || !sym[1])
		hp_usage_error("--with", spec, "PATH.so:SYMBOL");
	*sym++ = 0;
	v.name = sym;
	v.desc = "user variant (--with)";
	v.origin = path;
	if (needs & ~hp_cpu_features())
		return v;
	if (is_kload(path)) {
		char err[4096];

		/* The kernel's own objects, loaded as the kernel loads them. */
		v.fn = hp_kload_symbol(path, sym, err, sizeof(err));
		if (!v.fn) {
			fprintf(stderr, "hotpath-bench: cannot load the kernel objects of '%s': %s\n",
				path, err);
			exit(3);
		}
		return v;
	}
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
	v.fn = fn;
	return v;
}

/* The timing loops an image of the kernel's objects carries for @primitive
 * (c/kload/bursts), NULL where it has none: then the primitive's own. */
static const hp_burst_fn *kernel_bursts(const char *spec, const char *primitive)
{
	char name[128], err[256], *path = strdup(spec);
	const hp_burst_fn *const *sites;

	*strrchr(path, ':') = 0;
	snprintf(name, sizeof(name), "hp_kburst_%s", primitive);
	sites = is_kload(path) ? hp_kload_symbol(path, name, err, sizeof(err)) : NULL;
	free(path);
	return sites ? *sites : NULL;
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
			hp_usage_error("variant", run->variants[i],
				    "see 'hotpath-bench list'");
	}
}

/* A brought variant's name must be its own in the run: figures are kept
 * by name, and two of one name would show one's figures as the other's. */
/* The name the @i-th brought variant goes by: --with-as, else its symbol. */
static const char *with_name(const struct hp_run *run, size_t i)
{
	const char *sym = strrchr(run->with[i], ':');

	return run->with_as[i] ? run->with_as[i] : sym ? sym + 1 : run->with[i];
}

static void check_unique(const struct hp_run *run, const struct hp_variant *v,
			 size_t k)
{
	const char *allowed = "a name no other variant of the primitive has "
			      "(rename it with --with-as)";

	for (size_t i = 0; i < run->p->nvariants; i++)
		if (!strcmp(run->p->variants[i].name, v->name))
			hp_usage_error("--with variant name", v->name, allowed);
	for (size_t i = 0; i < k; i++)
		if (!strcmp(with_name(run, i), v->name))
			hp_usage_error("--with variant name", v->name, allowed);
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

		/* A file's constructors (a kernel image's init) run as it loads:
		 * one that ends the process is named by the last of these lines. */
		fprintf(stderr, "loading %s %s\n", with_name(run, i), run->with[i]);
		fflush(stderr);
		*v = load_user(run->with[i], run->with_needs[i]);
		if (run->with_as[i])
			v->name = run->with_as[i];
		v->flags |= run->with_flags[i];
		if (v->fn && v->flags & HP_V_KERNEL)
			v->burst = kernel_bursts(run->with[i], run->p->name);
		v->promise = run->with_promise[i];
		v->min_len = run->with_min_len[i];
		if (run->with_origin[i])
			v->origin = run->with_origin[i];
		if (run->with_desc[i])
			v->desc = run->with_desc[i];
		check_unique(run, v, i);
		run->vr[n++].v = v;
	}
	run->nvr = n;
	if (run->nwith) {
		fputs("loaded\n", stderr);
		fflush(stderr);
	}
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
		const char *why = r->v->unavailable;

		if (!why && r->v->fn && run->p->unavailable)
			why = run->p->unavailable(r->v);
		if (why) {
			r->status = "unavailable";
			r->reason = why;
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
			if (missing & hp_cpu_hidden())
				snprintf(r->reason_buf + k, sizeof(r->reason_buf) - k,
					 " (hidden by HOTPATH_CPU_HIDE)");
			r->status = "skipped";
			r->reason = r->reason_buf;
			continue;
		}
		*hp_current_variant = r->v->name;
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
	const char *name = *hp_current_variant;

	if (!name || getpid() != worker_pid)
		return;
	fprintf(stderr, "hotpath-bench: variant '%s' called exit() while it was "
		"being checked or timed\n", name);
	*hp_current_variant = NULL;	/* said: the watcher adds nothing */
	_exit(4);
}

/*
 * A variant that forks leaves a copy of the runner, in the variant's code
 * or back in the runner's loops. The copy dies with the runner, keeps the
 * name of the variant it runs to itself, and prints no JSON (main).
 */
static const char *volatile current_in_copy;

static void forked_copy(void)
{
	hp_current_variant = &current_in_copy;
	hp_die_with_parent();
}

/*
 * The variants run in a child of this process, which waits for it: a
 * variant that calls _exit() ends the child with a status the runner's
 * own could be (0 with no JSON, 2 or 3 for bad input), and no hook runs
 * to say so. The name of the variant running is kept in memory both
 * share; when the child ends with one named, this parent names it and
 * exits 4, as exit_in_variant() does. Returns in the child.
 */
static void watch_variants(void)
{
	const char *volatile *shared = mmap(NULL, sizeof(*shared),
					    PROT_READ | PROT_WRITE,
					    MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	pid_t child;
	int status;

	if (shared != MAP_FAILED) {
		hp_current_variant = shared;
		fflush(NULL);	/* nothing buffered is written twice */
		child = fork();
		if (child > 0) {
			while (waitpid(child, &status, 0) < 0)
				if (errno != EINTR)
					_exit(1);
			if (WIFSIGNALED(status)) {	/* end as the child did */
				signal(WTERMSIG(status), SIG_DFL);
				raise(WTERMSIG(status));
				_exit(128 + WTERMSIG(status));
			}
			if (*shared) {
				fprintf(stderr, "hotpath-bench: variant '%s' called "
					"_exit(%d) while it was being checked or timed\n",
					*shared, WEXITSTATUS(status));
				_exit(4);
			}
			_exit(WEXITSTATUS(status));
		}
		if (child == 0)
			hp_die_with_parent();
		/* no fork: the variants run here, unwatched */
	}
	worker_pid = getpid();
	pthread_atfork(NULL, NULL, forked_copy);
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

#define COMMANDS "facts, cpu, list, row, kload, run, verify, analyze or probe"

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
	const char *row_file;
	int failed = 0;

	hp_die_with_parent();
	if (argc < 2)
		hp_usage_error("command", "", COMMANDS);
	/* The build's facts: the same whatever the environment says (the
	 * build writes them, HOTPATH_CPU_HIDE or not). */
	if (!strcmp(argv[1], "facts"))
		return hp_facts_command();
	if (!hp_cpu_hide_ok())
		return 2;	/* hp_cpu_hidden() named the value and what is allowed */
	if (!strcmp(argv[1], "cpu"))
		return hp_cpu_command();
	/* A row file the library could not take: it said why and fell back
	 * to the built-in row, which a library must; a measurement must not
	 * run on another row than the one it was asked for. */
	row_file = getenv("HOTPATH_DISPATCH");
	if (row_file && *row_file && strcmp(hp_dispatch()->source, row_file)) {
		fprintf(stderr, "hotpath: HOTPATH_DISPATCH '%s' not taken: a measurement "
			"runs only on the row it names (mend the file, or unset "
			"HOTPATH_DISPATCH)\n", row_file);
		return 2;
	}
	no_aslr(argv);
	run.command = argv[1];
	if (!strcmp(argv[1], "list"))
		return hp_list_command();
	if (!strcmp(argv[1], "row"))
		return hp_row_command(argc, argv);
	if (!strcmp(argv[1], "kload"))
		return hp_kload_command(argc, argv);
	if (strcmp(argv[1], "run") && strcmp(argv[1], "verify") &&
	    strcmp(argv[1], "analyze") && strcmp(argv[1], "probe"))
		hp_usage_error("command", argv[1], COMMANDS);
	hp_parse_args(&run, argc, argv);
	run.pinned = hp_pin_cpu(run.cpu);
	if (run.cpu >= 0 && run.pinned < 0) {
		char cpu[16];

		snprintf(cpu, sizeof(cpu), "%d", run.cpu);
		hp_usage_error("cpu", cpu, "a CPU this process may run on");
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
	if (!strcmp(run.command, "analyze") && !run.p->analyze)
		hp_usage_error("primitive", run.p->name,
			    "one with a model to analyze (avc_lookup)");
	collect_variants(&run);
	watch_variants();
	/* In the watched child: a timer is not inherited by fork. */
	hp_trap_arm(run.time_limit_s);
	atexit(exit_in_variant);
	gate_all(&run);
	if (!strcmp(run.command, "run")) {
		plan_jobs(&run);
		failed = time_jobs(&run);
	}
	*hp_current_variant = NULL;	/* no variant's code runs after this */
	if (getpid() != worker_pid)
		_exit(0);	/* a copy a variant forked: the run is not its */
	if (failed)
		return 1;
	if (!strcmp(run.command, "run"))
		set_aside_crashed(&run);
	hp_json_init(&j, json_out);
	hp_emit_run(&j, &run);
	fflush(json_out);
	return 0;
}
