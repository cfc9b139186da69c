// SPDX-License-Identifier: GPL-2.0-only
/*
 * hotpath-crossing: the crossing lab's user-space paths and the price of
 * one system call, as one program that prints JSON ("hotpath.crossing/1").
 * Built static (build/hotpath-crossing-static), so that the same code runs
 * on the host and inside a guest kernel's busybox initramfs.
 *
 *   hotpath-crossing --dir DIR [--chunk B] [--count N] [--iterations I]
 *                    [--paths write,pwrite,writev,io_uring|none]
 *                    [--syscall-blocks K] [--syscall-calls C]
 *   hotpath-crossing --verify FILE --bytes B
 *
 * --verify is the same gate for a file another writer made (the kernel
 * module's, in the guest): prints "ok" or "wrong: why", exit 0 or 1.
 *
 * Each path runs one untimed iteration first and its file is checked
 * (count x chunk bytes, all zero); a path that fails is WRONG and never
 * timed. The timed iterations then go round the paths, the order turned
 * by one each time, so a drift of the machine's speed falls on all alike.
 * Exit status: 0 done (WRONG paths are results), 2 bad arguments, 1 the
 * workload could not run at all.
 *
 * Lives in tool/, out of the library's wildcard of lab sources, because it
 * has main().
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <hotpath/bench.h>
#include <hotpath/json.h>

#include "../crossing.h"

#define MAX_CHUNK (64ull << 20)
#define MAX_BYTES (64ull << 30)
#define VULN_DIR "/sys/devices/system/cpu/vulnerabilities"

struct run_path {
	const struct hp_xpath *path;
	const char *status; /* ok, wrong, failed, unavailable */
	char reason[256];
	uint64_t *ns, *ticks;
	unsigned done;
};

static void usage(const char *why)
{
	fprintf(stderr, "hotpath-crossing: %s\n"
		"usage: hotpath-crossing --dir DIR [--chunk B] [--count N] [--iterations I] "
		"[--paths write,pwrite,writev,io_uring|none] [--syscall-blocks K] "
		"[--syscall-calls C]\n"
		"       hotpath-crossing --verify FILE --bytes B\n", why);
	exit(2);
}

static uint64_t number(const char *opt, const char *text, uint64_t lo, uint64_t hi)
{
	char *end, why[160];
	unsigned long long v;

	errno = 0;
	v = strtoull(text, &end, 10);
	if (errno || end == text || *end || text[0] == '-' || v < lo || v > hi) {
		snprintf(why, sizeof(why), "%s '%s': allowed: an integer %" PRIu64 "..%" PRIu64,
			 opt, text, lo, hi);
		usage(why);
	}
	return v;
}

static void json_array(struct hp_json *j, const uint64_t *v, unsigned n)
{
	hp_json_arr_begin(j);
	for (unsigned i = 0; i < n; i++)
		hp_json_uint(j, v[i]);
	hp_json_arr_end(j);
}

/* One line per file of the vulnerabilities folder, as "name": "text". */
static void json_vulnerabilities(struct hp_json *j)
{
	DIR *d = opendir(VULN_DIR);
	struct dirent *e;

	if (!d) {
		hp_json_null(j);
		return;
	}
	hp_json_obj_begin(j);
	while ((e = readdir(d))) {
		char file[512], line[512] = "";
		FILE *f;

		if (e->d_name[0] == '.')
			continue;
		snprintf(file, sizeof(file), "%s/%s", VULN_DIR, e->d_name);
		f = fopen(file, "r");
		if (!f)
			continue;
		if (fgets(line, sizeof(line), f))
			line[strcspn(line, "\n")] = 0;
		fclose(f);
		hp_json_key(j, e->d_name);
		hp_json_str(j, line);
	}
	closedir(d);
	hp_json_obj_end(j);
}

static void choose_paths(char *list, struct run_path *rp, size_t *n)
{
	char why[160];

	*n = 0;
	if (!strcmp(list, "none"))
		return; /* the syscall's price alone */
	for (char *tok = strtok(list, ","); tok; tok = strtok(NULL, ",")) {
		const struct hp_xpath *p = hp_xpath_find(tok);

		if (!p) {
			snprintf(why, sizeof(why),
				 "--paths '%s': allowed: write, pwrite, writev, io_uring", tok);
			usage(why);
		}
		for (size_t i = 0; i < *n; i++)
			if (rp[i].path == p)
				p = NULL;
		if (p)
			rp[(*n)++].path = p;
	}
	if (!*n)
		usage("--paths: name at least one path, or none");
}

