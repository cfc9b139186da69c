// SPDX-License-Identifier: GPL-2.0-only
/*
 * Every CRC32C variant against the bitwise reference: the check value and
 * RFC 3720's vectors, every length 0..4096 at every alignment 0..63 (the
 * buffer ending at a guard page, so over-reads fault), initial values 0,
 * ~0 and random, and random lengths up to 1 MiB.
 */
#include "check.h"

#include <hotpath/bench.h>
#include <hotpath/crc32c.h>
#include <hotpath/guard.h>

#include <stdlib.h>
#include <string.h>

#define MAXLEN 4096
#define BIG (1u << 20)

struct variant {
	const char *name;
	hp_crc32c_fn fn;
	uint32_t needs;
};

#define FOLD (HP_CPU_SSE42 | HP_CPU_PCLMUL)
static const struct variant variants[] = {
	{ "bytewise-table", hp_crc32c_bytewise, 0 },
	{ "slice-by-8", hp_crc32c_slice8, 0 },
	{ "sse42-1stream", hp_crc32c_sse42, HP_CPU_SSE42 },
	{ "sse42-3way", hp_crc32c_sse42_3way, FOLD },
	{ "kernel-x86", hp_crc32c_kernel_x86, FOLD },
	{ "pclmul-fold4", hp_crc32c_pclmul_fold4, FOLD },
	{ "pclmul-fold8", hp_crc32c_pclmul_fold8, FOLD },
	{ "vpclmul-avx512", hp_crc32c_vpclmul_avx512, FOLD | HP_CPU_AVX512F |
	  HP_CPU_AVX512BW | HP_CPU_AVX512VL | HP_CPU_VPCLMUL },
	{ "fused-crc32-pclmul", hp_crc32c_fused, FOLD },
#ifdef HOTPATH_HAVE_ISAL
	{ "isal-crc32_iscsi", hp_crc32c_isal, 0 },
#endif
#ifdef HOTPATH_HAVE_DPDK
	{ "dpdk-rte_hash_crc", hp_crc32c_dpdk, 0 },
#endif
	{ "hotpath", hp_crc32c, 0 },
};
#define NVARIANTS (sizeof(variants) / sizeof(variants[0]))

static uint8_t src[MAXLEN + 64];
static uint32_t seeds[3];
static uint32_t expected[3][MAXLEN + 1];	/* prefix CRCs of src */

/* The sweep for one variant and alignment, run under hp_guarded_call(). */
struct sweep {
	const struct variant *v;
	struct hp_guarded *g;
	size_t align;
	volatile size_t len;	/* last length started, for a fault report */
	unsigned long bad;
	size_t first_bad_len;
};

static void sweep_lengths(void *arg)
{
	struct sweep *s = arg;

	for (size_t len = 0; len <= MAXLEN; len++) {
		uint8_t *p = hp_guarded_place(s->g, len, s->align);
		int si = (int)((len + s->align) % 3);

		s->len = len;
		memcpy(p, src, len);
		if (s->v->fn(seeds[si], p, len) != expected[si][len] &&
		    !s->bad++)
			s->first_bad_len = len;
	}
}

static uint32_t rnd32(void)
{
	return ((uint32_t)rand() << 16) ^ (uint32_t)rand();
}

static void test_reference(void)
{
	uint8_t v[32];

	CHECK(~hp_crc32c_ref(~0u, "123456789", 9) == 0xE3069283, "check");
	/* RFC 3720 B.4 (values there are after the final inversion) */
	memset(v, 0, 32);
	CHECK(~hp_crc32c_ref(~0u, v, 32) == 0x8A9136AA, "zeros");
	memset(v, 0xff, 32);
	CHECK(~hp_crc32c_ref(~0u, v, 32) == 0x62A8AB43, "ones");
	for (int i = 0; i < 32; i++)
		v[i] = (uint8_t)i;
	CHECK(~hp_crc32c_ref(~0u, v, 32) == 0x46DD794E, "incrementing");
	for (int i = 0; i < 32; i++)
		v[i] = (uint8_t)(31 - i);
	CHECK(~hp_crc32c_ref(~0u, v, 32) == 0x113FDB5C, "decrementing");
}

int main(void)
{
	uint32_t cpu = hp_crc32c_cpu();
	struct hp_guarded g;
	uint8_t *big;

	srand(4);
	for (size_t i = 0; i < sizeof(src); i++)
		src[i] = (uint8_t)rand();
	seeds[0] = 0;
	seeds[1] = 0xffffffffu;
	seeds[2] = rnd32();
	for (int s = 0; s < 3; s++) {
		expected[s][0] = seeds[s];
		for (size_t len = 0; len < MAXLEN; len++)
			expected[s][len + 1] =
				hp_crc32c_ref(expected[s][len], src + len, 1);
	}
	test_reference();
	if (hp_guarded_alloc(&g, BIG + 4096)) {
		perror("hp_guarded_alloc");
		return 2;
	}
	for (size_t i = 0; i < NVARIANTS; i++) {
		const struct variant *v = &variants[i];
		static const char check[] = "123456789";

		if ((cpu & v->needs) != v->needs) {
			printf("%s: skipped (CPU lacks a needed feature)\n",
			       v->name);
			continue;
		}
		CHECK(~v->fn(~0u, check, 9) == 0xE3069283, "%s check value",
		      v->name);
		for (size_t align = 0; align < 64; align++) {
			struct sweep s = { .v = v, .g = &g, .align = align };
			int faulted = hp_guarded_call(sweep_lengths, &s);

			CHECK(!faulted, "%s read outside the buffer at len %zu align %zu",
			      v->name, s.len, align);
			CHECK(!s.bad, "%s: %lu wrong lengths at align %zu, first %zu",
			      v->name, s.bad, align, s.first_bad_len);
		}
		/* random lengths up to 1 MiB, against the reference */
		for (int t = 0; t < 6; t++) {
			size_t len = (size_t)rnd32() % (BIG + 1);
			size_t align = (size_t)rand() % 64;
			uint32_t seed = rnd32();

			big = hp_guarded_place(&g, len, align);
			for (size_t j = 0; j < len; j++)
				big[j] = (uint8_t)(j * 131 + t);
			CHECK(v->fn(seed, big, len) == hp_crc32c_ref(seed, big, len),
			      "%s len %zu align %zu seed %08x", v->name, len,
			      align, seed);
		}
	}
	hp_guarded_free(&g);
	return check_summary("test_crc32c");
}
