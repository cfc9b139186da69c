// SPDX-License-Identifier: GPL-2.0-only
/*
 * The sk_buff walks against the reference CRC of the sk_buff's bytes in
 * order: random geometries (head size, fragment count, fragment offsets
 * and sizes within their page, frag lists nested up to three deep), every
 * walk in the skb primitives' registry over the whole sk_buff, and the
 * walk functions over random ranges (offset, len), with random seeds; the
 * page-split builder the skb primitives use, which must keep every
 * fragment within one page; and every variant of both skb primitives
 * through the registry's own check() over the builder's sk_buffs. The
 * registry is the list: a variant added there is tested here.
 */
#include "check.h"
#include "registry_walk.h"

#include <hotpath/bench.h>
#include <hotpath/crc32c.h>
#include <hotpath/skb.h>

#include <stdlib.h>
#include <string.h>

#define TEST_RNG_SEED 0x94d049bb133111ebull
#include "testdata.h"

extern const struct hp_primitive hp_prim_skb_crc32c_linear;
extern const struct hp_primitive hp_prim_skb_crc32c_nonlinear;

static const struct hp_primitive *const prims[] = {
	&hp_prim_skb_crc32c_linear,
	&hp_prim_skb_crc32c_nonlinear,
};
#define NPRIMS (sizeof(prims) / sizeof(prims[0]))

/* The skb primitives' variant signature (registry_skb.c): a whole walk. */
typedef uint32_t (*skb_walk_fn)(const struct hp_skb *skb, uint32_t crc);

#define NPAGES 64
#define MAXSKB 32

static uint8_t *pages;			/* NPAGES page-aligned pages */
static uint8_t heads[MAXSKB][2048];
static struct hp_skb pool[MAXSKB];
static int npool;

/* The distinct walks of all the skb primitives this CPU runs. */
static const struct hp_variant **walks;
static size_t nwalks;

static uint32_t rnd_below(uint32_t n)
{
	return n ? (uint32_t)(rnd() % n) : 0;
}

/*
 * No walk is known to be wrong: each promises the reference CRC of the
 * sk_buff's bytes, and every miss is a failure.
 *
 * The primitives differ in the sk_buff their burst builds, not in their
 * walks (the same functions, each with the domain its geometry allows),
 * so a walk is taken once, with the domain of its first appearance.
 */
