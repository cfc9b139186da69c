// SPDX-License-Identifier: GPL-2.0-only
/*
 * The crct10dif-pclmul crypto driver's update (Linux 4.10 to 6.13,
 * arch/x86/crypto/crct10dif-pclmul_glue.c) as the crc_t10dif_update()
 * of lib/crc-t10dif.c reaches it once the driver is registered: from 16
 * bytes the tree's crc_t10dif_pcl() folding between kernel_fpu_begin()
 * and kernel_fpu_end(), below that the generic table (crct10dif_common.c),
 * the driver's own test. In the fn lab's crc_t10dif type; built by the
 * tree's Kbuild beside the tree's assembly and generic objects
 * (python/hotpath/kernelsrc/catalogue.py).
 */
#include <linux/crc-t10dif.h>
#include <asm/fpu/api.h>

asmlinkage u16 crc_t10dif_pcl(u16 init_crc, const u8 *buf, size_t len);
u16 hp_glue_crc_t10dif_pcl(u16 crc, const u8 *data, size_t length);

u16 hp_glue_crc_t10dif_pcl(u16 crc, const u8 *data, size_t length)
{
	if (length >= 16) {
		kernel_fpu_begin();
		crc = crc_t10dif_pcl(crc, data, length);
		kernel_fpu_end();
		return crc;
	}
	return crc_t10dif_generic(crc, data, length);
}
