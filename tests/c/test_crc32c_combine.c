// SPDX-License-Identifier: GPL-2.0-only
/*
 * CRC32C shift and combine. Every combine in the registry that this CPU
 * runs, within its domain, against chaining: combine(crc32c(s, A),
 * crc32c(0, B), |B|) == crc32c(s, A || B) for random splits of buffers up
 * to 1 MiB, and past 4 GiB against the table shift. Every shift against
 * the bit-by-bit shift; the carry-less constants against the reference
 * powers of x.
 */
#include "check.h"
#include "registry_walk.h"

#include <hotpath/bench.h>
#include <hotpath/crc32c.h>

#include <stdlib.h>

#define TEST_RNG_SEED 0xd1b54a32d192ed03ull
#include "testdata.h"

extern const struct hp_primitive hp_prim_crc32c_combine;

#define BIG (1u << 20)
#define FOLD (HP_CPU_SSE42 | HP_CPU_PCLMUL)

/*
 * The shifts are no primitive of their own (each combine rests on one),
 * so they have no registry to walk: this is their list.
 */
static const struct {
	const char *name;
	hp_crc32c_shift_fn shift;
	uint32_t needs;
} shifts[] = {
	{ "matrix", hp_crc32c_shift_matrix, 0 },
	{ "gf2mul", hp_crc32c_shift_gf2mul, 0 },
	{ "xpow-table", hp_crc32c_shift_xpow, 0 },
	{ "clmul", hp_crc32c_shift_clmul, FOLD },
};

/* Seeds 0, ~0 and random in turn. */
static uint32_t seed_for(int t)
{
	return t % 3 == 0 ? 0 : t % 3 == 1 ? ~0u : (uint32_t)rnd();
}

/*
 * No combine is known to be wrong: each promises equality with chaining,
 * and every miss is a failure.
 */
static void test_combine(const struct hp_variant *v, const uint8_t *buf)
{
	hp_crc32c_combine_fn combine = (hp_crc32c_combine_fn)v->fn;

	/* every short length, then random lengths to 1 MiB */
	for (int t = 0; t < 700; t++) {
		size_t len = t < 300 ? (size_t)t :
			     t < 600 ? (size_t)(rnd() % 20000) :
				       (size_t)(rnd() % (BIG + 1));
		size_t cut = len ? (size_t)(rnd() % (len + 1)) : 0;
		uint32_t s = seed_for(t);
		uint32_t c1, c2, whole;

		if (!in_domain(v, len - cut))
			continue;
		c1 = hp_crc32c(s, buf, cut);
		c2 = hp_crc32c(0, buf + cut, len - cut);
		whole = hp_crc32c(s, buf, len);
		CHECK(combine(c1, c2, len - cut) == whole,
		      "%s len %zu cut %zu seed %08x", v->name, len, cut, s);
	}
	/* lengths past 4 GiB: only the arithmetic, against xpow */
	for (int t = 0; t < 20; t++) {
		size_t len = (size_t)((rnd() & 0xffffffffu) << 20 ^
				      (rnd() & 0xffffffffu));
		uint32_t s = (uint32_t)rnd();

		if (!in_domain(v, len))
			continue;
		CHECK(combine(s, 0, len) == hp_crc32c_shift_xpow(s, len),
		      "%s huge len %zu", v->name, len);
	}
}

/* Every length 0..299, then random lengths to 4096. */
static void test_shift(const char *name, hp_crc32c_shift_fn shift)
{
	for (int t = 0; t < 600; t++) {
		size_t len = t < 300 ? (size_t)t : (size_t)(rnd() % 4097);
		uint32_t s = seed_for(t);

		CHECK(shift(s, len) == hp_crc32c_shift_ref(s, len),
		      "%s shift %zu seed %08x", name, len, s);
	}
}

int main(void)
{
	const struct hp_primitive *p = &hp_prim_crc32c_combine;
	uint32_t have = hp_cpu_features();
	uint8_t *buf = malloc(BIG);

	if (!buf) {
		perror("malloc");
		return 2;
	}
	fill_random(buf, BIG);
	for (size_t i = 0; i < p->nvariants; i++) {
		const struct hp_variant *v = &p->variants[i];
		const char *why = skip_reason(v);

		if (why) {
			printf("  %-12s skipped: %s\n", v->name, why);
			continue;
		}
		test_combine(v, buf);
		printf("  %-12s tested\n", v->name);
	}
	for (size_t i = 0; i < sizeof(shifts) / sizeof(shifts[0]); i++) {
		if (shifts[i].needs & ~have) {
			printf("  shift %-6s skipped: this CPU lacks a needed feature\n",
			       shifts[i].name);
			continue;
		}
		test_shift(shifts[i].name, shifts[i].shift);
	}
	/* the fixed-length constant is x^(8n - 33), as crc32c.h promises */
	if ((have & FOLD) == FOLD) {
		for (size_t n = 0; n < 3000; n += 7)
			CHECK(hp_crc32c_shift_constant(n) ==
			      hp_crc32c_xpow_ref(8 * (int64_t)n - 33),
			      "constant %zu", n);
		for (int t = 0; t < 200; t++) {
			uint32_t a = (uint32_t)rnd();

			CHECK(hp_crc32c_shift_by_const(a,
				hp_crc32c_shift_constant(1420)) ==
			      hp_crc32c_shift_ref(a, 1420), "by const %08x", a);
		}
	}
	/* the reference arithmetic itself: x^a * x^b = x^(a+b) */
	for (int t = 0; t < 200; t++) {
		int64_t a = (int64_t)(rnd() % 3000) - 1000;
		int64_t b = (int64_t)(rnd() % 3000) - 1000;

		CHECK(hp_crc32c_mulmod_ref(hp_crc32c_xpow_ref(a),
					   hp_crc32c_xpow_ref(b)) ==
		      hp_crc32c_xpow_ref(a + b), "x^%ld * x^%ld", (long)a,
		      (long)b);
	}
	free(buf);
	return check_summary("test_crc32c_combine");
}
