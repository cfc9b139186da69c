// SPDX-License-Identifier: GPL-2.0-only
/*
 * The skb_crc32c_linear and skb_crc32c_nonlinear primitives: seed 002's
 * two tables. The burst builds an sk_buff over the engine's buffer before
 * the timed region (linear: all head; nonlinear: half head, half page
 * fragments, each within one page, so 8192 bytes at a page boundary are
 * two fragments), then times one walk per call. Checked against the
 * reference CRC of the buffer, which is the sk_buff's bytes in order.
 */
#include <hotpath/bench.h>
#include <hotpath/crc32c.h>
#include <hotpath/skb.h>

typedef uint32_t (*skb_walk_fn)(const struct hp_skb *skb, uint32_t crc);

static uint32_t walk_generic_matrix(const struct hp_skb *skb, uint32_t crc)
{
	return hp_skb_checksum_generic(skb, 0, (int)skb->len, crc,
				       &hp_skb_crc32c_ops_matrix);
}

static uint32_t walk_generic_gf2mul(const struct hp_skb *skb, uint32_t crc)
{
	return hp_skb_checksum_generic(skb, 0, (int)skb->len, crc,
				       &hp_skb_crc32c_ops_gf2mul);
}

static uint32_t walk_chained(const struct hp_skb *skb, uint32_t crc)
{
	return hp_skb_crc32c(skb, 0, (int)skb->len, crc);
}

static uint32_t walk_hotpath(const struct hp_skb *skb, uint32_t crc)
{
	return hp_skb_crc32c_hotpath(skb, 0, (int)skb->len, crc);
}

static uint32_t walk_empty(const struct hp_skb *skb, uint32_t crc)
{
	return crc;
}

static int build(struct hp_skb *skb, const uint8_t *buf, size_t len,
		 int nonlinear)
{
	return hp_skb_build_split(skb, buf, len, nonlinear ? len / 2 : len);
}

static int skb_check(const struct hp_variant *v, const uint8_t *buf,
		     size_t len, uint64_t seed, uint64_t *expected,
		     uint64_t *got, int nonlinear)
{
	struct hp_skb skb;
	uint32_t s = (uint32_t)seed;

	*expected = hp_crc32c_ref(s, buf, len);
	if (build(&skb, buf, len, nonlinear)) {
		*got = ~*expected;	/* outside the domain: say so loudly */
		return 1;
	}
	*got = ((skb_walk_fn)v->fn)(&skb, s);
	return *expected != *got;
}

static inline __attribute__((always_inline)) uint64_t
skb_burst(const void *fn_, const uint8_t *buf, size_t len,
	  uint64_t seed, enum hp_mode mode, unsigned n,
	  int nonlinear)
{
	skb_walk_fn fn = (skb_walk_fn)fn_;
	const struct hp_skb *sp;
	struct hp_skb skb;
	uint32_t c = (uint32_t)seed;

	if (build(&skb, buf, len, nonlinear))
		return 0;
	sp = &skb;
	HP_OPAQUE(fn);
	HP_OPAQUE(sp);
	return HP_BURST_MODES(mode, n, c, fn(sp, c));
}

static int lin_check(const struct hp_variant *v, const uint8_t *buf,
		     size_t len, uint64_t seed, uint64_t *e, uint64_t *g)
{
	return skb_check(v, buf, len, seed, e, g, 0);
}

static int nonlin_check(const struct hp_variant *v, const uint8_t *buf,
			size_t len, uint64_t seed, uint64_t *e, uint64_t *g)
{
	return skb_check(v, buf, len, seed, e, g, 1);
}

static inline __attribute__((always_inline)) uint64_t
lin_burst(const void *fn, const uint8_t *buf, size_t len,
	  uint64_t seed, enum hp_mode mode, unsigned n)
{
	return skb_burst(fn, buf, len, seed, mode, n, 0);
}

HP_BURST_COPIES(lin_burst_sites, lin_burst);

static inline __attribute__((always_inline)) uint64_t
nonlin_burst(const void *fn, const uint8_t *buf,
	     size_t len, uint64_t seed, enum hp_mode mode,
	     unsigned n)
{
	return skb_burst(fn, buf, len, seed, mode, n, 1);
}

HP_BURST_COPIES(nonlin_burst_sites, nonlin_burst);

static const char *skb_promise_name(uint32_t promise)
{
	return "equal to the reference CRC of the sk_buff's bytes";
}

/* Nonlinear: the second half in at most 17 one-page fragments. */
#define NONLINEAR_MAX	(2 * (HP_SKB_MAX_FRAGS - 1) * HP_SKB_PAGE_SIZE)

#define SKB_VARIANTS(maxlen) {						\
	{								\
		.name = "generic-matrix",				\
		.fn = walk_generic_matrix,				\
		.max_len = (maxlen),					\
		.desc = "__skb_checksum: indirect update, matrix combine per piece", \
		.origin = "Linux __skb_checksum + sctp_csum_combine (2013 crc32c_combine)", \
	},								\
	{								\
		.name = "generic-gf2mul",				\
		.fn = walk_generic_gf2mul,				\
		.max_len = (maxlen),					\
		.desc = "__skb_checksum: indirect update, gf2mul combine per piece", \
		.origin = "Linux __skb_checksum as of 6.15 (crc32_generic_shift)", \
	},								\
	{								\
		.name = "chained",					\
		.fn = walk_chained,					\
		.needs = HP_CPU_SSE42 | HP_CPU_PCLMUL,			\
		.max_len = (maxlen),					\
		.desc = "skb_crc32c: one CRC chained by direct calls",	\
		.origin = "seed 002 (Eric Biggers, net: add skb_crc32c())", \
	},								\
	{								\
		.name = "hotpath",					\
		.flags = HP_V_OWN | HP_V_ROW,				\
		.fn = walk_hotpath,					\
		.max_len = (maxlen),					\
		.desc = "skb_crc32c's chaining with hp_crc32c per piece", \
		.origin = "hotpath",					\
	},								\
}

static const struct hp_variant lin_variants[] = SKB_VARIANTS(INT32_MAX);
static const struct hp_variant nonlin_variants[] = SKB_VARIANTS(NONLINEAR_MAX);

const struct hp_primitive hp_prim_skb_crc32c_linear = {
	.name = "skb_crc32c_linear",
	.lab = "crc32c",
	.seed_name = "crc",
	.variants = lin_variants,
	.nvariants = sizeof(lin_variants) / sizeof(lin_variants[0]),
	.empty_fn = walk_empty,
	.check = lin_check,
	.burst = lin_burst_sites,
	.promise_name = skb_promise_name,
};

const struct hp_primitive hp_prim_skb_crc32c_nonlinear = {
	.name = "skb_crc32c_nonlinear",
	.lab = "crc32c",
	.seed_name = "crc",
	.variants = nonlin_variants,
	.nvariants = sizeof(nonlin_variants) / sizeof(nonlin_variants[0]),
	.empty_fn = walk_empty,
	.check = nonlin_check,
	.burst = nonlin_burst_sites,
	.promise_name = skb_promise_name,
};
