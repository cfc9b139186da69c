// SPDX-License-Identifier: GPL-2.0-only
/*
 * The CRC32C reference and the GF(2) arithmetic every other variant is
 * checked against: one bit at a time, no tables, no instructions beyond
 * shift and xor, so that it can be read against the definition.
 *
 * Representation (reflected, as the kernel and the crc32 instruction use):
 * bit i of a 32-bit value is the coefficient of x^(31 - i), so 0x80000000
 * is 1 and multiplying by x is a right shift that reduces by the
 * polynomial when x^31's coefficient (bit 0) falls off.
 */
#include <hotpath/crc32c.h>

/* v * x mod P */
static uint32_t mulx(uint32_t v)
{
	return (v >> 1) ^ ((v & 1) ? HP_CRC32C_POLY : 0);
}

/* v / x mod P: the inverse of mulx(). P's x^0 term is bit 31 of the
 * polynomial and bit 31 of v >> 1 is always clear, so bit 31 of the
 * product tells whether P was added. */
static uint32_t divx(uint32_t v)
{
	uint32_t reduced = v >> 31;

	if (reduced)
		v ^= HP_CRC32C_POLY;
	return (v << 1) | reduced;
}

uint32_t hp_crc32c_ref(uint32_t crc, const void *buf, size_t len)
{
	const uint8_t *p = buf;

	while (len--) {
		crc ^= *p++;
		for (int k = 0; k < 8; k++)
			crc = mulx(crc);
	}
	return crc;
}

uint32_t hp_crc32c_shift_ref(uint32_t crc, size_t len)
{
	/* The CRC of len zero bytes continued from crc. */
	for (size_t i = 0; i < 8 * len; i++)
		crc = mulx(crc);
	return crc;
}

uint32_t hp_crc32c_mulmod_ref(uint32_t a, uint32_t b)
{
	uint32_t r = 0;

	/* Horner's rule from a's highest-degree coefficient (bit 0). */
	for (int i = 0; i < 32; i++) {
		r = mulx(r);
		if ((a >> i) & 1)
			r ^= b;
	}
	return r;
}

uint32_t hp_crc32c_xpow_ref(int64_t n)
{
	uint32_t v = 0x80000000u;	/* x^0 */

	for (; n > 0; n--)
		v = mulx(v);
	for (; n < 0; n++)
		v = divx(v);
	return v;
}
