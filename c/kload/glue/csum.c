// SPDX-License-Identifier: GPL-2.0-only
/*
 * hotpath's entry points into a kernel tree's checksum code, for the
 * primitives whose kernel form is a static inline (csum_fold(),
 * ip_fast_csum(): the tree's arch/x86/include/asm/checksum_64.h) or whose
 * signature differs from the primitive's (csum_partial_copy_nocheck()
 * takes no seed since Linux 5.10). csum_partial() and csum_ipv6_magic()
 * need none: the runner calls the tree's own functions. Built by the
 * tree's Kbuild as an external module's object, beside the tree's own
 * objects (python/hotpath/kernelsrc/kbuilt.py), and loaded with them.
 */
#include <asm/checksum.h>

__sum16 hp_glue_csum_fold(__wsum sum);
__sum16 hp_glue_ip_fast_csum(const void *iph, unsigned int ihl);
__wsum hp_glue_csum_copy(const void *src, void *dst, int len, __wsum sum);

__sum16 hp_glue_csum_fold(__wsum sum)
{
	return csum_fold(sum);
}

__sum16 hp_glue_ip_fast_csum(const void *iph, unsigned int ihl)
{
	return ip_fast_csum(iph, ihl);
}

/* The seed added as the kernel's callers add theirs (csum_block_add()
 * and friends end in csum_add()). */
__wsum hp_glue_csum_copy(const void *src, void *dst, int len, __wsum sum)
{
	return csum_add(csum_partial_copy_nocheck(src, dst, len), sum);
}
