// SPDX-License-Identifier: GPL-2.0-only
/*
 * csum_fold(): three ways to fold a 32-bit partial sum to 16 bits with
 * end-around carry and complement it.
 */
#include <hotpath/csum.h>

/* Reference: fold twice, the second absorbing the first's carry. */
uint16_t hp_fold_ref(uint32_t sum)
{
	return hp_csum_fold(sum);
}

/*
 * The kernel's x86 csum_fold() (asm/checksum_32.h and _64.h), from its
 * description: the two halves are added in the top 16 bits of a
 * register, and "adc $0xffff" both absorbs the carry and fills the low
 * half so that the carry ripples into the top; the complement's top half
 * is the checksum.
 */
uint16_t hp_fold_kernel(uint32_t sum)
{
	uint32_t hi = sum & 0xffff0000u;

	__asm__("addl %1,%0\n\t"
		"adcl $0xffff,%0"
		: "+r"(hi)
		: "r"(sum << 16));
	return (uint16_t)(~hi >> 16);
}

/*
 * hotpath: sum + rol(sum, 16) has hi + lo + carry(lo + hi) in its top
 * half, the end-around sum, in one add; four ALU operations in all, no
 * flags read.
 */
uint16_t hp_fold_hp(uint32_t sum)
{
	uint32_t r = (sum << 16) | (sum >> 16);

	return (uint16_t)(~(sum + r) >> 16);
}