/* The untimed first iteration and the check of its file. */
static void gate(struct run_path *rp, const char *file, const void *zero, size_t chunk,
		 size_t count)
{
	uint64_t ns, ticks;
	int err = hp_xiteration(rp->path, file, zero, chunk, count, &ns, &ticks,
				rp->reason, sizeof(rp->reason));

	if (err == -ENOSYS)
		rp->status = "unavailable";
	else if (err)
		rp->status = "failed";
	else if (hp_xverify(file, (uint64_t)chunk * count, rp->reason, sizeof(rp->reason)))
		rp->status = "wrong";
	else
		rp->status = "ok";
}

/* What the command line asks for; the defaults are the usage's. */
struct options {
	const char *dir, *verify;
	char *paths;		/* split in place by choose_paths() */
	uint64_t chunk, count, iterations;
	uint64_t blocks, calls, bytes;	/* bytes: UINT64_MAX when not given */
};

/* The options, every one taking a value; a wrong one exits 2 (usage()). */
static void parse_options(int argc, char **argv, struct options *op)
{
	static char default_paths[] = "write,pwrite,writev,io_uring";

	*op = (struct options){
		.paths = default_paths, .chunk = 1024, .count = 100 * 1024,
		.iterations = 128, .blocks = 200, .calls = 1000,
		.bytes = UINT64_MAX,
	};
	for (int i = 1; i < argc; i++) {
		const char *opt = argv[i];

		if (i + 1 >= argc)
			usage("every option takes a value");
		const char *val = argv[++i];

		if (!strcmp(opt, "--dir"))
			op->dir = val;
		else if (!strcmp(opt, "--chunk"))
			op->chunk = number(opt, val, 1, MAX_CHUNK);
		else if (!strcmp(opt, "--count"))
			op->count = number(opt, val, 1, MAX_BYTES);
		else if (!strcmp(opt, "--iterations"))
			op->iterations = number(opt, val, 1, 100000);
		else if (!strcmp(opt, "--paths"))
			op->paths = argv[i];
		else if (!strcmp(opt, "--syscall-blocks"))
			op->blocks = number(opt, val, 0, 1000000);
		else if (!strcmp(opt, "--syscall-calls"))
			op->calls = number(opt, val, 1, 10000000);
		else if (!strcmp(opt, "--verify"))
			op->verify = val;
		else if (!strcmp(opt, "--bytes"))
			op->bytes = number(opt, val, 0, MAX_BYTES);
		else
			usage("unknown option");
	}
}

/* --verify FILE --bytes B: the gate alone, for a file another writer
 * made; the exit status. */
static int verify_only(const struct options *op)
{
	char why[256];

	if (op->bytes == UINT64_MAX)
		usage("--verify FILE needs --bytes B");
	if (hp_xverify(op->verify, op->bytes, why, sizeof(why))) {
		printf("wrong: %s\n", why);
		return 1;
	}
	printf("ok\n");
	return 0;
}

/* What a measuring run needs beyond the values' own ranges (exit 2). */
static void check_options(const struct options *op)
{
	if (!op->dir)
		usage("--dir DIR is required");
	if (op->chunk * op->count > MAX_BYTES)
		usage("--chunk x --count: allowed: at most 64 GiB per iteration");
}

/* Room for every path's timings, and the zero chunk they write; -1 when
 * out of memory (checked per path, as the timings need it). */
static int alloc_paths(struct run_path *rp, size_t n, uint64_t chunk,
		       uint64_t iterations, void **zero)
{
	*zero = calloc(1, chunk);
	for (size_t k = 0; k < n; k++) {
		rp[k].ns = calloc(iterations, sizeof(uint64_t));
		rp[k].ticks = calloc(iterations, sizeof(uint64_t));
		if (!*zero || !rp[k].ns || !rp[k].ticks)
			return -1;
	}
	return 0;
}

/* Every path gated, then the timed iterations round the paths that
 * passed, the order turned by one each time; the file removed after. */
static void run_paths(struct run_path *rp, size_t n, const char *file,
		      const void *zero, const struct options *op)
{
	for (size_t k = 0; k < n; k++)
		gate(&rp[k], file, zero, op->chunk, op->count);

	for (unsigned it = 0; it < op->iterations; it++) {
		for (size_t j = 0; j < n; j++) {
			struct run_path *p = &rp[(j + it) % n];
			int err;

			if (strcmp(p->status, "ok"))
				continue;
			err = hp_xiteration(p->path, file, zero, op->chunk, op->count,
					    &p->ns[p->done], &p->ticks[p->done], p->reason,
					    sizeof(p->reason));
			if (err)
				p->status = "failed";
			else
				p->done++;
		}
	}
	unlink(file);
}

/* The syscall's price: op->blocks blocks of op->calls calls, and the
 * ticks-per-cycle measured before and after them. */
struct syscall_price {
	uint64_t *ns, *ticks;
	double tpc_before, tpc_after;
};

