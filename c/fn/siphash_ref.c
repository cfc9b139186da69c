// SPDX-License-Identifier: GPL-2.0-only
/*
 * SipHash-2-4 from its paper (Aumasson, Bernstein, "SipHash: a fast
 * short-input PRF", 2012): the reference of the siphash, siphash_1u64 and
 * siphash_2u64 primitives. The kernel's siphash(data, len, key) takes a
 * siphash_key_t; the primitives' type takes a 64-bit seed instead, and the
 * key is {seed, ~seed} (the kernel glue builds the same key), so latency
 * mode can chain the hash into the next call's key. siphash_1u64(a, key)
 * and siphash_2u64(a, b, key) equal siphash() of the 8 and 16 bytes of
 * their words in little-endian order, so one reference serves the three.
 */
#include <hotpath/fn.h>

static inline uint64_t rol64(uint64_t x, unsigned r)
{
	return (x << r) | (x >> (64 - r));
}

#define SIPROUND(v0, v1, v2, v3)					\
	do {								\
		v0 += v1; v1 = rol64(v1, 13); v1 ^= v0; v0 = rol64(v0, 32); \
		v2 += v3; v3 = rol64(v3, 16); v3 ^= v2;			\
		v0 += v3; v3 = rol64(v3, 21); v3 ^= v0;			\
		v2 += v1; v1 = rol64(v1, 17); v1 ^= v2; v2 = rol64(v2, 32); \
	} while (0)

uint64_t hp_fn_siphash_keyed(const void *data, size_t len, uint64_t k0, uint64_t k1)
{
	const uint8_t *p = data;
	uint64_t v0 = k0 ^ 0x736f6d6570736575ull, v1 = k1 ^ 0x646f72616e646f6dull;
	uint64_t v2 = k0 ^ 0x6c7967656e657261ull, v3 = k1 ^ 0x7465646279746573ull;
	uint64_t m, b = (uint64_t)len << 56;
	size_t i, whole = len & ~(size_t)7;

	for (i = 0; i < whole; i += 8) {
		m = 0;
		for (int k = 0; k < 8; k++)
			m |= (uint64_t)p[i + k] << (8 * k);
		v3 ^= m;
		SIPROUND(v0, v1, v2, v3);
		SIPROUND(v0, v1, v2, v3);
		v0 ^= m;
	}
	for (int k = 0; i + k < len; k++)
		b |= (uint64_t)p[i + k] << (8 * k);
	v3 ^= b;
	SIPROUND(v0, v1, v2, v3);
	SIPROUND(v0, v1, v2, v3);
	v0 ^= b;
	v2 ^= 0xff;
	for (int r = 0; r < 4; r++)
		SIPROUND(v0, v1, v2, v3);
	return v0 ^ v1 ^ v2 ^ v3;
}

uint64_t hp_fn_siphash_ref(const void *data, size_t len, uint64_t seed)
{
	return hp_fn_siphash_keyed(data, len, seed, ~seed);
}
