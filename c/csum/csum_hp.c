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
 * This file is the entry, in assembly, and what it reads; csum_hp_plan.c
 * sets that from the row (or HOTPATH_CSUM_FORCE=scalar|avx2|avx2-hybrid|
 * avx512, or hp_csum_set_path(), which force a path so that tests cover
 * each one).
 */
#include <hotpath/bench.h>	/* HP_STR */
#include <hotpath/csum.h>

#include <stdint.h>

#include "csum_impl.h"

/*
 * hp_csum()'s scalar path, hp_csum_scalar(), in assembly: below
 * HP_CSUM_SHORT bytes every call takes it, and there the front end is the
 * bottleneck (a 24-byte sum is about 20 instructions and 8 cycles on a
 * Zen 3), so where each branch lands matters as much as what is computed.
 * The compiler's layout of the same logic cost 1 to 3 cycles a call.
 *
 * - No indirect jump. The previous ladder was entered by one computed
 *   jump; once that jump has seen several lengths (any real caller, or a
 *   sweep of sizes) its target comes from the indirect predictor, and on a
 *   Zen 3 every call then took 3 to 4 cycles more (24 bytes: 12.1 against
 *   9.1 cycles in a loop of one length), by an amount that also moved with
 *   the address of the calling loop. Compares against constants cost the
 *   same whatever the history.
 * - 8..80 bytes: the last 1..8 come from one load ending at the buffer's
 *   end, shifted down to their natural offset; the m = (len - 1) / 8 whole
 *   words before them are the last m rungs of one adc ladder. A chain of
 *   compares on len picks the rung with one taken branch (two past 40
 *   bytes); every entry is reached with CF clear (jae, or clc), so the
 *   chain starts clean.
 * - More than 80 bytes: two 40-byte chains per 80 bytes (the shape kernel
 *   2024 settled on), then the ladder for the last 1..80.
 * - 0..7 bytes: 4..7 with two overlapping 4-byte loads, the second
 *   shifted past the overlap, 1..3 with three byte loads and no branch;
 *   each leaf returns itself. The entry branches to each by a compare
 *   of its own (4, then 8), one taken branch: on the Zen 4 (family 25
 *   model 17) a second taken branch costs a cycle, and 4..7 had taken
 *   two (a compare with 8, then with 4), 2 cycles behind the
 *   one-word-at-a-time reference at 4 bytes (9.0 against 7.0 in
 *   latency, docs/dispatch.md); with 1..3 behind the second instead,
 *   those fell a cycle behind.
 * - The result is lo + hi + sum with end-around carry: the input sum is
 *   added last, so a chain of calls waits two instructions per call.
 *
 * - The entry's first test is the row's: "from hp_csum_vec_from bytes a
 *   vector method" (one compare against memory, not taken below it).
 *   Every length below it then takes exactly hp_csum_scalar's two
 *   compares and one taken branch (81 bytes and more: straight into the
 *   adc loop), and a vector length reaches its method after two taken
 *   branches (that one and the method's). Before 2026-11-28 the entry
 *   tested "more than 80" first and the long lengths then met three
 *   compares against memory before the adc loop: on a Zen 3 hp_csum ran
 *   1.0 to 2.2 cycles behind hp_csum_scalar at 96 to 256 bytes, on this
 *   Zen 4 (family 25 model 17) 1.0 at 96 and 128 bytes; with this entry
 *   0.0 to 0.2 on the Zen 4, and 0 to 80 bytes no slower than
 *   hp_csum_scalar (docs/dispatch.md has the tax table).
 *
 * Nothing outside [buf, buf + len) is read: the tail load starts 8 bytes
 * before the end only when len >= 8. The csum lab's chain bound follows
 * these branches with len = 40 (hotpath/asmgraph.py).
 *
 * hp_csum_scalar(buf, len, sum) - hp_csum's adc-chain path, for any length
 * and alignment: the canonical 32-bit ones' complement sum of @sum and the
 * buffer's little-endian words, bit-identical to kernel 5.17's result at
 * even addresses (csum_fold() of it equals the reference's everywhere).
 * hp_csum(buf, len, sum) - the same result, by the fastest method for this
 * CPU (<hpsum.h>).
 */