static void price_syscall(const struct options *op, struct syscall_price *sp)
{
	sp->ns = calloc(op->blocks + 1, sizeof(uint64_t));
	sp->ticks = calloc(op->blocks + 1, sizeof(uint64_t));
	sp->tpc_before = hp_xticks_per_cycle(101);

	for (unsigned b = 0; b < op->blocks; b++)
		hp_xsyscall_block((unsigned)op->calls, &sp->ns[b], &sp->ticks[b]);
	sp->tpc_after = hp_xticks_per_cycle(101);
}

/* One path's object of "paths". */
static void json_path(struct hp_json *j, const struct run_path *rp)
{
	hp_json_obj_begin(j);
	hp_json_key(j, "name");
	hp_json_str(j, rp->path->name);
	hp_json_key(j, "desc");
	hp_json_str(j, rp->path->desc);
	hp_json_key(j, "status");
	hp_json_str(j, rp->status);
	hp_json_key(j, "reason");
	hp_json_str(j, strcmp(rp->status, "ok") ? rp->reason : NULL);
	hp_json_key(j, "ns");
	json_array(j, rp->ns, rp->done);
	hp_json_key(j, "ticks");
	json_array(j, rp->ticks, rp->done);
	hp_json_obj_end(j);
}

/* The "syscall" object. */
static void json_syscall(struct hp_json *j, const struct options *op,
			 const struct syscall_price *sp)
{
	hp_json_obj_begin(j);
	hp_json_key(j, "name");
	hp_json_str(j, "getppid");
	hp_json_key(j, "calls_per_block");
	hp_json_uint(j, op->calls);
	hp_json_key(j, "ticks_per_cycle");
	hp_json_arr_begin(j);
	hp_json_fixed(j, sp->tpc_before, 6);
	hp_json_fixed(j, sp->tpc_after, 6);
	hp_json_arr_end(j);
	hp_json_key(j, "ns");
	json_array(j, sp->ns, (unsigned)op->blocks);
	hp_json_key(j, "ticks");
	json_array(j, sp->ticks, (unsigned)op->blocks);
	hp_json_obj_end(j);
}

/* The "hotpath.crossing/1" document on stdout, with the engine's TSC
 * calibration (clock.c) and JSON writer (c/bench/json.c); the exit
 * status. */
static int write_json(const struct options *op, const struct run_path *rp,
		      size_t n, const struct syscall_price *sp)
{
	double tsc_hz = hp_tsc_hz();
	struct utsname uts;
	struct hp_json j;
	char fs[64];

	uname(&uts);
	hp_json_init(&j, stdout);
	hp_json_obj_begin(&j);
	hp_json_key(&j, "schema");
	hp_json_str(&j, "hotpath.crossing/1");
	hp_json_key(&j, "kernel");
	hp_json_str(&j, uts.release);
	hp_json_key(&j, "dir");
	hp_json_str(&j, op->dir);
	hp_json_key(&j, "fs_type");
	hp_json_str(&j, hp_xfs_type(op->dir, fs, sizeof(fs)));
	hp_json_key(&j, "chunk");
	hp_json_uint(&j, op->chunk);
	hp_json_key(&j, "count");
	hp_json_uint(&j, op->count);
	hp_json_key(&j, "iterations");
	hp_json_uint(&j, op->iterations);
	hp_json_key(&j, "writev_batch");
	hp_json_uint(&j, hp_xwritev_batch());
	hp_json_key(&j, "uring_depth");
	hp_json_int(&j, HP_XURING_DEPTH);
	hp_json_key(&j, "tsc_hz");
	hp_json_fixed(&j, tsc_hz, 0);
	hp_json_key(&j, "paths");
	hp_json_arr_begin(&j);
	for (size_t k = 0; k < n; k++)
		json_path(&j, &rp[k]);
	hp_json_arr_end(&j);
	hp_json_key(&j, "syscall");
	json_syscall(&j, op, sp);
	hp_json_key(&j, "vulnerabilities");
	json_vulnerabilities(&j);
	hp_json_obj_end(&j);
	return fflush(stdout) ? 1 : 0;
}

int main(int argc, char **argv)
{
	struct options op;
	struct run_path rp[8];
	struct syscall_price sp;
	size_t n;
	char file[4096];
	void *zero;

	/* Killed, hotpath cannot stop us or remove the folder we write in. */
	hp_die_with_parent();
	parse_options(argc, argv, &op);
	if (op.verify)
		return verify_only(&op);
	check_options(&op);

	memset(rp, 0, sizeof(rp));
	choose_paths(op.paths, rp, &n);
	snprintf(file, sizeof(file), "%s/hotpath-crossing.data", op.dir);
	if (alloc_paths(rp, n, op.chunk, op.iterations, &zero)) {
		fprintf(stderr, "hotpath-crossing: out of memory\n");
		return 1;
	}
	run_paths(rp, n, file, zero, &op);
	price_syscall(&op, &sp);
	return write_json(&op, rp, n, &sp);
}
