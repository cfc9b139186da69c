/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Helpers shared by the CRC32C variants that use the crc32 instruction
 * and carry-less multiplies. Inline, each with its own target attribute,
 * so that a caller compiled for a superset of the ISA inlines them.
 *
 * The one identity behind every constant here: for 32-bit reflected a, b,
 * PCLMULQDQ gives the 64-bit reflected product a*b*x (the reflected
 * product lands one bit low), and crc32q(0, v) gives v*x^32 mod P. So
 * crc32q(0, clmul(a, b)) = a*b*x^33 mod P, and a constant meant to multiply
 * by x^n is stored as x^(n-33) mod P. Folding a 128-bit block forward by
 * D bits multiplies its low (earlier, higher-degree) qword by x^(D+64) and
 * its high qword by x^D; with the 64x32 reflected product being
 * q*k*x^33 in 128-bit reflected form, the constants are x^(D+31) for the
 * low qword and x^(D-33) for the high one.
 */
#ifndef HOTPATH_CRC32C_INTERNAL_H
#define HOTPATH_CRC32C_INTERNAL_H

#include <hotpath/crc32c.h>
#include <hotpath/dispatch.h>

#include <immintrin.h>
#include <stdint.h>
#include <string.h>

#define HP_SSE42 __attribute__((target("sse4.2")))
/* Calls between the lab's own files: direct, not through the GOT/PLT that
 * -fPIC gives exported functions (a few cycles per call at 64 bytes). */
#define HP_HIDDEN __attribute__((visibility("hidden")))
#define HP_CLMUL __attribute__((target("sse4.2,pclmul")))

/* Fold constants {x^(D+31), x^(D-33)} mod P for a fold distance of D bits. */
#define HP_FOLD_128	0xf20c0dfeu, 0x493c7d27u	/* x^159, x^95 */
#define HP_FOLD_256	0x3da6d0cbu, 0xba4fc28eu	/* x^287, x^223 */
#define HP_FOLD_384	0x1c291d04u, 0xddc0152bu	/* x^415, x^351 */
#define HP_FOLD_512	0x740eef02u, 0x9e4addf8u	/* x^543, x^479 */
#define HP_FOLD_1024	0x6992cea2u, 0x0d3b6092u	/* x^1055, x^991 */

static inline uint64_t hp_load64(const uint8_t *p)
{
	uint64_t v;

	memcpy(&v, p, sizeof(v));
	return v;
}

static inline uint32_t hp_load32(const uint8_t *p)
{
	uint32_t v;

	memcpy(&v, p, sizeof(v));
	return v;
}

/* len % 8 bytes at @p: 4, 2, 1. */
static inline HP_SSE42 uint32_t hp_crc32_tail(uint32_t crc, const uint8_t *p,
					     size_t len)
{
	if (len & 4) {
		crc = _mm_crc32_u32(crc, hp_load32(p));
		p += 4;
	}
	if (len & 2) {
		uint16_t h;

		memcpy(&h, p, 2);
		crc = _mm_crc32_u16(crc, h);
		p += 2;
	}
	if (len & 1)
		crc = _mm_crc32_u8(crc, *p);
	return crc;
}

/* One dependent crc32 stream over @len bytes: 8, then 4, 2, 1 at the end.
 * The tail of the lab's methods after their wide loops. */
static inline HP_SSE42 uint32_t hp_crc32_stream(uint32_t crc,
						const uint8_t *p, size_t len)
{
	uint64_t c = crc;

	for (; len >= 8; len -= 8, p += 8)
		c = _mm_crc32_u64(c, hp_load64(p));
	return hp_crc32_tail((uint32_t)c, p, len);
}

