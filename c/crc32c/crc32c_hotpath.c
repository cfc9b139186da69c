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
 * beside it. The 256-bit fused fold comes in three shapes (avx2-fused,
 * avx2-fused-4x24, -4x32: 16, 24 or 32 bytes per crc32q stream per 128
 * folded), the row naming the one its CPU runs fastest; each needs what
 * avx2-fused needs. Methods the CPU lacks fall back: the fused fold to the
 * 512-bit fold, that to the 256-bit fold where the CPU has AVX2 and
 * VPCLMULQDQ (else eight lanes), the 256-bit fused fold to the 256-bit
 * fold, that to eight lanes, the 512-bit seed-last fold to the 256-bit
 * one, that to four seed-last streams, folding and the multi-stream
 * methods to one stream, SSE4.2 to slicing by 8.
 */
#include <hotpath/bench.h>
#include <hotpath/crc32c.h>
#include <hotpath/dispatch.h>

#include <stddef.h>

#include "crc32c_internal.h"

#define NEED_FOLD	(HP_CPU_SSE42 | HP_CPU_PCLMUL)
#define NEED_AVX512	(NEED_FOLD | HP_CPU_AVX512F | HP_CPU_AVX512BW | \
			 HP_CPU_AVX512VL | HP_CPU_VPCLMUL)
#define NEED_AVX2V	(NEED_FOLD | HP_CPU_AVX2 | HP_CPU_VPCLMUL)

/* Until the constructor below: slicing by 8 for every length. */
struct hp_crc32c_plan hp_crc32c_plan __attribute__((aligned(64))) = {
	.from = { [1 ... HP_STEPS_MAX] = UINT32_MAX }, .n = 1,
	.fn = { [0 ... HP_STEPS_MAX - 1] = hp_crc32c_slice8 },
	.cls = { [0 ... HP_CRC32C_NCLASS - 1] = hp_crc32c_slice8 } };

static int method_runs(enum hp_crc32c_method m, uint32_t f)
{
	switch (m) {
	case HP_CRC32C_SLICE8:
		return 1;
	case HP_CRC32C_SSE42:
		return !!(f & HP_CPU_SSE42);
	case HP_CRC32C_AVX512:
	case HP_CRC32C_AVX512_FUSED:
	case HP_CRC32C_AVX512_SEEDLAST:
		return (f & NEED_AVX512) == NEED_AVX512;
	case HP_CRC32C_AVX2_VPCLMUL:
	case HP_CRC32C_AVX2_FUSED:
	case HP_CRC32C_AVX2_FUSED_4X24:
	case HP_CRC32C_AVX2_FUSED_4X32:
	case HP_CRC32C_AVX2_SEEDLAST:
		return (f & NEED_AVX2V) == NEED_AVX2V;
	default:	/* three streams merge, and folds fold, with PCLMULQDQ */
		return (f & NEED_FOLD) == NEED_FOLD;
	}
}

/* A row's method on this CPU, falling back as the header comment says. */
static enum hp_crc32c_method usable(enum hp_crc32c_method m, uint32_t f)
{
	while (!method_runs(m, f))
		m = m == HP_CRC32C_AVX512_FUSED ? HP_CRC32C_AVX512 :
		    m == HP_CRC32C_AVX512 ? HP_CRC32C_AVX2_VPCLMUL :
		    m == HP_CRC32C_AVX2_FUSED ? HP_CRC32C_AVX2_VPCLMUL :
		    m == HP_CRC32C_AVX2_FUSED_4X24 ? HP_CRC32C_AVX2_FUSED :
		    m == HP_CRC32C_AVX2_FUSED_4X32 ? HP_CRC32C_AVX2_FUSED :
		    m == HP_CRC32C_AVX2_VPCLMUL ? HP_CRC32C_FOLD8 :
		    m == HP_CRC32C_AVX512_SEEDLAST ? HP_CRC32C_AVX2_SEEDLAST :
		    m == HP_CRC32C_AVX2_SEEDLAST ? HP_CRC32C_SSE42_4WAY_SEEDLAST :
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
	case HP_CRC32C_AVX2_VPCLMUL:
		return hp__crc32c_avx2;
	case HP_CRC32C_AVX2_FUSED:
		return hp__crc32c_fused256;
	case HP_CRC32C_AVX2_FUSED_4X24:
		return hp__crc32c_fused256_4x24;
	case HP_CRC32C_AVX2_FUSED_4X32:
		return hp__crc32c_fused256_4x32;
	case HP_CRC32C_AVX512_SEEDLAST:
		return hp__crc32c_avx512_seedlast;
	case HP_CRC32C_AVX2_SEEDLAST:
		return hp__crc32c_avx2_seedlast;
	default:
		return hp_crc32c_slice8;
	}
}

