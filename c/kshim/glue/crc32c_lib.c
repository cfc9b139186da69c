// SPDX-License-Identifier: GPL-2.0-only
/*
 * hotpath's entry points into the CRC32C of lib/crc/x86 (Linux 6.17 and
 * later): the tree's crc32.h is included whole, as lib/crc/crc32-main.c
 * includes it, so crc32c_arch() and crc32_mod_init_arch() are the
 * tree's own:
 *
 * - hp_kshim_crc32c(): crc32-main.c's crc32c(), which is crc32c_arch():
 *   one crc32q stream below 512 bytes; from 512 either
 *   crc32_lsb_vpclmul_avx512() (a CPU with VPCLMULQDQ and an AVX-512 the
 *   kernel does not shun, X86_FEATURE_PREFER_YMM) or crc32c_x86_3way(),
 *   between kernel_fpu_begin() and kernel_fpu_end();
 * - hp_kshim_crc32c_3way(): crc32c_x86_3way() alone, at every length;
 * - hp_kshim_crc32c_vpclmul(): crc32_lsb_vpclmul_avx512() alone with the
 *   CRC32C constants, from 16 bytes (its shortest).
 *
 * crc32-main.c's generic functions stand in as below: what is timed never
 * reaches them (the variants need SSE4.2, and crc32_le is not timed).
 */
#include <linux/crc32.h>
#include <crc32.h>

u32 hp_crc32c_ref(u32 crc, const void *buf, size_t len);	/* libhotpath's */

/* The generic CRC32C: hotpath's bitwise reference, equal by the gate. */
u32 crc32c_base(u32 crc, const u8 *p, size_t len)
{
	return hp_crc32c_ref(crc, p, len);
}

/* CRC32 (IEEE), not timed: reaching it is a shim bug, and says so by dying. */
u32 crc32_le_base(u32 crc, const u8 *p, size_t len)
{
	(void)crc, (void)p, (void)len;
	__builtin_trap();
}

u32 crc32_be_base(u32 crc, const u8 *p, size_t len)
{
	(void)crc, (void)p, (void)len;
	__builtin_trap();
}

u32 hp_kshim_crc32c(u32 crc, const void *buf, size_t len);
u32 hp_kshim_crc32c_3way(u32 crc, const void *buf, size_t len);
u32 hp_kshim_crc32c_vpclmul(u32 crc, const void *buf, size_t len);

/* crc32-main.c's init: the arch's static keys and calls, for this CPU. */
__attribute__((constructor)) static void load_module(void)
{
	crc32_mod_init_arch();
}

u32 hp_kshim_crc32c(u32 crc, const void *buf, size_t len)
{
	return crc32c_arch(crc, buf, len);
}

u32 hp_kshim_crc32c_3way(u32 crc, const void *buf, size_t len)
{
	kernel_fpu_begin();
	crc = crc32c_x86_3way(crc, buf, len);
	kernel_fpu_end();
	return crc;
}

u32 hp_kshim_crc32c_vpclmul(u32 crc, const void *buf, size_t len)
{
	kernel_fpu_begin();
	crc = crc32_lsb_vpclmul_avx512(crc, buf, len,
				       crc32_lsb_0x82f63b78_consts.fold_across_128_bits_consts);
	kernel_fpu_end();
	return crc;
}
