// SPDX-License-Identifier: GPL-2.0-only
/*
 * boot_cpu_has() and cpu_has_xfeatures() for the kernel's code (hotpath
 * kernel shim, asm/cpufeatures.h): cpuid's features from hotpath's one
 * detector (HOTPATH_CPU_HIDE hides them here too), and the one feature
 * the kernel sets from a list of its own, X86_FEATURE_PREFER_YMM.
 */
#include <hotpath/bench.h>

#include <stdbool.h>
#include <string.h>

#include "../include/asm/cpufeatures.h"

/*
 * arch/x86/kernel/cpu/intel.c, zmm_exclusion_list: Intel family 6 cores
 * whose clock drops with 512-bit vectors, where the kernel prefers YMM
 * code (Skylake-X, Ice Lake client and server, Tiger Lake). Sapphire
 * Rapids and later, and AMD, are not in it.
 */
static const unsigned zmm_excluded[] = {
	0x55,	/* SKYLAKE_X */
	0x6a,	/* ICELAKE_X */
	0x6c,	/* ICELAKE_D */
	0x7e,	/* ICELAKE */
	0x7d,	/* ICELAKE_L */
	0x9d,	/* ICELAKE_NNPI */
	0x8c,	/* TIGERLAKE_L */
	0x8d,	/* TIGERLAKE */
};

static bool prefer_ymm(void)
{
	struct hp_cpu_id id;

	hp_cpu_identify(&id);
	if (strcmp(id.vendor, "GenuineIntel") || id.family != 6)
		return false;
	for (size_t i = 0; i < sizeof(zmm_excluded) / sizeof(*zmm_excluded); i++)
		if (id.model == zmm_excluded[i])
			return true;
	return false;
}

bool hp_kshim_cpu_has(unsigned int feature)
{
	if (feature == X86_FEATURE_PREFER_YMM)
		return prefer_ymm();
	return (hp_cpu_features() & feature) == feature;
}

/* The register states the OS saves and restores (XCR0, by xgetbv). */
bool cpu_has_xfeatures(unsigned long long mask, const char **name)
{
	unsigned lo, hi;

	(void)name;
	__asm__ __volatile__("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
	return ((((unsigned long long)hi << 32) | lo) & mask) == mask;
}
