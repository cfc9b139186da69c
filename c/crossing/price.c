// SPDX-License-Identifier: GPL-2.0-only
/*
 * The raw price of crossing into the kernel and back: getppid(), the
 * cheapest system call there is (it reads one pointer under RCU), called
 * through syscall() so that no C library can answer it from a cache as
 * glibc once did for getpid(). What is left is the entry and exit path,
 * with whatever the kernel's mitigations add to it.
 *
 * Also here: TSC ticks per core cycle (the engine's dependent-add chain)
 * and the name of a directory's file system (magic numbers from the
 * kernel's include/uapi/linux/magic.h).
 */
#define _GNU_SOURCE
#include "crossing.h"

#include <stdio.h>
#include <stdlib.h>
#include <sys/statfs.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <hotpath/bench.h>

void hp_xsyscall_block(unsigned calls, uint64_t *ns, uint64_t *ticks)
{
	struct timespec t0, t1;
	long sum = 0;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	uint64_t c0 = hp_xtsc();

	for (unsigned i = 0; i < calls; i++)
		sum += syscall(SYS_getppid);
	uint64_t c1 = hp_xtsc();

	clock_gettime(CLOCK_MONOTONIC, &t1);
	HP_CONSUME(sum);
	*ns = (uint64_t)(t1.tv_sec - t0.tv_sec) * 1000000000u + (uint64_t)t1.tv_nsec -
	      (uint64_t)t0.tv_nsec;
	*ticks = c1 - c0;
}

double hp_xticks_per_cycle(unsigned blocks)
{
	/* 100 x 100 dependent adds per block: ~10 us, the engine's regime. */
	enum { REPS = 100 };
	double *v;

	if (!hp_cpu_has_rdtscp())
		return 0.0;
	v = calloc(blocks ? blocks : 1, sizeof(*v));
	if (!v)
		return 0.0;
	for (unsigned i = 0; i < blocks; i++)
		v[i] = (double)hp_calib_burst(REPS) / (REPS * 100.0);
	double median = hp_median(v, blocks ? blocks : 1);

	free(v);
	return median;
}

static const struct {
	unsigned long magic;
	const char *name;
} fs_names[] = {
	{ 0x01021994, "tmpfs" },   { 0xEF53, "ext2/3/4" },     { 0x58465342, "xfs" },
	{ 0x9123683E, "btrfs" },   { 0x794c7630, "overlay" }, { 0x01021997, "9p" },
	{ 0x6969, "nfs" },         { 0x858458f6, "ramfs" },   { 0x2fc12fc1, "zfs" },
	{ 0xF2F52010, "f2fs" },    { 0x65735546, "fuse" },    { 0x4d44, "vfat" },
};

const char *hp_xfs_type(const char *dir, char *buf, size_t len)
{
	struct statfs st;

	if (statfs(dir, &st)) {
		snprintf(buf, len, "unknown");
		return buf;
	}
	for (size_t i = 0; i < sizeof(fs_names) / sizeof(fs_names[0]); i++) {
		if ((unsigned long)st.f_type == fs_names[i].magic) {
			snprintf(buf, len, "%s", fs_names[i].name);
			return buf;
		}
	}
	snprintf(buf, len, "0x%lx", (unsigned long)st.f_type);
	return buf;
}
