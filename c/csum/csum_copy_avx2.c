// SPDX-License-Identifier: GPL-2.0-only
/*
 * csum_partial_copy in one pass with AVX2: each 32-byte vector is loaded
 * once from the source, stored to the destination and summed from the
 * same register with the lane arithmetic of csum_avx2_lanes.h. memcpy
 * followed by hp_csum() moves every byte through the load ports twice
 * and pays two loops' fixed costs; this moves it once.
 *
 * From COPY_VEC_MIN bytes: the first 1..31 bytes as one masked vector, so
 * that the stores are 32-byte aligned; 128-byte blocks; a 64- and a
 * 32-byte step; the last 1..31 bytes as one masked vector; one reduction.
 * Below it, 16-byte moves and adc chains (copy_short()).
 *
 * Tried and dropped on the development machine (a Zen 1-class core, whose
 * 256-bit operations run as two halves): giving every other 128 bytes to
 * four adc chains, as hp_csum_avx2_hybrid() does, cost 406 cycles at 4 KiB
 * against 340 (throughput), and 345-360 with one 64-byte block in four on
 * adc chains: taking summing work off the vector side does not pay there.
 *
 * Any length, alignment and seed; reads only [src, src + len) and writes
 * only [dst, dst + len). Source and destination must not overlap.
 */
#include <hotpath/csum.h>

#include <immintrin.h>
#include <string.h>

#include "csum_avx2_lanes.h"
#include "csum_impl.h"

/*
 * Length from which the vector loop runs. Measured on the development
 * machine (hotpath-bench, throughput and latency): the short path is
 * 3 cycles ahead at 256 and 288 bytes with aligned buffers (37 vs 40),
 * level at 320, behind from 384 (53 vs 50); with buffers 1 byte off a
 * 32-byte boundary the vector loop, which aligns its stores, is ahead
 * from 256 (51 vs 55). Below 256 the short path wins by 4 to 9 cycles
 * (22 vs 30 at 128 bytes).
 */
#define COPY_VEC_MIN 256

/*
 * 32 bytes copied and summed. In asm, like the other vector steps here,
 * because the compiler, left to itself, reloads the source for each user
 * of the vector (csum_hp_avx2.c says more).
 */
AVX2 static inline void step32(const uint8_t *s, uint8_t *d, __m256i *all,
			       __m256i *hi, __m256i m)
{
	__m256i x;

	__asm__("vmovdqu (%[s]),%[x]\n\t"
		"vmovdqu %[x],(%[d])\n\t"
		"vpaddq %[x],%[a],%[a]\n\t"
		"vpshufb %[m],%[x],%[x]\n\t"
		"vpaddq %[x],%[h],%[h]"
		: [a] "+x"(*all), [h] "+x"(*hi), [x] "=&x"(x),
		  "=m"(*(uint8_t(*)[32])d)
		: [s] "r"(s), [d] "r"(d), [m] "x"(m),
		  "m"(*(const uint8_t(*)[32])s));
}

/*
 * 128 bytes: four loads, four stores, and the lane sums on two pairs of
 * accumulators. The high dwords come out by byte shuffle only, not by the
 * shift that block128() in csum_hp_avx2.c alternates with: beside the
 * stores, measured at 4 KiB (throughput), shifts only cost 516 cycles,
 * alternating 387, shuffles only 340.
 */
