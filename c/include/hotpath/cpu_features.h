/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The CPU features hotpath tells apart, and the host's (HOTPATH_CPU_HIDE
 * taken away); the loader of the kernel's objects (c/kload/features.c)
 * takes the same ones away from the kernel's capability words.
 */
#ifndef HOTPATH_CPU_FEATURES_H
#define HOTPATH_CPU_FEATURES_H

enum hp_cpu_feature {
	HP_CPU_SSE42 = 1u << 0,
	HP_CPU_PCLMUL = 1u << 1,
	HP_CPU_AVX2 = 1u << 2,
	HP_CPU_BMI2 = 1u << 3,
	HP_CPU_ADX = 1u << 4,
	HP_CPU_AVX512F = 1u << 5,
	HP_CPU_AVX512BW = 1u << 6,
	HP_CPU_AVX512VL = 1u << 7,
	HP_CPU_VPCLMUL = 1u << 8,
	HP_CPU_NFEATURES = 9
};

__UINT32_TYPE__ hp_cpu_features(void);

#endif /* HOTPATH_CPU_FEATURES_H */
