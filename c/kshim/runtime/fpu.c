// SPDX-License-Identifier: GPL-2.0-only
/*
 * kernel_fpu_begin() and kernel_fpu_end() as the kernel runs them on
 * x86-64 once the task's FPU registers are saved (arch/x86/kernel/fpu/
 * core.c, kernel_fpu_begin_mask(KFPU_MXCSR)): out of line, a preemption
 * count up, the per-CPU "in kernel FPU" flag set, the saved-registers
 * flag tested, the default MXCSR loaded; and back. hotpath kernel shim;
 * see asm/simd.h for what is not modelled.
 */
#include <stdint.h>

#define MXCSR_DEFAULT 0x1f80u

static __thread unsigned preempt_count, in_kernel_fpu, need_fpu_load;

__attribute__((noinline)) void kernel_fpu_begin(void)
{
	static const uint32_t mxcsr = MXCSR_DEFAULT;

	preempt_count++;
	__asm__ __volatile__("" : : : "memory");
	in_kernel_fpu = 1;
	if (__builtin_expect(!need_fpu_load, 0))
		need_fpu_load = 1;	/* the kernel saves the task's registers here */
	__asm__ __volatile__("ldmxcsr %0" : : "m"(mxcsr));
}

__attribute__((noinline)) void kernel_fpu_end(void)
{
	in_kernel_fpu = 0;
	__asm__ __volatile__("" : : : "memory");
	preempt_count--;
}
