/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The kernel's symbol macros for C and assembly (hotpath kernel shim).
 * A function starts 64-byte aligned, as every function of hotpath's own
 * library does (-falign-functions=64), so that the kernel's code and the
 * code it is timed beside sit alike in the instruction cache; the kernel
 * aligns to CONFIG_FUNCTION_ALIGNMENT (16 on Debian's kernels) instead.
 * ENDBR, where the source writes it (the targets of an indirect jump),
 * is endbr64, as in Debian's kernels (CONFIG_X86_KERNEL_IBT); the one the
 * kernel puts at each function's entry (and seals into a 4-byte nop at
 * boot when nothing calls it indirectly) is left out.
 */
#ifndef HP_KSHIM_LINUX_LINKAGE_H
#define HP_KSHIM_LINUX_LINKAGE_H

#ifdef __ASSEMBLY__
#define SYM_FUNC_START(name) .globl name; .type name, @function; .p2align 6; name:
#define SYM_FUNC_START_LOCAL(name) .type name, @function; .p2align 6; name:
#define SYM_FUNC_START_NOALIGN(name) .globl name; .type name, @function; name:
#define SYM_TYPED_FUNC_START(name) SYM_FUNC_START(name)
#define SYM_FUNC_END(name) .size name, .-name
#define SYM_FUNC_ALIAS(alias, name) .globl alias; .set alias, name
#define SYM_DATA_START_LOCAL(name) name:
#define SYM_DATA_END(name) .size name, .-name
#define SYM_DATA_LOCAL(name, x...) name: x
#define ENDPROC(name) SYM_FUNC_END(name)
#define ALIGN .p2align 4, 0x90
#define ENDBR endbr64
#else
#define asmlinkage
#endif

#endif
