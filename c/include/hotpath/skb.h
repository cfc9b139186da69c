/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * A small model of the Linux sk_buff, enough to walk its bytes the way
 * the kernel's checksum helpers do: a linear head, up to 17 page
 * fragments (each inside one page, possibly at an offset), and a frag
 * list of further sk_buffs, themselves with heads, fragments and lists.
 *
 * Three walks compute the CRC32C of a range of those bytes:
 * - hp_skb_checksum_generic(): __skb_checksum() before Linux 6.16, each
 *   fragment's CRC from zero through ops->update, merged by ops->combine,
 *   both indirect calls;
 * - hp_skb_crc32c(): skb_crc32c() from seed 002's patch, one CRC chained
 *   through the pieces by direct calls to the kernel's crc32c;
 * - hp_skb_crc32c_hotpath(): the same chaining with hp_crc32c().
 */
#ifndef HOTPATH_SKB_H
#define HOTPATH_SKB_H

#include <stddef.h>
#include <stdint.h>

#define HP_SKB_MAX_FRAGS 17	/* MAX_SKB_FRAGS with 4 KiB pages */
#define HP_SKB_PAGE_SIZE 4096u

struct hp_skb_frag {
	const uint8_t *page;	/* start of the page, page aligned */
	uint32_t offset;	/* first byte within the page */
	uint32_t size;		/* offset + size <= HP_SKB_PAGE_SIZE */
};

struct hp_skb {
	const uint8_t *data;	/* linear head */
	uint32_t headlen;	/* bytes in the head */
	uint32_t len;		/* head + frags + frag list, all bytes */
	uint32_t nr_frags;
	struct hp_skb_frag frags[HP_SKB_MAX_FRAGS];
	struct hp_skb *frag_list;	/* first of the list */
	struct hp_skb *next;		/* next in its parent's frag list */
};

/* The kernel's struct skb_checksum_ops, for CRC32C's u32. */
struct hp_skb_checksum_ops {
	uint32_t (*update)(const void *mem, int len, uint32_t csum);
	uint32_t (*combine)(uint32_t csum, uint32_t csum2, int offset,
			    int len);
};

/* SCTP's ops: kernel crc32c and the matrix (2013) or gf2mul combine. */
extern const struct hp_skb_checksum_ops hp_skb_crc32c_ops_matrix;
extern const struct hp_skb_checksum_ops hp_skb_crc32c_ops_gf2mul;

/**
 * hp_skb_checksum_generic() - __skb_checksum() with CRC32C ops.
 * @skb: the sk_buff
 * @offset: first byte of the range, from the start of the head
 * @len: bytes in the range; @offset + @len <= @skb->len
 * @csum: CRC to continue from
 * @ops: update and combine, called indirectly
 *
 * Return: the CRC32C of the range, continued from @csum.
 */
uint32_t hp_skb_checksum_generic(const struct hp_skb *skb, int offset,
				 int len, uint32_t csum,
				 const struct hp_skb_checksum_ops *ops);

/**
 * hp_skb_crc32c() - skb_crc32c(): chain one CRC through the pieces.
 * @skb: the sk_buff
 * @offset: first byte of the range
 * @len: bytes in the range
 * @crc: CRC to continue from
 *
 * Return: the CRC32C of the range, continued from @crc.
 */
uint32_t hp_skb_crc32c(const struct hp_skb *skb, int offset, int len,
		       uint32_t crc);
/* The same walk with hp_crc32c() for each piece. */
uint32_t hp_skb_crc32c_hotpath(const struct hp_skb *skb, int offset,
			       int len, uint32_t crc);

/* Copy the bytes of @skb (all @skb->len of them) to @out, in order. */
void hp_skb_linearize(const struct hp_skb *skb, uint8_t *out);

/*
 * hp_skb_build_split() - an sk_buff over @len contiguous bytes at @buf:
 * the first @headlen bytes as the head, the rest as page fragments, cut
 * at page boundaries so that each fragment lies within one page (a split
 * of 8192 bytes becomes two or three fragments). Returns 0, or -1 when
 * more than HP_SKB_MAX_FRAGS fragments would be needed.
 */
int hp_skb_build_split(struct hp_skb *skb, const uint8_t *buf, size_t len,
		       size_t headlen);

#endif /* HOTPATH_SKB_H */
