// SPDX-License-Identifier: GPL-2.0-only
/*
 * libFuzzer differential target: every CRC32C variant this CPU can run,
 * the combines and the sk_buff walks against the bitwise reference.
 * Input: 4 bytes of initial CRC, 2 bytes of split point, then the data.
 * Build and run: make fuzz-crc32c (fuzz/crc32c.mk).
 */
#include <hotpath/bench.h>
#include <hotpath/crc32c.h>
#include <hotpath/skb.h>

#include <stdlib.h>
#include <string.h>

static const hp_crc32c_fn fast[] = {
	hp_crc32c_bytewise, hp_crc32c_slice8, hp_crc32c_sse42,
	hp_crc32c_sse42_3way, hp_crc32c_kernel_x86, hp_crc32c_pclmul_fold4,
	hp_crc32c_pclmul_fold8, hp_crc32c_fused, hp_crc32c,
#ifdef HOTPATH_HAVE_ISAL
	hp_crc32c_isal,
#endif
};

static const hp_crc32c_combine_fn combines[] = {
	hp_crc32c_combine_matrix, hp_crc32c_combine_gf2mul,
	hp_crc32c_combine_xpow, hp_crc32c_combine_clmul,
	hp_crc32c_combine_clmul_const,
};

int LLVMFuzzerTestOneInput(const uint8_t *in, size_t size)
{
	uint32_t seed, want, c1, c2;
	size_t cut, len;
	uint8_t *data;
	struct hp_skb skb;

	if (size < 6)
		return 0;
	memcpy(&seed, in, 4);
	cut = (size_t)in[4] | (size_t)in[5] << 8;
	len = size - 6;
	/* an exact-size heap copy: ASan reports any read past its end */
	data = malloc(len ? len : 1);
	memcpy(data, in + 6, len);
	cut = len ? cut % (len + 1) : 0;

	want = hp_crc32c_ref(seed, data, len);
	for (size_t i = 0; i < sizeof(fast) / sizeof(fast[0]); i++)
		if (fast[i](seed, data, len) != want)
			abort();
	if ((hp_crc32c_cpu() & HP_CPU_AVX512F) && (hp_crc32c_cpu() & HP_CPU_VPCLMUL) &&
	    hp_crc32c_vpclmul_avx512(seed, data, len) != want)
		abort();

	c1 = hp_crc32c_ref(seed, data, cut);
	c2 = hp_crc32c_ref(0, data + cut, len - cut);
	for (size_t i = 0; i < sizeof(combines) / sizeof(combines[0]); i++)
		if (combines[i](c1, c2, len - cut) != want)
			abort();

	/* head of cut bytes, the rest in page fragments (if they fit) */
	if (!hp_skb_build_split(&skb, data, len, cut)) {
		if (hp_skb_crc32c(&skb, 0, (int)len, seed) != want ||
		    hp_skb_crc32c_hotpath(&skb, 0, (int)len, seed) != want ||
		    hp_skb_checksum_generic(&skb, 0, (int)len, seed,
					    &hp_skb_crc32c_ops_gf2mul) != want)
			abort();
	}
	free(data);
	return 0;
}
