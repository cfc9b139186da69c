// SPDX-License-Identifier: GPL-2.0-only
/*
 * The crc32c_combine primitive: size is len2, the length of the second
 * piece. A variant is checked against chaining: with crc1 = the seed and
 * crc2 = the reference CRC of the buffer from zero, combine(crc1, crc2,
 * len) must equal the reference CRC of the buffer continued from crc1.
 * Latency mode chains crc1 through; crc2 is computed before timing.
 */
#include <hotpath/bench.h>
#include <hotpath/crc32c.h>

static uint32_t combine_empty(uint32_t crc1, uint32_t crc2, size_t len2)
{
	return crc1;
}

static int combine_check(const struct hp_variant *v, const uint8_t *buf,
			 size_t len, uint64_t seed, uint64_t *expected,
			 uint64_t *got)
{
	uint32_t crc1 = (uint32_t)seed;
	uint32_t crc2 = hp_crc32c_ref(0, buf, len);

	*expected = hp_crc32c_ref(crc1, buf, len);
	*got = ((hp_crc32c_combine_fn)v->fn)(crc1, crc2, len);
	return *expected != *got;
}

static inline __attribute__((always_inline)) uint64_t
combine_burst(const void *fn_, const uint8_t *buf,
	      size_t len, uint64_t seed, enum hp_mode mode,
	      unsigned n)
{
	hp_crc32c_combine_fn fn = (hp_crc32c_combine_fn)fn_;
	uint32_t c = (uint32_t)seed, crc2 = hp_crc32c(0, buf, len);

	HP_OPAQUE(fn);
	HP_OPAQUE(crc2);
	HP_OPAQUE(len);
	return HP_BURST_MODES(mode, n, c, fn(c, crc2, len));
}

HP_BURST_COPIES(combine_burst_sites, combine_burst);

static const char *combine_promise_name(uint32_t promise)
{
	return "equal to chaining (reference CRC continued from crc1)";
}

#define FOLD	(HP_CPU_SSE42 | HP_CPU_PCLMUL)

static const struct hp_variant combine_variants[] = {
	{
		.name = "matrix",
		.fn = hp_crc32c_combine_matrix,
		.desc = "GF(2) 32x32 operator matrices, squared per call",
		.origin = "zlib crc32_combine; Linux crc32c_combine 2013",
	},
	{
		.name = "gf2mul",
		.fn = hp_crc32c_combine_gf2mul,
		.desc = "shift-and-add multiply by x^(2^i), squared per call",
		.origin = "Linux lib/crc32.c crc32_generic_shift (2014-2025)",
	},
	{
		.name = "xpow-table",
		.fn = hp_crc32c_combine_xpow,
		.desc = "shift-and-add multiply by x^(8*2^k) from a table",
		.origin = "hotpath (powers precomputed once)",
	},
	{
		.name = "clmul",
		.fn = hp_crc32c_combine_clmul,
		.needs = FOLD,
		.desc = "x^(8 len2) by PCLMULQDQ products of tabled squares, crc32q reduces",
		.origin = "hotpath (Intel PCLMULQDQ paper's constants, computed per length)",
	},
	{
		.name = "clmul-const",
		.fn = hp_crc32c_combine_clmul_const,
		.needs = FOLD,
		.desc = "one PCLMULQDQ + one crc32q, constant memoised per length",
		.origin = "hotpath (the fixed-length case)",
	},
};

const struct hp_primitive hp_prim_crc32c_combine = {
	.name = "crc32c_combine",
	.lab = "crc32c",
	.seed_name = "crc",
	.variants = combine_variants,
	.nvariants = sizeof(combine_variants) / sizeof(combine_variants[0]),
	.empty_fn = combine_empty,
	.check = combine_check,
	.burst = combine_burst_sites,
	.promise_name = combine_promise_name,
};
