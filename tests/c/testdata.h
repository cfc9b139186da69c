/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Test data for the C tests: a xorshift64 generator and buffer fills.
 * Each test file defines TEST_RNG_SEED before including this, so that its
 * cases are the same on every run and a failure replays.
 */
#ifndef HOTPATH_TEST_TESTDATA_H
#define HOTPATH_TEST_TESTDATA_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

static uint64_t rng = TEST_RNG_SEED;

static inline uint64_t rnd(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

/* @size bytes (a multiple of 8) of random data. */
static inline void fill_random(uint8_t *buf, size_t size)
{
	for (size_t i = 0; i < size; i += 8) {
		uint64_t v = rnd();

		memcpy(buf + i, &v, 8);
	}
}

/* Mostly 0xff with sparse zero and 0xfe bytes: long carry ripples. */
static inline void fill_carry_edge(uint8_t *buf, size_t size)
{
	memset(buf, 0xff, size);
	for (size_t i = 0; i < size; i += 1 + rnd() % 61)
		buf[i] = (rnd() & 1) ? 0x00 : 0xfe;
}

#endif /* HOTPATH_TEST_TESTDATA_H */
