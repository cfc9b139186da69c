// SPDX-License-Identifier: GPL-2.0-only
/*
 * The bucket functions, one per hash and slot count (issue 42). The
 * kernel takes a bucket with AVC_CACHE_SLOTS a constant: avc_hash() &
 * (AVC_CACHE_SLOTS - 1), an AND with an immediate. hp's bucket is its top
 * log2(slots) bits, a shift by an immediate. The cache model calls its
 * bucket function through a pointer, so each (hash, slot count) gets the
 * hash's inline twin with its mask or shift built in, picked once when the
 * cache is set up (hp_avc_init()): the lookup the lab times then pays
 * what the kernel's would, one AND or one shift, and masks nothing more.
 */
#include <hotpath/avc.h>

/* X(h, b) for b = 0..20, the slot counts 2^0..2^20 */
#define EACH_BITS(X, h)							\
	X(h, 0) X(h, 1) X(h, 2) X(h, 3) X(h, 4) X(h, 5) X(h, 6)	\
	X(h, 7) X(h, 8) X(h, 9) X(h, 10) X(h, 11) X(h, 12) X(h, 13)	\
	X(h, 14) X(h, 15) X(h, 16) X(h, 17) X(h, 18) X(h, 19) X(h, 20)

/* the low b bits, as avc_hash() & (AVC_CACHE_SLOTS - 1) */
#define LOW_BUCKET(h, b)						\
	static uint32_t h##_bucket_##b(uint32_t s, uint32_t t, uint16_t c) \
	{								\
		return hp_avc_hash_##h##_inl(s, t, c) &			\
		       (uint32_t)((1ull << (b)) - 1);			\
	}
/* hp's: the top b bits */
#define TOP_BUCKET(h, b)						\
	static uint32_t h##_bucket_##b(uint32_t s, uint32_t t, uint16_t c) \
	{								\
		return hp_avc_hp_bucket_inl(s, t, c, b);		\
	}
#define POINTER(h, b) h##_bucket_##b,

EACH_BITS(LOW_BUCKET, orig)
EACH_BITS(LOW_BUCKET, muladd)
EACH_BITS(LOW_BUCKET, murmur3)
EACH_BITS(LOW_BUCKET, jhash)
EACH_BITS(TOP_BUCKET, hp)

#define BUCKETS(h)							\
	static const hp_avc_hash_fn h##_buckets[] = { EACH_BITS(POINTER, h) }; \
	_Static_assert(sizeof(h##_buckets) / sizeof(h##_buckets[0]) ==	\
		       __builtin_ctz(HP_AVC_MAX_SLOTS) + 1,		\
		       "one per slot count");

BUCKETS(orig)
BUCKETS(muladd)
BUCKETS(murmur3)
BUCKETS(jhash)
BUCKETS(hp)

/* by hash; each table by log2(slots), up to HP_AVC_MAX_SLOTS = 2^20 */
static const struct {
	hp_avc_hash_fn fn;
	const hp_avc_hash_fn *by_bits;
} buckets[] = {
	{ hp_avc_hash_orig, orig_buckets },
	{ hp_avc_hash_muladd, muladd_buckets },
	{ hp_avc_hash_murmur3, murmur3_buckets },
	{ hp_avc_hash_jhash, jhash_buckets },
	{ hp_avc_hash_hp, hp_buckets },
};

hp_avc_hash_fn hp_avc_hash_for_slots(hp_avc_hash_fn fn, uint32_t slots)
{
	if (!slots || (slots & (slots - 1)) || slots > HP_AVC_MAX_SLOTS)
		return fn;
	for (unsigned i = 0; i < sizeof(buckets) / sizeof(buckets[0]); i++)
		if (buckets[i].fn == fn)
			return buckets[i].by_bits[__builtin_ctz(slots)];
	return fn;
}
