/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The hash functions proposed for the SELinux AVC's avc_hash(), each as a
 * symbol (for the registry and --with) and as an inline twin (for code
 * that must inline it, as the kernel does).
 */
#ifndef HOTPATH_AVC_HASH_H
#define HOTPATH_AVC_HASH_H

#include <stdint.h>

/* ---- hash functions ---- */

/*
 * A hash of an AVC key. The cache uses the LOW bits: the slot is
 * hash & (slots - 1), as avc_hash() masks with AVC_CACHE_SLOTS - 1, so a
 * hash must make its low bits depend on every bit of the key. hp is the
 * exception: its bucket is its top bits. For the hashes below the cache
 * calls the bucket function hp_avc_hash_for_slots() gives it (the mask or
 * hp's shift built in, as the kernel's constant slot count has it); for
 * any other it masks the hash's value itself.
 */
typedef uint32_t (*hp_avc_hash_fn)(uint32_t ssid, uint32_t tsid,
				   uint16_t tclass);

/* Each function below has an inline twin (..._inl) further down, for
 * benchmarks that want the hash inlined into the lookup as the kernel
 * has it; the two always agree. */

/* The original avc_hash() (Linux 2.6.0 to 6.18): ssid ^ (tsid << 2) ^
 * (tclass << 4). Low bits see only the low bits of each SID. */
uint32_t hp_avc_hash_orig(uint32_t ssid, uint32_t tsid, uint16_t tclass);
/* The seed's "Muladd": ssid * 0x9E3779B9 + tsid * 0x85EBCA77 +
 * tclass * 0xC2B2AE35, all modulo 2^32. */
uint32_t hp_avc_hash_muladd(uint32_t ssid, uint32_t tsid, uint16_t tclass);
/* Linux 6.19's av_hash(ssid, tsid, tclass): the MurmurHash3_x86_32 block
 * mix over the three words from hash 0, then its finaliser WITHOUT the
 * length xor (so it differs from MurmurHash3 of the 12 bytes by that). */
uint32_t hp_avc_hash_murmur3(uint32_t ssid, uint32_t tsid, uint16_t tclass);
/* The kernel's jhash_3words(ssid, tsid, tclass, 0) (include/linux/jhash.h). */
uint32_t hp_avc_hash_jhash(uint32_t ssid, uint32_t tsid, uint16_t tclass);
/*
 * hotpath's own (issue 42): ssid, tsid and tclass each times a 32-bit odd
 * constant, the three products xored; the bucket among 2^b slots is the
 * TOP b bits (multiplicative hashing: a product's top bits see every bit
 * of its factor, its low bits only the factor's low bits). The seed's
 * muladd with two changes: its low bits cannot tell SIDs apart that
 * differ only above bit b (clustered SIDs), top bits can; and an xor, not
 * a sum, keeps such SIDs from mapping to translates of one pattern, as a
 * sum of products (linear) does. Three 32-bit multiplies side by side, two
 * xors and a shift: muladd's cost and one shift, on 32-bit CPUs too. A
 * cache takes the top b bits through hp_avc_hash_for_slots().
 */
uint32_t hp_avc_hash_hp(uint32_t ssid, uint32_t tsid, uint16_t tclass);

struct hp_avc_hash_desc {
	const char *name;	/* "orig", "muladd", "murmur3", "jhash", "hp" */
	hp_avc_hash_fn fn;
	const char *what;	/* one line for tables */
};

/* Every hash above, in that order, ended by an entry with name NULL. */
extern const struct hp_avc_hash_desc hp_avc_hashes[];
/* The entry named @name, or NULL. */
const struct hp_avc_hash_desc *hp_avc_hash_find(const char *name);

/*
 * The bucket function a cache of @slots (a power of two, at most 2^20)
 * calls for @fn, one of the hashes above: its inline twin with the bucket
 * taken as the kernel would take it with AVC_CACHE_SLOTS a constant, the
 * low log2(@slots) bits by an AND with an immediate, hp's top bits by a
 * shift by one (c/avc/bucket.c); nothing computed per lookup, and the
 * cache's own mask then changes nothing. Any other @fn (a --with variant,
 * a kernel tree's avc_hash), or @slots out of range: @fn itself, whose
 * value the cache masks.
 */