AVX2 static inline void block128(const uint8_t *s, uint8_t *d, __m256i *all0,
				 __m256i *all1, __m256i *hi0, __m256i *hi1,
				 __m256i m)
{
	__m256i x0, x1, x2, x3;

	__asm__("vmovdqu 0(%[s]),%[x0]\n\t"
		"vmovdqu 32(%[s]),%[x1]\n\t"
		"vmovdqu 64(%[s]),%[x2]\n\t"
		"vmovdqu 96(%[s]),%[x3]\n\t"
		"vmovdqu %[x0],0(%[d])\n\t"
		"vpaddq %[x0],%[a0],%[a0]\n\t"
		"vpshufb %[m],%[x0],%[x0]\n\t"
		"vmovdqu %[x1],32(%[d])\n\t"
		"vpaddq %[x1],%[a1],%[a1]\n\t"
		"vpshufb %[m],%[x1],%[x1]\n\t"
		"vmovdqu %[x2],64(%[d])\n\t"
		"vpaddq %[x2],%[a0],%[a0]\n\t"
		"vpshufb %[m],%[x2],%[x2]\n\t"
		"vmovdqu %[x3],96(%[d])\n\t"
		"vpaddq %[x3],%[a1],%[a1]\n\t"
		"vpshufb %[m],%[x3],%[x3]\n\t"
		"vpaddq %[x0],%[h0],%[h0]\n\t"
		"vpaddq %[x1],%[h1],%[h1]\n\t"
		"vpaddq %[x2],%[h0],%[h0]\n\t"
		"vpaddq %[x3],%[h1],%[h1]"
		: [a0] "+x"(*all0), [a1] "+x"(*all1), [h0] "+x"(*hi0),
		  [h1] "+x"(*hi1), [x0] "=&x"(x0), [x1] "=&x"(x1),
		  [x2] "=&x"(x2), [x3] "=&x"(x3),
		  "=m"(*(uint8_t(*)[128])d)
		: [s] "r"(s), [d] "r"(d), [m] "x"(m),
		  "m"(*(const uint8_t(*)[128])s));
}

/* From byte 32 on, 0xff: at offset r, a mask keeping a vector's last r
 * bytes. */
static const uint8_t keep_last[64] __attribute__((aligned(64))) = {
	[32 ... 63] = 0xff,
};

/* vpshufb controls rotating every dword left by 0, 8, 16 and 24 bits. */
static const uint8_t dword_rotl[4][16] __attribute__((aligned(64))) = {
	{ 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15 },
	{ 3, 0, 1, 2, 7, 4, 5, 6, 11, 8, 9, 10, 15, 12, 13, 14 },
	{ 2, 3, 0, 1, 6, 7, 4, 5, 10, 11, 8, 9, 14, 15, 12, 13 },
	{ 1, 2, 3, 0, 5, 6, 7, 4, 9, 10, 11, 8, 13, 14, 15, 12 },
};

/*
 * The last 1..31 bytes, with at least 32 bytes behind them, without a
 * scalar loop: the 32 bytes ending at the buffer's end are copied again
 * (the same values over the same destination bytes), and summed with the
 * bytes already counted masked off. That vector starts r bytes before a
 * 32-byte step would have, so its bytes sit (r mod 4) places off their
 * natural offsets within the dwords; since 2^32 = 1 modulo 2^32 - 1,
 * rotating each dword left by 8 * (r mod 4) bits puts their weights
 * right.
 */
AVX2 static inline void tail31(const uint8_t *s, uint8_t *d, unsigned int r,
			       __m256i *all, __m256i *hi, __m256i m)
{
	__m256i x, keep, rot;

	keep = _mm256_loadu_si256((const __m256i *)(keep_last + r));
	rot = _mm256_broadcastsi128_si256(
		_mm_load_si128((const __m128i *)dword_rotl[r & 3]));
	__asm__("vmovdqu (%[s]),%[x]\n\t"
		"vmovdqu %[x],(%[d])\n\t"
		"vpand %[keep],%[x],%[x]\n\t"
		"vpshufb %[rot],%[x],%[x]\n\t"
		"vpaddq %[x],%[a],%[a]\n\t"
		"vpshufb %[m],%[x],%[x]\n\t"
		"vpaddq %[x],%[h],%[h]"
		: [a] "+x"(*all), [h] "+x"(*hi), [x] "=&x"(x),
		  "=m"(*(uint8_t(*)[32])d)
		: [s] "r"(s + r - 32), [d] "r"(d + r - 32), [m] "x"(m),
		  [keep] "x"(keep), [rot] "x"(rot),
		  "m"(*(const uint8_t(*)[32])(s + r - 32)));
}

