// SPDX-License-Identifier: GPL-2.0-only
/*
 * hp_csum(): hotpath's own csum_partial. Any length, any alignment, any
 * seed; never reads outside [buf, buf + len).
 *
 * Two ideas carry it:
 * - the seed is added last: the data's sum does not depend on it, so in
 *   a chain of calls (latency mode, or a caller adding headers to a
 *   running sum) only two instructions sit between one call's sum and
 *   the next, and out-of-order execution overlaps the rest;
 * - the method per length and address parity is the CPU's dispatch row
 *   (hotpath/dispatch.h, c/dispatch/rows.c): adc chains for short
 *   buffers, vector widening adds (csum_hp_avx2.c, csum_hp_avx512.c)
 *   from lengths measured on that CPU.
 *
 * HOTPATH_CSUM_FORCE=scalar|avx2|avx2-hybrid|avx512 in the environment, or
 * hp_csum_set_path(), forces a path so that tests cover each one.
 */
#include <hotpath/bench.h>
#include <hotpath/csum.h>
#include <hotpath/dispatch.h>

#include <cpuid.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "csum_impl.h"

/*
 * Which method from which length is the dispatch row's (hotpath/dispatch.h:
 * per CPU, or measured on this machine by `hotpath dispatch`). Below
 * HP_CSUM_SHORT no row can choose a vector method, so short buffers pay no
 * load and no compare for the choice.
 */
#define HP_CSUM_VEC_MIN HP_CSUM_SHORT

/*
 * acc plus the last @rem bytes (1..80) at @q, on one adc chain with no
 * conditional branch: one computed jump into a ladder of ten adcs, so a
 * short buffer costs the same few cycles at every length instead of a
 * taken branch per 32/16/8-byte step (measured 9 to 17 cycles that way
 * for 8..63 bytes on the development machine).
 *
 * The words before the last partial one, m = (rem - 1) / 8 of them, are
 * the ladder's last m rungs. The last 1..8 bytes come from one load that
 * ends at q + rem, shifted down so that they sit at their natural offset;
 * the bytes shifted out are the ladder's. That load starts up to 7 bytes
 * before @q, so the caller guarantees 8 readable bytes before q + rem
 * (a buffer of 8 bytes or more).
 *
 * Each rung is "adcq disp8(%rdi),%rax" (48 13 47 disp8), four bytes: the
 * registers are pinned so that no choice of the compiler's (r12 as base,
 * say) can lengthen it, and the jump lands 4 * m bytes before the end.
 * GNU as also checks the rung size (clang's integrated assembler cannot
 * evaluate label differences in .if, so it skips the check).
 */
static inline uint64_t adc_ladder80(uint64_t acc, const uint8_t *q,
				    unsigned int rem)
{
	unsigned long m = (rem - 1) >> 3;
	/* 8 * (8 * (m + 1) - rem) bits, which is -8 * rem modulo 64: shrq
	 * takes its count modulo 64. */
	unsigned long shift = -8UL * rem;
	uint64_t tail = csum_load64(q + rem - 8);
	unsigned long target;

	/* The shift in the asm too: with "c" taken here, the compiler keeps
	 * the loop's accumulators out of %rcx (no moves in the 80-byte loop). */
	__asm__("shrq %%cl,%[tail]\n\t"
		"leaq 2f(%%rip),%[t]\n\t"
		"shlq $2,%[m]\n\t"
		"subq %[m],%[t]\n\t"
		"addq %[tail],%[acc]\n\t"
		"jmp *%[t]\n"
		"1:\n\t"
		"adcq 80(%[b]),%[acc]\n\t"
		"adcq 72(%[b]),%[acc]\n\t"
		"adcq 64(%[b]),%[acc]\n\t"
		"adcq 56(%[b]),%[acc]\n\t"
		"adcq 48(%[b]),%[acc]\n\t"
		"adcq 40(%[b]),%[acc]\n\t"
		"adcq 32(%[b]),%[acc]\n\t"
		"adcq 24(%[b]),%[acc]\n\t"
		"adcq 16(%[b]),%[acc]\n\t"
		"adcq 8(%[b]),%[acc]\n"
		"2:\n\t"
#ifndef __clang__
		".if 2b - 1b - 40\n\t"
		".error \"adc_ladder80: rungs are not 4 bytes\"\n\t"
		".endif\n\t"
#endif
		"adcq $0,%[acc]"
		: [acc] "+a"(acc), [t] "=&r"(target), [m] "+r"(m),
		  [tail] "+r"(tail)
		: "c"(shift), [b] "D"(q - 8),
		  "m"(*(const uint8_t(*)[80])q)
		: "cc");
	return acc;
}

