// SPDX-License-Identifier: GPL-2.0-only
/*
 * Linking libhpsum: an IPv4-style checksum and a CRC32C of a message.
 *
 *   make install PREFIX=$HOME/.local
 *   cc hpsum_example.c $(PKG_CONFIG_PATH=$HOME/.local/lib/pkgconfig \
 *      pkg-config --cflags --libs hpsum) -o hpsum_example
 *   LD_LIBRARY_PATH=$HOME/.local/lib ./hpsum_example
 */
#include <hpsum.h>

#include <stdio.h>
#include <string.h>

int main(void)
{
	const char *msg = "123456789";
	size_t len = strlen(msg);

	/* 0xE3069283: the standard CRC32C check value (iSCSI, RFC 3720). */
	printf("crc32c check value: 0x%08X\n",
	       ~hp_crc32c(~0u, msg, len) & 0xffffffffu);
	/* The Internet checksum of the same bytes, folded to 16 bits. */
	printf("internet checksum:  0x%04X\n",
	       hp_csum_fold(hp_csum(msg, (int)len, 0)));
	return 0;
}
