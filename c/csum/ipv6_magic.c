// SPDX-License-Identifier: GPL-2.0-only
/*
 * csum_ipv6_magic(): the IPv6 pseudo-header checksum.
 */
#include <hotpath/csum.h>

#include <string.h>

#include "csum_impl.h"

static inline uint32_t be32(uint32_t x)
{
	return __builtin_bswap32(x);
}

/* Reference: build the 40-byte pseudo-header (RFC 8200 section 8.1). */
uint16_t hp_ipv6_magic_ref(const void *saddr, const void *daddr,
			   uint32_t len, uint8_t proto, uint32_t sum)
{
	uint8_t ph[40];
	uint32_t l = be32(len);

	memcpy(ph, saddr, 16);
	memcpy(ph + 16, daddr, 16);
	memcpy(ph + 32, &l, 4);
	ph[36] = ph[37] = ph[38] = 0;
	ph[39] = proto;
	return hp_csum_fold(hp_csum_ref(ph, 40, sum));
}

/*
 * The kernel's x86-64 csum_ipv6_magic() (arch/x86/lib/csum-wrappers_64.c),
 * from its description: length, protocol (both in network order) and
 * the seed summed first, then the four address words on one adc chain,
 * folded 64 -> 32 and csum_fold()ed. The seed starts the chain.
 */
uint16_t hp_ipv6_magic_kernel(const void *saddr, const void *daddr,
			      uint32_t len, uint8_t proto, uint32_t sum)
{
	uint64_t rest = (uint64_t)be32(len) + ((uint64_t)proto << 8) + sum;

	__asm__("addq (%[s]),%[r]\n\t"
		"adcq 8(%[s]),%[r]\n\t"
		"adcq (%[d]),%[r]\n\t"
		"adcq 8(%[d]),%[r]\n\t"
		"adcq $0,%[r]"
		: [r] "+r"(rest)
		: [s] "r"(saddr), [d] "r"(daddr),
		  "m"(*(const uint8_t(*)[16])saddr),
		  "m"(*(const uint8_t(*)[16])daddr)
		: "cc");
	return hp_fold_kernel(csum_add32c(rest >> 32, (uint32_t)rest));
}

/*
 * hotpath: the addresses, length and protocol do not depend on the seed,
 * so they are summed and folded to 32 bits first; the seed joins last,
 * leaving two adds and the 16-bit fold between a sum and the next.
 */
uint16_t hp_ipv6_magic_hp(const void *saddr, const void *daddr,
			  uint32_t len, uint8_t proto, uint32_t sum)
{
	uint64_t a = (uint64_t)be32(len) + ((uint64_t)proto << 8);
	uint64_t b;

	__asm__("addq (%[s]),%[a]\n\t"
		"adcq 8(%[s]),%[a]\n\t"
		"adcq $0,%[a]"
		: [a] "+r"(a)
		: [s] "r"(saddr), "m"(*(const uint8_t(*)[16])saddr)
		: "cc");
	b = csum_load64(daddr);
	b = csum_add64c(b, csum_load64((const uint8_t *)daddr + 8));
	return hp_fold_hp(csum_add32c(csum_fold64(csum_add64c(a, b)), sum));
}
