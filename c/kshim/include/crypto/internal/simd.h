/* SPDX-License-Identifier: GPL-2.0-only */
/* hotpath kernel shim: hashing runs in task context, where the kernel
 * lets crypto use SIMD. */
#ifndef HP_KSHIM_CRYPTO_INTERNAL_SIMD_H
#define HP_KSHIM_CRYPTO_INTERNAL_SIMD_H
#include <asm/simd.h>
#define crypto_simd_usable() 1
#endif
