/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The fn lab's burst bodies for the crc and hash kinds: compiled into
 * libhotpath by the registries and into hotpath's kernel runtime
 * (c/kload/bursts/bursts.c), so that a kernel function loaded in the low
 * 2 GiB is timed by the same loop placed beside it (c/csum/csum_bursts.h
 * says why). One body per function type; each primitive makes its own
 * HP_BURST_COPIES of it, so no two primitives share a call site.
 *
 * Latency mode chains the result into the next call's seed (crc, initval,
 * seed); the copy and search kinds are in fn_mem_bursts.h.
 */
#ifndef HOTPATH_FN_BURSTS_H
#define HOTPATH_FN_BURSTS_H

#include <hotpath/bench.h>
#include <hotpath/fn.h>

static inline __attribute__((always_inline)) uint64_t
fn_crc32_burst(const void *fn_, const uint8_t *buf, size_t len, uint64_t seed,
	       enum hp_mode mode, unsigned n)
{
	hp_fn_crc32_fn fn = (hp_fn_crc32_fn)fn_;
	uint32_t c = (uint32_t)seed;

	HP_OPAQUE(fn);
	HP_OPAQUE(buf);
	HP_OPAQUE(len);
	return HP_BURST_MODES(mode, n, c, fn(c, buf, len));
}

static inline __attribute__((always_inline)) uint64_t
fn_crc64_burst(const void *fn_, const uint8_t *buf, size_t len, uint64_t seed,
	       enum hp_mode mode, unsigned n)
{
	hp_fn_crc64_fn fn = (hp_fn_crc64_fn)fn_;
	uint64_t c = seed;

	HP_OPAQUE(fn);
	HP_OPAQUE(buf);
	HP_OPAQUE(len);
	return HP_BURST_MODES(mode, n, c, fn(c, buf, len));
}

static inline __attribute__((always_inline)) uint64_t
fn_crc16_burst(const void *fn_, const uint8_t *buf, size_t len, uint64_t seed,
	       enum hp_mode mode, unsigned n)
{
	hp_fn_crc16_fn fn = (hp_fn_crc16_fn)fn_;
	uint16_t c = (uint16_t)seed;

	HP_OPAQUE(fn);
	HP_OPAQUE(buf);
	HP_OPAQUE(len);
	return HP_BURST_MODES(mode, n, c, fn(c, buf, len));
}

static inline __attribute__((always_inline)) uint64_t
fn_jhash_burst(const void *fn_, const uint8_t *buf, size_t len_, uint64_t seed,
	       enum hp_mode mode, unsigned n)
{
	hp_fn_jhash_fn fn = (hp_fn_jhash_fn)fn_;
	uint32_t len = (uint32_t)len_;
	uint32_t h = (uint32_t)seed;

	HP_OPAQUE(fn);
	HP_OPAQUE(buf);
	HP_OPAQUE(len);
	return HP_BURST_MODES(mode, n, h, fn(buf, len, h));
}

static inline __attribute__((always_inline)) uint64_t
fn_xxh32_burst(const void *fn_, const uint8_t *buf, size_t len, uint64_t seed,
	       enum hp_mode mode, unsigned n)
{
	hp_fn_xxh32_fn fn = (hp_fn_xxh32_fn)fn_;
	uint32_t h = (uint32_t)seed;

	HP_OPAQUE(fn);
	HP_OPAQUE(buf);
	HP_OPAQUE(len);
	return HP_BURST_MODES(mode, n, h, fn(buf, len, h));
}

/* xxh64 and the three siphash forms: uint64_t f(const void *, size_t, uint64_t). */
static inline __attribute__((always_inline)) uint64_t
fn_hash64_burst(const void *fn_, const uint8_t *buf, size_t len, uint64_t seed,
		enum hp_mode mode, unsigned n)
{
	hp_fn_xxh64_fn fn = (hp_fn_xxh64_fn)fn_;
	uint64_t h = seed;

	HP_OPAQUE(fn);
	HP_OPAQUE(buf);
	HP_OPAQUE(len);
	return HP_BURST_MODES(mode, n, h, fn(buf, len, h));
}

#endif /* HOTPATH_FN_BURSTS_H */
