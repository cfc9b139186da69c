/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The fn lab's burst bodies for the copy and search kinds, compiled into
 * libhotpath (registry_copy.c, registry_search.c) and into hotpath's
 * kernel runtime (c/kload/bursts/bursts.c). Their buffers are each side's
 * own static areas (the library's, an image's: an image cannot reach the
 * library's data from the low 2 GiB), at the source's alignment as the
 * engine placed it.
 *
 * Copies: the source is the engine's buffer (memmove with overlap: both in
 * the area); the destination's alignment and the overlap are the run's
 * geometry (--param dst_align, overlap), which the copy primitives hand to
 * an image's bursts through the image's kit (struct hp_fn_copy_kit)
 * before its variant is checked. Searches: the area is written before the
 * timed loop (the searched-for byte, NUL or bit last), so the timed calls
 * find it where the gate checked it.
 *
 * Latency mode chains through addresses (hp_depend): each call's buffers
 * wait for the previous call's result, which memcpy and its kin return at
 * once (it is the destination), so latency here is back-to-back calls
 * with a dependency, not the time until the bytes have landed.
 */
#ifndef HOTPATH_FN_MEM_BURSTS_H
#define HOTPATH_FN_MEM_BURSTS_H

#include <hotpath/bench.h>
#include <hotpath/fn.h>

/* The largest size of a copy or search primitive. */
#define HP_FN_MEM_MAX (64 * 1024)
#define HP_FN_AREA_BYTES (HP_FN_MEM_MAX + 512)

/* overlap: none, forward (dst above src), backward (dst below src) */
enum { HP_FN_OVERLAP_NONE, HP_FN_OVERLAP_FORWARD, HP_FN_OVERLAP_BACKWARD };

struct hp_fn_copy_geom {
	uint32_t dst_align;	/* the destination's offset from 64 bytes, 0..63 */
	uint32_t overlap;	/* HP_FN_OVERLAP_* (memmove only) */
};

/* Each side's own (the library's, an image's). */
extern struct hp_fn_copy_geom hp_fn_copy_geom;
extern uint8_t hp_fn_copy_area[HP_FN_AREA_BYTES];
extern uint8_t hp_fn_search_area[HP_FN_AREA_BYTES];

/* A copy primitive's burst copies and where their side keeps its geometry:
 * an image's hp_kburst_memcpy points at .sites, so the library finds the
 * image's geometry from the variant's burst (registry_copy.c). */
#define HP_FN_COPY_KIT_MAGIC 0x68702d666e636f70ull	/* "hp-fncop" */
struct hp_fn_copy_kit {
	hp_burst_fn sites[HP_BURST_SITES];
	uint64_t magic;
	struct hp_fn_copy_geom *geom;
};

#define HP_FN_COPY_KIT(kit, body)						\
	HP_BURST_COPY8_(kit, body, 1) HP_BURST_COPY8_(kit, body, 2)	\
	HP_BURST_COPY8_(kit, body, 3) HP_BURST_COPY8_(kit, body, 4)	\
	HP_BURST_COPY8_(kit, body, 5) HP_BURST_COPY8_(kit, body, 6)	\
	struct hp_fn_copy_kit kit = {						\
		.sites = { HP_BURST_NAME8_(kit, 1), HP_BURST_NAME8_(kit, 2),	\
			   HP_BURST_NAME8_(kit, 3), HP_BURST_NAME8_(kit, 4),	\
			   HP_BURST_NAME8_(kit, 5), HP_BURST_NAME8_(kit, 6) }, \
		.magic = HP_FN_COPY_KIT_MAGIC,					\
		.geom = &hp_fn_copy_geom,					\
	}

/* The distance, 1..64, from an address at offset @from (mod 64) up to the
 * next one at offset @to. */
static inline size_t hp_fn_gap(size_t from, size_t to)
{
	size_t d = (to - from) & 63;

	return d ? d : 64;
}

/*
 * Where a copy of @len bytes goes, from the source the engine placed at
 * @buf: without overlap, the destination at @g->dst_align from @base (a
 * 64-byte boundary with HP_FN_MEM_MAX + 256 bytes behind it) and the
 * source is @buf; with overlap both are in the area, the source at @buf's
 * alignment, the destination the first address above it (forward) or
 * below it (backward) with dst_align: 1..64 bytes apart, so that lengths
 * above that distance overlap.
 */
static inline void hp_fn_copy_place(const struct hp_fn_copy_geom *g, uint8_t *base,
				    const uint8_t *buf, uint8_t **dst, const uint8_t **src)
{
	size_t sa = (uintptr_t)buf & 63, da = g->dst_align & 63;

	if (g->overlap == HP_FN_OVERLAP_FORWARD) {
		*src = base + sa;
		*dst = base + sa + hp_fn_gap(sa, da);
	} else if (g->overlap == HP_FN_OVERLAP_BACKWARD) {
		*dst = base + da;
		*src = base + da + hp_fn_gap(da, sa);
	} else {
		*dst = base + da;
		*src = buf;
	}
}

/* memcpy and memmove: void *f(void *dst, const void *src, size_t len). */
static inline __attribute__((always_inline)) uint64_t
fn_copy_burst(const void *fn_, const uint8_t *buf, size_t len, uint64_t seed,
	      enum hp_mode mode, unsigned n)
{
	hp_fn_memcpy_fn fn = (hp_fn_memcpy_fn)fn_;
	uint8_t *d;
	const uint8_t *s;
	uint64_t r = seed;

