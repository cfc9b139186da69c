/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Internet checksum (RFC 1071) as the Linux kernel computes it:
 * csum_partial() returns a 32-bit partial sum whose exact value differs
 * between kernel versions; what every version must agree on is
 * csum_fold() of it, the 16-bit ones' complement checksum.
 *
 * The lab's primitives (each with its own registry in c/csum/):
 * csum_partial, csum_fold, csum_ipv6_magic, ip_fast_csum and
 * csum_partial_copy.
 */
#ifndef HOTPATH_CSUM_H
#define HOTPATH_CSUM_H

#include <hotpath/dispatch.h>	/* enum hp_csum_path: the row's methods */
#include <hpsum.h>
#include <stddef.h>
#include <stdint.h>

/* The kernel's signature: __wsum csum_partial(const void *, int, __wsum). */
typedef uint32_t (*hp_csum_fn)(const void *buf, int len, uint32_t sum);

/*
 * What a csum_partial variant promises (struct hp_variant.promise), from
 * weakest to strongest. "Raw" is the returned 32 bits before csum_fold().
 * Any variant that sums the buffer's words at their natural offsets with
 * end-around carry returns the canonical sum, so at even addresses it is
 * bit-identical to kernel 5.17; at odd addresses 5.17 returns its sum
 * folded to 16 bits and byte-swapped, which only the variants keeping
 * 5.17's odd-address code reproduce.
 */
