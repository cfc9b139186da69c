// SPDX-License-Identifier: GPL-2.0-only
/*
 * The AVC hash functions as callable symbols, for the cache model's
 * function pointer and for tables; the bodies are the inline twins in
 * hotpath/avc.h, so both always agree.
 */
#include <string.h>

#include <hotpath/avc.h>

uint32_t hp_avc_hash_orig(uint32_t ssid, uint32_t tsid, uint16_t tclass)
{
	return hp_avc_hash_orig_inl(ssid, tsid, tclass);
}

uint32_t hp_avc_hash_muladd(uint32_t ssid, uint32_t tsid, uint16_t tclass)
{
	return hp_avc_hash_muladd_inl(ssid, tsid, tclass);
}

uint32_t hp_avc_hash_murmur3(uint32_t ssid, uint32_t tsid, uint16_t tclass)
{
	return hp_avc_hash_murmur3_inl(ssid, tsid, tclass);
}

uint32_t hp_avc_hash_jhash(uint32_t ssid, uint32_t tsid, uint16_t tclass)
{
	return hp_avc_hash_jhash_inl(ssid, tsid, tclass);
}

uint32_t hp_avc_hash_hp(uint32_t ssid, uint32_t tsid, uint16_t tclass)
{
	return hp_avc_hash_hp_inl(ssid, tsid, tclass);
}

const struct hp_avc_hash_desc hp_avc_hashes[] = {
	{ "orig", hp_avc_hash_orig,
	  "ssid ^ (tsid << 2) ^ (tclass << 4), Linux 2.6.0 to 6.18" },
	{ "muladd", hp_avc_hash_muladd,
	  "three 32-bit multiplies added, the seed's proposal" },
	{ "murmur3", hp_avc_hash_murmur3,
	  "av_hash(), MurmurHash3 mixing, Linux 6.19" },
	{ "jhash", hp_avc_hash_jhash, "jhash_3words(ssid, tsid, tclass, 0)" },
	{ "hp", hp_avc_hash_hp,
	  "three 32-bit products xored, the top bits" },
	{ NULL, NULL, NULL },
};

const struct hp_avc_hash_desc *hp_avc_hash_find(const char *name)
{
	const struct hp_avc_hash_desc *d;

	for (d = hp_avc_hashes; d->name; d++)
		if (!strcmp(d->name, name))
			return d;
	return NULL;
}
