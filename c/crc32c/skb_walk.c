// SPDX-License-Identifier: GPL-2.0-only
/*
 * The sk_buff walks of hotpath/skb.h, following the kernel's
 * __skb_checksum() (net/core/skbuff.c, up to 6.15) and skb_crc32c()
 * (seed 002, Eric Biggers, 2025) structure: head, then each page
 * fragment, then each sk_buff on the frag list, recursively.
 */
#include <hotpath/crc32c.h>
#include <hotpath/skb.h>

#include <string.h>

#include "crc32c_internal.h"

static uint32_t sctp_update(const void *mem, int len, uint32_t csum)
{
	return hp_crc32c_kernel_x86(csum, mem, (size_t)len);
}

static uint32_t sctp_combine_matrix(uint32_t csum, uint32_t csum2,
				    int offset, int len)
{
	return hp_crc32c_combine_matrix(csum, csum2, (size_t)len);
}

static uint32_t sctp_combine_gf2mul(uint32_t csum, uint32_t csum2,
				    int offset, int len)
{
	return hp_crc32c_combine_gf2mul(csum, csum2, (size_t)len);
}

const struct hp_skb_checksum_ops hp_skb_crc32c_ops_matrix = {
	.update = sctp_update,
	.combine = sctp_combine_matrix,
};

const struct hp_skb_checksum_ops hp_skb_crc32c_ops_gf2mul = {
	.update = sctp_update,
	.combine = sctp_combine_gf2mul,
};

/* noipa: the calls through @ops must stay indirect, as in the kernel,
 * instead of being specialised for the one ops table callers pass. */
__attribute__((noipa)) uint32_t
hp_skb_checksum_generic(const struct hp_skb *skb, int offset, int len,
			uint32_t csum, const struct hp_skb_checksum_ops *ops)
{
	int start = (int)skb->headlen, copy = start - offset, pos = 0;

	if (copy > 0) {
		if (copy > len)
			copy = len;
		csum = ops->update(skb->data + offset, copy, csum);
		len -= copy;
		if (len == 0)
			return csum;
		offset += copy;
		pos = copy;
	}
	for (uint32_t i = 0; i < skb->nr_frags; i++) {
		const struct hp_skb_frag *frag = &skb->frags[i];
		int end = start + (int)frag->size;

		copy = end - offset;
		if (copy > 0) {
			uint32_t csum2;

			if (copy > len)
				copy = len;
			/* one page per fragment here: one update each */
			csum2 = ops->update(frag->page + frag->offset +
					    (offset - start), copy, 0);
			csum = ops->combine(csum, csum2, pos, copy);
			pos += copy;
			len -= copy;
			if (len == 0)
				return csum;
			offset += copy;
		}
		start = end;
	}
	for (const struct hp_skb *it = skb->frag_list; it; it = it->next) {
		int end = start + (int)it->len;

		copy = end - offset;
		if (copy > 0) {
			uint32_t csum2;

			if (copy > len)
				copy = len;
			csum2 = hp_skb_checksum_generic(it, offset - start,
							copy, 0, ops);
			csum = ops->combine(csum, csum2, pos, copy);
			len -= copy;
			if (len == 0)
				return csum;
			offset += copy;
			pos += copy;
		}
		start = end;
	}
	return csum;
}

/*
 * skb_crc32c() as a template over the CRC function: one chained CRC, so
 * there is nothing to combine and every call is direct. Its walk is
 * hp_skb_checksum_generic()'s written again on purpose: each follows its
 * own kernel function (__skb_checksum() with indirect update and combine
 * and the running offset; skb_crc32c() chained), as the kernel has it, so
 * that each variant times the kernel's shape.
 */
static inline __attribute__((always_inline)) uint32_t
skb_crc_chain(const struct hp_skb *skb, int offset, int len, uint32_t crc,
	      hp_crc32c_fn crc_fn,
	      uint32_t (*self)(const struct hp_skb *, int, int, uint32_t))
{
	int start = (int)skb->headlen, copy = start - offset;

	if (copy > 0) {
		if (copy > len)
			copy = len;
		crc = crc_fn(crc, skb->data + offset, (size_t)copy);
		len -= copy;
		if (len == 0)
			return crc;
		offset += copy;
	}
	for (uint32_t i = 0; i < skb->nr_frags; i++) {
		const struct hp_skb_frag *frag = &skb->frags[i];
		int end = start + (int)frag->size;

		copy = end - offset;
		if (copy > 0) {
			if (copy > len)
				copy = len;
			crc = crc_fn(crc, frag->page + frag->offset +
				     (offset - start), (size_t)copy);
			len -= copy;
			if (len == 0)
				return crc;
			offset += copy;
		}
		start = end;
	}
	for (const struct hp_skb *it = skb->frag_list; it; it = it->next) {
		int end = start + (int)it->len;

		copy = end - offset;
		if (copy > 0) {
			if (copy > len)
				copy = len;
			crc = self(it, offset - start, copy, crc);
			len -= copy;
			if (len == 0)
				return crc;
			offset += copy;
		}
		start = end;
	}
	return crc;
}

uint32_t hp_skb_crc32c(const struct hp_skb *skb, int offset, int len,
		       uint32_t crc)
{
	return skb_crc_chain(skb, offset, len, crc, hp_crc32c_kernel_x86,
			     hp_skb_crc32c);
}

/* hp_crc32c() inlined, so that a short piece pays no call: on a Zen 5
 * (EPYC family 26 model 2) a non-linear 64-byte sk_buff (two 32-byte
 * pieces) took 29.1 cycles through the call, 26.1 in the chained kernel
 * walk, and 24.1 inlined (latency). */
HP_SSE42 uint32_t hp_skb_crc32c_hotpath(const struct hp_skb *skb, int offset,
					int len, uint32_t crc)
{
	return skb_crc_chain(skb, offset, len, crc, hp_crc32c_inline,
			     hp_skb_crc32c_hotpath);
}

void hp_skb_linearize(const struct hp_skb *skb, uint8_t *out)
{
	memcpy(out, skb->data, skb->headlen);
	out += skb->headlen;
	for (uint32_t i = 0; i < skb->nr_frags; i++) {
		memcpy(out, skb->frags[i].page + skb->frags[i].offset,
		       skb->frags[i].size);
		out += skb->frags[i].size;
	}
	for (const struct hp_skb *it = skb->frag_list; it; it = it->next) {
		hp_skb_linearize(it, out);
		out += it->len;
	}
}

int hp_skb_build_split(struct hp_skb *skb, const uint8_t *buf, size_t len,
		       size_t headlen)
{
	const uint8_t *p = buf + headlen;
	size_t left = len - headlen;

	memset(skb, 0, sizeof(*skb));
	skb->data = buf;
	skb->headlen = (uint32_t)headlen;
	skb->len = (uint32_t)len;
	while (left) {
		uintptr_t page = (uintptr_t)p & ~(uintptr_t)(HP_SKB_PAGE_SIZE - 1);
		uint32_t off = (uint32_t)((uintptr_t)p - page);
		uint32_t size = HP_SKB_PAGE_SIZE - off;
		struct hp_skb_frag *f;

		if (skb->nr_frags == HP_SKB_MAX_FRAGS)
			return -1;
		if (size > left)
			size = (uint32_t)left;
		f = &skb->frags[skb->nr_frags++];
		f->page = (const uint8_t *)page;
		f->offset = off;
		f->size = size;
		p += size;
		left -= size;
	}
	return 0;
}
