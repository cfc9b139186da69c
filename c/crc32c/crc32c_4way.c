// SPDX-License-Identifier: GPL-2.0-only
/*
 * hotpath's own multi-stream CRC32C: four crc32q streams, for cores where
 * crc32q issues every cycle with a latency of 3 (Zen 3 and later).
 *
 * Why four and not the kernel's three: three streams need exactly one
 * crc32q per cycle with no slack, so any cycle lost to a load or a branch
 * is lost for good; with four, each chain has a cycle to spare. Measured
 * on a Zen 3 (EPYC family 25 model 1), latency mode: 96 bytes 25.2
 * cycles against 27.2 for three streams, 256 bytes 45.2 against 51.4.
 *
 * The layout, for len = r + 4s (s a multiple of 8, r < 32): the first r
 * bytes go into stream 0 before the streams start, so no tail runs after
 * the merge on the critical path; then four streams over consecutive
 * s-byte quarters. The merge: stream j's CRC times x^(8(3-j)s) by one
 * PCLMULQDQ each, XORed into the last qword of stream 3 before its final
 * crc32q, which reduces all of them at once (crc32q(c, d ^ m) =
 * crc32q(c, d) ^ crc32q(0, m)).
 *
 * Long buffers run as blocks of 4 x STREAM_MAX bytes. Every block but the
 * first starts its streams from zero, and the CRC of everything before it
 * is carried over the block by one more multiply in its merge: the
 * streams never wait for the previous block's merge. From PREFETCH_FROM
 * bytes each block prefetches the next one (one line per 32 bytes it
 * reads): the data then come from L2 or L3, and the core's own
 * prefetcher follows four streams less well (1 MiB: 135.4k cycles with,
 * 138.3k without).
 */
#include <hotpath/crc32c.h>

#include "crc32c_internal.h"

#define STREAM_MAX	HP_STREAM_K_MAX	/* bytes per stream in one block */
#define BLOCK		(4 * STREAM_MAX)
#define PREFETCH_FROM	(64 * 1024)

/*
 * Four streams over the 4s bytes at p, stream 0 started from c0; @carry
 * is XORed into the merge (a CRC already multiplied over the block, or
 * zero). Returns the CRC of the block.
 */
static inline __attribute__((always_inline)) HP_CLMUL uint32_t
four_streams(uint64_t c0, const uint8_t *p, size_t s, __m128i carry,
	     int prefetch)
{
	const uint32_t *k = hp_crc32c_stream_k[s / 8 - 1];
	const uint8_t *end = p + s - 8;
	uint64_t c1 = 0, c2 = 0, c3 = 0;
	__m128i m;

	for (const uint8_t *next = p + 4 * s; p < end; p += 8, next += 32) {
		if (prefetch)
			_mm_prefetch((const char *)next, _MM_HINT_T0);
		c0 = _mm_crc32_u64(c0, hp_load64(p));
		c1 = _mm_crc32_u64(c1, hp_load64(p + s));
		c2 = _mm_crc32_u64(c2, hp_load64(p + 2 * s));
		c3 = _mm_crc32_u64(c3, hp_load64(p + 3 * s));
	}
	c0 = _mm_crc32_u64(c0, hp_load64(p));
	c1 = _mm_crc32_u64(c1, hp_load64(p + s));
	c2 = _mm_crc32_u64(c2, hp_load64(p + 2 * s));
	m = _mm_xor_si128(_mm_xor_si128(hp_clmul_k(c0, k[2]),
					hp_clmul_k(c1, k[1])),
			  _mm_xor_si128(hp_clmul_k(c2, k[0]), carry));
	return (uint32_t)_mm_crc32_u64(c3, hp_load64(p + 3 * s) ^
				       (uint64_t)_mm_cvtsi128_si64(m));
}

/* Whole blocks, the first from crc, the others from zero with the CRC so
 * far carried over them; returns the CRC, *pp and *lenp past the blocks. */
static inline __attribute__((always_inline)) HP_CLMUL uint32_t
whole_blocks(uint32_t crc, const uint8_t **pp, size_t *lenp, int prefetch)
{
	const uint8_t *p = *pp;
	size_t len = *lenp;
	uint32_t k_block = hp_crc32c_stream_k[STREAM_MAX / 8 - 1][3];

	crc = four_streams(crc, p, STREAM_MAX, _mm_setzero_si128(), prefetch);
	for (p += BLOCK, len -= BLOCK; len >= BLOCK; p += BLOCK, len -= BLOCK)
		crc = four_streams(0, p, STREAM_MAX, hp_clmul_k(crc, k_block),
				   prefetch);
	*pp = p;
	*lenp = len;
	return crc;
}

HP_CLMUL uint32_t hp__crc32c_4way(uint32_t crc, const void *buf, size_t len)
{
	const uint8_t *p = buf;
	size_t s;

	if (len >= BLOCK) {
		if (len >= PREFETCH_FROM)
			crc = whole_blocks(crc, &p, &len, 1);
		else
			crc = whole_blocks(crc, &p, &len, 0);
	}
	if (len < 32)
		return hp_crc32_stream(crc, p, len);
	s = (len / 32) * 8;
	return four_streams(hp_crc32_short(crc, p, len - 4 * s),
			    p + len - 4 * s, s,
			    _mm_setzero_si128(), 0);
}

uint32_t hp_crc32c_sse42_4way(uint32_t crc, const void *buf, size_t len)
{
	return hp__crc32c_4way(crc, buf, len);
}

/*
 * The four streams with the input CRC joined last (crc32c_sse42.c's
 * sse42-seedlast says why): all four start from zero, and the input CRC,
 * multiplied over the whole buffer by one PCLMULQDQ, rides in the merge's
 * carry, so it costs one multiply and no extra reduction. A chain of
 * calls then waits for the multiply and the last crc32q only. On a Zen 5
 * (EPYC family 26 model 2, 2026-11-25, core cycles, latency / throughput):
 * 192 bytes 24.7 / 24.3 against 37.7 / 23.8 for the four streams alone,
 * 384 bytes 36.8 / 36.4 against 53.2 / 35.5. Below 32 and from
 * HP_SEEDLAST_MAX bytes, the four streams as they are.
 */
HP_CLMUL uint32_t hp__crc32c_4way_seedlast(uint32_t crc, const void *buf,
					   size_t len)
{
	const uint8_t *p = buf;
	size_t s;

	if (len < 32 || len >= HP_SEEDLAST_MAX)
		return hp__crc32c_4way(crc, buf, len);
	s = (len / 32) * 8;
	return four_streams(hp_crc32_from0(p, len % 32),
			    p + len - 4 * s, s,
			    hp_clmul_k(crc, hp_crc32c_seed_k[len]), 0);
}

uint32_t hp_crc32c_sse42_4way_seedlast(uint32_t crc, const void *buf,
				       size_t len)
{
	return hp__crc32c_4way_seedlast(crc, buf, len);
}
