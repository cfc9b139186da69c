// SPDX-License-Identifier: GPL-2.0-only
/*
 * The fn lab's search kind: memchr, strlen, strnlen and find_next_bit
 * (the kernel's _find_next_bit()), with the kernel's prototypes; the
 * references are byte (bit) loops (mem_ref.c), the peers glibc's memchr,
 * strlen and strnlen. Each case has what is searched for last:
 * - memchr(s, c, len): c at len - 1 and nowhere before;
 * - strlen(s): len characters, the NUL at len (len + 1 bytes read);
 * - strnlen(s, len): no NUL within the count;
 * - find_next_bit(addr, 8 * len, 0): a bitmap of len bytes (a multiple
 *   of 8), only its last bit set.
 * The check writes each case from the gate's bytes into a buffer of its
 * own twice: at the case's alignment, and butted against a guard page
 * (the last byte read is the last before it), so a function that reads
 * one byte too many faults and is reported "read outside the buffer".
 */
#include <hotpath/bench.h>
#include <hotpath/fn.h>
#include <hotpath/guard.h>
#include "fn_mem_bursts.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

uint8_t hp_fn_search_area[HP_FN_AREA_BYTES] __attribute__((aligned(64)));

static struct hp_guarded search_map;
static char detail[160];

static struct hp_guarded *search_buffer(void)
{
	if (!search_map.base && hp_guarded_alloc(&search_map, HP_FN_MEM_MAX + 4096)) {
		perror("hotpath: fn search check: mmap");
		abort();
	}
	return &search_map;
}

enum search_op { OP_MEMCHR, OP_STRLEN, OP_STRNLEN, OP_FIND_BIT };

/* Bytes a case reads: strlen's NUL is one past the size. */
static size_t span_of(enum search_op op, size_t len)
{
	return op == OP_STRLEN ? len + 1 : len;
}

/* The case at @p from the gate's bytes @buf; the byte memchr looks for. */
static int write_case(enum search_op op, uint8_t *p, const uint8_t *buf, size_t len,
		      uint64_t seed)
{
	int c = (int)(seed & 0xff);
	size_t i;

	switch (op) {
	case OP_MEMCHR:
		memcpy(p, buf, len);
		for (i = 0; i + 1 < len; i++)
			if (p[i] == c)
				p[i] ^= 1;
		if (len)
			p[len - 1] = (uint8_t)c;
		break;
	case OP_STRLEN:
	case OP_STRNLEN:
		memcpy(p, buf, len);
		for (i = 0; i < len; i++)
			if (!p[i])
				p[i] = (uint8_t)(c | 1);
		if (op == OP_STRLEN)
			p[len] = 0;
		break;
	case OP_FIND_BIT:
		hp_fn_bits_case(p, len);
		break;
	}
	return c;
}

/* The call, its result as an offset from @p (memchr: ~0 for NULL). */
static uint64_t call(enum search_op op, const struct hp_variant *v, const uint8_t *p,
		     size_t len, int c, int ref)
{
	void *r;

	switch (op) {
	case OP_MEMCHR:
		r = ref ? hp_fn_memchr_ref(p, c, len) : ((hp_fn_memchr_fn)v->fn)(p, c, len);
		return r ? (uint64_t)((const uint8_t *)r - p) : ~0ull;
	case OP_STRLEN:
		return ref ? hp_fn_strlen_ref((const char *)p)
			   : ((hp_fn_strlen_fn)v->fn)((const char *)p);
	case OP_STRNLEN:
		return ref ? hp_fn_strnlen_ref((const char *)p, len)
			   : ((hp_fn_strnlen_fn)v->fn)((const char *)p, len);
	case OP_FIND_BIT:
		return ref ? hp_fn_find_next_bit_ref((const unsigned long *)p, 8 * len, 0)
			   : ((hp_fn_find_bit_fn)v->fn)((const unsigned long *)p, 8 * len, 0);
	}
	return 0;
}

static int one(enum search_op op, const struct hp_variant *v, uint8_t *p, const uint8_t *buf,
	       size_t len, uint64_t seed, uint64_t *expected, uint64_t *got, const char *where)
{
	int c = write_case(op, p, buf, len, seed);

	*expected = call(op, v, p, len, c, 1);
	*got = call(op, v, p, len, c, 0);
	if (*expected == *got)
		return 0;
	snprintf(detail, sizeof(detail), "%s, %s", where,
		 op == OP_MEMCHR ? "offsets from the buffer, ~0 for NULL" : "as returned");
	return 1;
}

static int search_case(enum search_op op, const struct hp_variant *v, const uint8_t *buf,
		       size_t len, uint64_t seed, uint64_t *expected, uint64_t *got)
{
	struct hp_guarded *g = search_buffer();
	size_t span = span_of(op, len);

	detail[0] = 0;
	return one(op, v, hp_guarded_place(g, span, (uintptr_t)buf & 63), buf, len, seed,
		   expected, got, "at the case's alignment") ||
	       one(op, v, hp_guarded_butt(g, span), buf, len, seed, expected, got,
		   "against the guard page");
}

