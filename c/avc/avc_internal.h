/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * What the AVC lab's files share: uniform draws from the library's seeded
 * generator (<hotpath/rng.h>), so that the pool's shuffle and the workload
 * replay from their seeds on any machine and libc.
 */
#ifndef HOTPATH_AVC_INTERNAL_H
#define HOTPATH_AVC_INTERNAL_H

#include <hotpath/rng.h>
#include <stdint.h>

/* Uniform in [0, n), n > 0: the high half of a 64x32 product (Lemire's
 * method without the rejection step; the bias, below n / 2^32, is far
 * under anything the lab measures). */
static inline uint32_t hp_avc_rand_below(uint64_t *state, uint32_t n)
{
	return (uint32_t)(((hp_rng_next(state) >> 32) * (uint64_t)n) >> 32);
}

/* Uniform in [0, 1), 53 bits. */
static inline double hp_avc_rand_unit(uint64_t *state)
{
	return (double)(hp_rng_next(state) >> 11) * 0x1.0p-53;
}

#endif /* HOTPATH_AVC_INTERNAL_H */
