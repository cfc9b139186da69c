/* SPDX-License-Identifier: GPL-2.0-only */
/* Byte order on x86 (little-endian), as the kernel's swab helpers
 * compile: gcc's bswap builtins. hotpath kernel shim. */
#ifndef HP_KSHIM_ASM_BYTEORDER_H
#define HP_KSHIM_ASM_BYTEORDER_H
#include <linux/types.h>
#define htonl(x) ((__be32)__builtin_bswap32((u32)(x)))
#define htons(x) ((__be16)__builtin_bswap16((u16)(x)))
#define ntohl(x) __builtin_bswap32((u32)(x))
#define ntohs(x) __builtin_bswap16((u16)(x))
#define cpu_to_le32(x) ((__le32)(u32)(x))
#define le32_to_cpu(x) ((u32)(__le32)(x))
#define cpu_to_le32p(p) ((__le32)*(const u32 *)(p))
#define le32_to_cpup(p) ((u32)*(const __le32 *)(p))
#endif