static const char *search_explain(const uint8_t *buf, size_t len, uint64_t seed, uint64_t got)
{
	return detail[0] ? detail : NULL;
}

static int search_size_ok(size_t size)
{
	return size <= HP_FN_MEM_MAX;
}

static int bits_size_ok(size_t size)
{
	return size <= HP_FN_MEM_MAX && size % 8 == 0;
}

static const char *search_promise_name(uint32_t promise)
{
	return "the reference's result (position or length), nothing read past the end";
}

static void *memchr_empty(const void *s, int c, size_t n)
{
	return (void *)(uintptr_t)s;
}

static size_t strlen_empty(const char *s)
{
	return 0;
}

static size_t strnlen_empty(const char *s, size_t count)
{
	return count;
}

static unsigned long find_bit_empty(const unsigned long *addr, unsigned long nbits,
				    unsigned long start)
{
	return nbits;
}

#define FN_SEARCH(prim, op, body)						\
	static int prim##_check(const struct hp_variant *v, const uint8_t *buf,	\
				size_t len, uint64_t seed, uint64_t *expected,	\
				uint64_t *got)					\
	{									\
		return search_case(op, v, buf, len, seed, expected, got);	\
	}									\
	HP_BURST_COPIES(prim##_sites, body)

FN_SEARCH(memchr, OP_MEMCHR, fn_memchr_burst);
FN_SEARCH(strlen, OP_STRLEN, fn_strlen_burst);
FN_SEARCH(strnlen, OP_STRNLEN, fn_strnlen_burst);
FN_SEARCH(find_next_bit, OP_FIND_BIT, fn_find_bit_burst);

#define GLIBC_ORIGIN "glibc (libc.so.6), its own run-time choice for this CPU"

static const struct hp_variant memchr_variants[] = {
	{
		.name = "ref",
		.fn = hp_fn_memchr_ref,
		.desc = "reference: one byte at a time",
		.origin = "the C standard's memchr (hotpath, c/fn/mem_ref.c)",
	},
	{
		.name = "glibc",
		.flags = HP_V_PEER,
		.fn = memchr,
		.desc = "glibc's memchr, called through a pointer",
		.origin = GLIBC_ORIGIN,
	},
};

static const struct hp_variant strlen_variants[] = {
	{
		.name = "ref",
		.fn = hp_fn_strlen_ref,
		.desc = "reference: one byte at a time",
		.origin = "the C standard's strlen (hotpath, c/fn/mem_ref.c)",
	},
	{
		.name = "glibc",
		.flags = HP_V_PEER,
		.fn = strlen,
		.desc = "glibc's strlen, called through a pointer",
		.origin = GLIBC_ORIGIN,
	},
};

static const struct hp_variant strnlen_variants[] = {
	{
		.name = "ref",
		.fn = hp_fn_strnlen_ref,
		.desc = "reference: one byte at a time, at most count",
		.origin = "POSIX strnlen (hotpath, c/fn/mem_ref.c)",
	},
	{
		.name = "glibc",
		.flags = HP_V_PEER,
		.fn = strnlen,
		.desc = "glibc's strnlen, called through a pointer",
		.origin = GLIBC_ORIGIN,
	},
};

static const struct hp_variant find_next_bit_variants[] = {
	{
		.name = "ref",
		.fn = hp_fn_find_next_bit_ref,
		.desc = "reference: one bit at a time from start",
		.origin = "Linux lib/find_bit.c's _find_next_bit() contract (hotpath, c/fn/mem_ref.c)",
	},
};

static const size_t search_sizes[] = { 16, 64, 256, 4096 };

#define FN_SEARCH_PRIMITIVE(prim, seedname, empty, sizeok)			\
	const struct hp_primitive hp_prim_fn_##prim = {				\
		.name = #prim,							\
		.lab = "fn",							\
		.seed_name = seedname,						\
		.variants = prim##_variants,					\
		.nvariants = sizeof(prim##_variants) / sizeof(prim##_variants[0]), \
		.empty_fn = empty,						\
		.check = prim##_check,						\
		.burst = prim##_sites,						\
		.promise_name = search_promise_name,				\
		.size_ok = sizeok,						\
		.explain = search_explain,					\
		.default_sizes = search_sizes,					\
		.ndefault_sizes = sizeof(search_sizes) / sizeof(search_sizes[0]), \
	}

FN_SEARCH_PRIMITIVE(memchr, "position", memchr_empty, search_size_ok);
FN_SEARCH_PRIMITIVE(strlen, "length", strlen_empty, search_size_ok);
FN_SEARCH_PRIMITIVE(strnlen, "length", strnlen_empty, search_size_ok);
FN_SEARCH_PRIMITIVE(find_next_bit, "bit", find_bit_empty, bits_size_ok);
