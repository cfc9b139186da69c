// SPDX-License-Identifier: GPL-2.0-only
/*
 * CRC32C with the crc32 instruction and PCLMULQDQ folding working side by
 * side, each on its own execution unit.
 *
 * The buffer is cut into chunks of FOLD_BYTES folded by LANES 128-bit
 * accumulators, each followed by STREAM_BYTES run through one crc32q
 * stream started from zero. The folds jump over the stream's bytes (fold
 * distance = one whole chunk), as if they were zeros, and the stream's
 * CRC c is put back where those bytes' contribution belongs by XORing it
 * into the first four bytes after them: crc32c(0, C) = C * x^32 mod P is
 * exactly what C followed by four more bytes contributes, the same way an
 * initial CRC joins the first four bytes. So nothing is merged with a
 * multiply, and the crc32 stream's short chain feeds one XOR only.
 *
 * Why one crc32 stream and not three: on the development machine crc32q
 * issues once per 3 cycles (its latency), so a second stream has nowhere
 * to go. The split (128 bytes folded by eight lanes : 24 bytes by crc32q)
 * was the best of the splits tried there (4 or 8 lanes, 2 to 6 qwords),
 * and it only ties plain 8-lane folding on that machine: crc32q and
 * PCLMULQDQ compete for the same resources there. It is kept as a variant
 * for CPUs where crc32q issues every cycle (the ratio is then different).
 */
#include <hotpath/crc32c.h>

#include "crc32c_internal.h"

/* Tuning knobs (-DLANES=4 -DSTREAM_QWORDS=5 ...), see the #if ladder. */
#ifndef LANES
#define LANES		8
#define STREAM_QWORDS	3
#endif
#define FOLD_BYTES	(16 * LANES)
#define STREAM_BYTES	(8 * STREAM_QWORDS)
#define CHUNK_BYTES	(FOLD_BYTES + STREAM_BYTES)

/* {x^(D+31), x^(D-33)} mod P for D = 8 * CHUNK_BYTES bits */
#if CHUNK_BYTES == 80
#define HP_FOLD_CHUNK	0x083a6eecu, 0x39d3b296u
#elif CHUNK_BYTES == 88
#define HP_FOLD_CHUNK	0x0715ce53u, 0x083a6eecu
#elif CHUNK_BYTES == 96
#define HP_FOLD_CHUNK	0xc49f4f67u, 0x0715ce53u
#elif CHUNK_BYTES == 104
#define HP_FOLD_CHUNK	0x47db8317u, 0xc49f4f67u
#elif CHUNK_BYTES == 152
#define HP_FOLD_CHUNK	0x878a92a7u, 0x7e908048u
#elif CHUNK_BYTES == 160
#define HP_FOLD_CHUNK	0x1b3d8f29u, 0x878a92a7u
#elif CHUNK_BYTES == 168
#define HP_FOLD_CHUNK	0xdaece73eu, 0x1b3d8f29u
#elif CHUNK_BYTES == 176
#define HP_FOLD_CHUNK	0xf1d0f55eu, 0xdaece73eu
#else
#error "no fold constant for this chunk size"
#endif

HP_CLMUL uint32_t hp_crc32c_fused(uint32_t crc, const void *buf, size_t len)
{
	const uint8_t *p = buf;
	__m128i x[LANES], k;

	if (len < FOLD_BYTES + CHUNK_BYTES)
		return hp__crc32c_fold4(crc, buf, len);

	for (int i = 0; i < LANES; i++)
		x[i] = hp_loadu128(p + 16 * i);
	x[0] = _mm_xor_si128(x[0], _mm_cvtsi32_si128((int)crc));
	p += FOLD_BYTES;
	len -= FOLD_BYTES;

	k = hp_fold_k(HP_FOLD_CHUNK);
	while (len >= CHUNK_BYTES) {
		const uint8_t *f = p + STREAM_BYTES;
		uint64_t c = 0;

		for (int i = 0; i < STREAM_QWORDS; i++)
			c = _mm_crc32_u64(c, hp_load64(p + 8 * i));
		for (int i = 0; i < LANES; i++)
			x[i] = _mm_xor_si128(hp_fold(x[i], k),
					     hp_loadu128(f + 16 * i));
		x[0] = _mm_xor_si128(x[0], _mm_cvtsi32_si128((int)c));
		p += CHUNK_BYTES;
		len -= CHUNK_BYTES;
	}
	k = hp_fold_to_one(x, LANES, &p, &len);
	return hp_crc32_stream(hp_fold_finish(k), p, len);
}
