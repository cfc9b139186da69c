/* SPDX-License-Identifier: GPL-2.0-only */
/* The kernel's fixed-width and checksum types (hotpath kernel shim). */
#ifndef HP_KSHIM_LINUX_TYPES_H
#define HP_KSHIM_LINUX_TYPES_H

typedef __UINT8_TYPE__ u8;
typedef __UINT16_TYPE__ u16;
typedef __UINT32_TYPE__ u32;
typedef __UINT64_TYPE__ u64;
typedef __INT8_TYPE__ s8;
typedef __INT16_TYPE__ s16;
typedef __INT32_TYPE__ s32;
typedef __INT64_TYPE__ s64;
typedef u8 __u8;
typedef u16 __u16;
typedef u32 __u32;
typedef u64 __u64;
typedef s32 __s32;
typedef s64 __s64;
typedef u16 __le16;
typedef u16 __be16;
typedef u32 __le32;
typedef u32 __be32;
typedef u64 __le64;
typedef u64 __be64;
typedef u16 __sum16;
typedef u32 __wsum;
typedef __SIZE_TYPE__ size_t;
typedef __PTRDIFF_TYPE__ ssize_t;
typedef __UINTPTR_TYPE__ uintptr_t;
typedef _Bool bool;
#define true 1
#define false 0
#define NULL ((void *)0)

struct in6_addr;

#endif