/*
 * The same stream for the short buffers that hp_crc32c() inlines, and the
 * seed-last and four-stream methods' own streams, without a loop below
 * 64 bytes: the len % 8 bytes at the start (4, 2, 1, out of line), whole
 * 64-byte blocks (returning there when no word is left: the sk_buff
 * walk's 64-byte head took a cycle more without that), then the words
 * under 64 bytes by the length's bits (32, 16, 8), each a forward branch
 * taken or not. On a Zen 5 (EPYC family 26 model 2,
 * 2026-11-25, core cycles, throughput, the mean over 8 to 56 bytes) whole
 * words ran in 8.2 cycles against the loop's 9.8 to 10.6, other lengths
 * under 64 in 9.8 against 10.6; below 8 bytes 9.2 against 8.0. Latency,
 * bound by crc32q's 3 cycles a word, did not move. Not measured on a
 * Zen 1, 3 or 4 (there a test of every bit, the tail's included and
 * each taken when set, had cost 3 cycles at 16 bytes on a Zen 3).
 */
static inline HP_SSE42 uint32_t hp_crc32_short(uint32_t crc, const uint8_t *p,
					      size_t len)
{
	uint64_t c = crc;

	if (__builtin_expect(len & 7, 0)) {
		c = hp_crc32_tail(crc, p, len);
		p += len & 7;
	}
	if (__builtin_expect(len >= 64, 0)) {
		do {
#pragma GCC unroll 8
			for (int i = 0; i < 8; i++)
				c = _mm_crc32_u64(c, hp_load64(p + 8 * i));
			p += 64;
			len -= 64;
		} while (len >= 64);
		if (!(len & 56))
			return (uint32_t)c;
	}
	if (len & 32) {
#pragma GCC unroll 4
		for (int i = 0; i < 4; i++)
			c = _mm_crc32_u64(c, hp_load64(p + 8 * i));
		p += 32;
	}
	if (len & 16) {
		c = _mm_crc32_u64(c, hp_load64(p));
		c = _mm_crc32_u64(c, hp_load64(p + 8));
		p += 16;
	}
	if (len & 8)
		c = _mm_crc32_u64(c, hp_load64(p));
	return (uint32_t)c;
}

/*
 * The stream from a zero CRC over @len bytes, with 8 bytes readable at @p
 * when len % 8 is not 0: those first len % 8 bytes go in one crc32q,
 * shifted up behind zero bytes, which leave a zero CRC as it was. So no
 * length takes the 4/2/1 tail's branches. For the methods that join the
 * input CRC last.
 */
static inline HP_SSE42 uint32_t hp_crc32_from0(const uint8_t *p, size_t len)
{
	uint64_t c = 0;

	if (len & 7) {
		c = _mm_crc32_u64(0, hp_load64(p) << ((0 - 8 * len) & 63));
		p += len & 7;
		len &= ~(size_t)7;
	}
	return hp_crc32_short((uint32_t)c, p, len);
}

/*
 * hp_crc32c()'s plan: from from[i] bytes on, fn[i]. A row whose first step
 * is one crc32q stream has that step inlined below short_below and the
 * plan starts after it (from[0] is short_below); otherwise short_below is
 * 0 and from[0] is 0.
 *
 * Every other length is one load and one indirect jump away from its
 * method: cls[] holds, per length class, the method of every length in it
 * that reaches the table. The classes are 16 bytes wide below
 * HP_CRC32C_NEAR (len >> 4), then one per power of two (the length's
 * highest set bit, 12..63), so every length the dispatch command measures
 * (16, 32, 48, ..., 4096, 16384, 65536, 1 MiB) is a class edge. A class
 * that holds a step boundary not on its edge points to
 * hp__crc32c_scan(), which scans from[], so the row's steps stay exact
 * whatever their lengths (docs/dispatch.md, "Every step equally cheap").
 */
#define HP_CRC32C_CLASS_SHIFT 4
#define HP_CRC32C_NEAR 4096
#define HP_CRC32C_NNEAR (HP_CRC32C_NEAR >> HP_CRC32C_CLASS_SHIFT)
#define HP_CRC32C_FAR_BIT 12		/* log2(HP_CRC32C_NEAR) */
#define HP_CRC32C_NCLASS (HP_CRC32C_NNEAR + 64 - HP_CRC32C_FAR_BIT)