/* What the loop leaves, 0..127 bytes, then the lanes reduced. */
AVX2 static inline uint32_t finish(const uint8_t *s, uint8_t *d, size_t n,
				   __m256i all0, __m256i all1, __m256i hi0,
				   __m256i hi1, __m256i m)
{
	if (n & 64) {
		step32(s, d, &all0, &hi0, m);
		step32(s + 32, d + 32, &all1, &hi1, m);
		s += 64;
		d += 64;
	}
	if (n & 32) {
		step32(s, d, &all0, &hi0, m);
		s += 32;
		d += 32;
	}
	if (n & 31)
		tail31(s, d, n & 31, &all1, &hi1, m);
	return lanes_reduce(all0, all1, hi0, hi1);
}

/*
 * The first 32 bytes copied, and the first @k (1..31) of them summed, as
 * if they sat @k bytes before the loop's start (dwords rotated right by
 * 8 * (k mod 4) bits): the loop then runs from the boundary @k bytes on,
 * and its sum is turned back to natural offsets once, at the end.
 *
 * tail31()'s asm but for vpandn: kept as its own copy, as one step shared
 * by both (vpand, a keep-first mask table for the head) cost about a
 * cycle at 4 KiB from an odd address on a Zen 4 (EPYC family 25 model 17,
 * hp-avx2 throughput 150.6 -> 151.5, every mode alike).
 */
AVX2 static inline void head31(const uint8_t *s, uint8_t *d, unsigned int k,
			       __m256i *all, __m256i *hi, __m256i m)
{
	__m256i x, drop, rot;

	drop = _mm256_loadu_si256((const __m256i *)(keep_last + 32 - k));
	rot = _mm256_broadcastsi128_si256(
		_mm_load_si128((const __m128i *)dword_rotl[-k & 3]));
	__asm__("vmovdqu (%[s]),%[x]\n\t"
		"vmovdqu %[x],(%[d])\n\t"
		"vpandn %[x],%[drop],%[x]\n\t"
		"vpshufb %[rot],%[x],%[x]\n\t"
		"vpaddq %[x],%[a],%[a]\n\t"
		"vpshufb %[m],%[x],%[x]\n\t"
		"vpaddq %[x],%[h],%[h]"
		: [a] "+x"(*all), [h] "+x"(*hi), [x] "=&x"(x),
		  "=m"(*(uint8_t(*)[32])d)
		: [s] "r"(s), [d] "r"(d), [m] "x"(m), [drop] "x"(drop),
		  [rot] "x"(rot), "m"(*(const uint8_t(*)[32])s));
}

/* 16 bytes copied through an xmm register. */
static inline __attribute__((always_inline)) void move16(const uint8_t *s,
							 uint8_t *d)
{
	_mm_storeu_si128((__m128i *)d, _mm_loadu_si128((const __m128i *)s));
}

/*
 * Fewer than 16 bytes: at most two overlapping loads, stored back as they
 * were loaded, and summed from the same registers (the second one's bytes
 * not in the first shifted to their natural offsets).
 */
static inline __attribute__((always_inline)) uint32_t
copy_tiny(const uint8_t *s, uint8_t *d, size_t n, uint32_t sum)
{
	uint64_t w;

	if (n >= 8) {
		uint64_t lo = csum_load64(s), hi = csum_load64(s + n - 8);

		memcpy(d, &lo, 8);
		memcpy(d + n - 8, &hi, 8);
		w = lo;
		if (n > 8)
			w = csum_add64c(w, hi >> (8 * (16 - n)));
	} else if (n >= 4) {
		uint32_t lo = csum_load32(s), hi = csum_load32(s + n - 4);

		memcpy(d, &lo, 4);
		memcpy(d + n - 4, &hi, 4);
		w = lo | (uint64_t)hi << (8 * (n - 4));
	} else if (n >= 2) {
		uint16_t lo = csum_load16(s), hi = csum_load16(s + n - 2);

		memcpy(d, &lo, 2);
		memcpy(d + n - 2, &hi, 2);
		w = lo | (uint32_t)hi << (8 * (n - 2));
	} else if (n) {
		w = d[0] = s[0];
	} else {
		return sum;
	}
	return csum_add32c(csum_fold64(w), sum);
}

