// SPDX-License-Identifier: GPL-2.0-only
/*
 * CRC32C with the SSE4.2 crc32 instruction, as the Linux kernel does it
 * on x86: one dependent stream of crc32q for short buffers, and from 512
 * bytes three streams over three equal thirds of a block, merged with
 * carry-less multiplies (arch/x86/lib/crc32c-3way.S, described in Intel's
 * "Fast CRC Computation for iSCSI Polynomial Using CRC32 Instruction").
 *
 * Why three streams: crc32q has a latency of 3 cycles, so on CPUs where
 * it issues once per cycle one stream leaves two thirds of the unit idle.
 * (On the development machine it issues once per 3 cycles, so the three
 * streams gain nothing there; docs/labs/crc32c.md has the measurement.)
 */
#include <hotpath/crc32c.h>

#include "crc32c_internal.h"

#define THREEWAY_MAX_STREAM 1024	/* bytes per stream per block */

uint32_t hp_crc32c_stream_k[HP_STREAM_K_MAX / 8][4];

/* Each column j steps from s to s + 8 by one more x^(64(j+1)). */
__attribute__((constructor)) static void stream_k_init(void)
{
	for (int j = 0; j < 4; j++) {
		uint32_t step = hp_crc32c_xpow_ref(64 * (j + 1));
		uint32_t k = hp_crc32c_xpow_ref(64 * (j + 1) - 33);

		for (int i = 0; i < HP_STREAM_K_MAX / 8; i++) {
			hp_crc32c_stream_k[i][j] = k;
			k = hp_crc32c_mulmod_ref(k, step);
		}
	}
}

/* hp__crc32c_sse42(), the one stream, is hp_crc32c()'s own short stream
 * (crc32c_hotpath.c, in assembly below 64 bytes): the method a row names
 * "sse42" and the variant sse42-1stream that `hotpath dispatch` times it
 * by run the code hp_crc32c() inlines, not a loop of their own. */
uint32_t hp_crc32c_sse42(uint32_t crc, const void *buf, size_t len)
{
	return hp__crc32c_sse42(crc, buf, len);
}

/*
 * The input CRC last. The CRC is linear: crc(c, data) = crc(0, data) ^
 * c * x^(8 len) mod P. So the stream can start from zero, without waiting
 * for the caller's CRC, and the caller's CRC joins at the end through one
 * PCLMULQDQ and one crc32q: in a chain of calls (a CRC carried over
 * fragments, or the lab's latency mode) a call waits about 15 cycles
 * instead of 3 per 8 bytes, and its own stream runs beside the one
 * before. The price is those two instructions and a table load. Measured
 * on a Zen 5 (EPYC family 26 model 2, 2026-11-25, core cycles, latency /
 * throughput): 64 bytes 15.1 / 12.1 against one stream's 24.0 / 12.0;
 * 128 bytes 19.0 / 18.8 against four streams' 32.5 / 18.6; 16 bytes 16.9 /
 * 8.1 against 8.0 / 8.0, so a row starts it further on (the zen5 row
 * from 64). The constants: crc32c_internal.h, hp_crc32c_seed_k.
 */
uint32_t hp_crc32c_seed_k[HP_SEEDLAST_FOLD_MAX];

/* Each entry from the one before, times x^8 (eight shifts,
 * hp_crc32c_shift_ref(k, 1)): 2048 entries in 16k shifts, where a power
 * of x from scratch per entry (as until 2026-11-26, for 512) took 1M. */
__attribute__((constructor)) static void seed_k_init(void)
{
	uint32_t k = hp_crc32c_xpow_ref(-33);

	for (int n = 0; n < HP_SEEDLAST_FOLD_MAX; n++) {
		hp_crc32c_seed_k[n] = k;
		k = hp_crc32c_shift_ref(k, 1);
	}
}

/*
 * Below 8 and from HP_SEEDLAST_MAX bytes, the plain stream. The product
 * is reduced by a crc32q of its own: XORed into the stream's last word
 * instead (as the four streams' merge does), the stream of len - 8 bytes
 * took three taken branches more at 16 bytes (the compiler's layout of
 * its last word), 11.1 cycles in throughput against 8.0 (Emerald Rapids;
 * docs/labs/crc32c.md, "Seed-last without a crc32q of its own").
 */
HP_CLMUL uint32_t hp__crc32c_seedlast(uint32_t crc, const void *buf,
				      size_t len)
{
	if (len < 8 || len >= HP_SEEDLAST_MAX)
		return hp_crc32_short(crc, buf, len);
	return hp_crc32_from0(buf, len) ^
	       hp_clmul_shift(crc, hp_crc32c_seed_k[len]);
}

uint32_t hp_crc32c_sse42_seedlast(uint32_t crc, const void *buf, size_t len)
{
	return hp__crc32c_seedlast(crc, buf, len);
}

HP_CLMUL uint32_t hp_crc32c_sse42_3way(uint32_t crc, const void *buf,
				       size_t len)
{
	const uint8_t *p = buf;

	while (len >= 3 * 8) {
		size_t s = (len / 3) & ~(size_t)7;
		const uint8_t *end;
		uint64_t c0 = crc, c1 = 0, c2 = 0;
		__m128i m;

		if (s > THREEWAY_MAX_STREAM)
			s = THREEWAY_MAX_STREAM;
		for (end = p + s; p < end; p += 8) {
			c0 = _mm_crc32_u64(c0, hp_load64(p));
			c1 = _mm_crc32_u64(c1, hp_load64(p + s));
			c2 = _mm_crc32_u64(c2, hp_load64(p + 2 * s));
		}
		/* c0 * x^(16S) ^ c1 * x^(8S), reduced once, then ^ c2 */
		m = _mm_xor_si128(
			_mm_clmulepi64_si128(_mm_cvtsi32_si128((int)c0),
				_mm_cvtsi32_si128((int)hp_crc32c_stream_k[s / 8 - 1][1]), 0),
			_mm_clmulepi64_si128(_mm_cvtsi32_si128((int)c1),
				_mm_cvtsi32_si128((int)hp_crc32c_stream_k[s / 8 - 1][0]), 0));
		crc = (uint32_t)c2 ^
		      (uint32_t)_mm_crc32_u64(0, (uint64_t)_mm_cvtsi128_si64(m));
		p += 2 * s;
		len -= 3 * s;
	}
	return hp_crc32_stream(crc, p, len);
}

/* The kernel's breakeven between the two (CRC32C_PCLMUL_BREAKEVEN). */
#define KERNEL_3WAY_MIN 512

/* Below it the kernel's loop of words and its 4/2/1 tail, not hotpath's
 * stream (hp__crc32c_sse42): this variant stands for the kernel's code. */
HP_SSE42 uint32_t hp_crc32c_kernel_x86(uint32_t crc, const void *buf, size_t len)
{
	if (len < KERNEL_3WAY_MIN)
		return hp_crc32_stream(crc, buf, len);
	return hp_crc32c_sse42_3way(crc, buf, len);
}