hp_crc32c_fn hp__crc32c_method_fn(enum hp_crc32c_method m)
{
	return method_fn(usable(m, hp_cpu_features()));
}

int hp__crc32c_method_runs(int m)
{
	return usable((enum hp_crc32c_method)m, hp_cpu_features());
}

/* Lengths [lo, hi] of class c (hi inclusive: the last class ends at
 * SIZE_MAX). */
static void class_range(size_t c, size_t *lo, size_t *hi)
{
	if (c < HP_CRC32C_NNEAR) {
		*lo = c << HP_CRC32C_CLASS_SHIFT;
		*hi = *lo + (1u << HP_CRC32C_CLASS_SHIFT) - 1;
		return;
	}
	c -= HP_CRC32C_NNEAR - HP_CRC32C_FAR_BIT;	/* the highest set bit */
	*lo = (size_t)1 << c;
	*hi = *lo + (*lo - 1);
}

/* The plan's step for @len, by scanning (len >= from[0]). */
static hp_crc32c_fn scan(size_t len)
{
	int i = 1;

	while (i < HP_STEPS_MAX && len >= hp_crc32c_plan.from[i])
		i++;
	return hp_crc32c_plan.fn[i - 1];
}

/* cls[] from the plan's steps: a class whose reachable lengths (from
 * from[0] on) all run one step jumps to it; one with a boundary inside
 * scans. Every boundary is looked at, not only the class's two ends: a
 * row may leave a method and come back to it within one class (avx2-fused,
 * avx2-vpclmul 49151, avx2-fused 49153: 32768..65535 starts and ends on
 * the fused fold), and such a class took the fused fold at 49151 and
 * 49152 until 2026-11-26. */
static void fill_classes(struct hp_crc32c_plan *plan)
{
	for (size_t c = 0; c < HP_CRC32C_NCLASS; c++) {
		size_t lo, hi;
		hp_crc32c_fn first;

		class_range(c, &lo, &hi);
		if (hi < plan->from[0]) {	/* never reached: the inlined stream */
			plan->cls[c] = hp__crc32c_scan;
			continue;
		}
		if (lo < plan->from[0])
			lo = plan->from[0];
		first = scan(lo);
		plan->cls[c] = first;
		for (int i = 1; i < plan->n; i++)
			if (plan->from[i] > lo && plan->from[i] <= hi)
				plan->cls[c] = hp__crc32c_scan;
	}
}

void hp__crc32c_plan_fns(const uint32_t *from, const hp_crc32c_fn *fn, int n,
			 int inline_first)
{
	struct hp_crc32c_plan *plan = &hp_crc32c_plan;

	plan->n = 0;
	for (int i = 0; i < n; i++) {
		if (plan->n && plan->fn[plan->n - 1] == fn[i])
			continue;	/* a fallback that repeats the step before */
		plan->from[plan->n] = from[i];
		plan->fn[plan->n++] = fn[i];
	}
	/* A first step of one stream is inlined: the plan starts after it. */
	plan->short_below = 0;
	if (inline_first) {
		plan->short_below = UINT32_MAX;	/* the stream alone */
		if (plan->n > 1) {
			plan->short_below = plan->from[1];
			plan->n--;
			memmove(plan->from, plan->from + 1, plan->n * sizeof(*plan->from));
			memmove(plan->fn, plan->fn + 1, plan->n * sizeof(*plan->fn));
		}
	}
	/* Past the last step: no length starts another (lengths of 4 GiB and
	 * more run the last step). */
	for (int i = plan->n; i < HP_STEPS_MAX; i++) {
		plan->from[i] = UINT32_MAX;
		plan->fn[i] = plan->fn[plan->n - 1];
	}
	plan->from[HP_STEPS_MAX] = UINT32_MAX;
	fill_classes(plan);
}

/**
 * hp_crc32c_use_row() - take hp_crc32c()'s methods from a dispatch row.
 * @row: the row (hp_dispatch() for the one in use)
 */