struct hp_crc32c_plan {
	uint32_t short_below;
	hp_crc32c_fn cls[HP_CRC32C_NCLASS];
	uint32_t from[HP_STEPS_MAX + 1];	/* UINT32_MAX from [n] on */
	hp_crc32c_fn fn[HP_STEPS_MAX];
	uint8_t n;
};
extern HP_HIDDEN struct hp_crc32c_plan hp_crc32c_plan;
HP_HIDDEN uint32_t hp__crc32c_scan(uint32_t crc, const void *buf, size_t len);

/* The class of a length that reaches cls[] (what hp_crc32c()'s asm
 * computes). */
static inline size_t hp_crc32c_class(size_t len)
{
	if (len < HP_CRC32C_NEAR)
		return len >> HP_CRC32C_CLASS_SHIFT;
	return HP_CRC32C_NNEAR - HP_CRC32C_FAR_BIT + (size_t)(63 - __builtin_clzll(len));
}

/*
 * The plan from step functions: @n steps, from[0] == 0, @inline_first
 * when fn[0] is the one stream that hp_crc32c() runs inline. For
 * hp_crc32c_use_row(), and for tests/c/test_dispatch.c, which builds plans
 * of probe functions to see which step each length reaches.
 */
HP_HIDDEN void hp__crc32c_plan_fns(const uint32_t *from, const hp_crc32c_fn *fn, int n,
				   int inline_first);
/* The function a row's method runs on this CPU (after its fallback), and
 * the function hp_crc32c() runs for @len (hp__crc32c_sse42 for the inlined
 * stream). For the tests. */
HP_HIDDEN hp_crc32c_fn hp__crc32c_method_fn(enum hp_crc32c_method m);
HP_HIDDEN hp_crc32c_fn hp__crc32c_fn_for(size_t len);

/*
 * hp_crc32c()'s dispatch, inline for the sk_buff walk (skb_walk.c), whose
 * short pieces would otherwise pay a call before the inlined stream
 * (hp_crc32c() is the same steps in assembly, crc32c_hotpath.c).
 * Compiled for SSE4.2 so that the one-stream loop is inlined: a call
 * through the plan cost 5 to 6 cycles at 16 to 64 bytes on a Zen 3, a
 * third of the work. The crc32 instructions run only when short_below
 * says the CPU has them; the rest is integer code, which the target
 * attribute does not change.
 */
static inline HP_SSE42 uint32_t hp_crc32c_inline(uint32_t crc, const void *buf,
						 size_t len)
{
	const struct hp_crc32c_plan *plan = &hp_crc32c_plan;

	if (len < plan->short_below)
		return hp_crc32_short(crc, buf, len);
	return plan->cls[hp_crc32c_class(len)](crc, buf, len);
}

/* crc * k, unreduced (64 bits): crc32q(0, it) is crc * x^(8n) mod P when
 * k = x^(8n - 33) mod P, and products XORed first reduce together. */
static inline HP_CLMUL __m128i hp_clmul_k(uint64_t crc, uint32_t k)
{
	return _mm_clmulepi64_si128(_mm_cvtsi64_si128((long long)crc),
				    _mm_cvtsi32_si128((int)k), 0x00);
}

/* crc * x^(8n) mod P, given k = x^(8n - 33) mod P. */
static inline HP_CLMUL uint32_t hp_clmul_shift(uint32_t crc, uint32_t k)
{
	return (uint32_t)_mm_crc32_u64(
		0, (uint64_t)_mm_cvtsi128_si64(hp_clmul_k(crc, k)));
}

/* Constants register for hp_fold(): low qword for the low data qword. */
static inline HP_CLMUL __m128i hp_fold_k(uint32_t k_lo, uint32_t k_hi)
{
	return _mm_set_epi64x(k_hi, k_lo);
}

/* x multiplied by x^D modulo P (unreduced, 128 bits), k from hp_fold_k(). */
static inline HP_CLMUL __m128i hp_fold(__m128i x, __m128i k)
{
	return _mm_xor_si128(_mm_clmulepi64_si128(x, k, 0x00),
			     _mm_clmulepi64_si128(x, k, 0x11));
}

