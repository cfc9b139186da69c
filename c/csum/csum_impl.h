/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Helpers shared by the csum lab's variants (private to c/csum/).
 *
 * Every variant here sums the buffer as little-endian words placed at
 * their natural byte offset from the buffer's start, with end-around
 * carry. Such a sum is canonical: it is zero only when every input was
 * zero, and otherwise the unique value in [1, 2^n - 1] congruent to the
 * true sum modulo 2^n - 1. That is why variants with very different
 * chains still return bit-identical 32-bit results (see HP_CSUM_RAW_EVEN).
 */
#ifndef HOTPATH_CSUM_IMPL_H
#define HOTPATH_CSUM_IMPL_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

/* a + b with the carry added back in: 32-bit ones' complement add. */
static inline uint32_t csum_add32c(uint32_t a, uint32_t b)
{
	__asm__("addl %2,%0\n\t"
		"adcl $0,%0"
		: "=r"(a)
		: "0"(a), "rm"(b));
	return a;
}

/* a + b with end-around carry, 64 bits wide. */
static inline uint64_t csum_add64c(uint64_t a, uint64_t b)
{
	__asm__("addq %2,%0\n\t"
		"adcq $0,%0"
		: "=r"(a)
		: "0"(a), "rm"(b));
	return a;
}

/*
 * Fold 64 bits to 32 with end-around carry in three ALU operations:
 * in x + rol(x, 32) the low half's carry lands in the high half, which
 * therefore holds hi + lo + carry. Canonical in, canonical out.
 */
static inline uint32_t csum_fold64(uint64_t x)
{
	uint64_t r = (x >> 32) | (x << 32);

	return (uint32_t)((x + r) >> 32);
}

/* The 16-bit end-around-carry fold the odd-address paths of 5.17 and
 * 2023 use before swapping the bytes back. */
static inline uint32_t csum_from32to16(uint32_t a)
{
	uint16_t b = a >> 16;

	__asm__("addw %w2,%w0\n\t"
		"adcw $0,%w0\n"
		: "=r"(b)
		: "0"(b), "r"(a));
	return b;
}

static inline uint32_t csum_ror32(uint32_t x, unsigned int n)
{
	return (x >> n) | (x << (32 - n));
}

static inline uint64_t csum_load64(const void *p)
{
	uint64_t v;

	memcpy(&v, p, 8);
	return v;
}

static inline uint32_t csum_load32(const void *p)
{
	uint32_t v;

	memcpy(&v, p, 4);
	return v;
}

static inline uint16_t csum_load16(const void *p)
{
	uint16_t v;

	memcpy(&v, p, 2);
	return v;
}

/*
 * The 1..7 bytes at @p, little-endian and zero-padded, read with 4/2/1-byte
 * loads so that nothing past p + n is touched (the kernel's
 * load_unaligned_zeropad() reads a whole word and relies on a fault fixup).
 */
static inline uint64_t csum_load_tail(const uint8_t *p, unsigned int n)
{
	uint64_t v = 0;
	unsigned int k = 0;

	if (n & 4) {
		v = csum_load32(p);
		k = 4;
	}
	if (n & 2) {
		v |= (uint64_t)csum_load16(p + k) << (8 * k);
		k += 2;
	}
	if (n & 1)
		v |= (uint64_t)p[k] << (8 * k);
	return v;
}

/*
 * The 0..7 bytes at @p (n < 8) with at most two overlapping loads, no
 * byte outside [p, p + n) read: each load is placed at its bytes' true
 * offset, so the bytes both loads cover are ORed with themselves.
 */
static inline uint64_t csum_load_short(const uint8_t *p, unsigned int n)
{
	if (n >= 4)
		return csum_load32(p) |
		       (uint64_t)csum_load32(p + n - 4) << (8 * (n - 4));
	if (n >= 2)
		return csum_load16(p) |
		       (uint64_t)csum_load16(p + n - 2) << (8 * (n - 2));
	return n ? p[0] : 0;
}

/* One adc chain over the five words of a 40-byte block, carry folded. */
static inline uint64_t csum_adc40(uint64_t acc, const uint8_t *p)
{
	__asm__("addq 0*8(%[src]),%[res]\n\t"
		"adcq 1*8(%[src]),%[res]\n\t"
		"adcq 2*8(%[src]),%[res]\n\t"
		"adcq 3*8(%[src]),%[res]\n\t"
		"adcq 4*8(%[src]),%[res]\n\t"
		"adcq $0,%[res]"
		: [res] "+r"(acc)
		: [src] "r"(p), "m"(*(const uint8_t(*)[40])p));
	return acc;
}

