// SPDX-License-Identifier: GPL-2.0-only
/*
 * hotpath's entry points into the crc32c-intel crypto driver of Linux 6.1
 * to 6.13, built by the tree's Kbuild as an external module's object
 * (python/hotpath/kernelsrc/kbuilt.py). The tree's
 * arch/x86/crypto/crc32c-intel_glue.c is included above this file by its
 * absolute path, so its static functions are the ones called; its
 * assembly (crc32c-pcl-intel-asm_64.o) is the tree's own object.
 *
 * - hp_glue_crc32c(): the kernel's dispatch, as lib/libcrc32c.c's
 *   crc32c() reaches it: the seed in a descriptor on the stack, the
 *   driver's update called through the algorithm the module's init
 *   registered for this CPU (crc32c_pcl_intel_update with PCLMULQDQ,
 *   else crc32c_intel_update);
 * - hp_glue_crc32c_crc32q(): crc32c_intel_le_hw(), the crc32q loop, alone;
 * - hp_glue_crc32c_pcl(): crc_pcl() between kernel_fpu_begin() and
 *   kernel_fpu_end(), at every length (the dispatch takes it from 512 B).
 *
 * What the driver reaches of the kernel beyond hotpath's runtime
 * (c/kload/runtime) is defined here with the tree's own types: the boot
 * CPU's capability words (copied from what the loader computed for this
 * CPU, HOTPATH_CPU_HIDE included), x86_match_cpu() on features, and the
 * crypto API's registration, which keeps the algorithm for the calls below.
 */
#include <linux/version.h>
#include <asm/processor.h>

u32 hp_kernel_caps[32];
struct cpuinfo_x86 boot_cpu_data;
struct module __this_module;	/* modpost's .mod.c defines it in a module */
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 2, 0)
DEFINE_PER_CPU_ALIGNED(struct pcpu_hot, pcpu_hot);
#else
DEFINE_PER_CPU(int, __preempt_count);
#endif

static struct shash_alg *hp_shash;

int crypto_register_shash(struct shash_alg *alg)
{
	hp_shash = alg;
	return 0;
}

void crypto_unregister_shash(struct shash_alg *alg)
{
	if (hp_shash == alg)
		hp_shash = NULL;
}

/* x86_match_cpu() on the entries' features: the driver's table names a
 * feature only; an entry that names a vendor, family or model is not
 * matched (the loader does not model them). */
const struct x86_cpu_id *x86_match_cpu(const struct x86_cpu_id *match)
{
	const struct x86_cpu_id *m;

#ifdef X86_CPU_ID_FLAG_ENTRY_VALID
	for (m = match; m->flags & X86_CPU_ID_FLAG_ENTRY_VALID; m++) {
#else
	for (m = match; m->vendor | m->family | m->model | m->feature; m++) {
#endif
		if (m->vendor != X86_VENDOR_ANY || m->family != X86_FAMILY_ANY ||
		    m->model != X86_MODEL_ANY)
			continue;
		if (m->feature == X86_FEATURE_ANY || boot_cpu_has(m->feature))
			return m;
	}
	return NULL;
}

int hp_glue_init(void);
u32 hp_glue_crc32c(u32 crc, const void *buf, size_t len);
u32 hp_glue_crc32c_crc32q(u32 crc, const void *buf, size_t len);
u32 hp_glue_crc32c_pcl(u32 crc, const void *buf, size_t len);

int hp_glue_init(void)
{
	for (unsigned int i = 0; i < NCAPINTS; i++)
		boot_cpu_data.x86_capability[i] = hp_kernel_caps[i];
	return crc32c_intel_mod_init();
}

u32 hp_glue_crc32c(u32 crc, const void *buf, size_t len)
{
	struct crypto_shash tfm;
	struct shash_desc desc = { .tfm = &tfm };

	*(u32 *)shash_desc_ctx(&desc) = crc;
	hp_shash->update(&desc, buf, (unsigned int)len);
	barrier_data(&desc);
	return *(u32 *)shash_desc_ctx(&desc);
}

u32 hp_glue_crc32c_crc32q(u32 crc, const void *buf, size_t len)
{
	return crc32c_intel_le_hw(crc, buf, len);
}

u32 hp_glue_crc32c_pcl(u32 crc, const void *buf, size_t len)
{
	kernel_fpu_begin();
	crc = crc_pcl(buf, (int)len, crc);
	kernel_fpu_end();
	return crc;
}
