// SPDX-License-Identifier: GPL-2.0-only
/*
 * The fn lab's copy kind: memcpy, memmove and memset, with the kernel's
 * prototypes; the references are byte loops (mem_ref.c), the peers
 * glibc's functions. Axes: the size, the source's alignment (the engine's
 * --align), the destination's (--param dst_align=0..63) and, for memmove,
 * the overlap (--param overlap=none|forward|backward); memset's one
 * buffer takes the engine's alignment.
 *
 * The check copies from the gate's buffer (guard pages behind and before
 * it) into a buffer of its own that ends against a guard page too, and
 * compares the destination and 128 bytes around it (up to the guard)
 * with what the reference does to the same bytes: a byte copied wrong, a
 * byte written outside [dst, dst + len) or a wrong return value is a
 * mismatch, said with its offset.
 */
#include <hotpath/bench.h>
#include <hotpath/fn.h>
#include <hotpath/guard.h>
#include "fn_mem_bursts.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct hp_fn_copy_geom hp_fn_copy_geom;
uint8_t hp_fn_copy_area[HP_FN_AREA_BYTES] __attribute__((aligned(64)));

#define FN_COPY_SIZES { 8, 64, 256, 1500, 4096, 65536 }
#define AROUND 128

static struct hp_guarded dst_map;
static uint8_t scratch[HP_FN_MEM_MAX + 4 * AROUND];
static char detail[160];

static struct hp_guarded *dst_buffer(void)
{
	if (!dst_map.base && hp_guarded_alloc(&dst_map, HP_FN_MEM_MAX + 4096)) {
		perror("hotpath: fn copy check: mmap");
		abort();
	}
	return &dst_map;
}

enum copy_op { OP_MEMCPY, OP_MEMMOVE, OP_MEMSET };

/* The window [lo, hi) of the destination buffer the check fills, lets
 * the variant write and compares; the source and destination in it. */
struct copy_case {
	uint8_t *lo, *hi, *dst;
	const uint8_t *src;
};

static void place(enum copy_op op, const uint8_t *buf, size_t len, struct copy_case *c)
{
	struct hp_guarded *g = dst_buffer();
	uint8_t *end = g->base + g->size;

	if (op == OP_MEMMOVE && hp_fn_copy_geom.overlap != HP_FN_OVERLAP_NONE) {
		uint8_t *base = hp_guarded_place(g, len + AROUND, 0);

		hp_fn_copy_place(&hp_fn_copy_geom, base, buf, &c->dst, &c->src);
		c->lo = base - AROUND > g->base ? base - AROUND : g->base;
	} else {
		size_t da = op == OP_MEMSET ? (uintptr_t)buf & 63 : hp_fn_copy_geom.dst_align;

		c->dst = hp_guarded_place(g, len, da);
		c->src = buf;
		c->lo = c->dst - AROUND > g->base ? c->dst - AROUND : g->base;
	}
	c->hi = end;
}

/* 0 when @v did to the window what the reference does to its copy. */
static int copy_case(enum copy_op op, const struct hp_variant *v, const uint8_t *buf,
		     size_t len, uint64_t seed, uint64_t *expected, uint64_t *got)
{
	struct copy_case c;
	size_t span, i;
	int byte = (int)(seed & 0xff);
	void *ret;

	place(op, buf, len, &c);
	span = (size_t)(c.hi - c.lo);
	for (i = 0; i < span; i++)
		c.lo[i] = (uint8_t)(0xa5 ^ (i * 29));
	if (c.src >= c.lo && c.src < c.hi)	/* overlapping: the source in the window */
		memcpy((void *)(uintptr_t)c.src, buf, len);
	memcpy(scratch, c.lo, span);
	if (op == OP_MEMSET)
		hp_fn_memset_ref(scratch + (c.dst - c.lo), byte, len);
	else
		hp_fn_memmove_ref(scratch + (c.dst - c.lo),
				  c.src >= c.lo && c.src < c.hi ? scratch + (c.src - c.lo) : c.src,
				  len);
	if (op == OP_MEMSET)
		ret = ((hp_fn_memset_fn)v->fn)(c.dst, byte, len);
	else
		ret = ((hp_fn_memcpy_fn)v->fn)(c.dst, c.src, len);
	if (ret != c.dst) {
		*expected = (uintptr_t)c.dst;
		*got = (uintptr_t)ret;
		snprintf(detail, sizeof(detail), "returned %p, not the destination %p", ret,
			 (void *)c.dst);
		return 1;
	}
	for (i = 0; i < span; i++) {
		if (c.lo[i] == scratch[i])
			continue;
		ptrdiff_t at = (c.lo + i) - c.dst;

		*expected = scratch[i];
		*got = c.lo[i];
		if (at < 0)
			snprintf(detail, sizeof(detail),
				 "wrote %td byte(s) before the destination (byte 0x%02x, was 0x%02x)",
				 -at, c.lo[i], scratch[i]);
		else if ((size_t)at >= len)
			snprintf(detail, sizeof(detail),
				 "wrote byte %td past the destination's %zu (0x%02x, was 0x%02x)",
				 at - (ptrdiff_t)len, len, c.lo[i], scratch[i]);
		else
			snprintf(detail, sizeof(detail),
				 "destination byte %td is 0x%02x, the reference's 0x%02x", at,
				 c.lo[i], scratch[i]);
		return 1;
	}
	*expected = *got = 0;
	return 0;
}

static const char *copy_explain(const uint8_t *buf, size_t len, uint64_t seed, uint64_t got)
{
	return detail[0] ? detail : NULL;
}

static int copy_size_ok(size_t size)
{
	return size <= HP_FN_MEM_MAX;
}

