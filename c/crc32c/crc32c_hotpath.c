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
 * issues every cycle there), a Zen 3 row hotpath's four streams
 * (crc32c_4way.c) from 96, a Zen 5 row streams that take the input CRC
 * last, then the 512-bit fold, then the fold with four crc32q streams
 * beside it. Methods the CPU lacks fall back: the fused fold to the
 * 512-bit fold, that to eight lanes, folding and the multi-stream methods
 * to one stream, SSE4.2 to slicing by 8.
 */
#include <hotpath/bench.h>
#include <hotpath/crc32c.h>
#include <hotpath/dispatch.h>

#include <stddef.h>

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

struct hp_crc32c_plan hp_crc32c_plan = {
	.from = { [1 ... HP_STEPS_MAX] = UINT32_MAX }, .n = 1,
	.fn = { [0 ... HP_STEPS_MAX - 1] = hp_crc32c_slice8 } };

static int method_runs(enum hp_crc32c_method m, uint32_t f)
{
	switch (m) {
	case HP_CRC32C_SLICE8:
		return 1;
	case HP_CRC32C_SSE42:
		return !!(f & HP_CPU_SSE42);
	case HP_CRC32C_AVX512:
	case HP_CRC32C_AVX512_FUSED:
		return (f & NEED_AVX512) == NEED_AVX512;
	default:	/* three streams merge, and folds fold, with PCLMULQDQ */
		return (f & NEED_FOLD) == NEED_FOLD;
	}
}

/* A row's method on this CPU, falling back as the header comment says. */
static enum hp_crc32c_method usable(enum hp_crc32c_method m, uint32_t f)
{
	while (!method_runs(m, f))
		m = m == HP_CRC32C_AVX512_FUSED ? HP_CRC32C_AVX512 :
		    m == HP_CRC32C_AVX512 ? HP_CRC32C_FOLD8 :
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
	case HP_CRC32C_SSE42_4WAY:
		return hp__crc32c_4way;
	case HP_CRC32C_SSE42_SEEDLAST:
		return hp__crc32c_seedlast;
	case HP_CRC32C_SSE42_4WAY_SEEDLAST:
		return hp__crc32c_4way_seedlast;
	case HP_CRC32C_AVX512_FUSED:
		return hp__crc32c_fused512;
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
	struct hp_crc32c_plan *plan = &hp_crc32c_plan;
	uint32_t f = hp_cpu_features();
	const struct hp_steps *steps = &row->crc32c;

	plan->n = 0;
	for (int i = 0; i < steps->n; i++) {
		hp_crc32c_fn fn = method_fn(usable(steps->method[i], f));

		if (plan->n && plan->fn[plan->n - 1] == fn)
			continue;	/* a fallback that repeats the step before */
		plan->from[plan->n] = steps->from[i];
		plan->fn[plan->n++] = fn;
	}
	/* A first step of one stream is inlined: the plan starts after it,
	 * so that the next step is reached with a compare and no index. */
	plan->short_below = 0;
	if (plan->fn[0] == hp__crc32c_sse42) {
		plan->short_below = UINT32_MAX;	/* the stream alone */
		if (plan->n > 1) {
			plan->short_below = plan->from[1];
			plan->n--;
			memmove(plan->from, plan->from + 1, plan->n * sizeof(*plan->from));
			memmove(plan->fn, plan->fn + 1, plan->n * sizeof(*plan->fn));
		}
	}
	/* Past the last step: no length starts another (lengths of 4 GiB and
	 * more run the last step, however far they scan). */
	for (int i = plan->n; i < HP_STEPS_MAX; i++) {
		plan->from[i] = UINT32_MAX;
		plan->fn[i] = plan->fn[plan->n - 1];
	}
	plan->from[HP_STEPS_MAX] = UINT32_MAX;
}

/* Before main: hp_crc32c() then pays for no detection. Safe from a
 * constructor: hp_cpu_features() and hp_dispatch() fill their caches on
 * first use. */
__attribute__((constructor)) static void crc32c_dispatch_init(void)
{
	hp_crc32c_use_row(hp_dispatch());
}

/* The row's steps after the second: out of line, so that short buffers
 * pay one compare and no call. */
__attribute__((noinline)) uint32_t hp__crc32c_later(uint32_t crc, const void *buf,
						     size_t len)
{
	int i = 3;

	while (i < HP_STEPS_MAX && len >= hp_crc32c_plan.from[i])
		i++;
	return hp_crc32c_plan.fn[i - 1](crc, buf, len);
}

/* The inlined stream of hp_crc32c_inline(), as a function for the asm below. */
HP_HIDDEN HP_SSE42 uint32_t hp__crc32c_short(uint32_t crc, const void *buf, size_t len)
{
	return hp_crc32_short(crc, buf, len);
}

/*
 * hp_crc32c(): hp_crc32c_inline() in assembly, so that lengths past the
 * plan's second step reach hp__crc32c_later() by one conditional jump.
 * gcc's code jumped to a jump there (jae, then jmp), and on a Zen 5 a
 * taken branch in front of a method costs about a cycle
 * (docs/labs/csum.md): in the lab's sweep 512 to 1536 bytes went a cycle
 * faster in throughput (768 B 59.2 -> 58.2, three A/B runs), the rest
 * unchanged.
 */
#define PLAN_FN 40		/* offsetof(struct hp_crc32c_plan, fn) */
#define PLAN_SHORT 104		/* offsetof(struct hp_crc32c_plan, short_below) */
_Static_assert(offsetof(struct hp_crc32c_plan, fn) == PLAN_FN, "plan layout");
_Static_assert(offsetof(struct hp_crc32c_plan, short_below) == PLAN_SHORT, "plan layout");

__asm__(
	".text\n\t"
	".p2align 6\n\t"
	".globl hp_crc32c\n\t"
	".type hp_crc32c,@function\n"
	"hp_crc32c:\n\t"
	".cfi_startproc\n\t"
	"movl hp_crc32c_plan+" HP_STR(PLAN_SHORT) "(%rip),%eax\n\t"
	"cmpq %rax,%rdx\n\t"
	"jb hp__crc32c_short\n\t"
	"movl hp_crc32c_plan+4(%rip),%eax\n\t"
	"cmpq %rax,%rdx\n\t"
	"jb 1f\n\t"
	"movl hp_crc32c_plan+8(%rip),%eax\n\t"
	"cmpq %rax,%rdx\n\t"
	"jae hp__crc32c_later\n\t"
	"jmp *hp_crc32c_plan+" HP_STR(PLAN_FN) "+8(%rip)\n"
	"1:\n\t"
	"jmp *hp_crc32c_plan+" HP_STR(PLAN_FN) "(%rip)\n\t"
	".cfi_endproc\n\t"
	".size hp_crc32c, . - hp_crc32c\n\t"
	".text");
