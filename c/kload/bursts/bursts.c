// SPDX-License-Identifier: GPL-2.0-only
/*
 * The timing loops of the primitives the kernel's objects are timed in,
 * compiled into hotpath's kernel runtime (kruntime.o), so that they are
 * loaded into each image beside the kernel's code: the runner times a
 * kernel variant through its image's copies (struct hp_variant's burst),
 * the same bodies as libhotpath's (csum_bursts.h, crc32c_bursts.h),
 * built with libhotpath's flags but for the low 2 GiB (no PIC).
 *
 * Why: libhotpath is mapped far above the low 2 GiB where the kernel's
 * -mcmodel=kernel code must sit, and on a Zen 4 a call across that
 * distance cost 2 to 4 cycles more per call at 8 to 64 bytes than the
 * same call from a loop beside it (docs/kernel-source.md); the kernel's
 * callers sit beside it.
 *
 * Each image exports hp_kburst_<primitive>: its HP_BURST_SITES copies.
 */
#include "../../csum/csum_bursts.h"
#include "../../crc32c/crc32c_bursts.h"

uint8_t hp_csum_copy_dst[HP_CSUM_COPY_DST_BYTES] __attribute__((aligned(64)));

HP_BURST_COPIES(csum_sites, csum_burst);
HP_BURST_COPIES(fold_sites, fold_burst);
HP_BURST_COPIES(ipf_sites, ipf_burst);
HP_BURST_COPIES(v6_sites, v6_burst);
HP_BURST_COPIES(copy_sites, copy_burst);
HP_BURST_COPIES(crc32c_sites, crc32c_burst);

const hp_burst_fn *const hp_kburst_csum_partial = csum_sites;
const hp_burst_fn *const hp_kburst_csum_fold = fold_sites;
const hp_burst_fn *const hp_kburst_ip_fast_csum = ipf_sites;
const hp_burst_fn *const hp_kburst_csum_ipv6_magic = v6_sites;
const hp_burst_fn *const hp_kburst_csum_partial_copy = copy_sites;
const hp_burst_fn *const hp_kburst_crc32c = crc32c_sites;
