/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Internet checksum (RFC 1071) as the Linux kernel computes it:
 * csum_partial() returns a 32-bit partial sum whose exact value differs
 * between kernel versions; what every version must agree on is
 * csum_fold() of it, the 16-bit ones' complement checksum.
 */
#ifndef HOTPATH_CSUM_H
#define HOTPATH_CSUM_H

#include <stddef.h>
#include <stdint.h>

/* The kernel's signature: __wsum csum_partial(const void *, int, __wsum). */
typedef uint32_t (*hp_csum_fn)(const void *buf, int len, uint32_t sum);

/* What a csum_partial variant promises (struct hp_variant.promise). */
enum hp_csum_promise {
	/* csum_fold(result) equals csum_fold(reference) for every seed */
	HP_CSUM_FOLD = 0,
};

/**
 * hp_csum_ref() - RFC 1071 reference, one 16-bit word at a time.
 * @buf: bytes, any alignment
 * @len: length in bytes, >= 0
 * @sum: 32-bit partial sum to continue from
 *
 * Return: a 32-bit partial sum, congruent modulo 0xffff to @sum plus the
 * buffer's little-endian 16-bit words (an odd tail byte padded with zero).
 */
uint32_t hp_csum_ref(const void *buf, int len, uint32_t sum);

/* csum_fold(): fold a 32-bit partial sum to 16 bits and complement it. */
static inline uint16_t hp_csum_fold(uint32_t sum)
{
	sum = (sum & 0xffff) + (sum >> 16);
	sum = (sum & 0xffff) + (sum >> 16);
	return (uint16_t)~sum;
}

/* Kernel 5.17 csum_partial (Eric Dumazet's rewrite), with the fixed
 * odd-address seed handling. */
uint32_t hp_csum_kernel_5_17(const void *buf, int len, uint32_t sum);

#endif /* HOTPATH_CSUM_H */
