// SPDX-License-Identifier: GPL-2.0-only
/*
 * The fn lab's crc kind: crc32_le, crc32_be, crc64_be, crc64_rocksoft,
 * crc_t10dif, crc16 and crc_itu_t, one primitive each, named as the kernel
 * names the function. A primitive's type is the kernel function's
 * prototype (<hotpath/fn.h>), so a kernel variant (--with-kernel) is its
 * own symbol called directly; hotpath's variant is the bitwise reference.
 *
 * The kind is the seam: its seven primitives differ only in type,
 * reference and words, so one macro makes each from those (and each gets
 * burst copies of its own: no two primitives share a call site).
 */
#include <hotpath/bench.h>
#include <hotpath/fn.h>
#include "fn_bursts.h"

#include <stdio.h>

#define FN_CRC_SIZES { 16, 64, 256, 1500, 4096 }

static const char *crc_promise_name(uint32_t promise)
{
	return promise == 0 ? "equal to the bitwise reference" : "unknown";
}

/* The gate's seeds are 32 bits wide (0, all-ones, random): a 64-bit CRC
 * gets the seed in both halves, so that all-ones is all ones. */
static inline uint64_t crc_seed(uint64_t seed, unsigned width)
{
	if (width == 64)
		return (seed & 0xffffffffu) * 0x100000001ull;
	return seed & (width == 32 ? 0xffffffffu : 0xffffu);
}

/*
 * FN_CRC(prim, width, ctype, fntype, ref, body, inverts, words, from):
 * the primitive hp_prim_fn_<prim>. @inverts says whether the kernel's
 * function inverts the register itself (crc64_rocksoft_generic); the
 * explain callback names the common slip, the other convention, whose
 * result is ~ref(~seed) either way.
 */
#define FN_CRC(prim, width, ctype, fntype, ref, body, inverts, words, from)	\
	static ctype prim##_empty(ctype crc, const void *p, size_t len)		\
	{									\
		return crc;							\
	}									\
	static int prim##_check(const struct hp_variant *v, const uint8_t *buf,	\
				size_t len, uint64_t seed, uint64_t *expected,	\
				uint64_t *got)					\
	{									\
		ctype s = (ctype)crc_seed(seed, width);				\
										\
		*expected = ref(s, buf, len);					\
		*got = ((fntype)v->fn)(s, buf, len);				\
		return *expected != *got;					\
	}									\
	static const char *prim##_explain(const uint8_t *buf, size_t len,	\
					  uint64_t seed, uint64_t got)		\
	{									\
		ctype s = (ctype)crc_seed(seed, width);				\
										\
		if ((ctype)got == (ctype)~ref((ctype)~s, buf, len))		\
			return inverts ? "inverting convention? it returned "	\
				"~f(~crc); the kernel's " #prim "() inverts "	\
				"the register itself, on the way in and out"	\
				: "inverting convention? it returned ~f(~crc) "	\
				"(as zlib's crc32() does); the kernel's "	\
				#prim "() takes and returns the raw register";	\
		return NULL;							\
	}									\
	HP_BURST_COPIES(prim##_sites, body);				\
	static const struct hp_variant prim##_variants[] = {			\
		{								\
			.name = "bitwise-ref",					\
			.fn = ref,						\
			.desc = "reference: " words,				\
			.origin = from,						\
		},								\
	};									\
	static const size_t prim##_sizes[] = FN_CRC_SIZES;			\
	const struct hp_primitive hp_prim_fn_##prim = {				\
		.name = #prim,							\
		.lab = "fn",							\
		.seed_name = "crc",						\
		.variants = prim##_variants,					\
		.nvariants = sizeof(prim##_variants) / sizeof(prim##_variants[0]), \
		.empty_fn = prim##_empty,					\
		.check = prim##_check,						\
		.burst = prim##_sites,						\
		.promise_name = crc_promise_name,				\
		.explain = prim##_explain,					\
		.default_sizes = prim##_sizes,					\
		.ndefault_sizes = sizeof(prim##_sizes) / sizeof(prim##_sizes[0]), \
	}

FN_CRC(crc32_le, 32, uint32_t, hp_fn_crc32_fn, hp_fn_crc32_le_ref, fn_crc32_burst, 0,
       "one bit at a time, reflected 0xEDB88320, no inversion",
       "CRC-32 (IEEE 802.3) in Linux lib/crc32.c's convention (crc32_le)");
FN_CRC(crc32_be, 32, uint32_t, hp_fn_crc32_fn, hp_fn_crc32_be_ref, fn_crc32_burst, 0,
       "one bit at a time, 0x04C11DB7 most significant bit first, no inversion",
       "CRC-32 (IEEE 802.3) unreflected, Linux lib/crc32.c's crc32_be convention");
FN_CRC(crc64_be, 64, uint64_t, hp_fn_crc64_fn, hp_fn_crc64_be_ref, fn_crc64_burst, 0,
       "one bit at a time, ECMA-182 0x42F0E1EBA9EA3693 MSB first, no inversion",
       "ECMA-182 CRC-64, Linux lib/crc64.c's crc64_be convention");
FN_CRC(crc64_rocksoft, 64, uint64_t, hp_fn_crc64_fn, hp_fn_crc64_rocksoft_ref,
       fn_crc64_burst, 1,
       "one bit at a time, reflected 0x9A6C9329AC4BC9B5, inverted in and out",
       "Rocksoft/NVMe CRC-64 0xAD93D23594C93659, Linux lib/crc64.c's "
       "crc64_rocksoft_generic convention");
FN_CRC(crc_t10dif, 16, uint16_t, hp_fn_crc16_fn, hp_fn_crc_t10dif_ref, fn_crc16_burst, 0,
       "one bit at a time, 0x8BB7 MSB first, no inversion",
       "T10 DIF CRC-16 (SBC-3), Linux crypto/crct10dif_common.c's convention");
FN_CRC(crc16, 16, uint16_t, hp_fn_crc16_fn, hp_fn_crc16_ref, fn_crc16_burst, 0,
       "one bit at a time, reflected 0xA001, no inversion",
       "CRC-16 (0x8005, as CRC-16/ARC), Linux lib/crc16.c's convention");
FN_CRC(crc_itu_t, 16, uint16_t, hp_fn_crc16_fn, hp_fn_crc_itu_t_ref, fn_crc16_burst, 0,
       "one bit at a time, 0x1021 MSB first, no inversion",
       "CRC-16 ITU-T V.41 (0x1021), Linux lib/crc-itu-t.c's convention");