enum hp_csum_promise {
	/* csum_fold(result) equals csum_fold(reference) for every seed */
	HP_CSUM_FOLD = 0,
	/* raw result equals kernel 5.17's at even addresses; csum_fold
	 * equal to the reference's at odd ones */
	HP_CSUM_RAW_EVEN = 1,
	/* raw result equals kernel 5.17's at every address */
	HP_CSUM_RAW = 2,
	/* the input sum is ignored: csum_fold(result) equals the
	 * reference's for the buffer alone (seed 0), whatever the seed */
	HP_CSUM_FOLD_NOSEED = 3,
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

/* hp_csum_fold(), csum_fold(), is <hpsum.h>'s, with hp_csum(). */

/* ---- hotpath's own csum_partial (c/csum/csum_hp*.c) ---- */

/* enum hp_csum_path (the paths, a dispatch row's csum methods) and their
 * names are <hotpath/dispatch.h>'s: the checksum asks dispatch, never the
 * reverse. */

/* hp_csum() itself is declared in <hpsum.h>, the linkable library's
 * header: any length, alignment and seed. */
/* Force a path (0), or -1 with errno ENOTSUP when this CPU lacks it.
 * HOTPATH_CSUM_FORCE=scalar|avx2|avx2-hybrid|avx512 does the same
 * when the library loads. */
int hp_csum_set_path(enum hp_csum_path path);
struct hp_dispatch_row;
void hp_csum_use_row(const struct hp_dispatch_row *row);
enum hp_csum_path hp_csum_get_path(void);
const char *hp_csum_path_name(enum hp_csum_path path);
/*
 * For tests/c/test_dispatch.c (hidden in the libraries): the plan of one
 * address parity from @n step functions (step 0 is the scalar path,
 * whatever fn[0]; the test passes probes to see which step each length
 * reaches); the function a path runs on this CPU (after its fallback);
 * and the function hp_csum() runs for @len at @buf (hp_csum_scalar for
 * its own adc chains).
 */
__attribute__((visibility("hidden")))
void hp__csum_plan_fns(int odd, const uint32_t *from, const hp_csum_fn *fn, int n);
__attribute__((visibility("hidden"))) hp_csum_fn hp__csum_method_fn(enum hp_csum_path path);
/* The path a row's method @path runs as on this CPU (after its fallback),
 * for the runner's listing. */
__attribute__((visibility("hidden"))) enum hp_csum_path hp__csum_method_runs(enum hp_csum_path path);
__attribute__((visibility("hidden"))) hp_csum_fn hp__csum_fn_for(const void *buf, int len);
/* The paths themselves, each valid for any length. */
uint32_t hp_csum_scalar(const void *buf, int len, uint32_t sum);
uint32_t hp_csum_avx2(const void *buf, int len, uint32_t sum);
uint32_t hp_csum_avx2_hybrid(const void *buf, int len, uint32_t sum);
uint32_t hp_csum_avx512(const void *buf, int len, uint32_t sum);

/* ---- csum_partial variants (registered in c/csum/registry.c) ---- */

/* Kernel 5.17 (Eric Dumazet's rewrite), odd-address seed fixed. */
uint32_t hp_csum_kernel_5_17(const void *buf, int len, uint32_t sum);
/* The first 5.17 code, seed 000's baseline: odd address + seed is wrong. */
uint32_t hp_csum_kernel_5_17_rc(const void *buf, int len, uint32_t sum);
/* 2023: len == 40 fast path, 64-byte loop as two 32-byte chains. */
uint32_t hp_csum_kernel_2023(const void *buf, int len, uint32_t sum);
/* 2024: 40-byte blocks, 80-byte loop of two chains, no odd handling. */
uint32_t hp_csum_kernel_2024(const void *buf, int len, uint32_t sum);
/* Seed 000's ladder (c/csum/csum_seed_ladder.c). */
uint32_t hp_csum_seed_specialised(const void *buf, int len, uint32_t sum);
uint32_t hp_csum_seed_no_odd(const void *buf, int len, uint32_t sum);
uint32_t hp_csum_seed_dead_code(const void *buf, int len, uint32_t sum);
uint32_t hp_csum_seed_adx(const void *buf, int len, uint32_t sum);
uint32_t hp_csum_seed_two_streams(const void *buf, int len, uint32_t sum);
uint32_t hp_csum_seed_two_streams_published(const void *buf, int len,
					    uint32_t sum);
uint32_t hp_csum_seed_32bit(const void *buf, int len, uint32_t sum);
uint32_t hp_csum_seed_zero_sum(const void *buf, int len, uint32_t sum);
/* DPDK's rte_raw_cksum() (a peer; a stub when built without DPDK). */
uint32_t hp_csum_dpdk(const void *buf, int len, uint32_t sum);

/* ---- The rest of the family: one primitive each ---- */

/*
 * csum_fold(): 32-bit partial sum to the 16-bit complemented checksum.
 * Size means nothing here; the primitive's only size is 4 (the input's
 * bytes).
 */
typedef uint16_t (*hp_fold_fn)(uint32_t sum);
uint16_t hp_fold_ref(uint32_t sum);
uint16_t hp_fold_kernel(uint32_t sum);
uint16_t hp_fold_hp(uint32_t sum);

/*
 * ip_fast_csum(): checksum of an IPv4 header of @ihl 32-bit words
 * (5..15). The primitive's size is the header's bytes, 4 * ihl: a
 * multiple of 4 from 20 to 60. No input sum, so no latency chain.
 */
typedef uint16_t (*hp_ip_fast_fn)(const void *iph, unsigned int ihl);
uint16_t hp_ip_fast_csum_ref(const void *iph, unsigned int ihl);
uint16_t hp_ip_fast_csum_kernel(const void *iph, unsigned int ihl);
uint16_t hp_ip_fast_csum_hp(const void *iph, unsigned int ihl);

/*
 * csum_ipv6_magic(): the IPv6 pseudo-header checksum (RFC 8200 8.1):
 * source and destination addresses, upper-layer length, next header,
 * plus @sum, folded and complemented. The primitive's size is 40 (the
 * pseudo-header's bytes); its buffer holds saddr at 0, daddr at 16, the
 * length as a little-endian u32 at 32 and the protocol at 36.
 */
typedef uint16_t (*hp_ipv6_magic_fn)(const void *saddr, const void *daddr,
				     uint32_t len, uint8_t proto,
				     uint32_t sum);
uint16_t hp_ipv6_magic_ref(const void *saddr, const void *daddr,
			   uint32_t len, uint8_t proto, uint32_t sum);
uint16_t hp_ipv6_magic_kernel(const void *saddr, const void *daddr,
			      uint32_t len, uint8_t proto, uint32_t sum);
uint16_t hp_ipv6_magic_hp(const void *saddr, const void *daddr,
			  uint32_t len, uint8_t proto, uint32_t sum);

/*
 * csum_partial_copy(): copy @len bytes from @src to @dst and return
 * their partial sum continued from @sum (the pre-5.10 kernel signature,
 * which still had the seed). Size is the bytes copied, up to 64 KiB.
 */
typedef uint32_t (*hp_csum_copy_fn)(const void *src, void *dst, int len,
				    uint32_t sum);

/* What a csum_partial_copy variant promises besides the exact copy. */
enum hp_csum_copy_promise {
	/* csum_fold(result) equals the reference's */
	HP_CSUM_COPY_FOLD = 0,
	/* equal in one's complement: a folded 0 and 0xffff are one value.
	 * The kernel's csum_partial_copy_nocheck() has seeded its sum with
	 * ~0 since Linux 5.10 (so that 0 can mean a fault), so a buffer
	 * whose sum is zero folds to 0 where RFC 1071 gives 0xffff. */
	HP_CSUM_COPY_ONES = 1,
};
uint32_t hp_csum_copy_ref(const void *src, void *dst, int len, uint32_t sum);
uint32_t hp_csum_copy_kernel(const void *src, void *dst, int len,
			     uint32_t sum);
uint32_t hp_csum_copy_hp(const void *src, void *dst, int len, uint32_t sum);

/**
 * hp_csum_copy_avx2() - csum_partial_copy in one AVX2 pass.
 * @src: bytes to copy, any alignment
 * @dst: where to copy them, any alignment, not overlapping @src
 * @len: length in bytes, >= 0
 * @sum: 32-bit partial sum to continue from
 *
 * Each 32-byte vector is loaded once, stored, and summed from the
 * register (c/csum/csum_copy_avx2.c). Needs AVX2. Reads only
 * [@src, @src + @len), writes only [@dst, @dst + @len).
 *
 * Return: the canonical 32-bit sum of @sum and the bytes (the bits
 * hp_csum_scalar() returns for @src); csum_fold() of it equals the
 * reference's.
 */
uint32_t hp_csum_copy_avx2(const void *src, void *dst, int len,
			   uint32_t sum);

#endif /* HOTPATH_CSUM_H */