void hp_crc32c_use_row(const struct hp_dispatch_row *row)
{
	const struct hp_steps *steps = &row->crc32c;
	hp_crc32c_fn fn[HP_STEPS_MAX];
	uint32_t from[HP_STEPS_MAX];

	for (int i = 0; i < steps->n; i++) {
		from[i] = steps->from[i];
		fn[i] = hp__crc32c_method_fn(steps->method[i]);
	}
	hp__crc32c_plan_fns(from, fn, steps->n, fn[0] == hp__crc32c_sse42);
}

/* Before main: hp_crc32c() then pays for no detection. Safe from a
 * constructor: hp_cpu_features() and hp_dispatch() fill their caches on
 * first use. */
__attribute__((constructor)) static void crc32c_dispatch_init(void)
{
	hp_crc32c_use_row(hp_dispatch());
}

/* The classes that hold a step boundary: the plan's step by a scan. */
uint32_t hp__crc32c_scan(uint32_t crc, const void *buf, size_t len)
{
	return scan(len)(crc, buf, len);
}

hp_crc32c_fn hp__crc32c_fn_for(size_t len)
{
	hp_crc32c_fn fn;

	if (len < hp_crc32c_plan.short_below)
		return hp__crc32c_sse42;
	fn = hp_crc32c_plan.cls[hp_crc32c_class(len)];
	return fn == hp__crc32c_scan ? scan(len) : fn;
}

/* The inlined stream of hp_crc32c_inline(), as a function: what the asm
 * below leaves to it (64 bytes and more, for a row whose first step
 * reaches that far). */
HP_HIDDEN HP_SSE42 uint32_t hp__crc32c_short_c(uint32_t crc, const void *buf, size_t len)
{
	return hp_crc32_short(crc, buf, len);
}

/*
 * hp_crc32c(): hp_crc32c_inline() in assembly. Below short_below the
 * stream (hp__crc32c_sse42, below), by one compare; every other length by its
 * class: a compare for the far classes, a shift, a load and an indirect
 * jump, the same for every step of the row. Through compares (the plan's
 * first two steps) and a call that scanned (the rest), a later step had
 * cost more than the first (docs/dispatch.md, "Every step equally cheap").
 *
 * Only loads, fused compare-and-branches and the shift: the table's
 * address is loaded (hp__crc32c_cls_at), not computed with lea. The
 * multi-stream methods are bound by crc32q, one per cycle on one port,
 * which an ALU uop of the dispatch can take: on the Emerald Rapids the
 * lea version ran 128 and 192 bytes (one and four seed-last streams)
 * 1.2 to 1.5 cycles behind the method alone, the load version 0.3 to
 * 0.7 (hotpath crc32c, two runs each).
 */
#define PLAN_SHORT 0		/* offsetof(struct hp_crc32c_plan, short_below) */
#define PLAN_CLS 8		/* offsetof(struct hp_crc32c_plan, cls) */
/* cls[] less 12 entries: the far classes, indexed by the highest set bit */
#define PLAN_FAR 1960
_Static_assert(offsetof(struct hp_crc32c_plan, short_below) == PLAN_SHORT, "plan layout");
_Static_assert(offsetof(struct hp_crc32c_plan, cls) == PLAN_CLS, "plan layout");
_Static_assert(PLAN_FAR == PLAN_CLS + 8 * (HP_CRC32C_NNEAR - HP_CRC32C_FAR_BIT), "plan layout");
_Static_assert(sizeof(hp_crc32c_fn) == 8, "plan layout");
_Static_assert(HP_CRC32C_NEAR == 4096 && HP_CRC32C_CLASS_SHIFT == 4, "the asm's classes");

/* The plan's address, for the asm to load (above). */
HP_HIDDEN struct hp_crc32c_plan *const hp__crc32c_cls_at = &hp_crc32c_plan;