static int collect_walks(void)
{
	size_t total = 0;

	for (size_t k = 0; k < NPRIMS; k++)
		total += prims[k]->nvariants;
	walks = calloc(total ? total : 1, sizeof(*walks));
	if (!walks)
		return -1;
	for (size_t k = 0; k < NPRIMS; k++) {
		const struct hp_primitive *p = prims[k];

		for (size_t i = 0; i < p->nvariants; i++) {
			const struct hp_variant *v = &p->variants[i];
			const char *why = skip_reason(v);
			size_t j;

			if (why) {
				printf("  %-20s %-16s skipped: %s\n",
				       p->name, v->name, why);
				continue;
			}
			for (j = 0; j < nwalks && walks[j]->fn != v->fn; j++)
				;
			if (j == nwalks)
				walks[nwalks++] = v;
		}
	}
	return 0;
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
	skb->headlen = rnd_below(4) ? rnd_below(2049) : 0;
	skb->data = heads[idx] + (2048 - skb->headlen);
	skb->len = skb->headlen;
	skb->nr_frags = rnd_below(HP_SKB_MAX_FRAGS + 1);
	for (uint32_t i = 0; i < skb->nr_frags; i++) {
		struct hp_skb_frag *f = &skb->frags[i];
		uint32_t off = rnd_below(HP_SKB_PAGE_SIZE);

		f->page = pages + rnd_below(NPAGES) * HP_SKB_PAGE_SIZE;
		f->offset = off;
		f->size = rnd_below(4) ? rnd_below(HP_SKB_PAGE_SIZE - off + 1)
				       : HP_SKB_PAGE_SIZE - off;
		skb->len += f->size;
	}
	if (depth < 3) {
		struct hp_skb **tail = &skb->frag_list;

		for (int n = (int)rnd_below(4); n > 0; n--) {
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

/*
 * The offset and length arithmetic of skb.h's walk functions, which the
 * registry's variants (each a walk of the whole sk_buff) do not reach:
 * these calls are the API under test, not a list of variants.
 */
static void check_range(const struct hp_skb *skb, int t, int off, int len,
			uint32_t seed, uint32_t want)
{
	CHECK(hp_skb_crc32c(skb, off, len, seed) == want,
	      "chained t %d off %d len %d", t, off, len);
	CHECK(hp_skb_crc32c_hotpath(skb, off, len, seed) == want,
	      "hotpath t %d off %d len %d", t, off, len);
	CHECK(hp_skb_checksum_generic(skb, off, len, seed,
				      &hp_skb_crc32c_ops_gf2mul) == want,
	      "generic-gf2mul t %d off %d len %d", t, off, len);
	if (t % 10 == 0)	/* the matrix combine is slow */
		CHECK(hp_skb_checksum_generic(skb, off, len, seed,
				&hp_skb_crc32c_ops_matrix) == want,
		      "generic-matrix t %d off %d len %d", t, off, len);
}

static void test_random_geometries(void)
{
	static uint8_t lin[MAXSKB * (2048 + HP_SKB_MAX_FRAGS * 4096)];

	for (int t = 0; t < 1500; t++) {
		struct hp_skb *skb;
		uint32_t seed = t % 3 == 0 ? 0 : t % 3 == 1 ? ~0u :
				(uint32_t)rnd();
		int off, len;
		uint32_t want;

		npool = 0;
		skb = random_skb(0);
		hp_skb_linearize(skb, lin);
		/* the whole sk_buff: every walk in the registry */
		want = hp_crc32c_ref(seed, lin, skb->len);
		for (size_t i = 0; i < nwalks; i++) {
			const struct hp_variant *v = walks[i];

			if (in_domain(v, skb->len))
				CHECK(((skb_walk_fn)v->fn)(skb, seed) == want,
				      "%s t %d len %u", v->name, t, skb->len);
		}
		/* then a random range of it */
		off = (int)rnd_below(skb->len + 1);
		len = (int)rnd_below(skb->len - off + 1);
		want = hp_crc32c_ref(seed, lin + off, (size_t)len);
		check_range(skb, t, off, len, seed, want);
	}
}

static void test_split_builder(void)
{
	static uint8_t lin[65536];

	for (size_t len = 0; len <= 3 * 16384; len += len < 300 ? 1 : 997) {
		size_t align = rnd_below(4096);
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

/*
 * Each skb primitive's variants through its check(), the correctness
 * gate's: the sk_buff its burst builds (all head, or half head and half
 * page fragments) over the buffer, against the reference.
 */
static void test_primitives(void)
{
	for (size_t k = 0; k < NPRIMS; k++) {
		const struct hp_primitive *p = prims[k];

		for (size_t i = 0; i < p->nvariants; i++) {
			const struct hp_variant *v = &p->variants[i];
			unsigned long cases = 0, bad = 0;

			if (skip_reason(v))
				continue;
			for (size_t len = 0; len <= 3 * 16384;
			     len += len < 300 ? 1 : 997) {
				const uint8_t *buf = pages + rnd_below(4096);
				uint32_t seed = (uint32_t)rnd();
				uint64_t exp, got;

				if (!in_domain(v, len))
					continue;
				cases++;
				if (p->check(v, buf, len, seed, &exp, &got) &&
				    bad++ < 3)
					fprintf(stderr,
						"  %s %s: len %zu seed %#x: expected %#llx got %#llx\n",
						p->name, v->name, len, seed,
						(unsigned long long)exp,
						(unsigned long long)got);
			}
			CHECK(!bad, "%s %s: %lu of %lu cases wrong", p->name,
			      v->name, bad, cases);
			printf("  %-20s %-16s %5lu cases, %lu wrong\n",
			       p->name, v->name, cases, bad);
		}
	}
}

int main(void)
{
	pages = aligned_alloc(HP_SKB_PAGE_SIZE, NPAGES * HP_SKB_PAGE_SIZE);
	if (!pages) {
		perror("aligned_alloc");
		return 2;
	}
	fill_random(pages, NPAGES * HP_SKB_PAGE_SIZE);
	fill_random(&heads[0][0], sizeof(heads));
	if (collect_walks()) {
		perror("calloc");
		return 2;
	}
	test_random_geometries();
	test_split_builder();
	test_primitives();
	free(walks);
	free(pages);
	return check_summary("test_skb");
}