/*
 * Inlined into hp_csum(): a call here would cost as much as short sums.
 * Two 40-byte chains per 80 bytes (the shape kernel 2024 settled on;
 * measured faster here than four 16-byte chains, which pay more carry
 * folds per byte), then the ladder for the last 1..80.
 */
static inline __attribute__((always_inline)) uint32_t
scalar_core(const uint8_t *p, size_t len)
{
	uint64_t a = 0;

	/* The IPv6 header, the seed's case: one five-word chain, folded.
	 * (Measured: as hp_csum()'s fall-through path instead, every other
	 * length took 4 cycles more and 40 bytes none less.) */
	if (len == 40)
		return csum_fold64(csum_adc40(0, p));
	/* Tiny buffers: two loads at most, no 8 bytes before the end. */
	if (len < 8)
		return csum_fold64(csum_load_short(p, len));
	if (__builtin_expect(len > 80, 0)) {
		uint64_t b = 0;

		do {
			a = csum_adc40(a, p);
			b = csum_adc40(b, p + 40);
			p += 80;
			len -= 80;
		} while (len > 80);
		a = csum_add64c(a, b);
	}
	return csum_fold64(adc_ladder80(a, p, (unsigned int)len));
}

uint32_t hp_csum_scalar_nosum(const uint8_t *p, size_t len)
{
	return scalar_core(p, len);
}

/**
 * hp_csum_scalar() - hp_csum's adc-chain path, for any length.
 * @buf: bytes, any alignment
 * @len: length in bytes, >= 0
 * @sum: 32-bit partial sum to continue from
 *
 * Return: the canonical 32-bit ones' complement sum of @sum and the
 * buffer's little-endian words (bit-identical to kernel 5.17's result at
 * even addresses; csum_fold() of it equals the reference's everywhere).
 */
uint32_t hp_csum_scalar(const void *buf, int len, uint32_t sum)
{
	return csum_add32c(scalar_core(buf, (size_t)len), sum);
}

/*
 * hp_csum()'s plan for each address parity ([0] even, [1] odd): from
 * from[i] bytes on, fn[i]; step 0 is the inlined scalar path, so fn[0] is
 * never called. Set before main (constructor) or by hp_csum_set_path().
 */
struct csum_plan {
	uint32_t from[HP_STEPS_MAX + 1];	/* UINT32_MAX from [n] on */
	hp_csum_fn fn[HP_STEPS_MAX];
	uint8_t n;
};
#define SCALAR_PLAN { .from = { [1 ... HP_STEPS_MAX] = UINT32_MAX }, .n = 1, \
		      .fn = { [0 ... HP_STEPS_MAX - 1] = hp_csum_scalar } }
static struct csum_plan plans[2] = { SCALAR_PLAN, SCALAR_PLAN };
static enum hp_csum_path cur_path = HP_CSUM_PATH_SCALAR;

static const char *const path_names[] = {
	[HP_CSUM_PATH_AUTO] = "auto",
	[HP_CSUM_PATH_SCALAR] = "scalar",
	[HP_CSUM_PATH_AVX2] = "avx2",
	[HP_CSUM_PATH_AVX2_HYBRID] = "avx2-hybrid",
	[HP_CSUM_PATH_AVX512] = "avx512",
};

