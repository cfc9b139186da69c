// SPDX-License-Identifier: GPL-2.0-only
/*
 * The table of primitives the runner knows. Adding a primitive is one
 * line here plus its own files under c/<lab>/.
 */
#include <hotpath/bench.h>

#include <string.h>

extern const struct hp_primitive hp_prim_add_chain;
extern const struct hp_primitive hp_prim_csum_partial;
extern const struct hp_primitive hp_prim_csum_fold;
extern const struct hp_primitive hp_prim_csum_ipv6_magic;
extern const struct hp_primitive hp_prim_ip_fast_csum;
extern const struct hp_primitive hp_prim_csum_partial_copy;
extern const struct hp_primitive hp_prim_crc32c;
extern const struct hp_primitive hp_prim_crc32c_combine;
extern const struct hp_primitive hp_prim_skb_crc32c_linear;
extern const struct hp_primitive hp_prim_skb_crc32c_nonlinear;
extern const struct hp_primitive hp_prim_avc_lookup;
extern const struct hp_primitive hp_prim_fn_crc32_le;
extern const struct hp_primitive hp_prim_fn_crc32_be;
extern const struct hp_primitive hp_prim_fn_crc64_be;
extern const struct hp_primitive hp_prim_fn_crc64_rocksoft;
extern const struct hp_primitive hp_prim_fn_crc_t10dif;
extern const struct hp_primitive hp_prim_fn_crc16;
extern const struct hp_primitive hp_prim_fn_crc_itu_t;
extern const struct hp_primitive hp_prim_fn_jhash;
extern const struct hp_primitive hp_prim_fn_xxh32;
extern const struct hp_primitive hp_prim_fn_xxh64;
extern const struct hp_primitive hp_prim_fn_siphash;
extern const struct hp_primitive hp_prim_fn_siphash_1u64;
extern const struct hp_primitive hp_prim_fn_siphash_2u64;
extern const struct hp_primitive hp_prim_fn_memcpy;
extern const struct hp_primitive hp_prim_fn_memmove;
extern const struct hp_primitive hp_prim_fn_memset;
extern const struct hp_primitive hp_prim_fn_memchr;
extern const struct hp_primitive hp_prim_fn_strlen;
extern const struct hp_primitive hp_prim_fn_strnlen;
extern const struct hp_primitive hp_prim_fn_find_next_bit;

const struct hp_primitive *const hp_primitives[] = {
	&hp_prim_add_chain,
	&hp_prim_csum_partial,
	&hp_prim_csum_fold,
	&hp_prim_csum_ipv6_magic,
	&hp_prim_ip_fast_csum,
	&hp_prim_csum_partial_copy,
	&hp_prim_crc32c,
	&hp_prim_crc32c_combine,
	&hp_prim_skb_crc32c_linear,
	&hp_prim_skb_crc32c_nonlinear,
	&hp_prim_avc_lookup,
	&hp_prim_fn_crc32_le,
	&hp_prim_fn_crc32_be,
	&hp_prim_fn_crc64_be,
	&hp_prim_fn_crc64_rocksoft,
	&hp_prim_fn_crc_t10dif,
	&hp_prim_fn_crc16,
	&hp_prim_fn_crc_itu_t,
	&hp_prim_fn_jhash,
	&hp_prim_fn_xxh32,
	&hp_prim_fn_xxh64,
	&hp_prim_fn_siphash,
	&hp_prim_fn_siphash_1u64,
	&hp_prim_fn_siphash_2u64,
	&hp_prim_fn_memcpy,
	&hp_prim_fn_memmove,
	&hp_prim_fn_memset,
	&hp_prim_fn_memchr,
	&hp_prim_fn_strlen,
	&hp_prim_fn_strnlen,
	&hp_prim_fn_find_next_bit,
	NULL
};

const struct hp_primitive *hp_primitive_find(const char *name)
{
	for (const struct hp_primitive *const *p = hp_primitives; *p; p++)
		if (!strcmp((*p)->name, name))
			return *p;
	return NULL;
}

const char *hp_own_variant(const struct hp_primitive *p)
{
	for (size_t i = 0; p && i < p->nvariants; i++)
		if (p->variants[i].flags & HP_V_OWN)
			return p->variants[i].name;
	return "";
}
