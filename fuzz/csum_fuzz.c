// SPDX-License-Identifier: GPL-2.0-only
/*
 * libFuzzer differential target for the csum lab: every csum_partial
 * variant this CPU can run, within its domain, against its promise (the
 * registry's check(), as the correctness gate uses it); hp_csum() under
 * each path; and csum_fold, ip_fast_csum, csum_ipv6_magic and
 * csum_partial_copy against their references. The two variants known to
 * be wrong are held to their bugs' exact shape instead.
 * Input: 4 bytes of seed, 1 byte of alignment, then the data. The data is
 * copied to the end of a heap block of exactly its size, so that
 * AddressSanitizer reports any read past it.
 * Build and run: make fuzz-csum (fuzz/csum.mk).
 */
#include <hotpath/bench.h>
#include <hotpath/csum.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

extern const struct hp_primitive hp_prim_csum_partial;
extern const struct hp_primitive hp_prim_csum_fold;
extern const struct hp_primitive hp_prim_ip_fast_csum;
extern const struct hp_primitive hp_prim_csum_ipv6_magic;
extern const struct hp_primitive hp_prim_csum_partial_copy;

static void all_variants(const struct hp_primitive *p, const uint8_t *buf,
			 size_t len, uint32_t seed)
{
	uint32_t have = hp_cpu_features();
	uint64_t exp, got;

	for (size_t i = 0; i < p->nvariants; i++) {
		const struct hp_variant *v = &p->variants[i];
		int known_bug;

		if (v->unavailable || (v->needs & ~have))
			continue;
		if (len < v->min_len || (v->max_len && len > v->max_len))
			continue;
		if (p->size_ok && !p->size_ok(len))
			continue;
		known_bug = !strcmp(v->name, "kernel-5.17-rc") ||
			    !strcmp(v->name, "seed-two-streams-published");
		if (!known_bug && p->check(v, buf, len, seed, &exp, &got)) {
			fprintf(stderr, "%s %s: len %zu align %zu seed %#x: expected %#llx got %#llx\n",
				p->name, v->name, len,
				(size_t)((uintptr_t)buf & 63), seed,
				(unsigned long long)exp,
				(unsigned long long)got);
			abort();
		}
	}
}

/* kernel-5.17-rc is wrong exactly for odd addresses with seed % 257 != 0
 * (its fold is then off by 255 * seed mod 0xffff, never zero). */
static void rc_shape(const uint8_t *buf, size_t len, uint32_t seed)
{
	int bug = ((uintptr_t)buf & 1) && len && seed % 257;
	int ok = hp_csum_fold(hp_csum_kernel_5_17_rc(buf, (int)len, seed)) ==
		 hp_csum_fold(hp_csum_ref(buf, (int)len, seed));

	if (ok == bug) {
		fprintf(stderr, "kernel-5.17-rc: len %zu odd %d seed %#x: %s\n",
			len, (int)((uintptr_t)buf & 1), seed,
			ok ? "right where its bug says wrong" : "wrong where it should be right");
		abort();
	}
}

static void paths(const uint8_t *buf, size_t len, uint32_t seed)
{
	static const enum hp_csum_path all[] = {
		HP_CSUM_PATH_SCALAR, HP_CSUM_PATH_AVX2,
		HP_CSUM_PATH_AVX2_HYBRID, HP_CSUM_PATH_AVX512,
	};
	uint32_t want = hp_csum_scalar(buf, (int)len, seed);

	for (size_t i = 0; i < sizeof(all) / sizeof(*all); i++) {
		if (hp_csum_set_path(all[i]))
			continue;
		if (hp_csum(buf, (int)len, seed) != want) {
			fprintf(stderr, "hp_csum path %s: len %zu differs from scalar\n",
				hp_csum_path_name(all[i]), len);
			abort();
		}
	}
	hp_csum_set_path(HP_CSUM_PATH_AUTO);
}

int LLVMFuzzerTestOneInput(const uint8_t *in, size_t size)
{
	uint32_t seed;
	size_t align, len;
	uint8_t *mem, *buf;

	if (size < 5)
		return 0;
	memcpy(&seed, in, 4);
	align = in[4] & 63;
	len = size - 5;
	mem = malloc(align + len + 1);
	if (!mem)
		return 0;
	buf = mem + align;
	memcpy(buf, in + 5, len);

	all_variants(&hp_prim_csum_partial, buf, len, seed);
	rc_shape(buf, len, seed);
	paths(buf, len, seed);
	if (len >= 4)
		all_variants(&hp_prim_csum_fold, buf, 4, seed);
	if (len >= 60)
		all_variants(&hp_prim_ip_fast_csum, buf, 20 + 4 * (in[4] % 11), seed);
	if (len >= 40)
		all_variants(&hp_prim_csum_ipv6_magic, buf, 40, seed);
	all_variants(&hp_prim_csum_partial_copy, buf, len, seed);
	free(mem);
	return 0;
}