const char *hp_csum_path_name(enum hp_csum_path path)
{
	if ((unsigned int)path >= sizeof(path_names) / sizeof(*path_names))
		return "unknown";
	return path_names[path];
}

/*
 * Zen 1 and Zen+ (AMD family 17h below model 30h, and Hygon's family 18h
 * built on them) execute 256-bit operations as two 128-bit halves; there
 * the vector side alone is the bottleneck and the hybrid path wins.
 */
static int vector_side_is_narrow(void)
{
	unsigned int a, b, c, d, family, model;

	if (!__get_cpuid(0, &a, &b, &c, &d))
		return 0;
	/* "AuthenticAMD" or "HygonGenuine", by the last register's text */
	if (c != 0x444d4163 && c != 0x656e6975)
		return 0;
	__get_cpuid(1, &a, &b, &c, &d);
	family = ((a >> 8) & 0xf) + ((a >> 20) & 0xff);
	model = ((a >> 4) & 0xf) | ((a >> 12) & 0xf0);
	return (family == 0x17 && model < 0x30) || family == 0x18;
}

static int path_supported(enum hp_csum_path path)
{
	uint32_t f = hp_cpu_features();

	switch (path) {
	case HP_CSUM_PATH_SCALAR:
		return 1;
	case HP_CSUM_PATH_AVX2:
	case HP_CSUM_PATH_AVX2_HYBRID:
		return !!(f & HP_CPU_AVX2);
	case HP_CSUM_PATH_AVX512:
		return (f & HP_CPU_AVX512F) && (f & HP_CPU_AVX512BW);
	default:
		return 0;
	}
}

/* A row's method on this CPU: AVX-512 falls back to AVX2 (the hybrid
 * where 256-bit operations are split), AVX2 to the adc chains. */
static enum hp_csum_path usable(enum hp_csum_path path)
{
	if (path == HP_CSUM_PATH_AVX512 && !path_supported(path))
		path = vector_side_is_narrow() ? HP_CSUM_PATH_AVX2_HYBRID : HP_CSUM_PATH_AVX2;
	return path_supported(path) ? path : HP_CSUM_PATH_SCALAR;
}

static hp_csum_fn path_fn(enum hp_csum_path path)
{
	switch (path) {
	case HP_CSUM_PATH_AVX512:
		return hp_csum_avx512;
	case HP_CSUM_PATH_AVX2:
		return hp_csum_avx2;
	case HP_CSUM_PATH_AVX2_HYBRID:
		return hp_csum_avx2_hybrid;
	default:
		return hp_csum_scalar;
	}
}

/* Past the plan's last step no length starts another. */
static void plan_end(struct csum_plan *plan)
{
	for (int i = plan->n; i <= HP_STEPS_MAX; i++)
		plan->from[i] = UINT32_MAX;
	for (int i = plan->n; i < HP_STEPS_MAX; i++)
		plan->fn[i] = plan->fn[plan->n - 1];
}

static void plan_steps(struct csum_plan *plan, const struct hp_steps *steps)
{
	plan->n = 0;
	for (int i = 0; i < steps->n; i++) {
		hp_csum_fn fn = path_fn(usable(steps->method[i]));

		if (plan->n && plan->fn[plan->n - 1] == fn)
			continue;	/* a fallback that repeats the step before */
		plan->from[plan->n] = steps->from[i];
		plan->fn[plan->n++] = fn;
	}
	plan_end(plan);
}

/**
 * hp_csum_use_row() - take hp_csum()'s methods from a dispatch row.
 * @row: the row (hp_dispatch() for the one in use)
 *
 * Methods this CPU lacks fall back (usable()). hp_csum_get_path() then
 * names the method for the longest even buffers.
 */
