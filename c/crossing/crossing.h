/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The kernel-crossing lab's user-space side (seed 001): the seed's file
 * workload (open, COUNT writes of CHUNK zero bytes, close) through each way
 * user space has of doing it, each iteration timed; the raw price of one
 * system call; and what the machine says about its mitigations.
 *
 * The kernel side (kernel_write() from a module) is kmod/; the Python lab
 * (python/hotpath/labs/crossing/: run.py on the host, vm.py in a guest
 * kernel) runs both through one static program (c/crossing/tool/main.c).
 */
#ifndef HOTPATH_CROSSING_H
#define HOTPATH_CROSSING_H

#include <stddef.h>
#include <stdint.h>

/*
 * One way of writing @count chunks of @chunk bytes from @zero to @fd,
 * starting at offset 0. Returns 0, or -errno with @why filled in.
 */
typedef int (*hp_xwrite_fn)(int fd, const void *zero, size_t chunk, size_t count,
			    char *why, size_t whylen);

struct hp_xpath {
	const char *name;        /* kebab-free: the CLI's --paths word */
	hp_xwrite_fn write_all;
	const char *desc;        /* one line: which calls, how batched */
	const char *unavailable; /* why it cannot run here, or NULL */
};

extern const struct hp_xpath hp_xpaths[];
extern const size_t hp_nxpaths;

const struct hp_xpath *hp_xpath_find(const char *name);

/* How many chunks one writev() call carries (IOV_MAX here). */
size_t hp_xwritev_batch(void);
/* How many writes one io_uring submission carries (its queue depth). */
#define HP_XURING_DEPTH 64

/*
 * The TSC, fenced on both sides. Not the engine's hp_tsc_end(): that one
 * uses rdtscp, which QEMU's default CPU model under TCG does not have, and
 * this program must run in such a guest too. At millisecond iterations
 * the difference between the two fences does not show.
 */
static inline uint64_t hp_xtsc(void)
{
	uint32_t lo, hi;

	__asm__ volatile("lfence\n\trdtsc\n\tlfence" : "=a"(lo), "=d"(hi) :: "memory");
	return ((uint64_t)hi << 32) | lo;
}

/*
 * One iteration of the workload at @file: open(O_WRONLY|O_CREAT|O_TRUNC),
 * the writes, close, all timed (as the module times its kernel_write()
 * loop): @ns from CLOCK_MONOTONIC, @ticks from the TSC.
 * Returns 0, or -errno with @why filled in.
 */
int hp_xiteration(const struct hp_xpath *path, const char *file, const void *zero,
		  size_t chunk, size_t count, uint64_t *ns, uint64_t *ticks,
		  char *why, size_t whylen);

/*
 * The file holds exactly @bytes bytes, all zero. Returns 0, or -1 with
 * @why saying what differs (size, or the offset of the first non-zero
 * byte), or -errno when it cannot be read.
 */
int hp_xverify(const char *file, uint64_t bytes, char *why, size_t whylen);

/*
 * The raw price of crossing: @calls getppid() system calls (through
 * syscall(), so no library can cache the answer), timed as one block.
 */
void hp_xsyscall_block(unsigned calls, uint64_t *ns, uint64_t *ticks);

/*
 * TSC ticks per core cycle now, from chains of dependent one-cycle adds
 * (the engine's calibration, hp_calib_burst); the median of @blocks.
 * 0 when the CPU has no rdtscp, which the engine's calibration needs.
 */
double hp_xticks_per_cycle(unsigned blocks);

/* The file system type under @dir as a name ("tmpfs", "ext4"), or hex. */
const char *hp_xfs_type(const char *dir, char *buf, size_t len);

#endif /* HOTPATH_CROSSING_H */
