// SPDX-License-Identifier: GPL-2.0-only
/*
 * Peers, as real dependencies detected at build time (c/crc32c/lab.mk),
 * wrapped to the kernel convention u32 crc32c(u32 crc, buf, len).
 *
 * ISA-L: unsigned int crc32_iscsi(unsigned char *buf, int len,
 * unsigned int init) neither inverts its input nor its output (checked by
 * tests/c/test_crc32c.c against the reference and the check value), so
 * the wrapper only reorders arguments; its length is an int, so the
 * variant's domain stops at INT_MAX.
 *
 * DPDK: rte_hash_crc(data, len, init_val) is an inline function in
 * rte_hash_crc.h, also without inversion, reducing with crc32q/l/w/b.
 */
#include <hotpath/crc32c.h>

#include <stdlib.h>

#ifdef HOTPATH_HAVE_ISAL
#include <isa-l/crc.h>

uint32_t hp_crc32c_isal(uint32_t crc, const void *buf, size_t len)
{
	return crc32_iscsi((unsigned char *)buf, (int)len, crc);
}
#else
uint32_t hp_crc32c_isal(uint32_t crc, const void *buf, size_t len)
{
	abort();	/* never registered as available */
}
#endif

#ifdef HOTPATH_HAVE_DPDK
#include <rte_hash_crc.h>

uint32_t hp_crc32c_dpdk(uint32_t crc, const void *buf, size_t len)
{
	return rte_hash_crc(buf, (uint32_t)len, crc);
}
#else
uint32_t hp_crc32c_dpdk(uint32_t crc, const void *buf, size_t len)
{
	abort();	/* never registered as available */
}
#endif