void hp_csum_use_row(const struct hp_dispatch_row *row)
{
	plan_steps(&plans[0], &row->csum[0]);
	plan_steps(&plans[1], &row->csum[1]);
	cur_path = usable(row->csum[0].method[row->csum[0].n - 1]);
}

/**
 * hp_csum_set_path() - choose how hp_csum() handles long buffers.
 * @path: HP_CSUM_PATH_AUTO (the dispatch row in use), or one path, then
 *        used for every length from HP_CSUM_SHORT at both parities
 *
 * Return: 0, or -1 with errno ENOTSUP when this CPU cannot run @path
 * (the current path is then left as it was).
 */
int hp_csum_set_path(enum hp_csum_path path)
{
	if (path == HP_CSUM_PATH_AUTO) {
		hp_csum_use_row(hp_dispatch());
		return 0;
	}
	if (!path_supported(path)) {
		errno = ENOTSUP;
		return -1;
	}
	for (int odd = 0; odd < 2; odd++) {
		plans[odd].n = 1;
		if (path != HP_CSUM_PATH_SCALAR) {
			plans[odd].from[1] = HP_CSUM_SHORT;
			plans[odd].fn[1] = path_fn(path);
			plans[odd].n = 2;
		}
		plan_end(&plans[odd]);
	}
	cur_path = path;
	return 0;
}

enum hp_csum_path hp_csum_get_path(void)
{
	return cur_path;
}

/* Once at load: the dispatch row's plan, unless HOTPATH_CSUM_FORCE names a path. */
__attribute__((constructor)) static void hp_csum_init(void)
{
	const char *force = getenv("HOTPATH_CSUM_FORCE");
	enum hp_csum_path p;

	hp_csum_set_path(HP_CSUM_PATH_AUTO);
	if (!force || !*force)
		return;
	for (p = HP_CSUM_PATH_SCALAR; p <= HP_CSUM_PATH_AVX512; p++)
		if (!strcmp(force, path_names[p]))
			break;
	if (p > HP_CSUM_PATH_AVX512) {
		fprintf(stderr,
			"hotpath: HOTPATH_CSUM_FORCE '%s': expected scalar, avx2, avx2-hybrid or avx512; using %s\n",
			force, hp_csum_path_name(cur_path));
		return;
	}
	if (hp_csum_set_path(p))
		fprintf(stderr,
			"hotpath: HOTPATH_CSUM_FORCE '%s': this CPU lacks it; using %s\n",
			force, hp_csum_path_name(cur_path));
}

/**
 * hp_csum() - hotpath's csum_partial, fastest method for this CPU.
 * @buf: bytes, any alignment
 * @len: length in bytes, >= 0
 * @sum: 32-bit partial sum to continue from
 *
 * Return: as hp_csum_scalar(); every path returns the same bits.
 */
/* The row's steps after its first vector step: out of line, so that the
 * short path in hp_csum() stays small. */
static __attribute__((noinline)) uint32_t vector_steps(const struct csum_plan *plan,
						       const void *buf, int len, uint32_t sum)
{
	int i = 3;

	while (i < HP_STEPS_MAX && (uint32_t)len >= plan->from[i])
		i++;
	return plan->fn[i - 1](buf, len, sum);
}

uint32_t hp_csum(const void *buf, int len, uint32_t sum)
{
	const struct csum_plan *plan = &plans[(uintptr_t)buf & 1];

	/* Against an immediate first: no load before the short path. Then
	 * up to the row's first vector step the same inlined adc chains. */
	if (__builtin_expect(len < HP_CSUM_VEC_MIN, 1) || (uint32_t)len < plan->from[1])
		return csum_add32c(scalar_core(buf, (size_t)len), sum);
	/* The first vector step directly: through vector_steps() it cost 5
	 * cycles at 256 bytes on a Zen 3 (26.2 against 21.2 for the AVX2
	 * path alone). */
	if ((uint32_t)len < plan->from[2])
		return plan->fn[1](buf, len, sum);
	return vector_steps(plan, buf, len, sum);
}
