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

#include "../crossing.h"
#include "../../bench/engine.h"

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

int main(int argc, char **argv)
{
	const char *dir = NULL, *verify = NULL;
	char default_paths[] = "write,pwrite,writev,io_uring", *paths = default_paths;
	uint64_t chunk = 1024, count = 100 * 1024, iterations = 128;
	uint64_t blocks = 200, calls = 1000, bytes = UINT64_MAX;

	/* Killed, hotpath cannot stop us or remove the folder we write in. */
	hp_die_with_parent();
	for (int i = 1; i < argc; i++) {
		const char *opt = argv[i];

		if (i + 1 >= argc)
			usage("every option takes a value");
		const char *val = argv[++i];

		if (!strcmp(opt, "--dir"))
			dir = val;
		else if (!strcmp(opt, "--chunk"))
			chunk = number(opt, val, 1, MAX_CHUNK);
		else if (!strcmp(opt, "--count"))
			count = number(opt, val, 1, MAX_BYTES);
		else if (!strcmp(opt, "--iterations"))
			iterations = number(opt, val, 1, 100000);
		else if (!strcmp(opt, "--paths"))
			paths = argv[i];
		else if (!strcmp(opt, "--syscall-blocks"))
			blocks = number(opt, val, 0, 1000000);
		else if (!strcmp(opt, "--syscall-calls"))
			calls = number(opt, val, 1, 10000000);
		else if (!strcmp(opt, "--verify"))
			verify = val;
		else if (!strcmp(opt, "--bytes"))
			bytes = number(opt, val, 0, MAX_BYTES);
		else
			usage("unknown option");
	}
	if (verify) {
		char why[256];

		if (bytes == UINT64_MAX)
			usage("--verify FILE needs --bytes B");
		if (hp_xverify(verify, bytes, why, sizeof(why))) {
			printf("wrong: %s\n", why);
			return 1;
		}
		printf("ok\n");
		return 0;
	}
	if (!dir)
		usage("--dir DIR is required");
	if (chunk * count > MAX_BYTES)
		usage("--chunk x --count: allowed: at most 64 GiB per iteration");

	struct run_path rp[8];
	size_t n;
	char file[4096], fs[64];

	memset(rp, 0, sizeof(rp));
	choose_paths(paths, rp, &n);
	snprintf(file, sizeof(file), "%s/hotpath-crossing.data", dir);
	void *zero = calloc(1, chunk);

	for (size_t k = 0; k < n; k++) {
		rp[k].ns = calloc(iterations, sizeof(uint64_t));
		rp[k].ticks = calloc(iterations, sizeof(uint64_t));
		if (!zero || !rp[k].ns || !rp[k].ticks) {
			fprintf(stderr, "hotpath-crossing: out of memory\n");
			return 1;
		}
	}
	for (size_t k = 0; k < n; k++)
		gate(&rp[k], file, zero, chunk, count);

	for (unsigned it = 0; it < iterations; it++) {
		for (size_t j = 0; j < n; j++) {
			struct run_path *p = &rp[(j + it) % n];
			int err;

			if (strcmp(p->status, "ok"))
				continue;
			err = hp_xiteration(p->path, file, zero, chunk, count, &p->ns[p->done],
					    &p->ticks[p->done], p->reason, sizeof(p->reason));
			if (err)
				p->status = "failed";
			else
				p->done++;
		}
	}
	unlink(file);

	/* The syscall's price, with the ticks-per-cycle measured around it. */
	uint64_t *sys_ns = calloc(blocks + 1, sizeof(uint64_t));
	uint64_t *sys_ticks = calloc(blocks + 1, sizeof(uint64_t));
	double tpc_before = hp_xticks_per_cycle(101);

	for (unsigned b = 0; b < blocks; b++)
		hp_xsyscall_block((unsigned)calls, &sys_ns[b], &sys_ticks[b]);
	double tpc_after = hp_xticks_per_cycle(101);
	double tsc_hz = hp_tsc_hz();	/* the engine's calibration (clock.c) */
	struct utsname uts;
	struct hp_json j;

	uname(&uts);
	/* the engine's JSON writer (c/bench/json.c) */
	hp_json_init(&j, stdout);
	hp_json_obj_begin(&j);
	hp_json_key(&j, "schema");
	hp_json_str(&j, "hotpath.crossing/1");
	hp_json_key(&j, "kernel");
	hp_json_str(&j, uts.release);
	hp_json_key(&j, "dir");
	hp_json_str(&j, dir);
	hp_json_key(&j, "fs_type");
	hp_json_str(&j, hp_xfs_type(dir, fs, sizeof(fs)));
	hp_json_key(&j, "chunk");
	hp_json_uint(&j, chunk);
	hp_json_key(&j, "count");
	hp_json_uint(&j, count);
	hp_json_key(&j, "iterations");
	hp_json_uint(&j, iterations);
	hp_json_key(&j, "writev_batch");
	hp_json_uint(&j, hp_xwritev_batch());
	hp_json_key(&j, "uring_depth");
	hp_json_int(&j, HP_XURING_DEPTH);
	hp_json_key(&j, "tsc_hz");
	hp_json_fixed(&j, tsc_hz, 0);
	hp_json_key(&j, "paths");
	hp_json_arr_begin(&j);
	for (size_t k = 0; k < n; k++) {
		hp_json_obj_begin(&j);
		hp_json_key(&j, "name");
		hp_json_str(&j, rp[k].path->name);
		hp_json_key(&j, "desc");
		hp_json_str(&j, rp[k].path->desc);
		hp_json_key(&j, "status");
		hp_json_str(&j, rp[k].status);
		hp_json_key(&j, "reason");
		hp_json_str(&j, strcmp(rp[k].status, "ok") ? rp[k].reason : NULL);
		hp_json_key(&j, "ns");
		json_array(&j, rp[k].ns, rp[k].done);
		hp_json_key(&j, "ticks");
		json_array(&j, rp[k].ticks, rp[k].done);
		hp_json_obj_end(&j);
	}
	hp_json_arr_end(&j);
	hp_json_key(&j, "syscall");
	hp_json_obj_begin(&j);
	hp_json_key(&j, "name");
	hp_json_str(&j, "getppid");
	hp_json_key(&j, "calls_per_block");
	hp_json_uint(&j, calls);
	hp_json_key(&j, "ticks_per_cycle");
	hp_json_arr_begin(&j);
	hp_json_fixed(&j, tpc_before, 6);
	hp_json_fixed(&j, tpc_after, 6);
	hp_json_arr_end(&j);
	hp_json_key(&j, "ns");
	json_array(&j, sys_ns, (unsigned)blocks);
	hp_json_key(&j, "ticks");
	json_array(&j, sys_ticks, (unsigned)blocks);
	hp_json_obj_end(&j);
	hp_json_key(&j, "vulnerabilities");
	json_vulnerabilities(&j);
	hp_json_obj_end(&j);
	return fflush(stdout) ? 1 : 0;
}
