// SPDX-License-Identifier: GPL-2.0-only
/*
 * hp's bucket functions, one per slot count (issue 42). hp's bucket is the
 * top log2(slots) bits of its 64-bit value, and the kernel would shift by
 * a constant (AVC_CACHE_SLOTS is one); the cache model calls its bucket
 * function through a pointer, so each slot count gets hp's inline twin
 * with its shift built in, picked once when the cache is set up, never
 * computed per lookup.
 */
#include <hotpath/avc.h>

#define HP_BUCKET(b)							\
	static uint32_t hp_bucket_##b(uint32_t s, uint32_t t, uint16_t c) \
	{								\
		return hp_avc_hp_bucket_inl(s, t, c, b);		\
	}

HP_BUCKET(0) HP_BUCKET(1) HP_BUCKET(2) HP_BUCKET(3) HP_BUCKET(4)
HP_BUCKET(5) HP_BUCKET(6) HP_BUCKET(7) HP_BUCKET(8) HP_BUCKET(9)
HP_BUCKET(10) HP_BUCKET(11) HP_BUCKET(12) HP_BUCKET(13) HP_BUCKET(14)
HP_BUCKET(15) HP_BUCKET(16) HP_BUCKET(17) HP_BUCKET(18) HP_BUCKET(19)
HP_BUCKET(20)

/* by log2(slots), up to HP_AVC_MAX_SLOTS = 2^20 */
static const hp_avc_hash_fn hp_buckets[] = {
	hp_bucket_0, hp_bucket_1, hp_bucket_2, hp_bucket_3, hp_bucket_4,
	hp_bucket_5, hp_bucket_6, hp_bucket_7, hp_bucket_8, hp_bucket_9,
	hp_bucket_10, hp_bucket_11, hp_bucket_12, hp_bucket_13, hp_bucket_14,
	hp_bucket_15, hp_bucket_16, hp_bucket_17, hp_bucket_18, hp_bucket_19,
	hp_bucket_20,
};

_Static_assert(sizeof(hp_buckets) / sizeof(hp_buckets[0]) ==
	       __builtin_ctz(HP_AVC_MAX_SLOTS) + 1, "one per slot count");

hp_avc_hash_fn hp_avc_hash_for_slots(hp_avc_hash_fn fn, uint32_t slots)
{
	if (fn != hp_avc_hash_hp || !slots || (slots & (slots - 1)) ||
	    slots > HP_AVC_MAX_SLOTS)
		return fn;
	return hp_buckets[__builtin_ctz(slots)];
}
