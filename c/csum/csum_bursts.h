/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The csum lab's burst bodies, one per primitive: compiled into libhotpath
 * by each primitive's registry, and into hotpath's kernel runtime
 * (c/kload/bursts.c), so that the kernel's own objects, loaded in the low
 * 2 GiB, are timed by the same loop placed beside them as every other
 * variant is timed by a loop beside it (a call across the address space
 * costs cycles of its own: docs/kernel-source.md).
 */
#ifndef HOTPATH_CSUM_BURSTS_H
#define HOTPATH_CSUM_BURSTS_H

#include <hotpath/bench.h>
#include <hotpath/csum.h>

#define HP_CSUM_COPY_MAX (64 * 1024)
#define HP_CSUM_COPY_CANARY 64
#define HP_CSUM_COPY_DST_BYTES (HP_CSUM_COPY_MAX + 2 * HP_CSUM_COPY_CANARY + 64)

/* csum_partial_copy's destination: the registry's (checked by its gate)
 * in libhotpath, the image's own in an image. */
extern uint8_t hp_csum_copy_dst[HP_CSUM_COPY_DST_BYTES];

static inline uint8_t *hp_csum_copy_dst_of(const uint8_t *src)
{
	return hp_csum_copy_dst + HP_CSUM_COPY_CANARY + ((uintptr_t)src & 63);
}

/* csum_ipv6_magic's case: the addresses, then the length and protocol. */
static inline void hp_ipv6_fields(const uint8_t *buf, uint32_t *len, uint8_t *proto)
{
	__builtin_memcpy(len, buf + 32, 4);
	*proto = buf[36];
}

static inline __attribute__((always_inline)) uint64_t
csum_burst(const void *fn_, const uint8_t *buf, size_t len_,
	   uint64_t seed, enum hp_mode mode, unsigned n)
{
	hp_csum_fn fn = (hp_csum_fn)fn_;
	int len = (int)len_;
	uint32_t s = (uint32_t)seed;

	HP_OPAQUE(fn);
	HP_OPAQUE(buf);
	HP_OPAQUE(len);
	return HP_BURST_MODES(mode, n, s, fn(buf, len, s));
}

static inline __attribute__((always_inline)) uint64_t
fold_burst(const void *fn_, const uint8_t *buf, size_t len,
	   uint64_t seed, enum hp_mode mode, unsigned n)
{
	hp_fold_fn fn = (hp_fold_fn)fn_;
	uint32_t s = (uint32_t)seed;

	HP_OPAQUE(fn);
	return HP_BURST_MODES(mode, n, s, fn(s));
}

static inline __attribute__((always_inline)) uint64_t
ipf_burst(const void *fn_, const uint8_t *buf, size_t len,
	  uint64_t seed, enum hp_mode mode, unsigned n)
{
	hp_ip_fast_fn fn = (hp_ip_fast_fn)fn_;
	unsigned int ihl = (unsigned int)(len / 4);
	uint16_t s = (uint16_t)seed;

	HP_OPAQUE(fn);
	HP_OPAQUE(buf);
	HP_OPAQUE(ihl);
	return HP_BURST_MODES(mode, n, s, fn(hp_depend(buf, s), ihl));
}

static inline __attribute__((always_inline)) uint64_t
v6_burst(const void *fn_, const uint8_t *buf, size_t size,
	 uint64_t seed, enum hp_mode mode, unsigned n)
{
	hp_ipv6_magic_fn fn = (hp_ipv6_magic_fn)fn_;
	const uint8_t *daddr = buf + 16;
	uint32_t len, s = (uint32_t)seed;
	uint8_t proto;

	hp_ipv6_fields(buf, &len, &proto);
	HP_OPAQUE(fn);
	HP_OPAQUE(buf);
	HP_OPAQUE(daddr);
	HP_OPAQUE(len);
	HP_OPAQUE(proto);
	return HP_BURST_MODES(mode, n, s, fn(buf, daddr, len, proto, s));
}

static inline __attribute__((always_inline)) uint64_t
copy_burst(const void *fn_, const uint8_t *buf, size_t len_,
	   uint64_t seed, enum hp_mode mode, unsigned n)
{
	hp_csum_copy_fn fn = (hp_csum_copy_fn)fn_;
	uint8_t *d = hp_csum_copy_dst_of(buf);
	int len = (int)len_;
	uint32_t s = (uint32_t)seed;

	HP_OPAQUE(fn);
	HP_OPAQUE(buf);
	HP_OPAQUE(d);
	HP_OPAQUE(len);
	return HP_BURST_MODES(mode, n, s, fn(buf, d, len, s));
}

#endif /* HOTPATH_CSUM_BURSTS_H */
