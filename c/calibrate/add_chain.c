// SPDX-License-Identifier: GPL-2.0-only
/*
 * The add_chain primitive: a call that does exactly @len dependent
 * one-cycle adds on its input. Timed like any variant, it is the engine's
 * self-check: N adds must measure N core cycles, 2N twice as many.
 * The engine's own ticks-per-cycle calibration (c/bench/clock.c) uses the
 * same instruction, inline, so this checks the harness, not the adder.
 */
#include <hotpath/bench.h>

/* @len dependent "insn %1,%0" on @x, %1 the register holding @k (hidden
 * from the compiler); @buf unused. */
#define INSN10(insn) insn "\n\t" insn "\n\t" insn "\n\t" insn "\n\t" insn "\n\t" \
		     insn "\n\t" insn "\n\t" insn "\n\t" insn "\n\t" insn
#define DEFINE_CHAIN(name, insn, k)						\
	static uint64_t name(const void *buf, size_t len, uint64_t x)		\
	{									\
		uint64_t c = (k);						\
		size_t i;							\
										\
		HP_OPAQUE(c);							\
		for (i = len / 10; i; i--)					\
			__asm__(INSN10(insn) : "+r"(x) : "r"(c));		\
		for (i = len % 10; i; i--)					\
			__asm__(insn : "+r"(x) : "r"(c));			\
		return x;							\
	}

/* Adds of 1, register to register, as the engine's clock does (an
 * add-immediate chain is folded in the renamer of Intel's Golden Cove and
 * later cores). */
DEFINE_CHAIN(add_chain, "add %1,%0", 1)

/* Multiplies by 3: a second clock check. imul r64 takes 3 cycles on Zen 1
 * to Zen 5 and Golden Cove by the published tables (measured here on a
 * Zen 5), and nothing folds it; a clock whose adds ran faster than one a
 * cycle reads it as fewer than 3. */
DEFINE_CHAIN(imul_chain, "imul %1,%0", 3)

enum { CHAIN_ADD, CHAIN_IMUL };

static uint64_t chain_empty(const void *buf, size_t len, uint64_t x)
{
	return x;
}

typedef uint64_t (*chain_fn)(const void *buf, size_t len, uint64_t x);

static int chain_check(const struct hp_variant *v, const uint8_t *buf,
		       size_t len, uint64_t seed, uint64_t *expected,
		       uint64_t *got)
{
	*expected = seed + len;
	if (v->promise == CHAIN_IMUL) {
		*expected = seed;
		for (size_t i = 0; i < len; i++)
			*expected *= 3;
	}
	*got = ((chain_fn)v->fn)(buf, len, seed);
	return *expected != *got;
}

static inline __attribute__((always_inline)) uint64_t
chain_burst(const void *fn_, const uint8_t *buf, size_t len,
	    uint64_t seed, enum hp_mode mode, unsigned n)
{
	chain_fn fn = (chain_fn)fn_;
	uint64_t x = seed;

	HP_OPAQUE(fn);
	HP_OPAQUE(len);
	return HP_BURST_MODES(mode, n, x, fn(buf, len, x));
}

HP_BURST_COPIES(chain_burst_sites, chain_burst);

static const char *chain_promise_name(uint32_t promise)
{
	return promise == CHAIN_IMUL ? "returns input * 3^N" : "returns input + N";
}

static const struct hp_variant chain_variants[] = {
	{
		.name = "adds",
		.fn = add_chain,
		.desc = "N dependent one-cycle adds (size = N)",
		.origin = "hotpath self-check",
		.promise = CHAIN_ADD,
	},
	{
		.name = "imuls",
		.fn = imul_chain,
		.desc = "N dependent three-cycle multiplies (size = N): the clock's cross-check",
		.origin = "hotpath self-check",
		.promise = CHAIN_IMUL,
	},
};

const struct hp_primitive hp_prim_add_chain = {
	.name = "add_chain",
	.lab = "calibrate",
	.seed_name = "x",
	.variants = chain_variants,
	.nvariants = 2,
	.empty_fn = chain_empty,
	.check = chain_check,
	.burst = chain_burst_sites,
	.promise_name = chain_promise_name,
};
