// SPDX-License-Identifier: GPL-2.0-only
/*
 * hp_csum()'s plan: which method runs from which length at each address
 * parity, taken from the CPU's dispatch row (hotpath/dispatch.h) or forced
 * (HOTPATH_CSUM_FORCE, hp_csum_set_path()), and written into what the
 * entry in csum_hp.c reads: hp_csum_vec_from, the shortcuts'
 * hp_csum_avx512_from and hp_csum_avx2_from, and the class table.
 */
#define _GNU_SOURCE	/* secure_getenv */
#include <hotpath/bench.h>
#include <hotpath/csum.h>
#include <hotpath/dispatch.h>

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "csum_impl.h"

/*
 * hp_csum()'s plan for each address parity ([0] even, [1] odd): from
 * from[i] bytes on, fn[i]; step 0 is the asm scalar path, so fn[0] is
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

/* A path's name: a row's method's (dispatch owns them), or "auto". */
const char *hp_csum_path_name(enum hp_csum_path path)
{
	if (path == HP_CSUM_PATH_AUTO)
		return "auto";
	return hp_dispatch_method_name(HP_DISPATCH_CSUM, path);
}

/*
 * Zen 1 and Zen+ (AMD family 17h below model 30h, and Hygon's family 18h
 * built on them) execute 256-bit operations as two 128-bit halves; there
 * the vector side alone is the bottleneck and the hybrid path wins.
 */
