// SPDX-License-Identifier: GPL-2.0-only
/*
 * The fn lab's hash kind: jhash, xxh32, xxh64, siphash, siphash_1u64 and
 * siphash_2u64, h = f(buf, len, seed), each with the kernel function's
 * prototype (<hotpath/fn.h>; siphash's key is {seed, ~seed}, built by the
 * kernel glue) and hotpath's reference as its variant "ref". Latency mode
 * chains the hash into the next call's seed. siphash_1u64 and
 * siphash_2u64 hash one and two 64-bit words: sizes 8 and 16 only.
 *
 * As in registry_crc.c, the kind is the seam: one macro per primitive.
 */
#include <hotpath/bench.h>
#include <hotpath/fn.h>
#include "fn_bursts.h"

#define FN_HASH_SIZES { 16, 64, 256, 1500, 4096 }

static const char *hash_promise_name(uint32_t promise)
{
	return promise == 0 ? "equal to the reference" : "unknown";
}

/* The gate's 32-bit seed in both halves of a 64-bit one (all-ones stays
 * all ones; siphash's key {seed, ~seed} then has both halves busy). */
static inline uint64_t hash_seed(uint64_t seed, unsigned width)
{
	seed &= 0xffffffffu;
	return width == 64 ? seed * 0x100000001ull : seed;
}

static int only_8(size_t size)
{
	return size == 8;
}

static int only_16(size_t size)
{
	return size == 16;
}

#define FN_HASH(prim, width, ctype, fntype, lentype, ref, body, sizeok, words, from) \
	static ctype prim##_empty(const void *p, lentype len, ctype seed)	\
	{									\
		return seed;							\
	}									\
	static int prim##_check(const struct hp_variant *v, const uint8_t *buf,	\
				size_t len, uint64_t seed, uint64_t *expected,	\
				uint64_t *got)					\
	{									\
		ctype s = (ctype)hash_seed(seed, width);			\
										\
		*expected = ref(buf, (lentype)len, s);				\
		*got = ((fntype)v->fn)(buf, (lentype)len, s);			\
		return *expected != *got;					\
	}									\
	HP_BURST_COPIES(prim##_sites, body);				\
	static const struct hp_variant prim##_variants[] = {			\
		{								\
			.name = "ref",						\
			.fn = ref,						\
			.desc = "reference: " words,				\
			.origin = from,						\
		},								\
	};									\
	const struct hp_primitive hp_prim_fn_##prim = {				\
		.name = #prim,							\
		.lab = "fn",							\
		.seed_name = "seed",						\
		.variants = prim##_variants,					\
		.nvariants = sizeof(prim##_variants) / sizeof(prim##_variants[0]), \
		.empty_fn = prim##_empty,					\
		.check = prim##_check,						\
		.burst = prim##_sites,						\
		.promise_name = hash_promise_name,				\
		.size_ok = sizeok,						\
		.default_sizes = prim##_sizes,					\
		.ndefault_sizes = sizeof(prim##_sizes) / sizeof(prim##_sizes[0]), \
	}

static const size_t jhash_sizes[] = FN_HASH_SIZES;
static const size_t xxh32_sizes[] = FN_HASH_SIZES;
static const size_t xxh64_sizes[] = FN_HASH_SIZES;
static const size_t siphash_sizes[] = FN_HASH_SIZES;
static const size_t siphash_1u64_sizes[] = { 8 };
static const size_t siphash_2u64_sizes[] = { 16 };

FN_HASH(jhash, 32, uint32_t, hp_fn_jhash_fn, uint32_t, hp_fn_jhash_ref, fn_jhash_burst, NULL,
	"lookup3 (hashlittle) one byte at a time, initval 0xdeadbeef + length + seed",
	"Bob Jenkins, lookup3.c (2006), as Linux include/linux/jhash.h's jhash()");
FN_HASH(xxh32, 32, uint32_t, hp_fn_xxh32_fn, size_t, hp_fn_xxh32_ref, fn_xxh32_burst, NULL,
	"xxHash32 from its specification, words read byte by byte",
	"xxHash specification (Yann Collet), as Linux lib/xxhash.c's xxh32()");
FN_HASH(xxh64, 64, uint64_t, hp_fn_xxh64_fn, size_t, hp_fn_xxh64_ref, fn_hash64_burst, NULL,
	"xxHash64 from its specification, words read byte by byte",
	"xxHash specification (Yann Collet), as Linux lib/xxhash.c's xxh64()");
FN_HASH(siphash, 64, uint64_t, hp_fn_siphash_fn, size_t, hp_fn_siphash_ref,
	fn_hash64_burst, NULL,
	"SipHash-2-4 from the paper, key {seed, ~seed}",
	"Aumasson, Bernstein, SipHash (2012), as Linux lib/siphash.c's siphash()");
FN_HASH(siphash_1u64, 64, uint64_t, hp_fn_siphash_fn, size_t, hp_fn_siphash_ref,
	fn_hash64_burst, only_8,
	"SipHash-2-4 of the 8 bytes (one little-endian u64), key {seed, ~seed}",
	"Aumasson, Bernstein, SipHash (2012), as Linux lib/siphash.c's siphash_1u64()");
FN_HASH(siphash_2u64, 64, uint64_t, hp_fn_siphash_fn, size_t, hp_fn_siphash_ref,
	fn_hash64_burst, only_16,
	"SipHash-2-4 of the 16 bytes (two little-endian u64s), key {seed, ~seed}",
	"Aumasson, Bernstein, SipHash (2012), as Linux lib/siphash.c's siphash_2u64()");
