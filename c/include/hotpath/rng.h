/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The library's one seeded generator (test data of the gate, the AVC
 * lab's pool shuffle and workloads): the same numbers from the same seed
 * on any machine and libc, which rand() and random() do not promise.
 */
#ifndef HOTPATH_RNG_H
#define HOTPATH_RNG_H

#include <stdint.h>

/* splitmix64: one add and a 64-bit finaliser per number; any seed works,
 * 0 included, and the period is 2^64. */
static inline uint64_t hp_rng_next(uint64_t *s)
{
	uint64_t z = (*s += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

#endif /* HOTPATH_RNG_H */