	hp_fn_copy_place(&hp_fn_copy_geom, hp_fn_copy_area + 64, buf, &d, &s);
	HP_OPAQUE(fn);
	HP_OPAQUE(d);
	HP_OPAQUE(s);
	HP_OPAQUE(len);
	return HP_BURST_MODES(mode, n, r,
			      (uintptr_t)fn((void *)hp_depend(d, r), hp_depend(s, r), len));
}

/* memset: void *f(void *s, int c, size_t n), at the engine's alignment;
 * the byte is the seed's low byte. */
static inline __attribute__((always_inline)) uint64_t
fn_memset_burst(const void *fn_, const uint8_t *buf, size_t len, uint64_t seed,
		enum hp_mode mode, unsigned n)
{
	hp_fn_memset_fn fn = (hp_fn_memset_fn)fn_;
	uint8_t *d = hp_fn_copy_area + 64 + ((uintptr_t)buf & 63);
	int c = (int)(seed & 0xff);
	uint64_t r = seed;

	HP_OPAQUE(fn);
	HP_OPAQUE(d);
	HP_OPAQUE(c);
	HP_OPAQUE(len);
	return HP_BURST_MODES(mode, n, r, (uintptr_t)fn((void *)hp_depend(d, r), c, len));
}

/* ---- search ---- */

/* @n bytes of @v at @p, with no call a kernel image could not resolve. */
static inline void hp_fn_fill(uint8_t *p, int v, size_t n)
{
	__asm__ volatile("rep stosb" : "+D"(p), "+c"(n) : "a"(v) : "memory");
}

/* The search case at @p, @len bytes, in the layout the gate checks: */
#define HP_FN_MEMCHR_BYTE 0x5a
static inline void hp_fn_memchr_case(uint8_t *p, size_t len)
{
	if (len) {	/* the byte last, nothing like it before */
		hp_fn_fill(p, 0, len - 1);
		p[len - 1] = HP_FN_MEMCHR_BYTE;
	}
}

static inline void hp_fn_strlen_case(uint8_t *p, size_t len)
{
	hp_fn_fill(p, 'a', len);	/* len characters, the NUL after */
	p[len] = 0;
}

static inline void hp_fn_bits_case(uint8_t *p, size_t len)
{
	hp_fn_fill(p, 0, len);	/* the last bit of the bitmap set, no other */
	if (len)
		p[len - 1] = 0x80;
}

static inline uint8_t *hp_fn_search_at(const uint8_t *buf)
{
	return hp_fn_search_area + 64 + ((uintptr_t)buf & 63);
}

static inline __attribute__((always_inline)) uint64_t
fn_memchr_burst(const void *fn_, const uint8_t *buf, size_t len, uint64_t seed,
		enum hp_mode mode, unsigned n)
{
	hp_fn_memchr_fn fn = (hp_fn_memchr_fn)fn_;
	uint8_t *p = hp_fn_search_at(buf);
	int c = HP_FN_MEMCHR_BYTE;
	uint64_t r = seed;

	hp_fn_memchr_case(p, len);
	HP_OPAQUE(fn);
	HP_OPAQUE(p);
	HP_OPAQUE(c);
	HP_OPAQUE(len);
	return HP_BURST_MODES(mode, n, r, (uintptr_t)fn(hp_depend(p, r), c, len));
}

static inline __attribute__((always_inline)) uint64_t
fn_strlen_burst(const void *fn_, const uint8_t *buf, size_t len, uint64_t seed,
		enum hp_mode mode, unsigned n)
{
	hp_fn_strlen_fn fn = (hp_fn_strlen_fn)fn_;
	uint8_t *p = hp_fn_search_at(buf);
	uint64_t r = seed;

	hp_fn_strlen_case(p, len);
	HP_OPAQUE(fn);
	HP_OPAQUE(p);
	return HP_BURST_MODES(mode, n, r, fn((const char *)hp_depend(p, r)));
}

static inline __attribute__((always_inline)) uint64_t
fn_strnlen_burst(const void *fn_, const uint8_t *buf, size_t len, uint64_t seed,
		 enum hp_mode mode, unsigned n)
{
	hp_fn_strnlen_fn fn = (hp_fn_strnlen_fn)fn_;
	uint8_t *p = hp_fn_search_at(buf);
	uint64_t r = seed;

	hp_fn_fill(p, 'a', len + 1);	/* no NUL within count = len */
	HP_OPAQUE(fn);
	HP_OPAQUE(p);
	HP_OPAQUE(len);
	return HP_BURST_MODES(mode, n, r, fn((const char *)hp_depend(p, r), len));
}

/* size = the bitmap's bytes (a multiple of 8), nbits = 8 * size, start 0. */
static inline __attribute__((always_inline)) uint64_t
fn_find_bit_burst(const void *fn_, const uint8_t *buf, size_t len, uint64_t seed,
		  enum hp_mode mode, unsigned n)
{
	hp_fn_find_bit_fn fn = (hp_fn_find_bit_fn)fn_;
	uint8_t *p = hp_fn_search_area + 64 + ((uintptr_t)buf & 63);
	unsigned long nbits = 8 * (unsigned long)len, start = 0;
	uint64_t r = seed;

	hp_fn_bits_case(p, len);
	HP_OPAQUE(fn);
	HP_OPAQUE(p);
	HP_OPAQUE(nbits);
	HP_OPAQUE(start);
	return HP_BURST_MODES(mode, n, r,
			      fn((const unsigned long *)hp_depend(p, r), nbits, start));
}

#endif /* HOTPATH_FN_MEM_BURSTS_H */
