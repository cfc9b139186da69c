/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The fn lab: kernel hot functions, one primitive each, named as the
 * kernel names them (crc32_le, memcpy, find_next_bit). Each primitive's
 * function type is the kernel function's own C prototype with the
 * kernel's types spelled in <stdint.h> (u8 -> uint8_t, u32 -> uint32_t),
 * so that the kernel's symbol, loaded by c/kload, is called directly
 * through it, with no wrapper in between (docs/labs/fn.md).
 *
 * Four kinds: crc (seed, buffer, length -> value), hash (buffer, length,
 * seed -> value), copy (memcpy, memmove, memset) and search (memchr,
 * strlen, strnlen, find_next_bit). Each primitive has hotpath's reference,
 * written here from the definition, and the peers a user would have
 * (glibc's mem* and str*).
 */
#ifndef HOTPATH_FN_H
#define HOTPATH_FN_H

#include <stddef.h>
#include <stdint.h>

/* ---- kind "crc": crc = f(crc, buf, len), the kernel's convention ---- */
typedef uint32_t (*hp_fn_crc32_fn)(uint32_t crc, const uint8_t *p, size_t len);
typedef uint64_t (*hp_fn_crc64_fn)(uint64_t crc, const void *p, size_t len);
typedef uint16_t (*hp_fn_crc16_fn)(uint16_t crc, const uint8_t *buf, size_t len);

/**
 * hp_fn_crc32_le_ref() - lib/crc32.c's crc32_le(), one bit at a time:
 * reflected polynomial 0xEDB88320, the register in and out as it is (no
 * inversion; CRC-32 as zlib gives it is ~crc32_le(~0, p, len)).
 */
uint32_t hp_fn_crc32_le_ref(uint32_t crc, const uint8_t *p, size_t len);
/* crc32_be(): 0x04C11DB7, most significant bit first, no inversion. */
uint32_t hp_fn_crc32_be_ref(uint32_t crc, const uint8_t *p, size_t len);
/* crc64_be(): ECMA-182 0x42F0E1EBA9EA3693, MSB first, no inversion. */
uint64_t hp_fn_crc64_be_ref(uint64_t crc, const void *p, size_t len);
/* crc64_rocksoft_generic(): reflected 0x9A6C9329AC4BC9B5 (Rocksoft/NVMe
 * 0xAD93D23594C93659), inverted on the way in and out, as lib/crc64.c does. */
uint64_t hp_fn_crc64_rocksoft_ref(uint64_t crc, const void *p, size_t len);
/* crc_t10dif_generic(): 0x8BB7, MSB first, no inversion. */
uint16_t hp_fn_crc_t10dif_ref(uint16_t crc, const uint8_t *buf, size_t len);
/* crc16(): reflected 0xA001 (CRC-16/ARC's polynomial 0x8005), no inversion. */
uint16_t hp_fn_crc16_ref(uint16_t crc, const uint8_t *buf, size_t len);
/* crc_itu_t(): 0x1021, MSB first, no inversion. */
uint16_t hp_fn_crc_itu_t_ref(uint16_t crc, const uint8_t *buf, size_t len);

/* ---- kind "hash": h = f(buf, len, seed) ---- */
typedef uint32_t (*hp_fn_jhash_fn)(const void *key, uint32_t length, uint32_t initval);
typedef uint32_t (*hp_fn_xxh32_fn)(const void *input, size_t length, uint32_t seed);
typedef uint64_t (*hp_fn_xxh64_fn)(const void *input, size_t length, uint64_t seed);
/* siphash, siphash_1u64, siphash_2u64: the key is {seed, ~seed} (the
 * kernel glue builds that siphash_key_t); 1u64 reads 8 bytes, 2u64 16,
 * little-endian words. */
typedef uint64_t (*hp_fn_siphash_fn)(const void *data, size_t len, uint64_t seed);

/* jhash() of include/linux/jhash.h: Bob Jenkins' lookup3 (hashlittle). */
uint32_t hp_fn_jhash_ref(const void *key, uint32_t length, uint32_t initval);
/* xxh32() and xxh64() of lib/xxhash.c, from the xxHash specification. */
uint32_t hp_fn_xxh32_ref(const void *input, size_t length, uint32_t seed);
uint64_t hp_fn_xxh64_ref(const void *input, size_t length, uint64_t seed);
/* SipHash-2-4 (Aumasson, Bernstein 2012) with the 128-bit key k0, k1. */
uint64_t hp_fn_siphash_keyed(const void *data, size_t len, uint64_t k0, uint64_t k1);
/* The primitives' form: hp_fn_siphash_keyed(data, len, seed, ~seed). */
uint64_t hp_fn_siphash_ref(const void *data, size_t len, uint64_t seed);

/* ---- kind "copy" ---- */
typedef void *(*hp_fn_memcpy_fn)(void *dst, const void *src, size_t len);
typedef void *(*hp_fn_memset_fn)(void *s, int c, size_t n);

/* Byte loops: memmove's copies backwards where the destination is above. */
void *hp_fn_memcpy_ref(void *dst, const void *src, size_t len);
void *hp_fn_memmove_ref(void *dst, const void *src, size_t len);
void *hp_fn_memset_ref(void *s, int c, size_t n);

/* ---- kind "search" ---- */
typedef void *(*hp_fn_memchr_fn)(const void *s, int c, size_t n);
typedef size_t (*hp_fn_strlen_fn)(const char *s);
typedef size_t (*hp_fn_strnlen_fn)(const char *s, size_t count);
/* _find_next_bit() of lib/find_bit.c: the first set bit at or after
 * @start, or @nbits when there is none. */
typedef unsigned long (*hp_fn_find_bit_fn)(const unsigned long *addr,
					   unsigned long nbits, unsigned long start);

void *hp_fn_memchr_ref(const void *s, int c, size_t n);
size_t hp_fn_strlen_ref(const char *s);
size_t hp_fn_strnlen_ref(const char *s, size_t count);
unsigned long hp_fn_find_next_bit_ref(const unsigned long *addr, unsigned long nbits,
				      unsigned long start);

#endif /* HOTPATH_FN_H */
