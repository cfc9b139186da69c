// SPDX-License-Identifier: GPL-2.0-only
/*
 * csum_partial() after the 2024 clean-up (Linus Torvalds' 40-byte
 * restructuring and Noah Goldstein's removal of the odd-address code),
 * re-implemented from its description:
 * - a 40-byte helper of five adcq (plus the carry) is the building block;
 * - lengths of 80 and more loop over 80 bytes as two independent 40-byte
 *   chains, joined once after the loop;
 * - then one more 40-byte block if there is one, the 32/16/8 steps and
 *   the tail;
 * - no odd-address handling at all: unaligned loads cost little, and
 *   only csum_fold() of the result has to match, not its raw 32 bits.
 * The tail uses 4/2/1-byte loads instead of load_unaligned_zeropad().
 */
#include <hotpath/csum.h>

#include "csum_impl.h"

uint32_t hp_csum_kernel_2024(const void *buf, int len, uint32_t sum)
{
	const uint8_t *buff = buf;
	uint64_t temp64 = sum;

	if (__builtin_expect(len >= 80, 0)) {
		uint64_t temp64_2 = 0;

		do {
			temp64 = csum_adc40(temp64, buff);
			temp64_2 = csum_adc40(temp64_2, buff + 40);
			buff += 80;
			len -= 80;
		} while (len >= 80);
		temp64 = csum_add64c(temp64, temp64_2);
	}
	if (len >= 40) {
		temp64 = csum_adc40(temp64, buff);
		buff += 40;
		len -= 40;
	}
	temp64 = csum_adc_rest63(temp64, buff, len);
	return csum_add32c(temp64 >> 32, temp64 & 0xffffffff);
}