/*
 * What the asm reads (plans_changed() sets it from the plans below):
 * from hp_csum_vec_from bytes (the row's first vector step at either
 * parity, never below HP_CSUM_SHORT) the method of the length's class,
 * hp_csum_class[2 * class + parity]. The classes are 32 bytes wide below
 * CSUM_NEAR (len >> 5), then one per power of two (the length's highest
 * set bit, 12..30), so that every length the dispatch command measures
 * (256, 384, 512, 768, ..., 3072, 4096, 8192, 16384, 65536) is a class
 * edge. An entry names the step's method, the adc loop below (a parity
 * still on its scalar step), or hp__csum_scan() for a class that holds a
 * step boundary not on its edge: the row's steps stay exact.
 * An entry is a byte (enum csum_class_id) that the asm turns into a
 * direct branch to the method: through a pointer (`jmp *`, until
 * 2026-11-28) the Zen 4 took 2 to 4 cycles more than the method alone at
 * 256 to 512 bytes (256 even, AVX-512: 20.9 against 16.9; 384 odd, AVX2:
 * 26.9 against 22.9), with the byte and compares 1 to 2 cycles less
 * (19.0 and 25.9). docs/dispatch.md, "Every step equally cheap", has the
 * design.
 */
_Static_assert(CSUM_FAR == 2 * (CSUM_NNEAR - CSUM_FAR_BIT), "the asm's far classes");
_Static_assert(CSUM_NEAR == 4096, "the asm's classes");
_Static_assert(CSUM_ID_LOOP == 0 && CSUM_ID_AVX512_LONG == 1 && CSUM_ID_AVX512 == 2 &&
	       CSUM_ID_AVX2_LONG == 3 && CSUM_ID_HYBRID == 4, "the asm's ids");
__attribute__((visibility("hidden"))) int64_t hp_csum_vec_from = INT64_MAX;
__attribute__((visibility("hidden"), aligned(64))) uint8_t hp_csum_class[2 * CSUM_NCLASS];
/* The table's address, loaded by the asm rather than computed with lea:
 * no ALU uop for a method that is bound by its ports (the CRC's reason,
 * crc32c_hotpath.c; the checksum measured the same either way). */
__attribute__((visibility("hidden"))) uint8_t *const hp__csum_class_at = hp_csum_class;
/*
 * From hp_csum_avx512_from bytes the asm jumps straight to the AVX-512
 * method, from hp_csum_avx2_from to the AVX2 one, ahead of the table: set
 * only from where that method is the row's last step at both parities
 * (AVX-512 in the zen5 row from 256 bytes and the emerald-rapids row from
 * 128, AVX2 in the zen3 row from 384 and in an AVX-512 row on a CPU
 * without it), and to the method's entry past its own short-length test
 * (hp__csum_*_long). Direct jumps: through a pointer (one `jmp *` for
 * either method) the Emerald Rapids took 0.5 to 2 cycles more at 128 to
 * 512 bytes, in alternating runs.
 * On a Zen 5 a call reached the path after three taken branches and took
 * 1 to 2 cycles more than the path alone (384 bytes even: 17.0 against
 * 14.8, 1024: 22.1 against 20.4); with two, 384 to 1536 bytes gained about
 * a cycle (1024: 21.2) and 96 to 128 lost one (the extra compare on their
 * way to the adc loop). A compare at the entry instead, ahead of the
 * ladder (one taken branch to the path), cost 8 to 64 bytes 1 to 2
 * cycles, also with the ladder kept at its old offset. The entry now
 * tests the row's first vector length first, not taken by the ladder's
 * lengths (measured on the Zen 4: 0 to 80 bytes as fast as or a cycle
 * faster than hp_csum_scalar); that compare and the shortcut's are the
 * vector path's two taken branches.
 */
__attribute__((visibility("hidden"))) int64_t hp_csum_avx512_from = INT64_MAX;
__attribute__((visibility("hidden"))) int64_t hp_csum_avx2_from = INT64_MAX;

/*
 * The ladder for the last 1..80 bytes and the fold, from the entry and
 * again after the adc loop (labels suffixed by S), so that the loop falls
 * into its own copy instead of jumping back: one taken branch less from
 * 81 bytes (Zen 5, 96 bytes: 11.0 against 12.0 cycles in throughput,
 * 10.1 against 11.1 to 12.1 in latency; no other length moved).
 */
