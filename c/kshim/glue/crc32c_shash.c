// SPDX-License-Identifier: GPL-2.0-only
/*
 * hotpath's entry points into the crc32c-intel crypto driver of Linux 6.1
 * to 6.14 (arch/x86/crypto/crc32c-intel_glue.c and its PCLMULQDQ
 * assembly crc32c-pcl-intel-asm_64.S). The tree's glue file is included
 * here whole, so its static functions are the ones called:
 *
 * - hp_kshim_crc32c(): the kernel's dispatch, as lib/libcrc32c.c's
 *   crc32c() reaches it: the seed in a descriptor on the stack, the
 *   driver's update called through the algorithm the module registered
 *   (crypto_shash_update()), which its init chose for this CPU
 *   (crc32c_pcl_intel_update with PCLMULQDQ, else crc32c_intel_update);
 * - hp_kshim_crc32c_crc32q(): crc32c_intel_le_hw(), the crc32q loop, alone;
 * - hp_kshim_crc32c_pcl(): crc_pcl() between kernel_fpu_begin() and
 *   kernel_fpu_end(), at every length (the dispatch takes it from 512 B).
 */
#include <crc32c-intel_glue.c>

struct shash_alg *hp_kshim_shash;

u32 hp_kshim_crc32c(u32 crc, const void *buf, size_t len);
u32 hp_kshim_crc32c_crc32q(u32 crc, const void *buf, size_t len);
u32 hp_kshim_crc32c_pcl(u32 crc, const void *buf, size_t len);

__attribute__((constructor)) static void load_module(void)
{
	hp_kshim_module_init();
}

u32 hp_kshim_crc32c(u32 crc, const void *buf, size_t len)
{
	struct crypto_shash tfm;
	struct shash_desc desc = { .tfm = &tfm };

	desc.ctx[0] = crc;
	hp_kshim_shash->update(&desc, buf, (unsigned int)len);
	barrier_data(desc.ctx);
	return desc.ctx[0];
}

u32 hp_kshim_crc32c_crc32q(u32 crc, const void *buf, size_t len)
{
	return crc32c_intel_le_hw(crc, buf, len);
}

u32 hp_kshim_crc32c_pcl(u32 crc, const void *buf, size_t len)
{
	kernel_fpu_begin();
	crc = crc_pcl(buf, (int)len, crc);
	kernel_fpu_end();
	return crc;
}
