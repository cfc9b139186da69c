// SPDX-License-Identifier: GPL-2.0-only
/*
 * The sk_buff walks against the reference CRC of the sk_buff's bytes in
 * order: random geometries (head size, fragment count, fragment offsets
 * and sizes within their page, frag lists nested up to three deep),
 * random ranges (offset, len) and seeds; and the page-split builder the
 * skb primitives use, which must keep every fragment within one page.
 */
#include "check.h"

#include <hotpath/crc32c.h>
#include <hotpath/skb.h>

#include <stdlib.h>
#include <string.h>

#define NPAGES 64
#define MAXSKB 32

static uint8_t *pages;			/* NPAGES page-aligned pages */
static uint8_t heads[MAXSKB][2048];
static struct hp_skb pool[MAXSKB];
static int npool;

static uint32_t rnd(uint32_t n)
{
	return n ? (((uint32_t)rand() << 16) ^ (uint32_t)rand()) % n : 0;
}

static struct hp_skb *random_skb(int depth)
{
	struct hp_skb *skb;
	int idx;

	if (npool == MAXSKB)
		return NULL;
	idx = npool++;
	skb = &pool[idx];
	memset(skb, 0, sizeof(*skb));
	skb->headlen = rnd(4) ? rnd(2049) : 0;
	skb->data = heads[idx] + (2048 - skb->headlen);
	skb->len = skb->headlen;
	skb->nr_frags = rnd(HP_SKB_MAX_FRAGS + 1);
	for (uint32_t i = 0; i < skb->nr_frags; i++) {
		struct hp_skb_frag *f = &skb->frags[i];
		uint32_t off = rnd(HP_SKB_PAGE_SIZE);

		f->page = pages + rnd(NPAGES) * HP_SKB_PAGE_SIZE;
		f->offset = off;
		f->size = rnd(4) ? rnd(HP_SKB_PAGE_SIZE - off + 1) :
				   HP_SKB_PAGE_SIZE - off;
		skb->len += f->size;
	}
	if (depth < 3) {
		struct hp_skb **tail = &skb->frag_list;

		for (int n = (int)rnd(4); n > 0; n--) {
			struct hp_skb *child = random_skb(depth + 1);

			if (!child)
				break;
			*tail = child;
			tail = &child->next;
			skb->len += child->len;
		}
	}
	return skb;
}

static void test_random_geometries(void)
{
	static uint8_t lin[MAXSKB * (2048 + HP_SKB_MAX_FRAGS * 4096)];

	for (int t = 0; t < 1500; t++) {
		struct hp_skb *skb;
		uint32_t seed = t % 3 == 0 ? 0 : t % 3 == 1 ? ~0u : rnd(~0u);
		int off, len;
		uint32_t want;

		npool = 0;
		skb = random_skb(0);
		hp_skb_linearize(skb, lin);
		/* the whole sk_buff, then a random range of it */
		for (int r = 0; r < 2; r++) {
			off = r ? (int)rnd(skb->len + 1) : 0;
			len = r ? (int)rnd(skb->len - off + 1) : (int)skb->len;
			want = hp_crc32c_ref(seed, lin + off, (size_t)len);
			CHECK(hp_skb_crc32c(skb, off, len, seed) == want,
			      "chained t %d off %d len %d", t, off, len);
			CHECK(hp_skb_crc32c_hotpath(skb, off, len, seed) == want,
			      "hotpath t %d off %d len %d", t, off, len);
			CHECK(hp_skb_checksum_generic(skb, off, len, seed,
				&hp_skb_crc32c_ops_gf2mul) == want,
			      "generic-gf2mul t %d off %d len %d", t, off, len);
			if (t % 10 == 0)	/* the matrix combine is slow */
				CHECK(hp_skb_checksum_generic(skb, off, len,
					seed, &hp_skb_crc32c_ops_matrix) == want,
				      "generic-matrix t %d off %d len %d", t,
				      off, len);
		}
	}
}

static void test_split_builder(void)
{
	static uint8_t lin[65536];

	for (size_t len = 0; len <= 3 * 16384; len += len < 300 ? 1 : 997) {
		size_t align = rnd(4096);
		const uint8_t *buf = pages + align;
		struct hp_skb skb;
		uint32_t total = 0;

		CHECK(hp_skb_build_split(&skb, buf, len, len / 2) == 0,
		      "build %zu", len);
		for (uint32_t i = 0; i < skb.nr_frags; i++) {
			CHECK(skb.frags[i].offset + skb.frags[i].size <=
			      HP_SKB_PAGE_SIZE, "frag %u of %zu crosses a page",
			      i, len);
			total += skb.frags[i].size;
		}
		CHECK(skb.headlen + total == len, "split %zu", len);
		hp_skb_linearize(&skb, lin);
		CHECK(!memcmp(lin, buf, len), "bytes of split %zu", len);
	}
	/* 16384 split evenly at a page boundary: head 8192, two frags */
	{
		struct hp_skb skb;

		hp_skb_build_split(&skb, pages, 16384, 8192);
		CHECK(skb.nr_frags == 2, "16384 split: %u frags", skb.nr_frags);
	}
}

int main(void)
{
	pages = aligned_alloc(HP_SKB_PAGE_SIZE, NPAGES * HP_SKB_PAGE_SIZE);
	srand(9);
	for (size_t i = 0; i < NPAGES * HP_SKB_PAGE_SIZE; i++)
		pages[i] = (uint8_t)rand();
	for (int i = 0; i < MAXSKB; i++)
		for (int j = 0; j < 2048; j++)
			heads[i][j] = (uint8_t)rand();
	test_random_geometries();
	test_split_builder();
	free(pages);
	return check_summary("test_skb");
}