static inline HP_CLMUL __m128i hp_loadu128(const uint8_t *p)
{
	return _mm_loadu_si128((const __m128i *)p);
}

/* The CRC (from 0) of the 16 bytes in x: two crc32q reduce 128 bits. */
static inline HP_CLMUL uint32_t hp_fold_finish(__m128i x)
{
	uint64_t c = _mm_crc32_u64(0, (uint64_t)_mm_cvtsi128_si64(x));

	return (uint32_t)_mm_crc32_u64(c,
			(uint64_t)_mm_extract_epi64(x, 1));
}

/*
 * The end of every fold loop: @lanes (4 or 8) accumulators to four, four
 * to one in parallel (384, 256 and 128 bits forward), then the whole
 * 16-byte blocks left at *pp. Advances *pp and *lenp past them (fewer than
 * 16 bytes remain) and returns the accumulator for hp_fold_finish().
 */
static inline __attribute__((always_inline)) HP_CLMUL __m128i
hp_fold_to_one(__m128i *x, int lanes, const uint8_t **pp, size_t *lenp)
{
	const uint8_t *p = *pp;
	size_t len = *lenp;
	__m128i k;

	if (lanes == 8) {
		k = hp_fold_k(HP_FOLD_512);
		for (int i = 0; i < 4; i++)
			x[i] = _mm_xor_si128(hp_fold(x[i], k), x[i + 4]);
	}
	x[3] = _mm_xor_si128(
		_mm_xor_si128(hp_fold(x[0], hp_fold_k(HP_FOLD_384)),
			      hp_fold(x[1], hp_fold_k(HP_FOLD_256))),
		_mm_xor_si128(hp_fold(x[2], hp_fold_k(HP_FOLD_128)), x[3]));
	k = hp_fold_k(HP_FOLD_128);
	for (; len >= 16; len -= 16, p += 16)
		x[3] = _mm_xor_si128(hp_fold(x[3], k), hp_loadu128(p));
	*pp = p;
	*lenp = len;
	return x[3];
}

/*
 * The multi-stream methods' merge constants, built before main
 * (crc32c_sse42.c): hp_crc32c_stream_k[s/8 - 1][j] = x^(8(j+1)s - 33)
 * mod P multiplies a CRC by x^(8(j+1)s), moving it over j + 1 streams of
 * s bytes, for s = 8..HP_STREAM_K_MAX.
 */
#define HP_STREAM_K_MAX 4096
extern HP_HIDDEN uint32_t hp_crc32c_stream_k[HP_STREAM_K_MAX / 8][4];

/*
 * The fused methods' crc32q half (crc32c_vpclmul_avx2.c and _avx512.c):
 * four streams @s bytes apart from @b, each from zero, @stream more bytes
 * on each per fold step; then the block's CRC from the folded part's CRC
 * and the four streams, merged by one PCLMULQDQ each and one crc32q (@k:
 * hp_crc32c_stream_k for streams of s bytes). The CRC so far is carried
 * over a block of m steps by hp_fused_k_fill()'s m-th constant.
 */
static inline __attribute__((always_inline)) HP_SSE42 void
hp_fused_streams(uint64_t c[4], const uint8_t *b, size_t s, int stream)
{
	for (int j = 0; j < stream; j += 8) {
		c[0] = _mm_crc32_u64(c[0], hp_load64(b + j));
		c[1] = _mm_crc32_u64(c[1], hp_load64(b + s + j));
		c[2] = _mm_crc32_u64(c[2], hp_load64(b + 2 * s + j));
		c[3] = _mm_crc32_u64(c[3], hp_load64(b + 3 * s + j));
	}
}

static inline __attribute__((always_inline)) HP_CLMUL uint32_t
hp_fused_merge(uint32_t folded, const uint64_t c[4], const uint32_t *k)
{
	__m128i merge = _mm_xor_si128(
		_mm_xor_si128(hp_clmul_k(folded, k[3]), hp_clmul_k(c[0], k[2])),
		_mm_xor_si128(hp_clmul_k(c[1], k[1]), hp_clmul_k(c[2], k[0])));

	return (uint32_t)c[3] ^
	       (uint32_t)_mm_crc32_u64(0, (uint64_t)_mm_cvtsi128_si64(merge));
}

