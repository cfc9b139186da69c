// SPDX-License-Identifier: GPL-2.0-only
/*
 * Table-driven CRC32C in portable C: Sarwate's byte-at-a-time table, and
 * slice-by-8 (Intel's 2005 "slicing-by-8"), which looks up eight bytes in
 * eight tables at once so that the loads overlap instead of forming one
 * chain. These are the kernel's generic (no crc32 instruction) paths.
 */
#include <hotpath/crc32c.h>

#include <string.h>

/* slice[k][b]: the CRC of byte b followed by k zero bytes. */
static uint32_t slice[8][256];

/* Built before main() so that the timed paths never test a flag. */
__attribute__((constructor)) static void crc32c_tables_init(void)
{
	for (uint32_t b = 0; b < 256; b++) {
		uint8_t byte = (uint8_t)b;

		slice[0][b] = hp_crc32c_ref(0, &byte, 1);
	}
	for (int k = 1; k < 8; k++)
		for (int b = 0; b < 256; b++)
			slice[k][b] = (slice[k - 1][b] >> 8) ^
				      slice[0][slice[k - 1][b] & 0xff];
}

uint32_t hp_crc32c_bytewise(uint32_t crc, const void *buf, size_t len)
{
	const uint8_t *p = buf;

	while (len--)
		crc = (crc >> 8) ^ slice[0][(crc ^ *p++) & 0xff];
	return crc;
}

static uint32_t load_le32(const uint8_t *p)
{
	uint32_t v;

	memcpy(&v, p, sizeof(v));	/* x86 is little-endian */
	return v;
}

uint32_t hp_crc32c_slice8(uint32_t crc, const void *buf, size_t len)
{
	const uint8_t *p = buf;

	for (; len >= 8; len -= 8, p += 8) {
		uint32_t one = crc ^ load_le32(p);
		uint32_t two = load_le32(p + 4);

		crc = slice[7][one & 0xff] ^ slice[6][(one >> 8) & 0xff] ^
		      slice[5][(one >> 16) & 0xff] ^ slice[4][one >> 24] ^
		      slice[3][two & 0xff] ^ slice[2][(two >> 8) & 0xff] ^
		      slice[1][(two >> 16) & 0xff] ^ slice[0][two >> 24];
	}
	while (len--)
		crc = (crc >> 8) ^ slice[0][(crc ^ *p++) & 0xff];
	return crc;
}