static inline uint64_t csum_adc32(uint64_t acc, const uint8_t *p)
{
	__asm__("addq 0*8(%[src]),%[res]\n\t"
		"adcq 1*8(%[src]),%[res]\n\t"
		"adcq 2*8(%[src]),%[res]\n\t"
		"adcq 3*8(%[src]),%[res]\n\t"
		"adcq $0,%[res]"
		: [res] "+r"(acc)
		: [src] "r"(p), "m"(*(const uint8_t(*)[32])p));
	return acc;
}

static inline uint64_t csum_adc16(uint64_t acc, const uint8_t *p)
{
	__asm__("addq 0*8(%[src]),%[res]\n\t"
		"adcq 1*8(%[src]),%[res]\n\t"
		"adcq $0,%[res]"
		: [res] "+r"(acc)
		: [src] "r"(p), "m"(*(const uint8_t(*)[16])p));
	return acc;
}

/*
 * The last 0..63 bytes as Linux 5.17 and its descendants take them: one
 * 32-byte and one 16-byte adc block, an 8-byte word, then the 1..7-byte tail
 * assembled without reading past @p + (@len & 63).
 */
static inline uint64_t csum_adc_rest63(uint64_t acc, const uint8_t *p,
				       unsigned int len)
{
	if (len & 32) {
		acc = csum_adc32(acc, p);
		p += 32;
	}
	if (len & 16) {
		acc = csum_adc16(acc, p);
		p += 16;
	}
	if (len & 8) {
		acc = csum_add64c(acc, csum_load64(p));
		p += 8;
	}
	if (len & 7)
		acc = csum_add64c(acc, csum_load_tail(p, len & 7));
	return acc;
}

/* The scalar core shared by hp_csum's paths: the canonical 32-bit sum of
 * @len bytes at @p (natural offsets from @p), without any input sum.
 * Hidden, so that calls from the vector paths are direct, not via the GOT. */
__attribute__((visibility("hidden")))
uint32_t hp_csum_scalar_nosum(const uint8_t *p, size_t len);
/* hp_csum_scalar() itself, hidden: a tail call from a vector path is a
 * direct jump. */
__attribute__((visibility("hidden")))
uint32_t hp_csum_scalar_local(const void *buf, int len, uint32_t sum);


/* ---- hp_csum: the asm entry (csum_hp.c) and its plan (csum_hp_plan.c) ----
 * From hp_csum_vec_from bytes the entry takes the method of the length's
 * class, hp_csum_class[2 * class + parity]: 32-byte classes below
 * CSUM_NEAR, then one per power of two; csum_hp.c says why. */
#define CSUM_NEAR 4096
#define CSUM_NNEAR (CSUM_NEAR >> 5)
#define CSUM_FAR_BIT 12			/* log2(CSUM_NEAR) */
#define CSUM_NCLASS (CSUM_NNEAR + 31 - CSUM_FAR_BIT)	/* int lengths: bits 12..30 */
/* hp_csum_class less 2 * 12 entries: the far classes by the highest bit */
#define CSUM_FAR 232
/* What an entry of hp_csum_class says (a byte each): the asm jumps to each
 * with a direct branch, never through a pointer. */
enum csum_class_id {
	CSUM_ID_LOOP,		/* hp_csum's own adc loop (a scalar step) */
	CSUM_ID_AVX512_LONG,	/* hp__csum_avx512_long: lengths >= 128 only */
	CSUM_ID_AVX512,		/* hp_csum_avx512, its short-length test first */
	CSUM_ID_AVX2_LONG,	/* hp__csum_avx2_long (any length >= 64) */
	CSUM_ID_HYBRID,		/* hp_csum_avx2_hybrid */
	CSUM_ID_SCAN,		/* hp__csum_scan: a step boundary inside the class */
};
extern __attribute__((visibility("hidden"))) int64_t hp_csum_vec_from;
/* The vector methods past their short-length test, for the asm's
 * shortcuts (len >= HP_CSUM_SHORT, already sign-extended). */
__attribute__((visibility("hidden")))
uint32_t hp__csum_avx512_long(const void *buf, int64_t len, uint32_t sum);
__attribute__((visibility("hidden")))
uint32_t hp__csum_avx2_long(const void *buf, int64_t len, uint32_t sum);
extern __attribute__((visibility("hidden"))) int64_t hp_csum_avx512_from;
extern __attribute__((visibility("hidden"))) int64_t hp_csum_avx2_from;
extern __attribute__((visibility("hidden"))) uint8_t hp_csum_class[2 * CSUM_NCLASS];
/* The adc loop inside hp_csum, for the table: entered with rax = 0 and
 * rsi the sign-extended length, so not callable from C. */
__attribute__((visibility("hidden")))
uint32_t hp__csum_loop(const void *buf, int len, uint32_t sum);
/* A class that holds a step boundary: the plan's step by a scan. */
__attribute__((visibility("hidden")))
uint32_t hp__csum_scan(const void *buf, int len, uint32_t sum);

#endif /* HOTPATH_CSUM_IMPL_H */
