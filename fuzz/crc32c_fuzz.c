// SPDX-License-Identifier: GPL-2.0-only
/*
 * libFuzzer differential target: every variant of the crc32c,
 * crc32c_combine and skb_crc32c_* registries that this CPU runs, within
 * its domain, against the bitwise reference. The registries are the
 * list: a variant added there is fuzzed here. No variant of these
 * primitives is known to be wrong, so any miss aborts.
 * Input: 4 bytes of initial CRC, 2 bytes of split point, then the data.
 * Build and run: make fuzz-crc32c (fuzz/crc32c.mk).
 */
#include <hotpath/bench.h>
#include <hotpath/crc32c.h>
#include <hotpath/skb.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

extern const struct hp_primitive hp_prim_crc32c;
extern const struct hp_primitive hp_prim_crc32c_combine;
extern const struct hp_primitive hp_prim_skb_crc32c_linear;
extern const struct hp_primitive hp_prim_skb_crc32c_nonlinear;

static const struct hp_primitive *const skb_prims[] = {
	&hp_prim_skb_crc32c_linear,
	&hp_prim_skb_crc32c_nonlinear,
};
#define NSKB_PRIMS (sizeof(skb_prims) / sizeof(skb_prims[0]))

/* The skb primitives' variant signature (registry_skb.c): a whole walk. */
typedef uint32_t (*skb_walk_fn)(const struct hp_skb *skb, uint32_t crc);

/* Whether @v can run here on a size of @len (the primitive's size). */
static int runs(const struct hp_variant *v, size_t len)
{
	if (v->unavailable || (v->needs & ~hp_cpu_features()))
		return 0;
	return len >= v->min_len && (!v->max_len || len <= v->max_len);
}

/*
 * The skb primitives share their walks (they differ in the sk_buff their
 * burst builds): whether variant @i of skb_prims[@k] is a walk already
 * run on this input (@len bytes).
 */
static int walked_before(size_t k, size_t i, size_t len)
{
	const void *fn = skb_prims[k]->variants[i].fn;

	for (size_t pk = 0; pk <= k; pk++) {
		const struct hp_primitive *p = skb_prims[pk];
		size_t n = pk < k ? p->nvariants : i;

		for (size_t pi = 0; pi < n; pi++)
			if (p->variants[pi].fn == fn &&
			    runs(&p->variants[pi], len))
				return 1;
	}
	return 0;
}

static void __attribute__((noreturn))
miss(const struct hp_primitive *p, const struct hp_variant *v, size_t len,
     size_t cut, uint32_t seed, uint32_t want, uint32_t got)
{
	fprintf(stderr, "%s %s: len %zu cut %zu seed %#x: expected %#x got %#x\n",
		p->name, v->name, len, cut, seed, want, got);
	abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *in, size_t size)
{
	const struct hp_primitive *p;
	uint32_t seed, want, c1, c2, got;
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

	/* every variant against one reference CRC: what check() compares
	 * for HP_CRC32C_EQUAL, without the reference rerun per variant */
	want = hp_crc32c_ref(seed, data, len);
	p = &hp_prim_crc32c;
	for (size_t i = 0; i < p->nvariants; i++) {
		const struct hp_variant *v = &p->variants[i];

		if (v->fn == (const void *)hp_crc32c_ref || !runs(v, len))
			continue;
		got = ((hp_crc32c_fn)v->fn)(seed, data, len);
		if (got != want)
			miss(p, v, len, cut, seed, want, got);
	}

	/* combine the CRCs of the two pieces either side of the cut */
	c1 = hp_crc32c_ref(seed, data, cut);
	c2 = hp_crc32c_ref(0, data + cut, len - cut);
	p = &hp_prim_crc32c_combine;
	for (size_t i = 0; i < p->nvariants; i++) {
		const struct hp_variant *v = &p->variants[i];

		if (!runs(v, len - cut))
			continue;
		got = ((hp_crc32c_combine_fn)v->fn)(c1, c2, len - cut);
		if (got != want)
			miss(p, v, len, cut, seed, want, got);
	}

	/* every walk over a head of cut bytes, the rest in page fragments
	 * (if they fit): the fuzzer picks the geometry through the cut */
	if (!hp_skb_build_split(&skb, data, len, cut)) {
		for (size_t k = 0; k < NSKB_PRIMS; k++) {
			p = skb_prims[k];
			for (size_t i = 0; i < p->nvariants; i++) {
				const struct hp_variant *v = &p->variants[i];

				if (!runs(v, len) || walked_before(k, i, len))
					continue;
				got = ((skb_walk_fn)v->fn)(&skb, seed);
				if (got != want)
					miss(p, v, len, cut, seed, want, got);
			}
		}
	}
	free(data);
	return 0;
}
