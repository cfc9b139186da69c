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
 * hp (issue 42): 1 * 0x962eacc9 ^ 2 * 0xaa6c78a5 ^ 3 * 0xd433d4a3, each
 * mod 2^32: 0x962eacc9 ^ 0x54d8f14a ^ 0x7c9b7de9 = 0xbe6d206a, and its
 * bucket among 512 slots its top 9 bits, 0x17c. Python's integers,
 * tests/py/test_avc_hash_hp.py's model, agree.
 *
 * The other rows were worked the same way (with a calculator for the
 * 64-bit product).
 */
static const struct vec vecs[] = {
	{ 1, 2, 3, 0x39, 0xf2271946, 0xb465da4b, 0xa46158f5, 0xbe6d206a },
	{ 0, 0, 0, 0, 0, 0xfc6f08ed, 0x1b68e557, 0 },
	{ 0x12345678, 0x9abcdef0, 0xffff, 0x78c8d248, 0xc0008813, 0x29246c36,
	  0x842f443a, 0xffd39fd5 },
	{ 28, 29, 6, 0x8, 0x09f754f5, 0xb44523a1, 0x59fe59cb, 0xda65b49f },
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

/*
 * Each hash's bucket among 2^b slots, at every slot count the cache
 * allows: the bucket function the cache takes (hp_avc_hash_for_slots)
 * against the hash's own value, masked (the low b bits) or, for hp,
 * shifted (the top b bits), and the cache's slot in range and the same.
 * A function not among the hashes, and a slot count that is not a power
 * of two, are handed back as they are.
 */
static uint32_t other_hash(uint32_t ssid, uint32_t tsid, uint16_t tclass)
{
	return ssid + tsid + tclass;
}

static void test_buckets(void)
{
	struct hp_avc_params p;
	struct hp_avc_cache c;
	const struct hp_avc_hash_desc *d;
	int bad = 0, out = 0;

	CHECK(hp_avc_hash_for_slots(other_hash, 512) == other_hash,
	      "a function not among the hashes handed back");
	CHECK(hp_avc_hash_for_slots(hp_avc_hash_hp, 3) == hp_avc_hash_hp,
	      "not a power of two: handed back");
	CHECK(hp_avc_hash_for_slots(hp_avc_hash_hp, 1u << 21) == hp_avc_hash_hp,
	      "above 2^20: handed back");
	CHECK(hp_avc_hash_for_slots(hp_avc_hash_hp, 512)(1, 2, 3) == 0x17c,
	      "the worked example's bucket in 512");
	for (d = hp_avc_hashes; d->name; d++) {
		int top = d->fn == hp_avc_hash_hp;

		for (unsigned int b = 0; b <= 20; b++) {
			hp_avc_hash_fn fn = hp_avc_hash_for_slots(d->fn, 1u << b);

			hp_avc_params_init(&p);
			p.slots = 1u << b;
			p.hash = d->fn;
			CHECK(!hp_avc_init(&c, &p), "%s: init %u slots", d->name, 1u << b);
			CHECK(c.hash == fn && fn != d->fn, "%s: %u slots", d->name, 1u << b);
			for (int i = 0; i < 2000; i++) {
				uint64_t r = rnd();
				uint32_t s = (uint32_t)r, t = (uint32_t)(r >> 32);
				uint16_t k = (uint16_t)rnd();
				uint32_t v = d->fn(s, t, k);
				uint32_t want = top ? (b ? v >> (32 - b) : 0)
						    : v & ((1u << b) - 1);

				bad += fn(s, t, k) != want;
				out += hp_avc_slot(&c, s, t, k) >= (1u << b) ||
				       hp_avc_slot(&c, s, t, k) != want;
			}
			hp_avc_destroy(&c);
		}
	}
	CHECK(!bad, "%d buckets not the hash's low bits (hp: top bits)", bad);
	CHECK(!out, "%d slots out of range or not the bucket", out);
}

/*
 * Clustered SIDs (issue 42): 16 containers whose SIDs are the same
 * offsets in blocks 2^16 apart. A hash whose low bits see only the low
 * bits of the SIDs (orig, muladd) puts a triple's 16 copies in one bucket
 * of 512; a random one spreads them over 15.8 buckets on average
 * (512 (1 - (511/512)^16)). hp must come within a quarter bucket of that.
 */
static double mean_buckets_of_copies(hp_avc_hash_fn fn, uint32_t mask)
{
	unsigned long used = 0, n = 0;

	fn = hp_avc_hash_for_slots(fn, mask + 1);
	for (uint32_t s = 28; s < 60; s++)
		for (uint32_t t = 28; t < 60; t++)
			for (uint16_t c = 1; c <= 4; c++, n++) {
				uint8_t seen[512] = { 0 };

				for (uint32_t k = 0; k < 16; k++) {
					uint32_t b = fn(s + (k << 16), t + (k << 16), c) & mask;

					used += !seen[b];
					seen[b] = 1;
				}
			}
	return (double)used / n;
}

static void test_clustered_sids(void)
{
	double hp = mean_buckets_of_copies(hp_avc_hash_hp, 511);

	CHECK(hp > 15.5, "hp: a triple's 16 clustered copies in %.2f buckets of 512", hp);
	CHECK(mean_buckets_of_copies(hp_avc_hash_muladd, 511) == 1.0,
	      "muladd's low bits should not see SID bits above 9");
}

int main(void)
{
	test_hash_vectors();
	test_hash_table();
	test_buckets();
	test_clustered_sids();
	return check_summary("test_avc_hash");
}
