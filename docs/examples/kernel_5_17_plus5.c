// SPDX-License-Identifier: GPL-2.0-only
/*
 * kernel-5.17's checksum and about 5% more work: after the whole buffer,
 * its first 1/20 again, on the same dependency chain (the extra sum is
 * made zero by an `and $0` the compiler cannot see through, so the result
 * stays right). At 64 KiB that is 3276 more bytes and one more call: 5% (at 1500 bytes
 * the extra call weighs more than the bytes).
 *
 * The engine's power check (docs/engine.md, scripts/power_check.py): a
 * change this small must be called "slower" than kernel-5.17 by
 * `hotpath compare` in at least 19 of 20 runs with --repeat 3.
 *
 *   hotpath csum --variants kernel-5.17 --with docs/examples/kernel_5_17_plus5.c:kernel_5_17_plus5
 */
#include <hotpath/csum.h>

uint32_t kernel_5_17_plus5(const void *buf, int len, uint32_t sum)
{
	uint32_t s = hp_csum_kernel_5_17(buf, len, sum);
	uint32_t extra = hp_csum_kernel_5_17(buf, (len / 20) & ~1, s);

	__asm__("and $0,%0" : "+r"(extra));
	return s + extra;
}
