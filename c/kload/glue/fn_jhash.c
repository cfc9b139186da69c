// SPDX-License-Identifier: GPL-2.0-only
/*
 * The kernel's jhash() (include/linux/jhash.h: Bob Jenkins' lookup3, a
 * static inline) in one function of hotpath's glue, of jhash()'s own
 * type, built by the tree's Kbuild with the tree's flags
 * (python/hotpath/kernelsrc/kbuilt.py).
 */
#include <linux/jhash.h>

u32 hp_glue_jhash(const void *key, u32 length, u32 initval);

u32 hp_glue_jhash(const void *key, u32 length, u32 initval)
{
	return jhash(key, length, initval);
}
