// SPDX-License-Identifier: GPL-2.0-only
/*
 * Every CRC32C variant in the registry that this CPU runs, within its
 * domain, against the bitwise reference: the check value and RFC 3720's
 * vectors, every length 0..4096 at every alignment 0..63 (the buffer
 * ending at a guard page, so over-reads fault), initial values 0, ~0 and
 * random, lengths around the long paths' block bounds and random lengths
 * up to 1 MiB. The registry is the list: a variant added there is
 * tested here.
 */
#include "check.h"
#include "registry_walk.h"

#include <hotpath/bench.h>
#include <hotpath/crc32c.h>
#include <hotpath/guard.h>

#include <stdlib.h>
#include <string.h>

#include "../../c/crc32c/crc32c_internal.h"

#define TEST_RNG_SEED 0x2545f4914f6cdd1dull
#include "testdata.h"

extern const struct hp_primitive hp_prim_crc32c;

#define MAXLEN 4096
#define BIG (1u << 20)

static uint8_t src[MAXLEN + 64];
static uint32_t seeds[3];
static uint32_t expected[3][MAXLEN + 1];	/* prefix CRCs of src */

/* skip_reason(), and the reference itself: checked against RFC 3720's
 * vectors in test_reference(), the sweep would compare it with its own
 * byte-by-byte prefix table. */
static const char *sweep_skip(const struct hp_variant *v)
{
	if (v->fn == (const void *)hp_crc32c_ref)
		return "the reference itself, checked against RFC 3720 above";
	return skip_reason(v);
}

/*
 * No crc32c variant is known to be wrong: every one promises equality
 * with the reference (HP_CRC32C_EQUAL), and every miss is a failure.
 */

/* The sweep for one variant and alignment, run under hp_guarded_call(). */
struct sweep {
	const struct hp_variant *v;
	struct hp_guarded *g;
	size_t align;
	volatile size_t len;	/* last length started, for a fault report */
	unsigned long bad;
	size_t first_bad_len;
};

/*
 * Against the prefix table rather than the registry's check(): the
 * reference would otherwise run over 262,144 buffers per variant. The
 * comparison is the one check() makes for HP_CRC32C_EQUAL.
 */
static void sweep_lengths(void *arg)
{
	struct sweep *s = arg;
	hp_crc32c_fn fn = (hp_crc32c_fn)s->v->fn;

	for (size_t len = 0; len <= MAXLEN; len++) {
		uint8_t *p;
		int si;

		if (!in_domain(s->v, len))
			continue;
		p = hp_guarded_place(s->g, len, s->align);
		si = (int)((len + s->align) % 3);
		s->len = len;
		memcpy(p, src, len);
		if (fn(seeds[si], p, len) != expected[si][len] && !s->bad++)
			s->first_bad_len = len;
	}
}

static void test_reference(void)
{
	uint8_t v[32];

	CHECK(~hp_crc32c_ref(~0u, "123456789", 9) == 0xE3069283, "check");
	/* RFC 3720 B.4 (values there are after the final inversion) */
	memset(v, 0, 32);
	CHECK(~hp_crc32c_ref(~0u, v, 32) == 0x8A9136AA, "zeros");
	memset(v, 0xff, 32);
	CHECK(~hp_crc32c_ref(~0u, v, 32) == 0x62A8AB43, "ones");
	for (int i = 0; i < 32; i++)
		v[i] = (uint8_t)i;
	CHECK(~hp_crc32c_ref(~0u, v, 32) == 0x46DD794E, "incrementing");
	for (int i = 0; i < 32; i++)
		v[i] = (uint8_t)(31 - i);
	CHECK(~hp_crc32c_ref(~0u, v, 32) == 0x113FDB5C, "decrementing");
}

/* The folds' constants {x^(D+31), x^(D-33)} mod P (crc32c_internal.h),
 * against the reference's powers of x: the 256-bit fold takes 128, 256,
 * 512 and 1024 bits, the 512-bit one 384 too. */
static void test_fold_constants(void)
{
	static const struct {
		int d;
		uint32_t k[2];
	} fold[] = {
		{ 128, { HP_FOLD_128 } }, { 256, { HP_FOLD_256 } }, { 384, { HP_FOLD_384 } },
		{ 512, { HP_FOLD_512 } }, { 1024, { HP_FOLD_1024 } },
	};

	for (size_t i = 0; i < sizeof(fold) / sizeof(*fold); i++) {
		CHECK(fold[i].k[0] == hp_crc32c_xpow_ref(fold[i].d + 31), "HP_FOLD_%d low",
		      fold[i].d);
		CHECK(fold[i].k[1] == hp_crc32c_xpow_ref(fold[i].d - 33), "HP_FOLD_%d high",
		      fold[i].d);
	}
}