static int vector_side_is_narrow(void)
{
	struct hp_cpu_id id;

	hp_cpu_identify(&id);	/* c/bench/cpu.c: the one cpuid decoder */
	if (strcmp(id.vendor, "AuthenticAMD") && strcmp(id.vendor, "HygonGenuine"))
		return 0;
	return (id.family == 0x17 && id.model < 0x30) || id.family == 0x18;
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

/* A step's first length for the asm's compares: none below HP_CSUM_SHORT,
 * and INT64_MAX (past every int) for none at all. */
static int64_t clamp_len(uint32_t len)
{
	if (len < HP_CSUM_SHORT)
		len = HP_CSUM_SHORT;
	return len > INT32_MAX ? INT64_MAX : len;
}

/* @plan's step for @len, by scanning. */
static hp_csum_fn step_fn(const struct csum_plan *plan, uint32_t len)
{
	int i = 1;

	while (i < HP_STEPS_MAX && len >= plan->from[i])
		i++;
	return plan->fn[i - 1];
}

/* Does a step of @plan start in (lo, hi]? Then the class scans: its two
 * ends may run the same method with another one between them. */
static int boundary_inside(const struct csum_plan *plan, uint32_t lo, uint32_t hi)
{
	for (int i = 1; i < plan->n; i++)
		if (plan->from[i] > lo && plan->from[i] <= hi)
			return 1;
	return 0;
}

/* Lengths [lo, hi] of class c. */
static void class_range(int c, uint32_t *lo, uint32_t *hi)
{
	if (c < CSUM_NNEAR) {
		*lo = (uint32_t)c << 5;
		*hi = *lo + 31;
		return;
	}
	*lo = 1u << (c - CSUM_NNEAR + CSUM_FAR_BIT);
	*hi = *lo + (*lo - 1);
}

/* The table's id for a class whose lengths from @lo on run @fn. */
static uint8_t class_id(hp_csum_fn fn, uint32_t lo)
{
	if (fn == hp_csum_avx512)
		return lo >= 128 ? CSUM_ID_AVX512_LONG : CSUM_ID_AVX512;
	if (fn == hp_csum_avx2)
		return CSUM_ID_AVX2_LONG;
	if (fn == hp_csum_avx2_hybrid)
		return CSUM_ID_HYBRID;
	if (fn == hp_csum_scalar)
		return CSUM_ID_LOOP;
	return CSUM_ID_SCAN;	/* a probe of the tests: the plan's own function */
}

/* The asm's view of the plans: hp_csum_vec_from, the table and the
 * two shortcuts. */
static void plans_changed(void)
{
	const struct csum_plan *e = &plans[0], *o = &plans[1];
	uint32_t e_last = e->from[e->n - 1], o_last = o->from[o->n - 1];

	hp_csum_vec_from = clamp_len(e->from[1] < o->from[1] ? e->from[1] : o->from[1]);
	for (int c = 0; c < CSUM_NCLASS; c++)
		for (int odd = 0; odd < 2; odd++) {
			uint8_t *entry = &hp_csum_class[2 * c + odd];
			uint32_t lo, hi;

			class_range(c, &lo, &hi);
			if (hi < hp_csum_vec_from) {	/* never reached */
				*entry = CSUM_ID_SCAN;
				continue;
			}
			if (lo < hp_csum_vec_from)
				lo = (uint32_t)hp_csum_vec_from;
			*entry = boundary_inside(&plans[odd], lo, hi) ? CSUM_ID_SCAN :
				 class_id(step_fn(&plans[odd], lo), lo);
		}
	/* Where both parities end on AVX-512 or on AVX2, from the later of
	 * the two (and not where the method alone would still take the adc
	 * chains: hp_csum_avx512() below 128 bytes). */
	hp_csum_avx512_from = hp_csum_avx2_from = INT64_MAX;
	if (e->fn[e->n - 1] == o->fn[o->n - 1]) {
		uint32_t from = e_last > o_last ? e_last : o_last;

		if (e->fn[e->n - 1] == hp_csum_avx512)
			hp_csum_avx512_from = clamp_len(from < 128 ? 128 : from);
		else if (e->fn[e->n - 1] == hp_csum_avx2)
			hp_csum_avx2_from = clamp_len(from);
	}
}

/* @n steps from step functions; step 0 is the scalar path, whatever fn[0]. */
static void plan_set(struct csum_plan *plan, const uint32_t *from, const hp_csum_fn *fn, int n)
{
	plan->n = 1;
	plan->from[0] = 0;
	plan->fn[0] = hp_csum_scalar;
	for (int i = 1; i < n; i++) {
		if (plan->fn[plan->n - 1] == fn[i])
			continue;	/* a fallback that repeats the step before */
		plan->from[plan->n] = from[i];
		plan->fn[plan->n++] = fn[i];
	}
	plan_end(plan);
}

void hp__csum_plan_fns(int odd, const uint32_t *from, const hp_csum_fn *fn, int n)
{
	plan_set(&plans[odd & 1], from, fn, n);
	plans_changed();
}

hp_csum_fn hp__csum_method_fn(enum hp_csum_path path)
{
	return path_fn(usable(path));
}

enum hp_csum_path hp__csum_method_runs(enum hp_csum_path path)
{
	return usable(path);
}

static void plan_steps(struct csum_plan *plan, const struct hp_steps *steps)
{
	hp_csum_fn fn[HP_STEPS_MAX];
	uint32_t from[HP_STEPS_MAX];

	for (int i = 0; i < steps->n; i++) {
		from[i] = steps->from[i];
		fn[i] = path_fn(usable(steps->method[i]));
	}
	plan_set(plan, from, fn, steps->n);
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
	plans_changed();
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
	plans_changed();
	cur_path = path;
	return 0;
}

enum hp_csum_path hp_csum_get_path(void)
{
	return cur_path;
}

/* Once at load: the dispatch row's plan, unless HOTPATH_CSUM_FORCE names a
 * path (not in a set-uid program: secure_getenv, as for HOTPATH_DISPATCH). */
__attribute__((constructor)) static void hp_csum_init(void)
{
	const char *force = secure_getenv("HOTPATH_CSUM_FORCE");
	char allowed[128];
	int p;

	hp_csum_set_path(HP_CSUM_PATH_AUTO);
	if (!force || !*force)
		return;
	p = hp_dispatch_method_find(HP_DISPATCH_CSUM, force);
	if (p < 0) {
		hp_dispatch_methods_list(HP_DISPATCH_CSUM, "or", allowed, sizeof(allowed));
		fprintf(stderr,
			"hotpath: HOTPATH_CSUM_FORCE '%s': expected %s; using %s\n",
			force, allowed, hp_csum_path_name(cur_path));
		return;
	}
	if (hp_csum_set_path(p))
		fprintf(stderr,
			"hotpath: HOTPATH_CSUM_FORCE '%s': this CPU lacks it; using %s\n",
			force, hp_csum_path_name(cur_path));
}

/* The classes that hold a step boundary: the plan's step by a scan. */
uint32_t hp__csum_scan(const void *buf, int len, uint32_t sum)
{
	hp_csum_fn fn = step_fn(&plans[(uintptr_t)buf & 1], (uint32_t)len);

	return (fn == hp_csum_scalar ? hp_csum_scalar_local : fn)(buf, len, sum);
}

hp_csum_fn hp__csum_fn_for(const void *buf, int len)
{
	hp_csum_fn fn;

	uint8_t id;

	/* the asm's order: the adc chains below the row's first vector step,
	 * the shortcuts, the table */
	if (len < hp_csum_vec_from)
		return hp_csum_scalar;
	if (len >= hp_csum_avx512_from)
		return hp_csum_avx512;
	if (len >= hp_csum_avx2_from)
		return hp_csum_avx2;
	if (len < CSUM_NEAR)
		id = hp_csum_class[2 * (len >> 5) + ((uintptr_t)buf & 1)];
	else
		id = hp_csum_class[2 * (CSUM_NNEAR - CSUM_FAR_BIT + 31 - __builtin_clz((unsigned int)len)) +
				   ((uintptr_t)buf & 1)];
	switch (id) {
	case CSUM_ID_LOOP:
		return hp_csum_scalar;
	case CSUM_ID_AVX512_LONG:
	case CSUM_ID_AVX512:
		return hp_csum_avx512;
	case CSUM_ID_AVX2_LONG:
		return hp_csum_avx2;
	case CSUM_ID_HYBRID:
		return hp_csum_avx2_hybrid;
	default:
		fn = step_fn(&plans[(uintptr_t)buf & 1], (uint32_t)len);
		return fn;
	}
}
