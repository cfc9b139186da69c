/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * CRC32C (Castagnoli, iSCSI/SCTP/ext4/btrfs) in the Linux kernel's
 * convention: u32 crc32c(u32 crc, const void *p, size_t len), reflected
 * polynomial 0x82F63B78, no inversion inside the function. The standard
 * check value is therefore ~crc32c(~0, "123456789", 9) == 0xE3069283.
 *
 * Because nothing is inverted, the function is linear in a simple way:
 *   crc32c(c, A || B) == crc32c_shift(crc32c(c, A), len(B)) ^ crc32c(0, B)
 * where crc32c_shift(c, n) multiplies c by x^(8n) modulo the polynomial.
 * Every combine below rests on that identity, and the tests check it.
 */
#ifndef HOTPATH_CRC32C_H
#define HOTPATH_CRC32C_H

#include <hpsum.h>
#include <stddef.h>
#include <stdint.h>

/* The reflected Castagnoli polynomial: x^32 + ... + 1 without x^32. */
#define HP_CRC32C_POLY 0x82F63B78u

typedef uint32_t (*hp_crc32c_fn)(uint32_t crc, const void *buf, size_t len);
typedef uint32_t (*hp_crc32c_combine_fn)(uint32_t crc1, uint32_t crc2,
					 size_t len2);
typedef uint32_t (*hp_crc32c_shift_fn)(uint32_t crc, size_t len);

/* What a crc32c variant promises (struct hp_variant.promise). */
enum hp_crc32c_promise {
	HP_CRC32C_EQUAL = 0,	/* bit-for-bit equal to the reference */
};

/* ---- the CRC itself: every variant has the signature hp_crc32c_fn ---- */

/**
 * hp_crc32c_ref() - bitwise reference, one bit of one byte at a time.
 * @crc: CRC to continue from (0 or ~0 to start; no inversion inside)
 * @buf: bytes, any alignment
 * @len: length in bytes
 *
 * Return: the CRC of @buf continued from @crc. Slow and obviously correct.
 */
uint32_t hp_crc32c_ref(uint32_t crc, const void *buf, size_t len);

/* Table-driven, one byte per step (256-entry table, Sarwate). */
uint32_t hp_crc32c_bytewise(uint32_t crc, const void *buf, size_t len);
/* Table-driven, eight bytes per step (slice-by-8, eight 256-entry tables). */
uint32_t hp_crc32c_slice8(uint32_t crc, const void *buf, size_t len);

/* SSE4.2 crc32 instruction, one dependent stream of crc32q. */
uint32_t hp_crc32c_sse42(uint32_t crc, const void *buf, size_t len);
/* Three interleaved crc32q streams merged with PCLMULQDQ (SSE4.2+PCLMUL). */
uint32_t hp_crc32c_sse42_3way(uint32_t crc, const void *buf, size_t len);
/* hotpath's own: four crc32q streams, long buffers in pipelined blocks. */
uint32_t hp_crc32c_sse42_4way(uint32_t crc, const void *buf, size_t len);
/* hotpath's own: one crc32q stream from a zero CRC, the input CRC
 * multiplied in last with PCLMULQDQ (SSE4.2+PCLMUL; below 512 bytes). */
uint32_t hp_crc32c_sse42_seedlast(uint32_t crc, const void *buf, size_t len);
/* hotpath's own: the 512-bit fold and four crc32q streams in one loop
 * (AVX512F/BW/VL, VPCLMULQDQ). */
uint32_t hp_crc32c_fused_vpclmul(uint32_t crc, const void *buf, size_t len);
/* hotpath's own: the four streams with the input CRC joined last. */
uint32_t hp_crc32c_sse42_4way_seedlast(uint32_t crc, const void *buf, size_t len);
/* hp_crc32c()'s methods per length from a dispatch row (hotpath/dispatch.h);
 * before main it takes hp_dispatch()'s. */
struct hp_dispatch_row;
void hp_crc32c_use_row(const struct hp_dispatch_row *row);
/* The method (enum hp_crc32c_method) a row's method @m runs as on this CPU,
 * after its fallback (hidden: the runner's listing says it per step, so
 * `hotpath dispatch` times the method the row really runs). */
__attribute__((visibility("hidden"))) int hp__crc32c_method_runs(int m);
/* The kernel's x86 choice: one stream below 512 bytes, three from 512. */
uint32_t hp_crc32c_kernel_x86(uint32_t crc, const void *buf, size_t len);

/* PCLMULQDQ folding, four and eight 128-bit accumulators (SSE4.2+PCLMUL). */
uint32_t hp_crc32c_pclmul_fold4(uint32_t crc, const void *buf, size_t len);
uint32_t hp_crc32c_pclmul_fold8(uint32_t crc, const void *buf, size_t len);
/* VPCLMULQDQ folding on 512-bit registers (AVX-512F/BW/VL + VPCLMULQDQ). */
uint32_t hp_crc32c_vpclmul_avx512(uint32_t crc, const void *buf, size_t len);
/* hotpath's own: the same fold on 256-bit registers, for CPUs with
 * VPCLMULQDQ and no AVX-512 (SSE4.2, PCLMULQDQ, AVX2, VPCLMULQDQ); and that
 * fold with four crc32q streams beside it, as hp_crc32c_fused_vpclmul(). */
