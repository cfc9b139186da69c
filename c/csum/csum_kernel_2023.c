// SPDX-License-Identifier: GPL-2.0-only
/*
 * csum_partial() after the 2023 rewrite (Noah Goldstein, "x86/csum:
 * Improve performance of `csum_partial`", Linux 6.5), re-implemented from
 * its description:
 * - the 5.17 odd-address handling, seed rotated, is kept;
 * - len == 40 (the IPv6 header, the hottest length) gets its own single
 *   five-adcq chain and skips the general code;
 * - the 64-byte loop runs as two 32-byte chains, each ending in an add
 *   of its carry into a shared carry counter instead of back into itself,
 *   so neither chain waits for the other;
 * - then the 5.17 32/16/8-byte steps and tail.
 * The tail uses 4/2/1-byte loads instead of load_unaligned_zeropad().
 *
 * The entry and exit (odd address, seed, fold) are the same lines as
 * csum_kernel_5_17.c's, written out again on purpose: each kernel
 * release's code is its own copy here, as that release has it, so that a
 * change to one re-implementation never moves another; only hotpath's own
 * helpers (csum_impl.h) are shared.
 */
#include <hotpath/csum.h>

#include "csum_impl.h"

/* Two 32-byte chains per 64 bytes; their carries counted separately. */
static uint64_t loop64(uint64_t res, const uint8_t **pbuff, int *plen)
{
	const uint8_t *buff = *pbuff;
	int len = *plen;
	uint64_t acc2 = 0;
	uint32_t carries = 0;

	do {
		__asm__("addq 0*8(%[src]),%[res]\n\t"
			"adcq 1*8(%[src]),%[res]\n\t"
			"adcq 2*8(%[src]),%[res]\n\t"
			"adcq 3*8(%[src]),%[res]\n\t"
			"adcl $0,%[carries]\n\t"
			"addq 4*8(%[src]),%[acc2]\n\t"
			"adcq 5*8(%[src]),%[acc2]\n\t"
			"adcq 6*8(%[src]),%[acc2]\n\t"
			"adcq 7*8(%[src]),%[acc2]\n\t"
			"adcl $0,%[carries]"
			: [res] "+r"(res), [acc2] "+r"(acc2),
			  [carries] "+r"(carries)
			: [src] "r"(buff), "m"(*(const uint8_t(*)[64])buff)
			: "cc");
		buff += 64;
		len -= 64;
	} while (len >= 64);
	__asm__("addq %[acc2],%[res]\n\t"
		"adcq %q[carries],%[res]\n\t"
		"adcq $0,%[res]"
		: [res] "+r"(res)
		: [acc2] "r"(acc2), [carries] "r"((uint64_t)carries)
		: "cc");
	*pbuff = buff;
	*plen = len;
	return res;
}

uint32_t hp_csum_kernel_2023(const void *buf, int len, uint32_t sum)
{
	const uint8_t *buff = buf;
	uint64_t temp64 = sum;
	unsigned int odd;
	uint32_t result;

	odd = 1 & (uintptr_t)buff;
	if (__builtin_expect(odd, 0)) {
		if (__builtin_expect(len == 0, 0))
			return sum;
		temp64 = csum_ror32(sum, 8);
		temp64 += (uint32_t)(*buff << 8);
		len--;
		buff++;
	}

	if (len == 40) {
		temp64 = csum_adc40(temp64, buff);
		goto out;
	}
	if (__builtin_expect(len >= 64, 0))
		temp64 = loop64(temp64, &buff, &len);
	temp64 = csum_adc_rest63(temp64, buff, len);
out:
	result = csum_add32c(temp64 >> 32, temp64 & 0xffffffff);
	if (__builtin_expect(odd, 0)) {
		result = csum_from32to16(result);
		result = ((result >> 8) & 0xff) | ((result & 0xff) << 8);
	}
	return result;
}