__asm__(
	".text\n\t"
	".p2align 6\n\t"
	".globl hp_crc32c\n\t"
	".type hp_crc32c,@function\n"
	"hp_crc32c:\n\t"
	".cfi_startproc\n\t"
	"movl hp_crc32c_plan+" HP_STR(PLAN_SHORT) "(%rip),%eax\n\t"
	"cmpq %rax,%rdx\n\t"
	"jb hp__crc32c_sse42\n\t"
	"movq hp__crc32c_cls_at(%rip),%rcx\n\t"
	"cmpq $4095,%rdx\n\t"
	"ja 1f\n\t"
	"movl %edx,%eax\n\t"
	"shrl $4,%eax\n\t"
	"jmp *" HP_STR(PLAN_CLS) "(%rcx,%rax,8)\n"
	/* 4 KiB and more: the class of the highest set bit */
	"1:\n\t"
	"bsrq %rdx,%rax\n\t"
	"jmp *" HP_STR(PLAN_FAR) "(%rcx,%rax,8)\n\t"
	".cfi_endproc\n\t"
	".size hp_crc32c, . - hp_crc32c\n\t"
	/* hp_crc32c()'s short path, and the "sse42" method wherever a row
	 * names it (one code), below 64 bytes: the len % 8 bytes at the
	 * start (4, 2, 1), then the whole words as one ladder of crc32q
	 * ending at the buffer's end, entered by compares that fall through
	 * until the length's rung: a length of whole words takes one taken
	 * branch at most. From 64 bytes the C stream (its 64-byte loop).
	 * The C stream's layout had taken three to four branches at 8, 24
	 * and 40 bytes; on the Emerald Rapids this runs 1 to 63 bytes 1 to 4
	 * cycles faster (8 bytes 6.0 / 7.0 against 9.0 / 10.0 in latency /
	 * throughput), 0 bytes 2 slower (docs/labs/crc32c.md). The nop puts
	 * the 48-byte rung at a 32-byte boundary: landing one byte before
	 * it, 48 bytes ran 8.0 cycles in throughput, at it 7.0. */
	".p2align 5\n\t"
	".globl hp__crc32c_sse42\n\t"
	".hidden hp__crc32c_sse42\n\t"
	".type hp__crc32c_sse42,@function\n"
	"hp__crc32c_sse42:\n\t"
	".cfi_startproc\n\t"
	"movl %edi,%eax\n\t"
	"leaq -8(%rdx),%rcx\n\t"
	"cmpq $55,%rcx\n\t"
	"nop\n\t"
	"ja 8f\n\t"
	"testb $7,%dl\n\t"
	"jnz 9f\n"
	"7:\n\t"
	"addq %rdx,%rsi\n\t"
	"cmpq $16,%rdx\n\t"
	"jb 1f\n\t"
	"cmpq $24,%rdx\n\t"
	"jb 2f\n\t"
	"cmpq $32,%rdx\n\t"
	"jb 3f\n\t"
	"cmpq $40,%rdx\n\t"
	"jb 4f\n\t"
	"cmpq $48,%rdx\n\t"
	"jb 5f\n\t"
	"cmpq $56,%rdx\n\t"
	"jb 6f\n\t"
	"crc32q -56(%rsi),%rax\n"
	"6:\n\t"
	"crc32q -48(%rsi),%rax\n"
	"5:\n\t"
	"crc32q -40(%rsi),%rax\n"
	"4:\n\t"
	"crc32q -32(%rsi),%rax\n"
	"3:\n\t"
	"crc32q -24(%rsi),%rax\n"
	"2:\n\t"
	"crc32q -16(%rsi),%rax\n"
	"1:\n\t"
	"crc32q -8(%rsi),%rax\n\t"
	"ret\n"
	/* under 8 bytes, or 64 and more */
	"8:\n\t"
	"cmpq $63,%rdx\n\t"
	"ja hp__crc32c_short_c\n"
	/* the len % 8 bytes at the start; then the words, if any */
	"9:\n\t"
	"testb $4,%dl\n\t"
	"jz 10f\n\t"
	"crc32l (%rsi),%eax\n\t"
	"addq $4,%rsi\n"
	"10:\n\t"
	"testb $2,%dl\n\t"
	"jz 11f\n\t"
	"crc32w (%rsi),%eax\n\t"
	"addq $2,%rsi\n"
	"11:\n\t"
	"testb $1,%dl\n\t"
	"jz 12f\n\t"
	"crc32b (%rsi),%eax\n\t"
	"incq %rsi\n"
	"12:\n\t"
	"andq $-8,%rdx\n\t"
	"jnz 7b\n\t"
	"ret\n\t"
	".cfi_endproc\n\t"
	".size hp__crc32c_sse42, . - hp__crc32c_sse42\n\t"
	".text");