uint32_t hp_crc32c_vpclmul_avx2(uint32_t crc, const void *buf, size_t len);
uint32_t hp_crc32c_fused_vpclmul_avx2(uint32_t crc, const void *buf, size_t len);
/* The same loop with 4 x 24 and 4 x 32 bytes of crc32q per 128 folded. */
uint32_t hp_crc32c_fused_vpclmul_avx2_4x24(uint32_t crc, const void *buf, size_t len);
uint32_t hp_crc32c_fused_vpclmul_avx2_4x32(uint32_t crc, const void *buf, size_t len);
/* hotpath's own: those two folds from a zero CRC, the input CRC multiplied
 * in last (a chain of calls waits for one multiply, not the fold). */
uint32_t hp_crc32c_vpclmul_avx512_seedlast(uint32_t crc, const void *buf, size_t len);
uint32_t hp_crc32c_vpclmul_avx2_seedlast(uint32_t crc, const void *buf, size_t len);

/* crc32q streams and PCLMULQDQ folding in one loop, both ports busy. */
uint32_t hp_crc32c_fused(uint32_t crc, const void *buf, size_t len);

/* hp_crc32c(), hotpath's CRC32C (the fastest method for this CPU and
 * length, chosen at run time; crossovers in docs/labs/crc32c.md), is
 * declared in <hpsum.h>, the linkable library's header. It returns the
 * same value as hp_crc32c_ref() on any x86-64. */

/* Peers, wrapped to the kernel convention. Present only when built with
 * them (HOTPATH_HAVE_ISAL, HOTPATH_HAVE_DPDK from c/crc32c/lab.mk);
 * otherwise the symbols exist but abort, and the registry marks the
 * variants unavailable. */
uint32_t hp_crc32c_isal(uint32_t crc, const void *buf, size_t len);
uint32_t hp_crc32c_dpdk(uint32_t crc, const void *buf, size_t len);

/* ---- shift and combine ---- */

/**
 * hp_crc32c_combine_matrix() - combine by GF(2) 32x32 matrices (zlib's
 * crc32_combine, the kernel's 2013 crc32c_combine): square the "one zero
 * bit" operator up to the length, applying it where the length has a bit.
 * @crc1: CRC of the first piece (continued from any seed)
 * @crc2: CRC of the second piece, started from 0
 * @len2: length of the second piece in bytes
 *
 * Return: the CRC of both pieces, as if chained.
 */
uint32_t hp_crc32c_combine_matrix(uint32_t crc1, uint32_t crc2, size_t len2);
/* Multiplies by x^(8 * 2^k) mod P from a 64-entry table, in software. */
uint32_t hp_crc32c_combine_xpow(uint32_t crc1, uint32_t crc2, size_t len2);
/* The kernel's 2014-2025 generic shift: squares x^(2^i) as it goes. */
uint32_t hp_crc32c_combine_gf2mul(uint32_t crc1, uint32_t crc2, size_t len2);
/* x^(8 len2) by square-and-multiply with PCLMULQDQ, crc32 to reduce. */
uint32_t hp_crc32c_combine_clmul(uint32_t crc1, uint32_t crc2, size_t len2);
/* One PCLMULQDQ and one crc32q with the constant for len2 precomputed
 * (memoised per length: the fixed-length case). */
uint32_t hp_crc32c_combine_clmul_const(uint32_t crc1, uint32_t crc2,
				       size_t len2);

/* crc * x^(8 len) mod P, the operation each combine rests on. */
uint32_t hp_crc32c_shift_ref(uint32_t crc, size_t len);	/* bit by bit */
uint32_t hp_crc32c_shift_matrix(uint32_t crc, size_t len);
uint32_t hp_crc32c_shift_xpow(uint32_t crc, size_t len);
uint32_t hp_crc32c_shift_gf2mul(uint32_t crc, size_t len);
uint32_t hp_crc32c_shift_clmul(uint32_t crc, size_t len);

/**
 * hp_crc32c_shift_constant() - the constant for hp_crc32c_shift_by_const().
 * @len: shift distance in bytes
 *
 * Return: x^(8 @len - 33) mod P (reflected), so that one carry-less
 * multiply by it and one crc32q (which multiplies by x^32, and the
 * reflected multiply adds one more x) shift a CRC by @len bytes.
 */
uint32_t hp_crc32c_shift_constant(size_t len);
/* crc * x^(8 len) given k = hp_crc32c_shift_constant(len): ~2 instructions. */
uint32_t hp_crc32c_shift_by_const(uint32_t crc, uint32_t k);

/* a * b mod P in the reflected representation, bit by bit (tests). */
uint32_t hp_crc32c_mulmod_ref(uint32_t a, uint32_t b);
/* x^n mod P for any n, negative included (x is invertible mod P). */
uint32_t hp_crc32c_xpow_ref(int64_t n);

#endif /* HOTPATH_CRC32C_H */
