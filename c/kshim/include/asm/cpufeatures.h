/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * boot_cpu_has() answered by hotpath's one CPU detector (c/bench/cpu.c),
 * so HOTPATH_CPU_HIDE hides a feature from the kernel's code too. Only
 * the features the shimmed files ask about are named; any other is a
 * build error naming it. hotpath kernel shim.
 */
#ifndef HP_KSHIM_ASM_CPUFEATURES_H
#define HP_KSHIM_ASM_CPUFEATURES_H
#ifndef __ASSEMBLY__
#include <hotpath/cpu_features.h>

#define X86_FEATURE_XMM4_2 HP_CPU_SSE42
#define X86_FEATURE_PCLMULQDQ HP_CPU_PCLMUL
#define X86_FEATURE_AVX2 HP_CPU_AVX2
#define X86_FEATURE_AVX512F HP_CPU_AVX512F
#define X86_FEATURE_AVX512BW HP_CPU_AVX512BW
#define X86_FEATURE_AVX512VL HP_CPU_AVX512VL
#define X86_FEATURE_VPCLMULQDQ HP_CPU_VPCLMUL
/* Not a feature of cpuid's: the kernel sets it on the Intel cores whose
 * clock drops with 512-bit vectors (arch/x86/kernel/cpu/intel.c's
 * zmm_exclusion_list); c/kshim/runtime/cpu.c keeps the same list. */
#define X86_FEATURE_PREFER_YMM (1u << 31)

#define XFEATURE_MASK_YMM (1u << 2)
#define XFEATURE_MASK_AVX512 ((1u << 5) | (1u << 6) | (1u << 7))

bool hp_kshim_cpu_has(unsigned int feature);
/* The OS saves these register states (XCR0): c/kshim/runtime/cpu.c. */
bool cpu_has_xfeatures(unsigned long long mask, const char **name);

#define boot_cpu_has(feature) hp_kshim_cpu_has(feature)
#define static_cpu_has(feature) boot_cpu_has(feature)
#endif
#endif