/* The seed-last constants, filled each from the one before
 * (crc32c_sse42.c): hp_crc32c_seed_k[n] = x^(8n - 33) mod P for every n
 * below HP_SEEDLAST_FOLD_MAX, against the reference's powers of x. */
static void test_seed_constants(void)
{
	for (int n = 0; n < HP_SEEDLAST_FOLD_MAX; n++)
		CHECK(hp_crc32c_seed_k[n] == hp_crc32c_xpow_ref(8 * (int64_t)n - 33),
		      "hp_crc32c_seed_k[%d]", n);
}

static void test_variant(const struct hp_variant *v, struct hp_guarded *g)
{
	const struct hp_primitive *p = &hp_prim_crc32c;
	hp_crc32c_fn fn = (hp_crc32c_fn)v->fn;
	static const char check[] = "123456789";

	if (in_domain(v, 9))
		CHECK(~fn(~0u, check, 9) == 0xE3069283, "%s check value",
		      v->name);
	for (size_t align = 0; align < 64; align++) {
		struct sweep s = { .v = v, .g = g, .align = align };
		int faulted = hp_guarded_call(sweep_lengths, &s);

		CHECK(!faulted, "%s read outside the buffer at len %zu align %zu",
		      v->name, s.len, align);
		CHECK(!s.bad, "%s: %lu wrong lengths at align %zu, first %zu",
		      v->name, s.bad, align, s.first_bad_len);
	}
	/* long lengths through the registry's check(): first those around
	 * the block and prefetch bounds of the long-buffer paths (sse42-4way:
	 * 16 KiB blocks, prefetching from 64 KiB; 3-way: 3 KiB; the fused
	 * 512-bit fold: blocks of 85 x 448 = 38080 bytes; the fused 256-bit
	 * fold: blocks of 256 x 192 = 49152 bytes), then random ones up to
	 * 1 MiB */
	static const size_t edges[] = {
		3072, 3073, 16383, 16384, 16385, 16415, 16416, 16417,
		2 * 16384 + 31, 65535, 65536, 65536 + 8 + 3, 4 * 16384 + 32,
		38079, 38080, 38081, 2 * 38080 + 447, 2 * 38080 + 448,
		191, 192, 193, 383, 384, 49151, 49152, 49153, 2 * 49152 + 191,
		2047, 2048, 2049,	/* the seed-last folds' own (every length below 4096 too) */
		2 * 49152 + 192, 2 * 49152 + 193,
		BIG - 1, BIG,
	};
	const size_t nedges = sizeof(edges) / sizeof(*edges);

	for (size_t t = 0; t < nedges + 6; t++) {
		size_t len = t < nedges ? edges[t] : (size_t)(rnd() % (BIG + 1));
		size_t align = (size_t)(rnd() % 64);
		uint32_t seed = (uint32_t)rnd();
		uint64_t exp, got;
		uint8_t *big;

		if (!in_domain(v, len))
			continue;
		big = hp_guarded_place(g, len, align);
		for (size_t j = 0; j < len; j++)
			big[j] = (uint8_t)(j * 131 + t);
		CHECK(!p->check(v, big, len, seed, &exp, &got),
		      "%s len %zu align %zu seed %08x: expected %08llx got %08llx",
		      v->name, len, align, seed, (unsigned long long)exp,
		      (unsigned long long)got);
	}
}

int main(void)
{
	const struct hp_primitive *p = &hp_prim_crc32c;
	struct hp_guarded g;

	fill_random(src, sizeof(src));
	seeds[0] = 0;
	seeds[1] = 0xffffffffu;
	seeds[2] = (uint32_t)rnd();
	for (int s = 0; s < 3; s++) {
		expected[s][0] = seeds[s];
		for (size_t len = 0; len < MAXLEN; len++)
			expected[s][len + 1] =
				hp_crc32c_ref(expected[s][len], src + len, 1);
	}
	test_reference();
	test_fold_constants();
	test_seed_constants();
	if (hp_guarded_alloc(&g, BIG + 4096)) {
		perror("hp_guarded_alloc");
		return 2;
	}
	for (size_t i = 0; i < p->nvariants; i++) {
		const struct hp_variant *v = &p->variants[i];
		const char *why = sweep_skip(v);

		if (why) {
			printf("  %-20s skipped: %s\n", v->name, why);
			continue;
		}
		test_variant(v, &g);
		printf("  %-20s tested\n", v->name);
	}
	hp_guarded_free(&g);
	return check_summary("test_crc32c");
}
