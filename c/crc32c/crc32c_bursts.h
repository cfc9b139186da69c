/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The crc32c primitive's burst body: compiled into libhotpath by the
 * registry and into hotpath's kernel runtime (c/kload/bursts.c), so the
 * kernel's own objects are timed by the same loop placed beside them
 * (c/csum/csum_bursts.h says why).
 */
#ifndef HOTPATH_CRC32C_BURSTS_H
#define HOTPATH_CRC32C_BURSTS_H

#include <hotpath/bench.h>
#include <hotpath/crc32c.h>

static inline __attribute__((always_inline)) uint64_t
crc32c_burst(const void *fn_, const uint8_t *buf,
	     size_t len, uint64_t seed, enum hp_mode mode,
	     unsigned n)
{
	hp_crc32c_fn fn = (hp_crc32c_fn)fn_;
	uint32_t c = (uint32_t)seed;

	HP_OPAQUE(fn);
	HP_OPAQUE(buf);
	HP_OPAQUE(len);
	return HP_BURST_MODES(mode, n, c, fn(c, buf, len));
}

#endif /* HOTPATH_CRC32C_BURSTS_H */
