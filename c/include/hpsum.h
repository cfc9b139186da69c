/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * libhpsum: hotpath's own Internet checksum and CRC32C for user space,
 * without the measurement engine. Each function picks the fastest path
 * this CPU has when the library loads (cpuid, checked against what the
 * OS enables; per length, the dispatch row that `hotpath dispatch --save`
 * or `--system` measured on this machine, else a built-in one), and gives
 * the same result on any x86-64.
 *
 *   cc my.c $(pkg-config --cflags --libs hpsum)
 *
 * Both follow the Linux kernel's conventions, so a sum or CRC computed
 * here continues one computed there and the other way round.
 */
#ifndef HPSUM_H
#define HPSUM_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/**
 * hp_csum() - csum_partial(): the Internet checksum's 32-bit partial sum.
 * @buf: bytes, any alignment
 * @len: length in bytes, >= 0
 * @sum: partial sum to continue from (0 to start)
 *
 * Never reads outside [@buf, @buf + @len).
 *
 * Return: a 32-bit partial sum; only hp_csum_fold() of it is defined, as
 * between the kernel's own versions.
 */
uint32_t hp_csum(const void *buf, int len, uint32_t sum);

/* csum_fold(): fold a 32-bit partial sum to 16 bits and complement it. */
static inline uint16_t hp_csum_fold(uint32_t sum)
{
	sum = (sum & 0xffff) + (sum >> 16);
	sum = (sum & 0xffff) + (sum >> 16);
	return (uint16_t)~sum;
}

/**
 * hp_crc32c() - CRC32C (Castagnoli) in the kernel's crc32c() convention:
 * reflected polynomial 0x82F63B78, nothing inverted inside, so the
 * standard check value is ~hp_crc32c(~0, "123456789", 9) == 0xE3069283.
 * @crc: CRC to continue from
 * @buf: bytes, any alignment
 * @len: length in bytes
 *
 * Return: the CRC of @buf continued from @crc.
 */
uint32_t hp_crc32c(uint32_t crc, const void *buf, size_t len);

#ifdef __cplusplus
}
#endif

#endif /* HPSUM_H */
