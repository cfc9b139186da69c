// SPDX-License-Identifier: GPL-2.0-only
/*
 * The timing loops of the primitives the kernel's objects are timed in,
 * compiled into hotpath's kernel runtime (kruntime.o), so that they are
 * loaded into each image beside the kernel's code: the runner times a
 * kernel variant through its image's copies (struct hp_variant's burst),
 * the same bodies as libhotpath's (csum_bursts.h, crc32c_bursts.h, the fn
 * lab's fn_bursts.h and fn_mem_bursts.h),
 * built with libhotpath's flags but for the low 2 GiB (no PIC).
 *
 * Why: libhotpath is mapped far above the low 2 GiB where the kernel's
 * -mcmodel=kernel code must sit, and on a Zen 4 a call across that
 * distance cost 2 to 4 cycles more per call at 8 to 64 bytes than the
 * same call from a loop beside it (docs/kernel-source.md); the kernel's
 * callers sit beside it.
 *
 * Each image exports hp_kburst_<primitive>: its HP_BURST_SITES copies;
 * and the AVC's lookup loop, which the avc lab calls with the keys of the
 * cache it handed to the kernel's selinux_avc (c/avc/registry_avc_lookup.c).
 */
#include "../../csum/csum_bursts.h"
#include "../../crc32c/crc32c_bursts.h"
#include "../../fn/fn_bursts.h"
#include "../../fn/fn_mem_bursts.h"

#include <hotpath/avc.h>

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

/* The fn lab's crc and hash kinds (c/fn/fn_bursts.h): one set of copies per
 * primitive, as in libhotpath, so no two share a call site. */
#define FN_KBURST(prim, body)						\
	HP_BURST_COPIES(prim##_ksites, body);				\
	const hp_burst_fn *const hp_kburst_##prim = prim##_ksites

FN_KBURST(crc32_le, fn_crc32_burst);
FN_KBURST(crc32_be, fn_crc32_burst);
FN_KBURST(crc64_be, fn_crc64_burst);
FN_KBURST(crc64_rocksoft, fn_crc64_burst);
FN_KBURST(crc_t10dif, fn_crc16_burst);
FN_KBURST(crc16, fn_crc16_burst);
FN_KBURST(crc_itu_t, fn_crc16_burst);
FN_KBURST(jhash, fn_jhash_burst);
FN_KBURST(xxh32, fn_xxh32_burst);
FN_KBURST(xxh64, fn_hash64_burst);
FN_KBURST(siphash, fn_hash64_burst);
FN_KBURST(siphash_1u64, fn_hash64_burst);
FN_KBURST(siphash_2u64, fn_hash64_burst);

/* The fn lab's copy and search kinds (c/fn/fn_mem_bursts.h), with the
 * image's own buffers and copy geometry: the library hands the geometry of
 * the run to the image's through its kit (c/fn/registry_copy.c). */
struct hp_fn_copy_geom hp_fn_copy_geom;
uint8_t hp_fn_copy_area[HP_FN_AREA_BYTES] __attribute__((aligned(64)));
uint8_t hp_fn_search_area[HP_FN_AREA_BYTES] __attribute__((aligned(64)));

#define FN_KCOPY(prim, body)							\
	HP_FN_COPY_KIT(hp_fn_##prim##_kkit, body);				\
	const hp_burst_fn *const hp_kburst_##prim = hp_fn_##prim##_kkit.sites

FN_KCOPY(memcpy, fn_copy_burst);
FN_KCOPY(memmove, fn_copy_burst);
FN_KCOPY(memset, fn_memset_burst);
FN_KBURST(memchr, fn_memchr_burst);
FN_KBURST(strlen, fn_strlen_burst);
FN_KBURST(strnlen, fn_strnlen_burst);
FN_KBURST(find_next_bit, fn_find_bit_burst);

/* The avc lab's lookup_step(), calling a kernel's avc_search_node(): the
 * next key's index waits for the node found in latency mode. */
static inline __attribute__((always_inline)) uint64_t
avc_kernel_step(hp_avc_search_fn search, const struct hp_avc_key *keys, unsigned *i, uint64_t s)
{
	const struct hp_avc_key *k;

	__asm__("and $0,%0" : "+r"(s));
	k = &keys[(*i + s) & (HP_AVC_LOOKUP_KEYS - 1)];
	(*i)++;
	return (uintptr_t)search(k->ssid, k->tsid, k->tclass);
}

uint64_t hp_kburst_avc_loop(hp_avc_search_fn search, const struct hp_avc_key *keys, int mode,
			    unsigned n, uint64_t seed);
uint64_t hp_kburst_avc_loop(hp_avc_search_fn search, const struct hp_avc_key *keys, int mode,
			    unsigned n, uint64_t seed)
{
	unsigned i = 0;
	uint64_t s = seed;

	HP_OPAQUE(search);
	HP_OPAQUE(keys);
	return HP_BURST_MODES((enum hp_mode)mode, n, s, avc_kernel_step(search, keys, &i, s));
}
