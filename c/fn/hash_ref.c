// SPDX-License-Identifier: GPL-2.0-only
/*
 * The hash kind's references for jhash (Bob Jenkins' lookup3, as
 * include/linux/jhash.h has it) and xxHash (xxh32, xxh64, as lib/xxhash.c
 * has them), written from the algorithms' definitions: bytes read one by
 * one into little-endian words, so nothing depends on alignment.
 * tests/c/test_fn.c checks them against published vectors.
 */
#include <hotpath/fn.h>

static inline uint32_t rol32(uint32_t x, unsigned r)
{
	return (x << r) | (x >> (32 - r));
}

static inline uint64_t rol64(uint64_t x, unsigned r)
{
	return (x << r) | (x >> (64 - r));
}

static uint32_t le32(const uint8_t *p)
{
	return p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static uint64_t le64(const uint8_t *p)
{
	return le32(p) | (uint64_t)le32(p + 4) << 32;
}

/* ---- jhash: lookup3's mix and final ---- */
#define JHASH_INITVAL 0xdeadbeefu

static void jmix(uint32_t *a, uint32_t *b, uint32_t *c)
{
	*a -= *c; *a ^= rol32(*c, 4);  *c += *b;
	*b -= *a; *b ^= rol32(*a, 6);  *a += *c;
	*c -= *b; *c ^= rol32(*b, 8);  *b += *a;
	*a -= *c; *a ^= rol32(*c, 16); *c += *b;
	*b -= *a; *b ^= rol32(*a, 19); *a += *c;
	*c -= *b; *c ^= rol32(*b, 4);  *b += *a;
}

static void jfinal(uint32_t *a, uint32_t *b, uint32_t *c)
{
	*c ^= *b; *c -= rol32(*b, 14);
	*a ^= *c; *a -= rol32(*c, 11);
	*b ^= *a; *b -= rol32(*a, 25);
	*c ^= *b; *c -= rol32(*b, 16);
	*a ^= *c; *a -= rol32(*c, 4);
	*b ^= *a; *b -= rol32(*a, 14);
	*c ^= *b; *c -= rol32(*b, 24);
}

uint32_t hp_fn_jhash_ref(const void *key, uint32_t length, uint32_t initval)
{
	const uint8_t *k = key;
	uint32_t a, b, c, w[3] = { 0, 0, 0 };

	a = b = c = JHASH_INITVAL + length + initval;
	while (length > 12) {
		a += le32(k);
		b += le32(k + 4);
		c += le32(k + 8);
		jmix(&a, &b, &c);
		length -= 12;
		k += 12;
	}
	if (!length)	/* nothing left: c as it is, no final mix */
		return c;
	/* the last 1..12 bytes, zero-padded, as three little-endian words */
	for (uint32_t i = 0; i < length; i++)
		w[i / 4] |= (uint32_t)k[i] << (8 * (i % 4));
	a += w[0];
	b += w[1];
	c += w[2];
	jfinal(&a, &b, &c);
	return c;
}

/* ---- xxh32 ---- */
#define P32_1 0x9E3779B1u
#define P32_2 0x85EBCA77u
#define P32_3 0xC2B2AE3Du
#define P32_4 0x27D4EB2Fu
#define P32_5 0x165667B1u

static uint32_t x32_round(uint32_t acc, uint32_t in)
{
	return rol32(acc + in * P32_2, 13) * P32_1;
}

uint32_t hp_fn_xxh32_ref(const void *input, size_t length, uint32_t seed)
{
	const uint8_t *p = input, *end = p + length;
	uint32_t h;

	if (length >= 16) {
		uint32_t v1 = seed + P32_1 + P32_2, v2 = seed + P32_2;
		uint32_t v3 = seed, v4 = seed - P32_1;

		for (; end - p >= 16; p += 16) {
			v1 = x32_round(v1, le32(p));
			v2 = x32_round(v2, le32(p + 4));
			v3 = x32_round(v3, le32(p + 8));
			v4 = x32_round(v4, le32(p + 12));
		}
		h = rol32(v1, 1) + rol32(v2, 7) + rol32(v3, 12) + rol32(v4, 18);
	} else {
		h = seed + P32_5;
	}
	h += (uint32_t)length;
	for (; end - p >= 4; p += 4)
		h = rol32(h + le32(p) * P32_3, 17) * P32_4;
	for (; p < end; p++)
		h = rol32(h + *p * P32_5, 11) * P32_1;
	h ^= h >> 15;
	h *= P32_2;
	h ^= h >> 13;
	h *= P32_3;
	h ^= h >> 16;
	return h;
}

/* ---- xxh64 ---- */
#define P64_1 0x9E3779B185EBCA87ull
#define P64_2 0xC2B2AE3D27D4EB4Full
#define P64_3 0x165667B19E3779F9ull
#define P64_4 0x85EBCA77C2B2AE63ull
#define P64_5 0x27D4EB2F165667C5ull

static uint64_t x64_round(uint64_t acc, uint64_t in)
{
	return rol64(acc + in * P64_2, 31) * P64_1;
}

static uint64_t x64_merge(uint64_t h, uint64_t v)
{
	return (h ^ x64_round(0, v)) * P64_1 + P64_4;
}

uint64_t hp_fn_xxh64_ref(const void *input, size_t length, uint64_t seed)
{
	const uint8_t *p = input, *end = p + length;
	uint64_t h;

	if (length >= 32) {
		uint64_t v1 = seed + P64_1 + P64_2, v2 = seed + P64_2;
		uint64_t v3 = seed, v4 = seed - P64_1;

		for (; end - p >= 32; p += 32) {
			v1 = x64_round(v1, le64(p));
			v2 = x64_round(v2, le64(p + 8));
			v3 = x64_round(v3, le64(p + 16));
			v4 = x64_round(v4, le64(p + 24));
		}
		h = rol64(v1, 1) + rol64(v2, 7) + rol64(v3, 12) + rol64(v4, 18);
		h = x64_merge(h, v1);
		h = x64_merge(h, v2);
		h = x64_merge(h, v3);
		h = x64_merge(h, v4);
	} else {
		h = seed + P64_5;
	}
	h += (uint64_t)length;
	for (; end - p >= 8; p += 8)
		h = rol64(h ^ x64_round(0, le64(p)), 27) * P64_1 + P64_4;
	if (end - p >= 4) {
		h = rol64(h ^ (uint64_t)le32(p) * P64_1, 23) * P64_2 + P64_3;
		p += 4;
	}
	for (; p < end; p++)
		h = rol64(h ^ *p * P64_5, 11) * P64_1;
	h ^= h >> 33;
	h *= P64_2;
	h ^= h >> 29;
	h *= P64_3;
	h ^= h >> 32;
	return h;
}
