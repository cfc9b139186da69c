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

#define boot_cpu_has(feature) ((hp_cpu_features() & (feature)) != 0)
#define static_cpu_has(feature) boot_cpu_has(feature)
#endif
#endif
