/* SPDX-License-Identifier: GPL-2.0-only */
/* The rotates and bit scans kernel code calls (hotpath kernel shim): the
 * kernel's definitions are these expressions, which gcc turns into one
 * ror or tzcnt/bsf. */
#ifndef HP_KSHIM_LINUX_BITOPS_H
#define HP_KSHIM_LINUX_BITOPS_H
#include <linux/types.h>
#include <asm/asm.h>

static inline u64 ror64(u64 word, unsigned int shift)
{
	return (word >> (shift & 63)) | (word << ((-shift) & 63));
}

static inline u32 ror32(u32 word, unsigned int shift)
{
	return (word >> (shift & 31)) | (word << ((-shift) & 31));
}

static inline u32 rol32(u32 word, unsigned int shift)
{
	return (word << (shift & 31)) | (word >> ((-shift) & 31));
}

static __always_inline unsigned long __ffs(unsigned long word)
{
	return (unsigned long)__builtin_ctzl(word);
}
#endif
