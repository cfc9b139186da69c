// SPDX-License-Identifier: GPL-2.0-only
/*
 * The tree's boot_cpu_data.x86_capability for this CPU: each word the spec
 * maps to a CPUID register is read from the CPU, the synthetic bits the
 * spec sets are added (Python decides them from the tree's cpufeatures.h,
 * the host and --mitigations), and every feature hotpath tells apart that
 * hp_cpu_features() lacks (HOTPATH_CPU_HIDE, or state the OS does not
 * save) is taken away, so the kernel's alternatives follow the same hides
 * as every other variant.
 */
#include "kload_internal.h"

#include <cpuid.h>
#include <hotpath/cpu_features.h>

/* hotpath's features where CPUID has them: leaf, subleaf, register, bit. */
static const struct {
	uint32_t feature, leaf, sub;
	int reg, bit;
} hp_bits[] = {
	{ HP_CPU_SSE42, 1, 0, 2, 20 },	  { HP_CPU_PCLMUL, 1, 0, 2, 1 },
	{ HP_CPU_AVX2, 7, 0, 1, 5 },	  { HP_CPU_BMI2, 7, 0, 1, 8 },
	{ HP_CPU_ADX, 7, 0, 1, 19 },	  { HP_CPU_AVX512F, 7, 0, 1, 16 },
	{ HP_CPU_AVX512BW, 7, 0, 1, 30 }, { HP_CPU_AVX512VL, 7, 0, 1, 31 },
	{ HP_CPU_VPCLMUL, 7, 0, 2, 10 },
};

static uint32_t cpuid_reg(uint32_t leaf, uint32_t sub, int reg)
{
	unsigned r[4] = { 0 };

	if (__get_cpuid_max(leaf & 0x80000000u, NULL) < leaf)
		return 0;
	__cpuid_count(leaf, sub, r[0], r[1], r[2], r[3]);
	return r[reg];
}

void kl_compute_caps(struct kl_image *img)
{
	uint32_t have = hp_cpu_features();

	for (unsigned w = 0; w < KL_NWORDS; w++) {
		const struct kl_word *word = &img->spec.words[w];

		img->caps[w] = word->used ? cpuid_reg(word->leaf, word->sub, word->reg) : 0;
		if (!word->used)
			continue;
		for (size_t i = 0; i < sizeof(hp_bits) / sizeof(hp_bits[0]); i++)
			if (hp_bits[i].leaf == word->leaf && hp_bits[i].sub == word->sub &&
			    hp_bits[i].reg == word->reg && !(have & hp_bits[i].feature))
				img->caps[w] &= ~(1u << hp_bits[i].bit);
	}
	for (size_t i = 0; i < img->spec.nset; i++)
		if (img->spec.set[i] / 32 < KL_NWORDS)
			img->caps[img->spec.set[i] / 32] |= 1u << (img->spec.set[i] % 32);
}

int kl_has(const struct kl_image *img, unsigned feature)
{
	return feature / 32 < KL_NWORDS && (img->caps[feature / 32] >> (feature % 32)) & 1;
}