static const char *copy_promise_name(uint32_t promise)
{
	return "the reference's bytes in the destination, nothing written around it, "
	       "the destination returned";
}

static int parse_align(const char *value, uint32_t *out)
{
	char *end;
	unsigned long a = strtoul(value, &end, 10);

	if (!*value || *end || a > 63 || value[0] == '-')
		return -1;
	*out = (uint32_t)a;
	return 0;
}

static const char *memcpy_configure(const char *key, const char *value)
{
	if (strcmp(key, "dst_align"))
		return "dst_align=N (the destination's offset from a 64-byte boundary, 0..63)";
	return parse_align(value, &hp_fn_copy_geom.dst_align)
		       ? "dst_align=N with N in 0..63" : NULL;
}

static const char *memmove_configure(const char *key, const char *value)
{
	if (!strcmp(key, "overlap")) {
		if (!strcmp(value, "none"))
			hp_fn_copy_geom.overlap = HP_FN_OVERLAP_NONE;
		else if (!strcmp(value, "forward"))
			hp_fn_copy_geom.overlap = HP_FN_OVERLAP_FORWARD;
		else if (!strcmp(value, "backward"))
			hp_fn_copy_geom.overlap = HP_FN_OVERLAP_BACKWARD;
		else
			return "overlap=none|forward|backward (forward: the destination above "
			       "the source, backward: below)";
		return NULL;
	}
	if (strcmp(key, "dst_align"))
		return "dst_align=0..63 or overlap=none|forward|backward";
	return memcpy_configure(key, value);
}

/* An image's bursts read the image's geometry: give it the run's before
 * the variant is checked and timed (fn_mem_bursts.h). Never unavailable. */
static const char *copy_sync(const struct hp_variant *v)
{
	const struct hp_fn_copy_kit *kit = (const struct hp_fn_copy_kit *)v->burst;

	if (kit && kit->magic == HP_FN_COPY_KIT_MAGIC && kit->geom != &hp_fn_copy_geom)
		*kit->geom = hp_fn_copy_geom;
	return NULL;
}

static void *copy_empty(void *dst, const void *src, size_t len)
{
	return dst;
}

static void *memset_empty(void *s, int c, size_t n)
{
	return s;
}

#define FN_COPY_CHECK(prim, op, body)						\
	static int prim##_check(const struct hp_variant *v, const uint8_t *buf,	\
				size_t len, uint64_t seed, uint64_t *expected,	\
				uint64_t *got)					\
	{									\
		detail[0] = 0;							\
		return copy_case(op, v, buf, len, seed, expected, got);		\
	}									\
	HP_FN_COPY_KIT(hp_fn_##prim##_kit, body)

FN_COPY_CHECK(memcpy, OP_MEMCPY, fn_copy_burst);
FN_COPY_CHECK(memmove, OP_MEMMOVE, fn_copy_burst);
FN_COPY_CHECK(memset, OP_MEMSET, fn_memset_burst);

static const size_t copy_sizes[] = FN_COPY_SIZES;

#define GLIBC_ORIGIN "glibc (libc.so.6), its own run-time choice for this CPU"

static const struct hp_variant memcpy_variants[] = {
	{
		.name = "ref",
		.fn = hp_fn_memcpy_ref,
		.desc = "reference: one byte at a time, upwards",
		.origin = "the C standard's memcpy (hotpath, c/fn/mem_ref.c)",
	},
	{
		.name = "glibc",
		.flags = HP_V_PEER,
		.fn = memcpy,
		.desc = "glibc's memcpy, called through a pointer (never the compiler's builtin)",
		.origin = GLIBC_ORIGIN,
	},
};

static const struct hp_variant memmove_variants[] = {
	{
		.name = "ref",
		.fn = hp_fn_memmove_ref,
		.desc = "reference: one byte at a time, downwards when the destination is above",
		.origin = "the C standard's memmove (hotpath, c/fn/mem_ref.c)",
	},
	{
		.name = "glibc",
		.flags = HP_V_PEER,
		.fn = memmove,
		.desc = "glibc's memmove, called through a pointer (never the compiler's builtin)",
		.origin = GLIBC_ORIGIN,
	},
};

static const struct hp_variant memset_variants[] = {
	{
		.name = "ref",
		.fn = hp_fn_memset_ref,
		.desc = "reference: one byte at a time (the seed's low byte)",
		.origin = "the C standard's memset (hotpath, c/fn/mem_ref.c)",
	},
	{
		.name = "glibc",
		.flags = HP_V_PEER,
		.fn = memset,
		.desc = "glibc's memset, called through a pointer (never the compiler's builtin)",
		.origin = GLIBC_ORIGIN,
	},
};

#define FN_COPY_PRIMITIVE(prim, empty, conf)					\
	const struct hp_primitive hp_prim_fn_##prim = {				\
		.name = #prim,							\
		.lab = "fn",							\
		.seed_name = "dst",						\
		.variants = prim##_variants,					\
		.nvariants = sizeof(prim##_variants) / sizeof(prim##_variants[0]), \
		.empty_fn = empty,						\
		.check = prim##_check,						\
		.burst = hp_fn_##prim##_kit.sites,				\
		.promise_name = copy_promise_name,				\
		.size_ok = copy_size_ok,					\
		.explain = copy_explain,					\
		.configure = conf,						\
		.unavailable = copy_sync,					\
		.default_sizes = copy_sizes,					\
		.ndefault_sizes = sizeof(copy_sizes) / sizeof(copy_sizes[0]),	\
	}

FN_COPY_PRIMITIVE(memcpy, copy_empty, memcpy_configure);
FN_COPY_PRIMITIVE(memmove, copy_empty, memmove_configure);
FN_COPY_PRIMITIVE(memset, memset_empty, NULL);
