// SPDX-License-Identifier: GPL-2.0-only
/*
 * CRC32C shift and combine, every method against chaining:
 * combine(crc32c(s, A), crc32c(0, B), |B|) == crc32c(s, A || B) for random
 * splits of buffers up to 1 MiB, and every shift against the bit-by-bit
 * shift; the carry-less constants against the reference powers of x.
 */
#include "check.h"

#include <hotpath/bench.h>
#include <hotpath/crc32c.h>

#include <stdlib.h>

#define BIG (1u << 20)

static const struct {
	const char *name;
	hp_crc32c_combine_fn combine;
	hp_crc32c_shift_fn shift;
	int clmul;
} methods[] = {
	{ "matrix", hp_crc32c_combine_matrix, hp_crc32c_shift_matrix, 0 },
	{ "gf2mul", hp_crc32c_combine_gf2mul, hp_crc32c_shift_gf2mul, 0 },
	{ "xpow-table", hp_crc32c_combine_xpow, hp_crc32c_shift_xpow, 0 },
	{ "clmul", hp_crc32c_combine_clmul, hp_crc32c_shift_clmul, 1 },
	{ "clmul-const", hp_crc32c_combine_clmul_const, NULL, 1 },
};

static uint32_t rnd32(void)
{
	return ((uint32_t)rand() << 16) ^ (uint32_t)rand();
}

int main(void)
{
	int have_clmul = (hp_crc32c_cpu() & (HP_CPU_SSE42 | HP_CPU_PCLMUL)) ==
			 (HP_CPU_SSE42 | HP_CPU_PCLMUL);
	uint8_t *buf = malloc(BIG);

	srand(7);
	for (size_t i = 0; i < BIG; i++)
		buf[i] = (uint8_t)rand();

	for (size_t m = 0; m < sizeof(methods) / sizeof(methods[0]); m++) {
		if (methods[m].clmul && !have_clmul) {
			printf("%s: skipped (no PCLMULQDQ)\n", methods[m].name);
			continue;
		}
		/* every short length, then random lengths to 1 MiB */
		for (int t = 0; t < 700; t++) {
			size_t len = t < 300 ? (size_t)t :
				     t < 600 ? (size_t)rnd32() % 20000 :
					       (size_t)rnd32() % (BIG + 1);
			size_t cut = len ? (size_t)rnd32() % (len + 1) : 0;
			uint32_t s = t % 3 == 0 ? 0 : t % 3 == 1 ? ~0u : rnd32();
			uint32_t c1 = hp_crc32c(s, buf, cut);
			uint32_t c2 = hp_crc32c(0, buf + cut, len - cut);
			uint32_t whole = hp_crc32c(s, buf, len);

			CHECK(methods[m].combine(c1, c2, len - cut) == whole,
			      "%s len %zu cut %zu seed %08x", methods[m].name,
			      len, cut, s);
			if (methods[m].shift && len <= 4096)
				CHECK(methods[m].shift(s, len) ==
				      hp_crc32c_shift_ref(s, len),
				      "%s shift %zu", methods[m].name, len);
		}
		/* lengths past 4 GiB: only the arithmetic, against xpow */
		for (int t = 0; t < 20; t++) {
			size_t len = ((size_t)rnd32() << 20) ^ rnd32();
			uint32_t s = rnd32();

			CHECK(methods[m].combine(s, 0, len) ==
			      hp_crc32c_shift_xpow(s, len),
			      "%s huge len %zu", methods[m].name, len);
		}
	}
	/* the fixed-length constant is x^(8n - 33), as crc32c.h promises */
	if (have_clmul) {
		for (size_t n = 0; n < 3000; n += 7)
			CHECK(hp_crc32c_shift_constant(n) ==
			      hp_crc32c_xpow_ref(8 * (int64_t)n - 33),
			      "constant %zu", n);
		for (int t = 0; t < 200; t++) {
			uint32_t a = rnd32();

			CHECK(hp_crc32c_shift_by_const(a,
				hp_crc32c_shift_constant(1420)) ==
			      hp_crc32c_shift_ref(a, 1420), "by const %08x", a);
		}
	}
	/* the reference arithmetic itself: x^a * x^b = x^(a+b) */
	for (int t = 0; t < 200; t++) {
		int64_t a = rand() % 3000 - 1000, b = rand() % 3000 - 1000;

		CHECK(hp_crc32c_mulmod_ref(hp_crc32c_xpow_ref(a),
					   hp_crc32c_xpow_ref(b)) ==
		      hp_crc32c_xpow_ref(a + b), "x^%ld * x^%ld", (long)a,
		      (long)b);
	}
	free(buf);
	return check_summary("test_crc32c_combine");
}
