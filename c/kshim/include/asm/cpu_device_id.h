/* SPDX-License-Identifier: GPL-2.0-only */
/* A module's CPU match table, matched by hotpath's CPU detector (every
 * feature named in an entry present). hotpath kernel shim. */
#ifndef HP_KSHIM_ASM_CPU_DEVICE_ID_H
#define HP_KSHIM_ASM_CPU_DEVICE_ID_H
#include <asm/cpufeatures.h>

struct x86_cpu_id {
	unsigned int feature;
	const void *driver_data;
};

#define X86_MATCH_FEATURE(feature, data) { (feature), (data) }

static inline const struct x86_cpu_id *x86_match_cpu(const struct x86_cpu_id *match)
{
	for (; match->feature; match++)
		if (boot_cpu_has(match->feature))
			return match;
	return NULL;
}
#endif
