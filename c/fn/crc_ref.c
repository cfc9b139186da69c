// SPDX-License-Identifier: GPL-2.0-only
/*
 * The crc kind's references: each CRC one bit at a time from its
 * polynomial, in the convention of the kernel function it stands for
 * (lib/crc32.c, lib/crc64.c, crypto/crct10dif_common.c, lib/crc16.c,
 * lib/crc-itu-t.c in Linux 6.12): the register is taken and returned as
 * it is, except crc64_rocksoft_generic(), which inverts it on the way in
 * and on the way out. Slow and obviously right; tests/c/test_fn.c checks
 * each against the published check value of "123456789".
 */
#include <hotpath/fn.h>

/* A reflected (least significant bit first) CRC of width up to 64. */
static uint64_t crc_lsb(uint64_t crc, const uint8_t *p, size_t len, uint64_t poly)
{
	while (len--) {
		crc ^= *p++;
		for (int i = 0; i < 8; i++)
			crc = (crc >> 1) ^ ((crc & 1) ? poly : 0);
	}
	return crc;
}

/* A CRC of @width bits, most significant bit first. */
static uint64_t crc_msb(uint64_t crc, const uint8_t *p, size_t len, uint64_t poly,
			unsigned width)
{
	uint64_t top = 1ull << (width - 1);
	uint64_t mask = width == 64 ? ~0ull : (1ull << width) - 1;

	while (len--) {
		crc ^= (uint64_t)*p++ << (width - 8);
		for (int i = 0; i < 8; i++)
			crc = ((crc << 1) ^ ((crc & top) ? poly : 0)) & mask;
	}
	return crc;
}

uint32_t hp_fn_crc32_le_ref(uint32_t crc, const uint8_t *p, size_t len)
{
	return (uint32_t)crc_lsb(crc, p, len, 0xEDB88320u);
}

uint32_t hp_fn_crc32_be_ref(uint32_t crc, const uint8_t *p, size_t len)
{
	return (uint32_t)crc_msb(crc, p, len, 0x04C11DB7u, 32);
}

uint64_t hp_fn_crc64_be_ref(uint64_t crc, const void *p, size_t len)
{
	return crc_msb(crc, p, len, 0x42F0E1EBA9EA3693ull, 64);
}

uint64_t hp_fn_crc64_rocksoft_ref(uint64_t crc, const void *p, size_t len)
{
	return ~crc_lsb(~crc, p, len, 0x9A6C9329AC4BC9B5ull);
}

uint16_t hp_fn_crc_t10dif_ref(uint16_t crc, const uint8_t *buf, size_t len)
{
	return (uint16_t)crc_msb(crc, buf, len, 0x8BB7, 16);
}

uint16_t hp_fn_crc16_ref(uint16_t crc, const uint8_t *buf, size_t len)
{
	return (uint16_t)crc_lsb(crc, buf, len, 0xA001);
}

uint16_t hp_fn_crc_itu_t_ref(uint16_t crc, const uint8_t *buf, size_t len)
{
	return (uint16_t)crc_msb(crc, buf, len, 0x1021, 16);
}
