// SPDX-License-Identifier: GPL-2.0-only
/*
 * CRC32C shift and combine with carry-less multiplies.
 *
 * With a = crc and k = x^(8n - 33) mod P, one PCLMULQDQ and one crc32q
 * give a * k * x^33 = crc * x^(8n) mod P (crc32c_internal.h says why). So
 * the whole combine is finding k for n, by square-and-multiply in the
 * same "times x^-33" representation: mul33(x^(a-33), x^(b-33)) =
 * x^(a+b-33), whose identity is x^-33. The powers x^(8 v 16^j - 33) are
 * precomputed once (square-and-multiply done ahead, 16 nibble positions
 * by 16 values); a length then costs one multiply per non-zero hex digit.
 * None of it depends on crc, so only the last multiply sits on a chain
 * through crc1.
 *
 * Where the length is fixed (a protocol's block size), k is computed
 * once: hp_crc32c_shift_constant() and hp_crc32c_shift_by_const().
 */
#include <hotpath/crc32c.h>

#include "crc32c_internal.h"

/*
 * nib33[j][v] = x^(8 * v * 16^j - 33) mod P: one entry per nibble value
 * and position of a 64-bit length, so a length costs one multiply per
 * non-zero nibble (1420 = 0x58c: three) instead of one per one bit.
 */
static uint32_t nib33[16][16];
static uint32_t one33;		/* x^-33 mod P: the identity of mul33 */

__attribute__((constructor)) static void clmul_combine_init(void)
{
	uint32_t p = hp_crc32c_xpow_ref(8);	/* x^(8 * 16^j) */

	one33 = hp_crc32c_xpow_ref(-33);
	for (int j = 0; j < 16; j++) {
		uint32_t pv = one33;

		for (int v = 0; v < 16; v++) {
			nib33[j][v] = pv;
			pv = hp_crc32c_mulmod_ref(pv, p);
		}
		for (int sq = 0; sq < 4; sq++)
			p = hp_crc32c_mulmod_ref(p, p);
	}
}

static inline HP_CLMUL uint32_t mul33(uint32_t a, uint32_t b)
{
	return hp_clmul_shift(a, b);
}

HP_CLMUL uint32_t hp_crc32c_shift_constant(size_t len)
{
	uint32_t k = nib33[0][len & 15];

	for (int j = 1; (len >>= 4) != 0; j++)
		if (len & 15)
			k = mul33(k, nib33[j][len & 15]);
	return k;
}

HP_CLMUL uint32_t hp_crc32c_shift_by_const(uint32_t crc, uint32_t k)
{
	return mul33(crc, k);
}

HP_CLMUL uint32_t hp_crc32c_shift_clmul(uint32_t crc, size_t len)
{
	return mul33(crc, hp_crc32c_shift_constant(len));
}

uint32_t hp_crc32c_combine_clmul(uint32_t crc1, uint32_t crc2, size_t len2)
{
	return hp_crc32c_shift_clmul(crc1, len2) ^ crc2;
}

/*
 * One-entry memo of (len2, k) packed in one 64-bit word, so that a reader
 * racing a writer sees either the old pair or the new one, never a mix;
 * an aligned 64-bit load or store is atomic on x86-64.
 */
static uint64_t memo = UINT64_MAX;	/* len 0xffffffff: never matches */

uint32_t hp_crc32c_combine_clmul_const(uint32_t crc1, uint32_t crc2,
				       size_t len2)
{
	uint64_t m = __atomic_load_n(&memo, __ATOMIC_RELAXED);
	uint32_t k;

	if (len2 < UINT32_MAX && (m >> 32) == len2) {
		k = (uint32_t)m;
	} else {
		k = hp_crc32c_shift_constant(len2);
		if (len2 < UINT32_MAX)
			__atomic_store_n(&memo, ((uint64_t)len2 << 32) | k,
					 __ATOMIC_RELAXED);
	}
	return hp_crc32c_shift_by_const(crc1, k) ^ crc2;
}
