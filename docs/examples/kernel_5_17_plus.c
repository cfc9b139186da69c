// SPDX-License-Identifier: GPL-2.0-only
/*
 * kernel-5.17's checksum and a little more work: a chain of dependent
 * one-cycle adds on its result, about HP_EXTRA_PERMILLE/1000 of what
 * kernel-5.17 takes in latency mode (modelled as len/8 + 8 cycles: one
 * adc per 8 bytes and the call), rounded down, so 0 where the share is
 * under one add. The adds add zero: the result stays right. A whole
 * cycle is the smallest step, so at 40 bytes (about 10 cycles) the
 * smallest change this makes is 10%; in throughput mode calls overlap
 * the chain and the change is smaller. The power check prints the ratio
 * it measured beside the nominal share.
 *
 * The engine's power check (docs/engine.md, scripts/power_check.py
 * --extra 0.02) times this with 0 permille (the same call and loop test,
 * no add) against N permille: how small a change `hotpath compare` calls
 * in at least 19 of 20 trials.
 *
 *   hotpath csum --variants kernel-5.17 --with-cflags=-DHP_EXTRA_PERMILLE=20 \
 *       --with docs/examples/kernel_5_17_plus.c:kernel_5_17_plus
 */
#include <hotpath/csum.h>

#ifndef HP_EXTRA_PERMILLE
#define HP_EXTRA_PERMILLE 50
#endif
/* The function's name: the power check builds two, 0 and N permille. */
#ifndef HP_EXTRA_FN
#define HP_EXTRA_FN kernel_5_17_plus
#endif

uint32_t HP_EXTRA_FN(const void *buf, int len, uint32_t sum);

/* Read at run time, so that 0 and N permille build the same code. */
static volatile unsigned extra_permille = HP_EXTRA_PERMILLE;

uint32_t HP_EXTRA_FN(const void *buf, int len, uint32_t sum)
{
	uint64_t x = hp_csum_kernel_5_17(buf, len, sum);
	unsigned n = (unsigned)(((unsigned long)len / 8 + 8) * extra_permille / 1000);

	for (unsigned i = 0; i < n; i++)
		__asm__ volatile("add $0, %0" : "+r"(x));
	return (uint32_t)x;
}
