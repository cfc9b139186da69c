// SPDX-License-Identifier: GPL-2.0-only
/*
 * ip_fast_csum(): the IPv4 header checksum, @ihl 32-bit words (5..15).
 */
#include <hotpath/csum.h>

#include "csum_impl.h"

uint16_t hp_ip_fast_csum_ref(const void *iph, unsigned int ihl)
{
	return hp_csum_fold(hp_csum_ref(iph, (int)(4 * ihl), 0));
}

/*
 * The kernel's x86-64 ip_fast_csum() (asm/checksum_64.h), from its
 * description: the first four dwords on one 32-bit adc chain, then one
 * dword per loop iteration with the carry kept in the flags across the
 * loop (lea and dec leave CF alone), the last carry added, then
 * csum_fold().
 */
uint16_t hp_ip_fast_csum_kernel(const void *iph, unsigned int ihl)
{
	uint32_t sum;
	const void *p = iph;

	__asm__("movl (%[p]),%[sum]\n\t"
		"subl $4,%[ihl]\n\t"
		"jbe 2f\n\t"
		"addl 4(%[p]),%[sum]\n\t"
		"adcl 8(%[p]),%[sum]\n\t"
		"adcl 12(%[p]),%[sum]\n"
		"1:\tadcl 16(%[p]),%[sum]\n\t"
		"lea 4(%[p]),%[p]\n\t"
		"decl %[ihl]\n\t"
		"jne 1b\n\t"
		"adcl $0,%[sum]\n"
		"2:"
		: [sum] "=&r"(sum), [p] "+r"(p), [ihl] "+r"(ihl)
		: "m"(*(const uint8_t(*)[60])iph)
		: "cc");
	return hp_fold_kernel(sum);
}

/*
 * hotpath: the common 20-byte header as two 8-byte words and one dword
 * on two short chains joined once; longer headers add 8-byte words.
 * Folded 64 -> 32 -> 16 with rotate-and-add, no flags between folds.
 */
uint16_t hp_ip_fast_csum_hp(const void *iph, unsigned int ihl)
{
	const uint8_t *p = iph;
	uint64_t a, b;
	unsigned int i;

	a = csum_add64c(csum_load64(p), csum_load64(p + 8));
	b = csum_load32(p + 16);
	for (i = 5; i + 2 <= ihl; i += 2)
		b = csum_add64c(b, csum_load64(p + 4 * i));
	if (i < ihl)
		b = csum_add64c(b, csum_load32(p + 4 * i));
	return hp_fold_hp(csum_fold64(csum_add64c(a, b)));
}
