// SPDX-License-Identifier: GPL-2.0-only
/*
 * hp_crc32c(): hotpath's CRC32C for user space, choosing its method per
 * length from the CPU's dispatch row (hotpath/dispatch.h, c/dispatch/rows.c:
 * the generic row is what was measured on a Zen 1-class EPYC, where crc32q
 * issues once per 3 cycles and PCLMULQDQ once per 2; docs/labs/crc32c.md):
 * - below 64 bytes one crc32 stream: at 32 bytes it ties folding (whose
 *   fixed cost, two crc32q to reduce and one fold to merge, is not yet
 *   paid back), and the four-lane fold needs 64 bytes to start;
 * - 64 to 127 bytes four folding lanes (eight need 128 bytes to start);
 * - from 128 bytes eight lanes: more multiplies in flight;
 * - the 512-bit fold from 256 bytes where the CPU has VPCLMULQDQ and
 *   AVX-512.
 * A Zen 4 row instead runs three crc32q streams from 64 bytes (crc32q
 * issues every cycle there). Methods the CPU lacks fall back: the 512-bit
 * fold to eight lanes, folding and three streams to one stream, SSE4.2 to
 * slicing by 8.
 */
#include <hotpath/bench.h>
#include <hotpath/crc32c.h>
#include <hotpath/dispatch.h>

#include "crc32c_internal.h"

/* HP_CPU_* bits of this CPU: hp_cpu_features(), the engine's one
 * detector (cpuid checked against XCR0, cached), kept for callers of
 * this lab's header. */
uint32_t hp_crc32c_cpu(void)
{
	return hp_cpu_features();
}

#define NEED_FOLD	(HP_CPU_SSE42 | HP_CPU_PCLMUL)
#define NEED_AVX512	(NEED_FOLD | HP_CPU_AVX512F | HP_CPU_AVX512BW | \
			 HP_CPU_AVX512VL | HP_CPU_VPCLMUL)

/*
 * The plan: from from[i] bytes on, fn[i] (from[0] == 0). A short scan
 * instead of a ladder of compares against constants: lengths below the
 * second step (the short buffers) cost one compare.
 */
static struct {
	uint32_t from[HP_STEPS_MAX];
	hp_crc32c_fn fn[HP_STEPS_MAX];
	uint8_t n;
} plan = { .from = { 0 }, .fn = { hp_crc32c_slice8 }, .n = 1 };

static int method_runs(enum hp_crc32c_method m, uint32_t f)
{
	switch (m) {
	case HP_CRC32C_SLICE8:
		return 1;
	case HP_CRC32C_SSE42:
		return !!(f & HP_CPU_SSE42);
	case HP_CRC32C_AVX512:
		return (f & NEED_AVX512) == NEED_AVX512;
	default:	/* three streams merge, and folds fold, with PCLMULQDQ */
		return (f & NEED_FOLD) == NEED_FOLD;
	}
}

/* A row's method on this CPU, falling back as the header comment says. */
static enum hp_crc32c_method usable(enum hp_crc32c_method m, uint32_t f)
{
	while (!method_runs(m, f))
		m = m == HP_CRC32C_AVX512 ? HP_CRC32C_FOLD8 :
		    m == HP_CRC32C_SSE42 ? HP_CRC32C_SLICE8 : HP_CRC32C_SSE42;
	return m;
}

static hp_crc32c_fn method_fn(enum hp_crc32c_method m)
{
	switch (m) {
	case HP_CRC32C_SSE42:
		return hp__crc32c_sse42;
	case HP_CRC32C_SSE42_3WAY:
		return hp_crc32c_sse42_3way;
	case HP_CRC32C_FOLD4:
		return hp__crc32c_fold4;
	case HP_CRC32C_FOLD8:
		return hp__crc32c_fold8;
	case HP_CRC32C_AVX512:
		return hp__crc32c_avx512;
	default:
		return hp_crc32c_slice8;
	}
}

/**
 * hp_crc32c_use_row() - take hp_crc32c()'s methods from a dispatch row.
 * @row: the row (hp_dispatch() for the one in use)
 */
void hp_crc32c_use_row(const struct hp_dispatch_row *row)
{
	uint32_t f = hp_cpu_features();
	const struct hp_steps *steps = &row->crc32c;

	plan.n = 0;
	for (int i = 0; i < steps->n; i++) {
		hp_crc32c_fn fn = method_fn(usable(steps->method[i], f));

		if (plan.n && plan.fn[plan.n - 1] == fn)
			continue;	/* a fallback that repeats the step before */
		plan.from[plan.n] = steps->from[i];
		plan.fn[plan.n++] = fn;
	}
}

/* Before main: hp_crc32c() then pays for no detection. Safe from a
 * constructor: hp_cpu_features() and hp_dispatch() fill their caches on
 * first use. */
__attribute__((constructor)) static void crc32c_dispatch_init(void)
{
	hp_crc32c_use_row(hp_dispatch());
}

uint32_t hp_crc32c(uint32_t crc, const void *buf, size_t len)
{
	int i = 1;

	while (i < plan.n && len >= plan.from[i])
		i++;
	return plan.fn[i - 1](crc, buf, len);
}
