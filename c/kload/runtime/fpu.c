// SPDX-License-Identifier: GPL-2.0-only
/*
 * hotpath's kernel runtime, the C part every image gets: what the
 * kernel's objects call that is not theirs.
 *
 * kernel_fpu_begin_mask()/kernel_fpu_end() as the kernel runs them on
 * x86-64 once the task's FPU registers are saved (arch/x86/kernel/fpu/
 * core.c): out of line, the preemption count up, the per-CPU "in kernel
 * FPU" flag set, the task's need-load flag tested, MXCSR set to its
 * default when asked (KFPU_MXCSR); and back. The XSAVE of the task's
 * registers that the first call after a system call pays is not modelled.
 * Their per-CPU state is per-CPU here too (%gs, c/kload/percpu.c).
 */
#define KFPU_387 0x1u
#define KFPU_MXCSR 0x2u
#define MXCSR_DEFAULT 0x1f80u

#define PERCPU __attribute__((section(".data..percpu")))
#define THIS_CPU(v) (*(volatile __seg_gs __typeof__(v) *)(unsigned long)&(v))

/* The kernel's fixed_percpu_data: the stack protector's canary at %gs:40
 * (filled in by the loader). */
struct fixed_percpu_data {
	char gs_base[40];
	unsigned long stack_canary;
};
__attribute__((section(".data..percpu..first"))) struct fixed_percpu_data fixed_percpu_data;

PERCPU unsigned int hp_preempt_count, hp_in_kernel_fpu;
PERCPU unsigned int hp_need_fpu_load;

void kernel_fpu_begin_mask(unsigned int kfpu_mask)
{
	static const unsigned int mxcsr = MXCSR_DEFAULT;

	THIS_CPU(hp_preempt_count)++;
	__asm__ __volatile__("" : : : "memory");
	THIS_CPU(hp_in_kernel_fpu) = 1;
	if (__builtin_expect(!THIS_CPU(hp_need_fpu_load), 0))
		THIS_CPU(hp_need_fpu_load) = 1;	/* the kernel saves the task's registers here */
	if (__builtin_expect(kfpu_mask & KFPU_MXCSR, 1))
		__asm__ __volatile__("ldmxcsr %0" : : "m"(mxcsr));
	if (__builtin_expect(kfpu_mask & KFPU_387, 0))
		__asm__ __volatile__("fninit");
}

void kernel_fpu_begin(void)
{
	kernel_fpu_begin_mask(KFPU_MXCSR);	/* x86-64 asks for MXCSR only */
}

void kernel_fpu_end(void)
{
	THIS_CPU(hp_in_kernel_fpu) = 0;
	__asm__ __volatile__("" : : : "memory");
	THIS_CPU(hp_preempt_count)--;
}

_Bool irq_fpu_usable(void)
{
	return !THIS_CPU(hp_in_kernel_fpu);
}

void __stack_chk_fail(void)
{
	__builtin_trap();
}
