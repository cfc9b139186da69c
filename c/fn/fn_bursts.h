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

/*
 * FN_BURST(name, fntype, ctype, lentype, call): the body for functions of
 * type @fntype, the chained value (crc, initval, seed) of type @ctype and
 * the length of type @lentype, each call written as @call over fn, buf,
 * len and the chained c.
 */
#define FN_BURST(name, fntype, ctype, lentype, call)				\
	static inline __attribute__((always_inline)) uint64_t			\
	name(const void *fn_, const uint8_t *buf, size_t len_, uint64_t seed,	\
	     enum hp_mode mode, unsigned n)					\
	{									\
		fntype fn = (fntype)fn_;					\
		lentype len = (lentype)len_;					\
		ctype c = (ctype)seed;						\
										\
		HP_OPAQUE(fn);							\
		HP_OPAQUE(buf);							\
		HP_OPAQUE(len);							\
		return HP_BURST_MODES(mode, n, c, call);			\
	}

FN_BURST(fn_crc32_burst, hp_fn_crc32_fn, uint32_t, size_t, fn(c, buf, len))
FN_BURST(fn_crc64_burst, hp_fn_crc64_fn, uint64_t, size_t, fn(c, buf, len))
FN_BURST(fn_crc16_burst, hp_fn_crc16_fn, uint16_t, size_t, fn(c, buf, len))
FN_BURST(fn_jhash_burst, hp_fn_jhash_fn, uint32_t, uint32_t, fn(buf, len, c))
FN_BURST(fn_xxh32_burst, hp_fn_xxh32_fn, uint32_t, size_t, fn(buf, len, c))
/* xxh64 and the three siphash forms: uint64_t f(const void *, size_t, uint64_t). */
FN_BURST(fn_hash64_burst, hp_fn_xxh64_fn, uint64_t, size_t, fn(buf, len, c))

#endif /* HOTPATH_FN_BURSTS_H */
