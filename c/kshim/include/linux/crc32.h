/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * What lib/crc's arch headers take from linux/crc32.h and crc32-main.c:
 * the optimisation flags and the generic functions they fall back to.
 * The generic ones are not the kernel's here (c/kshim/glue/crc32c_lib.c
 * says what stands in) and are never reached by what hotpath times: its
 * variants need SSE4.2, where the arch code never falls back.
 * hotpath kernel shim.
 */
#ifndef HP_KSHIM_LINUX_CRC32_H
#define HP_KSHIM_LINUX_CRC32_H
#include <linux/types.h>
#include <linux/jump_label.h>
#include <linux/static_call.h>
#define CRC32_LE_OPTIMIZATION BIT(0)
#define CRC32_BE_OPTIMIZATION BIT(1)
#define CRC32C_OPTIMIZATION BIT(2)
u32 crc32_le_base(u32 crc, const u8 *p, size_t len);
u32 crc32_be_base(u32 crc, const u8 *p, size_t len);
u32 crc32c_base(u32 crc, const u8 *p, size_t len);
#endif
