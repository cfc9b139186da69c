/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * kernel_fpu_begin()/kernel_fpu_end(), out of line as in the kernel
 * (c/kshim/runtime/fpu.c), doing what the kernel's do on x86-64 once the
 * task's registers are saved: mark the CPU as in kernel FPU use, disable
 * preemption (a per-thread count here) and load the default MXCSR. The
 * first call of a system call also saves the task's FPU registers
 * (XSAVE); in a loop of calls that is paid once, and it is not modelled.
 * hotpath kernel shim.
 */
#ifndef HP_KSHIM_ASM_SIMD_H
#define HP_KSHIM_ASM_SIMD_H
void kernel_fpu_begin(void);
void kernel_fpu_end(void);
/* Task context, never an interrupt: SIMD is usable. */
#define may_use_simd() 1
#define irq_fpu_usable() 1
#endif