hp_avc_hash_fn hp_avc_hash_for_slots(hp_avc_hash_fn fn, uint32_t slots);

/* ---- inline twins of the hash functions ---- */

static inline uint32_t hp_avc_rol32(uint32_t x, unsigned int r)
{
	return (x << r) | (x >> (32 - r));
}

static inline uint32_t hp_avc_hash_orig_inl(uint32_t ssid, uint32_t tsid,
					    uint16_t tclass)
{
	return ssid ^ (tsid << 2) ^ ((uint32_t)tclass << 4);
}

static inline uint32_t hp_avc_hash_muladd_inl(uint32_t ssid, uint32_t tsid,
					      uint16_t tclass)
{
	return ssid * 0x9E3779B9u + tsid * 0x85EBCA77u +
	       (uint32_t)tclass * 0xC2B2AE35u;
}

/* One MurmurHash3_x86_32 block step: scramble @k, fold it into @h. */
static inline uint32_t hp_avc_murmur3_step(uint32_t h, uint32_t k)
{
	k *= 0xcc9e2d51u;
	k = hp_avc_rol32(k, 15);
	k *= 0x1b873593u;
	h ^= k;
	h = hp_avc_rol32(h, 13);
	return h * 5 + 0xe6546b64u;
}

static inline uint32_t hp_avc_hash_murmur3_inl(uint32_t ssid, uint32_t tsid,
					       uint16_t tclass)
{
	uint32_t h = 0;

	h = hp_avc_murmur3_step(h, ssid);
	h = hp_avc_murmur3_step(h, tsid);
	h = hp_avc_murmur3_step(h, tclass);
	/* fmix32; av_hash() skips the "h ^= length" before it */
	h ^= h >> 16;
	h *= 0x85ebca6bu;
	h ^= h >> 13;
	h *= 0xc2b2ae35u;
	h ^= h >> 16;
	return h;
}

static inline uint32_t hp_avc_hash_jhash_inl(uint32_t ssid, uint32_t tsid,
					     uint16_t tclass)
{
	/* JHASH_INITVAL + (3 words << 2) + initval 0 */
	uint32_t init = 0xdeadbeefu + (3u << 2);
	uint32_t a = ssid + init, b = tsid + init, c = tclass + init;

	/* __jhash_final(): seven xor-then-subtract-rotated steps */
	c = (c ^ b) - hp_avc_rol32(b, 14);
	a = (a ^ c) - hp_avc_rol32(c, 11);
	b = (b ^ a) - hp_avc_rol32(a, 25);
	c = (c ^ b) - hp_avc_rol32(b, 16);
	a = (a ^ c) - hp_avc_rol32(c, 4);
	b = (b ^ a) - hp_avc_rol32(a, 14);
	c = (c ^ b) - hp_avc_rol32(b, 24);
	return c;
}

/*
 * The low halves of wyhash's first three published (public-domain)
 * secrets: odd, four bits set in every byte (hp's constants before issue
 * 42 were two of those secrets whole). docs/labs/avc.md has the two other
 * published triples tried in the same form.
 */
#define HP_AVC_HP_MUL_SSID	0x962eacc9u
#define HP_AVC_HP_MUL_TSID	0xaa6c78a5u
#define HP_AVC_HP_MUL_TCLASS	0xd433d4a3u

static inline uint32_t hp_avc_hash_hp_inl(uint32_t ssid, uint32_t tsid,
					  uint16_t tclass)
{
	return ssid * HP_AVC_HP_MUL_SSID ^ tsid * HP_AVC_HP_MUL_TSID ^
	       (uint32_t)tclass * HP_AVC_HP_MUL_TCLASS;
}

/* hp's bucket among 2^@bits slots, @bits 0..32: its top @bits bits. A
 * constant @bits wherever this is inlined, so the shift is an immediate. */
static inline uint32_t hp_avc_hp_bucket_inl(uint32_t ssid, uint32_t tsid,
					    uint16_t tclass, unsigned int bits)
{
	return bits ? hp_avc_hash_hp_inl(ssid, tsid, tclass) >> (32 - bits) : 0;
}

#endif /* HOTPATH_AVC_HASH_H */
