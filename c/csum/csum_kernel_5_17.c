// SPDX-License-Identifier: GPL-2.0-only
/*
 * csum_partial() as Linux 5.17 computes it on x86-64 (Eric Dumazet's
 * rewrite, arch/x86/lib/csum-partial_64.c): one 64-bit add-with-carry chain,
 * a 64-byte loop, then 32/16/8-byte steps and a tail, folded to 32 bits.
 *
 * Two builds of the same body:
 * - hp_csum_kernel_5_17(): odd addresses rotate the incoming sum first
 *   (the fix "x86/csum: Fix initial seed for odd buffers" that 5.17
 *   shipped with);
 * - hp_csum_kernel_5_17_rc(): the first version of the rewrite, the one
 *   seed 000 benchmarked as its baseline, which added the seed unrotated
 *   and so returns a wrong sum for odd buffers with most non-zero seeds
 *   (right only when the seed is a multiple of 257, e.g. 0 or ~0).
 *
 * One difference from the kernel, about user space: the kernel reads the
 * tail with load_unaligned_zeropad(), an 8-byte load that may run past
 * the buffer and relies on an exception fixup; here the tail is assembled
 * from 4/2/1-byte loads so the buffer's last byte can sit against a guard
 * page.
 */
#include <hotpath/csum.h>

#include "csum_impl.h"

static inline __attribute__((always_inline)) uint32_t
csum_5_17(const void *buf, int len, uint32_t sum, int fixed_seed)
{
	const uint8_t *buff = buf;
	uint64_t temp64 = sum;
	unsigned int odd;
	uint32_t result;

	odd = 1 & (uintptr_t)buff;
	if (__builtin_expect(odd, 0)) {
		if (__builtin_expect(len == 0, 0))
			return sum;
		/* The sum is byte-swapped back at the end, so the seed must
		 * go in swapped too; the rc code forgot this. */
		if (fixed_seed)
			temp64 = csum_ror32(sum, 8);
		temp64 += (uint32_t)(*buff << 8);
		len--;
		buff++;
	}

	while (__builtin_expect(len >= 64, 0)) {
		__asm__("addq 0*8(%[src]),%[res]\n\t"
			"adcq 1*8(%[src]),%[res]\n\t"
			"adcq 2*8(%[src]),%[res]\n\t"
			"adcq 3*8(%[src]),%[res]\n\t"
			"adcq 4*8(%[src]),%[res]\n\t"
			"adcq 5*8(%[src]),%[res]\n\t"
			"adcq 6*8(%[src]),%[res]\n\t"
			"adcq 7*8(%[src]),%[res]\n\t"
			"adcq $0,%[res]"
			: [res] "+r"(temp64)
			: [src] "r"(buff), "m"(*(const uint8_t(*)[64])buff));
		buff += 64;
		len -= 64;
	}

	temp64 = csum_adc_rest63(temp64, buff, len);
	result = csum_add32c(temp64 >> 32, temp64 & 0xffffffff);
	if (__builtin_expect(odd, 0)) {
		result = csum_from32to16(result);
		result = ((result >> 8) & 0xff) | ((result & 0xff) << 8);
	}
	return result;
}

uint32_t hp_csum_kernel_5_17(const void *buf, int len, uint32_t sum)
{
	return csum_5_17(buf, len, sum, 1);
}

uint32_t hp_csum_kernel_5_17_rc(const void *buf, int len, uint32_t sum)
{
	return csum_5_17(buf, len, sum, 0);
}
