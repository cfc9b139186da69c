// SPDX-License-Identifier: GPL-2.0-only
/*
 * The AVC hashes against vectors worked out by hand, and av_hash against
 * MurmurHash3 itself (its final mix undone, the length xored in).
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <hotpath/avc.h>

#include "check.h"
#define TEST_RNG_SEED 0x5e1a0a7c0ffee005ull
#include "testdata.h"

/* ---- hash vectors ---- */

struct vec {
	uint32_t ssid, tsid;
	uint16_t tclass;
	uint32_t orig, muladd, murmur3, jhash, hp;
};

/*
 * Worked by hand, one step at a time, for (1, 2, 3):
 *
 * orig: 1 ^ (2 << 2) ^ (3 << 4) = 0x01 ^ 0x08 ^ 0x30 = 0x39.
 *
 * muladd: 0x9e3779b9 + 2 * 0x85ebca77 + 3 * 0xc2b2ae35
 *       = 0x9e3779b9 + 0x10bd794ee + 0x2481809f mod 2^32 = 0xf2271946.
 *
 * murmur3 (av_hash): h = 0; for each word k: k *= 0xcc9e2d51, k = rol(k,
 * 15), k *= 0x1b873593, h ^= k, h = rol(h, 13), h = h * 5 + 0xe6546b64.
 *   k=1: 0xcc9e2d51 -> 0x16a8e64f -> 0xc3539a5d; h 0xc3539a5d -> 0x734bb86a
 *        -> 0x26cf0576
 *   k=2: 0x993c5aa2 -> 0x2d514c9e -> 0xebddb4ba; h 0xcd12b1cc -> 0x563999a2
 *        -> 0x95746b8e
 *   k=3: 0x65da87f3 -> 0x43f9b2ed -> 0x1467cf17; h 0x8113a499 -> 0x74933022
 *        -> 0x2d345c0e
 *   fmix: ^>>16 0x2d34713a, *0x85ebca6b 0x5881173e, ^>>13 0x5883d336,
 *         *0xc2b2ae35 0xb4656e2e, ^>>16 0xb465da4b.
 *
 * jhash_3words(1, 2, 3, 0): a, b, c = 1, 2, 3 + 0xdeadbeef + 12, i.e.
 * 0xdeadbefc, 0xdeadbefd, 0xdeadbefe; then __jhash_final:
 *   c = (c ^ b) - rol(b, 14) = 0x90408858
 *   a = (a ^ c) - rol(c, 11) = 0x4aaa7222
 *   b = (b ^ a) - rol(a, 25) = 0x4f7277fb
 *   c = (c ^ b) - rol(b, 16) = 0x6737b031
 *   a = (a ^ c) - rol(c, 4)  = 0xba22befd
 *   b = (b ^ a) - rol(a, 14) = 0x45915a7e
 *   c = (c ^ b) - rol(b, 24) = 0xa46158f5
 *
 * hp: k = rol64(1, 40) ^ (3 << 24) ^ 2 = 0x0000010003000002;
 * k ^ 0x2d358dccaa6c78a5 = 0x2d358ccca96c78a7; times 0x8bb84b93962eacc9
 * is hi 0x18ac9f49139d1944, lo 0x275b439a6f3cef1f; hi ^ lo =
 * 0x3ff7dcd37ca1f65b; 0x7ca1f65b ^ 0x3ff7dcd3 = 0x43562a88.
 *
 * The other rows were worked the same way (with a calculator for the
 * 64-bit product).
 */
static const struct vec vecs[] = {
	{ 1, 2, 3, 0x39, 0xf2271946, 0xb465da4b, 0xa46158f5, 0x43562a88 },
	{ 0, 0, 0, 0, 0, 0xfc6f08ed, 0x1b68e557, 0x0d2acb5d },
	{ 0x12345678, 0x9abcdef0, 0xffff, 0x78c8d248, 0xc0008813, 0x29246c36,
	  0x842f443a, 0x9b7f2c93 },
	{ 28, 29, 6, 0x8, 0x09f754f5, 0xb44523a1, 0x59fe59cb, 0x67fa2f09 },
};

