// SPDX-License-Identifier: GPL-2.0-only
/*
 * The clock: TSC frequency, ticks per core cycle, a second clock from
 * perf_event_open where the machine has one, and CPU pinning.
 *
 * The TSC runs at a fixed rate that is not the core's: on the machines
 * this was written on it ticks at ~2 GHz while the core runs faster and
 * drifts. So core cycles are measured, not assumed: a chain of dependent
 * one-cycle register adds takes exactly one core cycle per add, and timing
 * it in the same short bursts as the variants gives ticks per cycle at the
 * moment of measurement.
 */
#define _GNU_SOURCE
#include "engine.h"

#include <errno.h>
#include <linux/perf_event.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

static double now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC_RAW, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

/*
 * TSC ticks per second: the one calibration, the runner's and the crossing
 * program's (c/crossing/tool, which runs in a guest without rdtscp too).
 * Both ends read the TSC fenced by lfence, without rdtscp: over 20 ms the
 * difference between the fences does not show.
 */
double hp_tsc_hz(void)
{
	/* Three 20 ms windows against CLOCK_MONOTONIC_RAW; the median
	 * absorbs one preemption inside a window. */
	double r[3];

	for (int i = 0; i < 3; i++) {
		double t0 = now_ns();
		uint64_t c0 = hp_tsc_begin();

		while (now_ns() - t0 < 20e6)
			;
		uint64_t c1 = hp_tsc_begin();
		double t1 = now_ns();

		r[i] = (c1 - c0) / ((t1 - t0) * 1e-9);
	}
	return hp_median(r, 3);
}

double hp_tsc_granularity(void)
{
	/* The smallest step between two different TSC reads. On some
	 * virtual machines the counter advances in steps of 20 or more
	 * ticks, which bounds the resolution of one sample. */
	uint64_t prev = hp_tsc_begin(), best = UINT64_MAX;

	for (int k = 0; k < 64;) {
		uint64_t t = hp_tsc_begin();

		if (t != prev) {
			if (t - prev < best)
				best = t - prev;
			prev = t;
			k++;
		}
	}
	return (double)best;
}

/*
 * 100 dependent adds: each needs the previous one's result. Register plus
 * register, never an immediate: Intel's Golden Cove and later cores fold
 * chains of add-immediate in the renamer, several per cycle (an Emerald
 * Rapids read `add $1,reg` at 0.14 to 0.3 ticks per "cycle", a 15 GHz core),
 * while add reg,reg takes one cycle on every x86 core.
 */
#define ADD10 "add %1,%0\n\tadd %1,%0\n\tadd %1,%0\n\tadd %1,%0\n\t" \
	      "add %1,%0\n\tadd %1,%0\n\tadd %1,%0\n\tadd %1,%0\n\t" \
	      "add %1,%0\n\tadd %1,%0\n\t"

static inline uint64_t chain100(uint64_t x)
{
	uint64_t one = 1;

	HP_OPAQUE(one);
	__asm__(ADD10 ADD10 ADD10 ADD10 ADD10 ADD10 ADD10 ADD10 ADD10 ADD10
		: "+r"(x) : "r"(one));
	return x;
}

uint64_t hp_calib_burst(unsigned reps)
{
	uint64_t x = reps, t;

	t = HP_TIMED(reps, x = chain100(x));
	HP_CONSUME(x);
	return t;
}

double hp_timer_overhead(void)
{
	double v[201];

	for (int i = 0; i < 201; i++)
		v[i] = (double)HP_TIMED(0, (void)0);
	return hp_median(v, 201);
}

static long perf_open(void)
{
	struct perf_event_attr a;

	memset(&a, 0, sizeof(a));
	a.type = PERF_TYPE_HARDWARE;
	a.size = sizeof(a);
	a.config = PERF_COUNT_HW_CPU_CYCLES;
	a.disabled = 1;
	a.exclude_kernel = 1;
	a.exclude_hv = 1;
	return syscall(SYS_perf_event_open, &a, 0, -1, -1, 0);
}

double hp_perf_cycles_per_add(const char **why)
{
	static char msg[160];
	uint64_t x = 1, count = 0;
	double best = -1;
	long fd = perf_open();

	if (fd < 0) {
		snprintf(msg, sizeof(msg), "perf_event_open(cycles): %s",
			 strerror(errno));
		*why = msg;
		return -1;
	}
	for (int i = 0; i < 21; i++) {
		ioctl(fd, PERF_EVENT_IOC_RESET, 0);
		ioctl(fd, PERF_EVENT_IOC_ENABLE, 0);
		for (unsigned r = 0; r < 2000; r++)
			x = chain100(x);
		ioctl(fd, PERF_EVENT_IOC_DISABLE, 0);
		if (read(fd, &count, sizeof(count)) != sizeof(count)) {
			snprintf(msg, sizeof(msg), "read(perf fd): %s",
				 strerror(errno));
			*why = msg;
			close(fd);
			return -1;
		}
		double per = count / (100.0 * 2000);

		if (best < 0 || per < best)
			best = per;
	}
	HP_CONSUME(x);
	close(fd);
	if (count == 0) {
		*why = "perf_event_open(cycles) opened but counted nothing";
		return -1;
	}
	*why = NULL;
	return best;
}

int hp_pin_cpu(int cpu)
{
	cpu_set_t set;

	if (cpu < 0) {
		if (sched_getaffinity(0, sizeof(set), &set))
			return -1;
		for (int c = CPU_SETSIZE - 1; c >= 0; c--)
			if (CPU_ISSET(c, &set)) {
				cpu = c;
				break;
			}
	}
	if (cpu < 0)
		return -1;
	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	if (sched_setaffinity(0, sizeof(set), &set))
		return -1;
	return cpu;
}
