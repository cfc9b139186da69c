// SPDX-License-Identifier: GPL-2.0-only
/*
 * Peer: DPDK's rte_raw_cksum() from rte_ip.h, used header-only (no DPDK
 * library is linked). It adds 16-bit words into a 32-bit accumulator and
 * folds to 16 bits; the csum_partial seed is added after, end-around.
 * The 32-bit accumulator wraps past about 128 KiB, so the registry limits
 * its domain to 64 KiB.
 *
 * Optional: c/csum/lab.mk defines HOTPATH_CSUM_HAVE_DPDK when the headers are
 * installed; without them this file builds a stub that the registry marks
 * unavailable, and the stub is never called.
 */
#include <hotpath/csum.h>

#include "csum_impl.h"

#ifdef HOTPATH_CSUM_HAVE_DPDK
#include <rte_ip.h>

uint32_t hp_csum_dpdk(const void *buf, int len, uint32_t sum)
{
	return csum_add32c(rte_raw_cksum(buf, (size_t)len), sum);
}
#else
uint32_t hp_csum_dpdk(const void *buf, int len, uint32_t sum)
{
	return hp_csum_ref(buf, len, sum);
}
#endif
