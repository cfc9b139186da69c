// SPDX-License-Identifier: GPL-2.0-only
/*
 * CRC32C by PCLMULQDQ folding (Intel, "Fast CRC Computation for Generic
 * Polynomials Using PCLMULQDQ Instruction", 2009): keep the message's
 * remainder-so-far as several 128-bit accumulators, each block of data
 * XORed into an accumulator after the accumulator has been multiplied
 * forward (folded) by the distance to that block. The polynomial is
 * only reduced at the end, by two crc32q on the last 128 bits.
 *
 * Why several accumulators: one fold is two multiplies (4-cycle latency
 * here) and two XORs on one chain; independent lanes keep the multiplier
 * busy. Four lanes of 16 bytes fold by 512 bits per step, eight by 1024.
 */
#include <hotpath/crc32c.h>

#include "crc32c_internal.h"

/*
 * Fold @lanes accumulators over @len >= 16 * @lanes bytes; returns the
 * single accumulator left for the last 16-byte block and advances *pp and
 * *lenp past the bytes consumed (fewer than 16 remain).
 */
static inline __attribute__((always_inline)) HP_CLMUL __m128i
fold_lanes(uint32_t crc, const uint8_t **pp, size_t *lenp, int lanes)
{
	const uint8_t *p = *pp;
	size_t len = *lenp;
	__m128i x[8], k;

	for (int i = 0; i < lanes; i++)
		x[i] = hp_loadu128(p + 16 * i);
	/* The CRC so far joins the first four bytes (see crc32c.h). */
	x[0] = _mm_xor_si128(x[0], _mm_cvtsi32_si128((int)crc));
	p += 16 * lanes;
	len -= 16 * lanes;

	k = lanes == 8 ? hp_fold_k(HP_FOLD_1024) : hp_fold_k(HP_FOLD_512);
	while (len >= 16 * (size_t)lanes) {
		for (int i = 0; i < lanes; i++)
			x[i] = _mm_xor_si128(hp_fold(x[i], k),
					     hp_loadu128(p + 16 * i));
		p += 16 * lanes;
		len -= 16 * lanes;
	}
	*pp = p;
	*lenp = len;
	return hp_fold_to_one(x, lanes, pp, lenp);
}

/* The CRC of @len >= 16 * @lanes bytes from @crc: the fold, then the last
 * bytes (fewer than 16) by one crc32 stream. */
static inline __attribute__((always_inline)) HP_CLMUL uint32_t
fold_crc(uint32_t crc, const uint8_t *p, size_t len, int lanes)
{
	crc = hp_fold_finish(fold_lanes(crc, &p, &len, lanes));
	return hp_crc32_stream(crc, p, len);
}

HP_CLMUL uint32_t hp__crc32c_fold4(uint32_t crc, const void *buf, size_t len)
{
	if (len < 64)
		return hp_crc32_stream(crc, buf, len);
	return fold_crc(crc, buf, len, 4);
}

HP_CLMUL uint32_t hp__crc32c_fold8(uint32_t crc, const void *buf, size_t len)
{
	if (len < 128)
		return hp__crc32c_fold4(crc, buf, len);
	return fold_crc(crc, buf, len, 8);
}

uint32_t hp_crc32c_pclmul_fold4(uint32_t crc, const void *buf, size_t len)
{
	return hp__crc32c_fold4(crc, buf, len);
}

uint32_t hp_crc32c_pclmul_fold8(uint32_t crc, const void *buf, size_t len)
{
	return hp__crc32c_fold8(crc, buf, len);
}