#define HP_LADDER(s) \
	".Lhp_ladder" s ":\n\t" \
	"movq -8(%rdi,%rsi),%r8\n\t" \
	"leal 0(,%rsi,8),%ecx\n\t" \
	"negl %ecx\n\t" \
	"shrq %cl,%r8\n\t" \
	"cmpq $41,%rsi\n\t" \
	"jae .Lhp_over40" s "\n\t" \
	"cmpq $33,%rsi\n\t" \
	"jae .Lhp_w4" s "\n\t" \
	"cmpq $25,%rsi\n\t" \
	"jae .Lhp_w3" s "\n\t" \
	"cmpq $17,%rsi\n\t" \
	"jae .Lhp_w2" s "\n\t" \
	"cmpq $9,%rsi\n\t" \
	"jae .Lhp_w1" s "\n\t" \
	"addq %r8,%rax\n\t" \
	"jmp .Lhp_carry" s "\n" \
	".Lhp_over40" s ":\n\t" \
	"cmpq $73,%rsi\n\t" \
	"jae .Lhp_w9" s "\n\t" \
	"cmpq $65,%rsi\n\t" \
	"jae .Lhp_w8" s "\n\t" \
	"cmpq $57,%rsi\n\t" \
	"jae .Lhp_w7" s "\n\t" \
	"cmpq $49,%rsi\n\t" \
	"jae .Lhp_w6" s "\n\t" \
	"clc\n\t" \
	"jmp .Lhp_w5" s "\n" \
	".Lhp_w9" s ": adcq 64(%rdi),%rax\n" \
	".Lhp_w8" s ": adcq 56(%rdi),%rax\n" \
	".Lhp_w7" s ": adcq 48(%rdi),%rax\n" \
	".Lhp_w6" s ": adcq 40(%rdi),%rax\n" \
	".Lhp_w5" s ": adcq 32(%rdi),%rax\n" \
	".Lhp_w4" s ": adcq 24(%rdi),%rax\n" \
	".Lhp_w3" s ": adcq 16(%rdi),%rax\n" \
	".Lhp_w2" s ": adcq 8(%rdi),%rax\n" \
	".Lhp_w1" s ": adcq 0(%rdi),%rax\n\t" \
	"adcq %r8,%rax\n" \
	".Lhp_carry" s ":\n\t" \
	"adcq $0,%rax\n\t" \
	"movq %rax,%rcx\n\t" \
	"shrq $32,%rcx\n\t" \
	"addl %ecx,%eax\n\t" \
	"adcl %edx,%eax\n\t" \
	"adcl $0,%eax\n\t" \
	"ret\n"