/* k[m] = x^(8 * step * m - 33) for m = 1..max_steps: a CRC carried over
 * m steps of @step bytes (hp_clmul_shift). */
static inline void hp_fused_k_fill(uint32_t *k, int max_steps, int64_t step)
{
	for (int m = 1; m <= max_steps; m++)
		k[m] = hp_crc32c_xpow_ref(8 * step * m - 33);
}

/*
 * For the seed-last methods (crc32c_sse42.c): hp_crc32c_seed_k[n] =
 * x^(8n - 33) mod P, so that hp_clmul_shift(crc, it) is crc followed by n
 * zero bytes, for 0 <= n < HP_SEEDLAST_FOLD_MAX (8 KiB). The stream
 * methods take the CRC last below HP_SEEDLAST_MAX, the seed-last folds
 * (avx512-seedlast, avx2-seedlast) below HP_SEEDLAST_FOLD_MAX, where the
 * CRC-first fold's latency has come down to its throughput (Emerald
 * Rapids, docs/labs/crc32c.md "Seed-last folds"). One load per call: a
 * multiply of two tabled powers instead (512-byte steps) cost 3 cycles
 * per call at 512 to 3072 bytes, combine_clmul.c's nibble powers 3 to 5.
 */
#define HP_SEEDLAST_MAX 512
#define HP_SEEDLAST_FOLD_MAX 2048
extern HP_HIDDEN uint32_t hp_crc32c_seed_k[HP_SEEDLAST_FOLD_MAX];

HP_HIDDEN uint32_t hp__crc32c_sse42(uint32_t crc, const void *buf,
				    size_t len);
HP_HIDDEN uint32_t hp__crc32c_4way(uint32_t crc, const void *buf,
				   size_t len);
HP_HIDDEN uint32_t hp__crc32c_seedlast(uint32_t crc, const void *buf,
				       size_t len);
HP_HIDDEN uint32_t hp__crc32c_4way_seedlast(uint32_t crc, const void *buf,
					    size_t len);
HP_HIDDEN uint32_t hp__crc32c_fused512(uint32_t crc, const void *buf,
				       size_t len);
HP_HIDDEN uint32_t hp__crc32c_fold4(uint32_t crc, const void *buf,
				    size_t len);
HP_HIDDEN uint32_t hp__crc32c_fold8(uint32_t crc, const void *buf,
				    size_t len);
HP_HIDDEN uint32_t hp__crc32c_avx512(uint32_t crc, const void *buf,
				     size_t len);
/* crc32c_vpclmul_avx2.c: the fold on 256-bit registers, and it fused with
 * four crc32q streams (SSE4.2, PCLMULQDQ, AVX2, VPCLMULQDQ). */
HP_HIDDEN uint32_t hp__crc32c_avx2(uint32_t crc, const void *buf,
				   size_t len);
HP_HIDDEN uint32_t hp__crc32c_fused256(uint32_t crc, const void *buf,
				       size_t len);
/* The fused loop's other shapes: 4 x 24 and 4 x 32 bytes of crc32q per
 * 128 folded (crc32c_fused256_4x24.c, _4x32.c). */
HP_HIDDEN uint32_t hp__crc32c_fused256_4x24(uint32_t crc, const void *buf,
					    size_t len);
HP_HIDDEN uint32_t hp__crc32c_fused256_4x32(uint32_t crc, const void *buf,
					    size_t len);
/* The two folds from a zero CRC, the input CRC multiplied in last, below
 * HP_SEEDLAST_FOLD_MAX bytes (crc32c_vpclmul_avx512.c, _avx2.c). */
HP_HIDDEN uint32_t hp__crc32c_avx512_seedlast(uint32_t crc, const void *buf,
					      size_t len);
HP_HIDDEN uint32_t hp__crc32c_avx2_seedlast(uint32_t crc, const void *buf,
					    size_t len);

#endif /* HOTPATH_CRC32C_INTERNAL_H */
