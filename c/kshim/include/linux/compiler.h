/* SPDX-License-Identifier: GPL-2.0-only */
/* The kernel's compiler attributes and hints, as gcc takes them (hotpath
 * kernel shim). Sparse annotations (__force, __user) mean nothing to gcc. */
#ifndef HP_KSHIM_LINUX_COMPILER_H
#define HP_KSHIM_LINUX_COMPILER_H

#define likely(x) __builtin_expect(!!(x), 1)
#define unlikely(x) __builtin_expect(!!(x), 0)
#define __force
#define __user
#define __iomem
#define __bitwise
#define __visible __attribute__((externally_visible))
#define __pure __attribute__((pure))
#define __always_inline inline __attribute__((always_inline))
#define noinline __attribute__((noinline))
#define __maybe_unused __attribute__((unused))
#define __aligned(x) __attribute__((aligned(x)))
#define __must_check __attribute__((warn_unused_result))
#define barrier() __asm__ __volatile__("" : : : "memory")
#define barrier_data(ptr) __asm__ __volatile__("" : : "r"(ptr) : "memory")
#define __stringify_1(x...) #x
#define __stringify(x...) __stringify_1(x)
#define asm_volatile_goto(x...) asm goto(x)
#define asm_goto_output(x...) asm goto(x)
#define fallthrough __attribute__((__fallthrough__))
#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))
#define ASM_INPUT_RM "rm"
#define __ro_after_init
#define ____cacheline_aligned __attribute__((aligned(64)))
#define __cacheline_aligned ____cacheline_aligned
#define BIT(n) (1UL << (n))

/* IS_ENABLED(CONFIG_X): 1 when kshim.h defines CONFIG_X to 1, else 0. */
#define __hp_kshim_placeholder_1 0,
#define __hp_kshim_second(ignored, value, ...) value
#define __hp_kshim_defined(x) ___hp_kshim_defined(__hp_kshim_placeholder_##x)
#define ___hp_kshim_defined(arg_or_junk) __hp_kshim_second(arg_or_junk 1, 0, 0)
#define IS_ENABLED(option) __hp_kshim_defined(option)

#endif