/*
 * Below the vector loop's crossover: copied with 16-byte moves and summed
 * by adc chains reading the source again, which are cheap to start and to
 * fold. Out of line, so that the vector function needs no stack frame.
 */
static __attribute__((noinline)) uint32_t
copy_short(const uint8_t *s, uint8_t *d, size_t n, uint32_t sum)
{
	uint64_t a = 0, b = 0;

	if (n < 16)
		return copy_tiny(s, d, n, sum);
	while (n >= 64) {
		move16(s, d);
		move16(s + 16, d + 16);
		move16(s + 32, d + 32);
		move16(s + 48, d + 48);
		a = csum_adc32(a, s);
		b = csum_adc32(b, s + 32);
		s += 64;
		d += 64;
		n -= 64;
	}
	if (n & 32) {
		move16(s, d);
		move16(s + 16, d + 16);
		a = csum_adc32(a, s);
		s += 32;
		d += 32;
	}
	if (n & 16) {
		move16(s, d);
		b = csum_adc16(b, s);
		s += 16;
		d += 16;
	}
	n &= 15;
	if (n) {
		/* the last 16 bytes again, ending at the end */
		move16(s + n - 16, d + n - 16);
		if (n & 8) {
			a = csum_add64c(a, csum_load64(s));
			s += 8;
			n -= 8;
		}
		/* one load ending at the end, shifted down, puts the last
		 * bytes at their natural offsets */
		if (n)
			b = csum_add64c(b, csum_load64(s + n - 8) >>
					       (8 * (8 - n)));
	}
	return csum_add32c(csum_fold64(csum_add64c(a, b)), sum);
}

/**
 * hp_csum_copy_avx2() - copy and checksum in one AVX2 pass.
 * @src: bytes to copy, any alignment
 * @dst: where to copy them, any alignment, not overlapping @src
 * @len: length in bytes, >= 0
 * @sum: 32-bit partial sum to continue from
 *
 * Return: the canonical 32-bit sum of @sum and the copied bytes (the same
 * bits as hp_csum_scalar() over @src); csum_fold() of it equals the
 * reference's.
 */
AVX2 uint32_t hp_csum_copy_avx2(const void *src, void *dst, int len,
				uint32_t sum)
{
	const uint8_t *s = src;
	uint8_t *d = dst;
	size_t n = (size_t)len;
	const __m256i m = HI_DWORDS;
	__m256i all0, all1, hi0, hi1;
	unsigned int k;
	uint32_t r;

	if (n < COPY_VEC_MIN)
		return copy_short(s, d, n, sum);
	all0 = all1 = hi0 = hi1 = _mm256_setzero_si256();
	/*
	 * Align the stores, not the loads. Measured (throughput): 1500
	 * bytes 1 byte off a boundary cost 247 cycles with unaligned stores,
	 * 146 with aligned ones, 142 with both buffers aligned; aligning the
	 * source instead left 4 KiB with the destination 1 byte off at
	 * 1.6 times the aligned cost, aligning the destination at 1.03
	 * (a scratch rdtsc loop).
	 */
	k = -(uintptr_t)d & 31;
	if (k) {
		head31(s, d, k, &all0, &hi0, m);
		s += k;
		d += k;
		n -= k;
	}
	for (; n >= 128; n -= 128, s += 128, d += 128)
		block128(s, d, &all0, &all1, &hi0, &hi1, m);
	r = finish(s, d, n, all0, all1, hi0, hi1, m);
	/* back to natural offsets: rotate left 8 bits per byte of k mod 4 */
	if (k & 3)
		r = csum_ror32(r, 32 - 8 * (k & 3));
	return csum_add32c(r, sum);
}