__asm__(
	".text\n\t"
	".p2align 6\n\t"
	".globl hp_csum\n\t"
	".type hp_csum,@function\n"
	"hp_csum:\n\t"
	".cfi_startproc\n\t"
	"movslq %esi,%rsi\n\t"
	"cmpq hp_csum_vec_from(%rip),%rsi\n\t"
	"jge .Lhp_vec\n\t"
	"cmpq $80,%rsi\n\t"
	"jg .Lhp_loop\n\t"
	"cmpq $4,%rsi\n\t"
	"jl .Lhp_tiny13\n\t"
	"cmpq $8,%rsi\n\t"
	"jl .Lhp_tiny47\n\t"
	"xorl %eax,%eax\n"
	/* rdi: the words, rsi: 8..80 bytes, rax: the sum so far */
	HP_LADDER("")
	".Lhp_loop:\n"
	"hp__csum_loop:\n\t"
	"xorl %eax,%eax\n\t"
	"xorl %r9d,%r9d\n"
	"1:\n\t"
	"addq 0(%rdi),%rax\n\t"
	"adcq 8(%rdi),%rax\n\t"
	"adcq 16(%rdi),%rax\n\t"
	"adcq 24(%rdi),%rax\n\t"
	"adcq 32(%rdi),%rax\n\t"
	"adcq $0,%rax\n\t"
	"addq 40(%rdi),%r9\n\t"
	"adcq 48(%rdi),%r9\n\t"
	"adcq 56(%rdi),%r9\n\t"
	"adcq 64(%rdi),%r9\n\t"
	"adcq 72(%rdi),%r9\n\t"
	"adcq $0,%r9\n\t"
	"addq $80,%rdi\n\t"
	"subq $80,%rsi\n\t"
	"cmpq $80,%rsi\n\t"
	"jg 1b\n\t"
	"addq %r9,%rax\n\t"
	"adcq $0,%rax\n"
	HP_LADDER("_l")
	/* 0..7 bytes (a negative len: the sum alone), each range reached
	 * by one taken branch from the entry */
	".Lhp_tiny47:\n\t"
	/* 4..7: the first four bytes, and the len - 4 past them from one
	 * load ending at the buffer's end, shifted down to offset 0 (their
	 * offset modulo 4) */
	"movl (%rdi),%eax\n\t"
	"movl -4(%rdi,%rsi),%r8d\n\t"
	"leal 0(,%rsi,8),%ecx\n\t"
	"negl %ecx\n\t"
	"shrq %cl,%r8\n\t"
	"addl %r8d,%eax\n\t"
	"adcl %edx,%eax\n\t"
	"adcl $0,%eax\n\t"
	"ret\n"
	".Lhp_tiny13:\n\t"
	"testq %rsi,%rsi\n\t"
	"jle .Lhp_none\n\t"
	/* bytes 0, len / 2 and len - 1 cover 1..3 bytes */
	"movzbl (%rdi),%eax\n\t"
	"movzbl -1(%rdi,%rsi),%r8d\n\t"
	"movl %esi,%ecx\n\t"
	"shrl $1,%ecx\n\t"
	"movzbl (%rdi,%rcx),%r9d\n\t"
	"shll $3,%ecx\n\t"
	"shll %cl,%r9d\n\t"
	"leal -8(,%rsi,8),%ecx\n\t"
	"shll %cl,%r8d\n\t"
	"orl %r9d,%eax\n\t"
	"orl %r8d,%eax\n\t"
	"addl %edx,%eax\n\t"
	"adcl $0,%eax\n\t"
	"ret\n"
	".Lhp_none:\n\t"
	"movl %edx,%eax\n\t"
	"ret\n"
	/* from the row's first vector length: the row's last method when
	 * both parities end on it (the shortcuts), else the method of the
	 * length's class: index 2 * class + parity, the parity (bit 0 of the
	 * address) added by bt and adc */
	".Lhp_vec:\n\t"
	"cmpq hp_csum_avx512_from(%rip),%rsi\n\t"
	"jge hp__csum_avx512_long\n\t"
	"cmpq hp_csum_avx2_from(%rip),%rsi\n\t"
	"jge hp__csum_avx2_long\n"
	".Lhp_class:\n\t"
	"movq hp__csum_class_at(%rip),%r8\n\t"
	"cmpl $" HP_STR(CSUM_NEAR) " - 1,%esi\n\t"
	"ja .Lhp_far\n\t"
	"movl %esi,%ecx\n\t"
	"shrl $5,%ecx\n\t"
	"btl $0,%edi\n\t"
	"adcl %ecx,%ecx\n\t"
	"movzbl (%r8,%rcx),%ecx\n"
	/* the class's method by direct branches, the commonest first */
	".Lhp_id:\n\t"
	"cmpl $1,%ecx\n\t"
	"je hp__csum_avx512_long\n\t"
	"cmpl $3,%ecx\n\t"
	"je hp__csum_avx2_long\n\t"
	"testl %ecx,%ecx\n\t"
	"je .Lhp_loop\n\t"
	"cmpl $2,%ecx\n\t"
	"je hp_csum_avx512\n\t"
	"cmpl $4,%ecx\n\t"
	"je hp_csum_avx2_hybrid\n\t"
	"jmp hp__csum_scan\n"
	".Lhp_far:\n\t"
	"bsrl %esi,%ecx\n\t"
	"btl $0,%edi\n\t"
	"adcl %ecx,%ecx\n\t"
	"movzbl " HP_STR(CSUM_FAR) "(%r8,%rcx),%ecx\n\t"
	"jmp .Lhp_id\n\t"
	".size hp_csum, . - hp_csum\n\t"
	/* the same without the vector methods: one jump more up to 80 bytes */
	".globl hp_csum_scalar\n\t"
	".type hp_csum_scalar,@function\n"
	"hp_csum_scalar:\n"
	"hp_csum_scalar_local:\n\t"
	"movslq %esi,%rsi\n\t"
	"cmpq $4,%rsi\n\t"
	"jl .Lhp_tiny13\n\t"
	"cmpq $8,%rsi\n\t"
	"jl .Lhp_tiny47\n\t"
	"xorl %eax,%eax\n\t"
	"cmpq $80,%rsi\n\t"
	"jg .Lhp_loop\n\t"
	"jmp .Lhp_ladder\n\t"
	".cfi_endproc\n\t"
	".size hp_csum_scalar, . - hp_csum_scalar\n\t"
	".globl hp_csum_scalar_local\n\t"
	".hidden hp_csum_scalar_local\n\t"
	".type hp_csum_scalar_local,@function\n\t"
	".size hp_csum_scalar_local, . - hp_csum_scalar_local\n\t"
	".globl hp__csum_loop\n\t"
	".hidden hp__csum_loop\n\t"
	".type hp__csum_loop,@function\n\t"
	".text");

/* The vector paths' scalar head and tail, called directly (hidden). */
uint32_t hp_csum_scalar_nosum(const uint8_t *p, size_t len)
{
	return hp_csum_scalar_local(p, (int)len, 0);
}
