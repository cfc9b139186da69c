// SPDX-License-Identifier: GPL-2.0-only
/*
 * CRC32C shift and combine in portable C, three historical ways.
 *
 * All rest on crc32c(c, A || B) = shift(crc32c(c, A), |B|) ^ crc32c(0, B),
 * shift(c, n) = c * x^(8n) mod P (no inversion in the kernel convention,
 * so nothing to undo around it).
 *
 * - matrix: zlib's crc32_combine (Mark Adler), which Linux used for
 *   crc32c_combine from 2013: the "append one zero bit" operator as a
 *   32x32 GF(2) matrix, squared to 2, 4, 8... bits, applied where the
 *   length has a one bit. Every squaring is 32 matrix-vector products,
 *   which is why it costs microseconds and made __skb_checksum() slow.
 * - gf2mul: Linux's later crc32_generic_shift(): multiply by x^(2^i) mod P
 *   with a 32-step shift-and-add multiply, squaring x^(2^i) as it goes.
 * - xpow: the same products, with x^(8 * 2^k) mod P taken from a table
 *   instead of squared on every call.
 */
#include <hotpath/crc32c.h>

/* ---- matrix ---- */

static uint32_t gf2_matrix_times(const uint32_t *mat, uint32_t vec)
{
	uint32_t sum = 0;

	for (; vec; vec >>= 1, mat++)
		if (vec & 1)
			sum ^= *mat;
	return sum;
}

static void gf2_matrix_square(uint32_t *square, const uint32_t *mat)
{
	for (int n = 0; n < 32; n++)
		square[n] = gf2_matrix_times(mat, mat[n]);
}

uint32_t hp_crc32c_shift_matrix(uint32_t crc, size_t len)
{
	uint32_t even[32], odd[32], row = 1;

	if (len == 0)
		return crc;
	/* odd: one zero bit. Column n is the image of bit n. */
	odd[0] = HP_CRC32C_POLY;
	for (int n = 1; n < 32; n++, row <<= 1)
		odd[n] = row;
	gf2_matrix_square(even, odd);	/* two zero bits */
	gf2_matrix_square(odd, even);	/* four zero bits */
	do {
		gf2_matrix_square(even, odd);	/* 8 * 2^k bits */
		if (len & 1)
			crc = gf2_matrix_times(even, crc);
		len >>= 1;
		if (!len)
			break;
		gf2_matrix_square(odd, even);
		if (len & 1)
			crc = gf2_matrix_times(odd, crc);
		len >>= 1;
	} while (len);
	return crc;
}

uint32_t hp_crc32c_combine_matrix(uint32_t crc1, uint32_t crc2, size_t len2)
{
	return hp_crc32c_shift_matrix(crc1, len2) ^ crc2;
}

/* ---- gf2mul ---- */

/* a * b mod P, 32 shift-and-add steps from a's highest-degree bit. */
static uint32_t gf2_multiply(uint32_t a, uint32_t b)
{
	uint32_t product = (a & 1) ? b : 0;

	for (int i = 0; i < 31; i++) {
		product = (product >> 1) ^ ((product & 1) ? HP_CRC32C_POLY : 0);
		a >>= 1;
		product ^= (a & 1) ? b : 0;
	}
	return product;
}

uint32_t hp_crc32c_shift_gf2mul(uint32_t crc, size_t len)
{
	uint32_t power = HP_CRC32C_POLY;	/* x^32 mod P */

	/* The lowest two bits of len in the linear way: one bit per step. */
	for (unsigned i = 0; i < 8 * (len & 3); i++)
		crc = (crc >> 1) ^ ((crc & 1) ? HP_CRC32C_POLY : 0);
	len >>= 2;
	while (len) {
		/* power is x^(32 * 2^i) mod P here */
		if (len & 1)
			crc = gf2_multiply(crc, power);
		len >>= 1;
		if (len)
			power = gf2_multiply(power, power);
	}
	return crc;
}

uint32_t hp_crc32c_combine_gf2mul(uint32_t crc1, uint32_t crc2, size_t len2)
{
	return hp_crc32c_shift_gf2mul(crc1, len2) ^ crc2;
}

/* ---- xpow ---- */

/* xpow8[k] = x^(8 * 2^k) mod P: size_t lengths need 64 entries. */
static uint32_t xpow8[64];

__attribute__((constructor)) static void xpow8_init(void)
{
	xpow8[0] = hp_crc32c_xpow_ref(8);
	for (int k = 1; k < 64; k++)
		xpow8[k] = gf2_multiply(xpow8[k - 1], xpow8[k - 1]);
}

uint32_t hp_crc32c_shift_xpow(uint32_t crc, size_t len)
{
	for (int k = 0; len; k++, len >>= 1)
		if (len & 1)
			crc = gf2_multiply(crc, xpow8[k]);
	return crc;
}

uint32_t hp_crc32c_combine_xpow(uint32_t crc1, uint32_t crc2, size_t len2)
{
	return hp_crc32c_shift_xpow(crc1, len2) ^ crc2;
}
