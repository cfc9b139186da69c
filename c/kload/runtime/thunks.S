/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * hotpath's kernel runtime, the tree-independent part: the symbols the
 * kernel's objects branch to that the loader patches (c/kload/patch.c).
 * Loaded into each image beside the tree's objects, so every branch to
 * it is a direct one in the low 2 GiB, as in the kernel.
 *
 * - __fentry__: every site becomes a NOP at load; a plain return here.
 * - __x86_return_thunk: where no site is patched, a return.
 * - srso_alias_return_thunk, srso_return_thunk: the SRSO "Safe RET" the
 *   kernel chooses on AMD Zen 3/4 (the alias form) and Zen 1/2: a call to
 *   a return that drops its own return address, so the return predictor's
 *   entry is used up by the call and never by the function's ret (the
 *   kernel's arch/x86/lib/retpoline.S; the alias form's placement at
 *   addresses that alias in the BTB is not reproduced, its cost is the
 *   same sequence).
 * - __x86_indirect_thunk_REG: the generic retpoline, for --mitigations
 *   host where the host kernel says "Retpolines"; its own return is a
 *   plain ret.
 */
	.text
	.balign 16
	.globl __fentry__
	.type __fentry__, @function
__fentry__:
	ret
	int3
	.size __fentry__, . - __fentry__

	.balign 16
	.globl __x86_return_thunk
	.type __x86_return_thunk, @function
__x86_return_thunk:
	ret
	int3
	.size __x86_return_thunk, . - __x86_return_thunk

	.balign 64
	.type hp_srso_safe_ret, @function
hp_srso_safe_ret:
	lea 8(%rsp), %rsp
	ret
	int3
	.size hp_srso_safe_ret, . - hp_srso_safe_ret

	.balign 16
	.globl srso_alias_return_thunk
	.globl srso_return_thunk
	.type srso_alias_return_thunk, @function
srso_alias_return_thunk:
srso_return_thunk:
	call hp_srso_safe_ret
	ud2
	.size srso_alias_return_thunk, . - srso_alias_return_thunk

	.macro thunk reg
	.balign 32
	.globl __x86_indirect_thunk_\reg
	.type __x86_indirect_thunk_\reg, @function
__x86_indirect_thunk_\reg:
	call 1f
2:	pause
	lfence
	jmp 2b
	int3
1:	mov %\reg, (%rsp)
	ret
	int3
	.size __x86_indirect_thunk_\reg, . - __x86_indirect_thunk_\reg
	.endm

	.irp reg, rax, rcx, rdx, rbx, rbp, rsi, rdi, r8, r9, r10, r11, r12, r13, r14, r15
	thunk \reg
	.endr

	.section .note.GNU-stack, "", @progbits

/*
 * The kernel's preemption points as static calls (PREEMPT_DYNAMIC):
 * might_resched() and cond_resched() call their trampolines; with
 * nothing to reschedule in a timing loop they return at once, as a
 * kernel whose preemption model is "full" leaves them (their key's
 * function NULL). Each trampoline has room for the `jmp` that
 * __static_call_update() (static_call.c) writes.
 */
	.macro static_call name
	.balign 8
	.globl __SCT__\name
	.type __SCT__\name, @function
__SCT__\name:
	ret
	int3
	int3
	int3
	int3
	int3
	int3
	int3
	.size __SCT__\name, . - __SCT__\name
	.data
	.balign 8
	.globl __SCK__\name
	.type __SCK__\name, @object
__SCK__\name:
	.quad 0, 0
	.size __SCK__\name, . - __SCK__\name
	.text
	.endm

	.irp name, might_resched, cond_resched
	static_call \name
	.endr
