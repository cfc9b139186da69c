/* SPDX-License-Identifier: GPL-2.0-only */
/* hotpath kernel shim: linux/wordpart.h's byte-repeat constant. */
#ifndef HP_KSHIM_LINUX_WORDPART_H
#define HP_KSHIM_LINUX_WORDPART_H
#define REPEAT_BYTE(x) ((~0ul / 0xff) * (x))
#define upper_32_bits(n) ((u32)(((n) >> 16) >> 16))
#define lower_32_bits(n) ((u32)((n) & 0xffffffff))
#endif
