// SPDX-License-Identifier: GPL-2.0-only
/*
 * RFC 1071 reference checksum: one little-endian 16-bit word at a time
 * into a wide accumulator, folded at the end. Slow on purpose: it is the
 * obviously correct thing every variant is checked against.
 */
#include <hotpath/csum.h>

uint32_t hp_csum_ref(const void *buf, int len, uint32_t sum)
{
	const uint8_t *p = buf;
	uint64_t acc = sum;
	int i;

	for (i = 0; i + 1 < len; i += 2)
		acc += (uint32_t)p[i] | (uint32_t)p[i + 1] << 8;
	if (len & 1)
		acc += p[len - 1];
	/* End-around carry: fold 64 -> 32 bits, twice to absorb the carry. */
	acc = (acc & 0xffffffff) + (acc >> 32);
	acc = (acc & 0xffffffff) + (acc >> 32);
	return (uint32_t)acc;
}