/*
 * MurmurHash3_x86_32 of the same three words as 12 little-endian bytes,
 * seed 0, from the reference implementation (Python's mmh3). av_hash()
 * differs only by leaving out "h ^= 12" before fmix32, so undoing fmix32
 * on our result, xoring 12 and redoing it must give these.
 */
static const uint32_t mmh3_ref[] = {
	0xe9d78ad6, 0xd941144b, 0xa4ab7d18, 0xc3c0b5b4,
};

static uint32_t fmix32(uint32_t h)
{
	h ^= h >> 16;
	h *= 0x85ebca6bu;
	h ^= h >> 13;
	h *= 0xc2b2ae35u;
	return h ^ (h >> 16);
}

static uint32_t unfmix32(uint32_t h)
{
	h ^= h >> 16;
	h *= 0x7ed1b41du;		/* 0xc2b2ae35^-1 mod 2^32 */
	h ^= (h >> 13) ^ (h >> 26);
	h *= 0xa5cb9243u;		/* 0x85ebca6b^-1 mod 2^32 */
	return h ^ (h >> 16);
}

static void test_hash_vectors(void)
{
	size_t i;

	CHECK(0x85ebca6bu * 0xa5cb9243u == 1 && 0xc2b2ae35u * 0x7ed1b41du == 1,
	      "inverses");
	for (i = 0; i < sizeof(vecs) / sizeof(vecs[0]); i++) {
		const struct vec *v = &vecs[i];
		uint32_t s = v->ssid, t = v->tsid;
		uint16_t c = v->tclass;
		uint32_t m = hp_avc_hash_murmur3(s, t, c);

		CHECK(hp_avc_hash_orig(s, t, c) == v->orig, "orig %zu", i);
		CHECK(hp_avc_hash_muladd(s, t, c) == v->muladd, "muladd %zu",
		      i);
		CHECK(m == v->murmur3, "murmur3 %zu: %#x", i, m);
		CHECK(hp_avc_hash_jhash(s, t, c) == v->jhash, "jhash %zu: %#x",
		      i, hp_avc_hash_jhash(s, t, c));
		CHECK(hp_avc_hash_hp(s, t, c) == v->hp, "hp %zu: %#x", i,
		      hp_avc_hash_hp(s, t, c));
		CHECK(unfmix32(fmix32(m)) == m, "unfmix %zu", i);
		CHECK(fmix32(unfmix32(m) ^ 12) == mmh3_ref[i],
		      "murmur3 %zu is not MurmurHash3 less the length", i);
	}
}

/* The table, and the inline twins against the symbols on random keys. */
static void test_hash_table(void)
{
	const struct hp_avc_hash_desc *d;
	int i, n = 0, bad = 0;

	for (d = hp_avc_hashes; d->name; d++, n++)
		CHECK(hp_avc_hash_find(d->name) == d, "%s", d->name);
	CHECK(n == 5, "%d hashes", n);
	CHECK(!hp_avc_hash_find("nope"), "unknown name");
	for (i = 0; i < 20000; i++) {
		uint64_t r = rnd();
		uint32_t s = (uint32_t)r, t = (uint32_t)(r >> 32);
		uint16_t c = (uint16_t)rnd();

		bad += hp_avc_hash_orig_inl(s, t, c) !=
		       hp_avc_hash_orig(s, t, c);
		bad += hp_avc_hash_muladd_inl(s, t, c) !=
		       hp_avc_hash_muladd(s, t, c);
		bad += hp_avc_hash_murmur3_inl(s, t, c) !=
		       hp_avc_hash_murmur3(s, t, c);
		bad += hp_avc_hash_jhash_inl(s, t, c) !=
		       hp_avc_hash_jhash(s, t, c);
		bad += hp_avc_hash_hp_inl(s, t, c) != hp_avc_hash_hp(s, t, c);
	}
	CHECK(!bad, "%d inline/out-of-line mismatches", bad);
}

int main(void)
{
	test_hash_vectors();
	test_hash_table();
	return check_summary("test_avc_hash");
}
