// SPDX-License-Identifier: GPL-2.0-only
/*
 * Issue 42's candidate AVC hashes (docs/labs/avc.md), two ways:
 *
 * - timed beside the lab's hashes, each a --with variant; a top-bits
 *   candidate takes its slot count's log2 as BITS:
 *     hotpath avc --slots 512 --sizes 512 --modes latency \
 *       --with scripts/avc_candidates.c:fib ... '--with-cflags=-DBITS=9 -msse4.2'
 * - through the lab's own cache model (libhotpath's hp_avc_init/access and
 *   workload, as `hotpath avc --stats` runs them, which takes no --with):
 *     cc -O2 -msse4.2 -DAVC_CANDIDATES_MAIN -Ic/include \
 *       scripts/avc_candidates.c build/libhotpath.a -lm -o build/avc-candidates
 *     build/avc-candidates [TRACE]
 *   prints, per seed-table configuration, each candidate's buckets used and
 *   longest chain less the random hash's (means over 8 workload seeds, or
 *   the trace once).
 */
#include <stdint.h>

#ifdef AVC_CANDIDATES_MAIN
static unsigned int cand_bits;	/* the driver sets it per configuration */
#define BITS cand_bits
#elif !defined(BITS)
#define BITS 9
#endif
#define TOP64(x) ((uint32_t)((x) >> (64 - BITS)))
#define TOP32(x) ((uint32_t)(x) >> (32 - BITS))

/* the key packed: ssid high, tsid low, tclass between */
static inline uint64_t pack(uint32_t s, uint32_t t, uint16_t c)
{
	return ((uint64_t)s << 32 | t) ^ ((uint64_t)c << 20);
}

/* Fibonacci: one 64-bit multiply of the packed key, top bits */
uint32_t fib(uint32_t s, uint32_t t, uint16_t c)
{
	return TOP64(pack(s, t, c) * 0x8bb84b93962eacc9ull);
}

/* multiply-add in 64 bits, top bits */
uint32_t ma64(uint32_t s, uint32_t t, uint16_t c)
{
	return TOP64(s * 0x8bb84b93962eacc9ull + t * 0x2d358dccaa6c78a5ull +
		     c * 0x4b33a62ed433d4a3ull);
}

/* multiply-xorshift, low bits */
uint32_t mxs(uint32_t s, uint32_t t, uint16_t c)
{
	uint64_t p = pack(s, t, c) * 0x8bb84b93962eacc9ull;

	return (uint32_t)(p ^ (p >> 32));
}

/* wyhash's mum: (tclass, ssid) times tsid, salted, 64x64->128, halves xored */
uint32_t mum(uint32_t s, uint32_t t, uint16_t c)
{
	uint64_t a = ((uint64_t)c << 32 | s) ^ 0x2d358dccaa6c78a5ull;
	unsigned __int128 p = (unsigned __int128)a * (t ^ 0x8bb84b93962eacc9ull);

	return (uint32_t)((uint64_t)p ^ (uint64_t)(p >> 64));
}

/* the CRC32C instruction (SSE 4.2) over the packed key, low bits */
uint32_t crc(uint32_t s, uint32_t t, uint16_t c)
{
	return (uint32_t)__builtin_ia32_crc32di(0, pack(s, t, c));
}

/* two 64-bit products xored, top bits */
uint32_t xm(uint32_t s, uint32_t t, uint16_t c)
{
	return TOP64(((uint64_t)c << 32 | s) * 0x8bb84b93962eacc9ull ^
		     (uint64_t)t * 0x2d358dccaa6c78a5ull);
}

/* three 32-bit products xored, top bits: hp since issue 42 */
uint32_t x3(uint32_t s, uint32_t t, uint16_t c)
{
	return TOP32(s * 0x962eacc9u ^ t * 0xaa6c78a5u ^ c * 0xd433d4a3u);
}

/* the same with the seed's muladd constants */
uint32_t x3m(uint32_t s, uint32_t t, uint16_t c)
{
	return TOP32(s * 0x9e3779b9u ^ t * 0x85ebca77u ^ c * 0xc2b2ae35u);
}

/*
 * orig's cost, no multiply: the shifts of the original hash changed to
 * those that came closest to the random hash's buckets on the synthetic
 * workload (s ^ t << k1 ^ c << k2, k1 0..12, k2 0..12), low bits. Linear:
 * (s ^ 16 d, t ^ d, c) shares (s, t, c)'s bucket for every d.
 */
uint32_t lin4(uint32_t s, uint32_t t, uint16_t c)
{
	return s ^ t << 4 ^ c;
}

/* lin4 with the SIDs' bits 16 and up folded in, for clustered SIDs */
uint32_t lin4f(uint32_t s, uint32_t t, uint16_t c)
{
	return s ^ t << 4 ^ c ^ s >> 16 ^ t >> 16;
}

/*
 * Depth-5 forms (third session): at most 5 cycles from the loaded keys to
 * the bucket on a core with a 3-cycle crc32 and imul. The CRC32C
 * instruction xors its accumulator into the first bits of its data before
 * reducing (crc32l(a, d) is a function of a ^ d alone; crc32w(a, d) of
 * a ^ d in d's 16 bits), so a CRC of two inputs is blind to bits they
 * share.
 */

/* CRC32C of (ssid, tsid), tclass's product xored in parallel, low bits:
 * a function of ssid ^ tsid and tclass */
uint32_t crc2(uint32_t s, uint32_t t, uint16_t c)
{
	return __builtin_ia32_crc32si(s, t) ^ c * 0xd433d4a3u;
}

/* ssid's product xored with the CRC32C of (tsid, tclass), top bits: one
 * multiply and one crc32 side by side, one xor, the shift */
uint32_t mc(uint32_t s, uint32_t t, uint16_t c)
{
	return TOP32(s * 0x962eacc9u ^ __builtin_ia32_crc32si(t, c));
}

/* mc with the 16-bit crc32 (crc32w): tsid's bits 16 and up only shift
 * down into the CRC's low bits, so the top bits never see them */
uint32_t mcw(uint32_t s, uint32_t t, uint16_t c)
{
	return TOP32(s * 0x962eacc9u ^ __builtin_ia32_crc32hi(t, c));
}

/* mc with the SIDs' roles swapped */
uint32_t mct(uint32_t s, uint32_t t, uint16_t c)
{
	return TOP32(t * 0xaa6c78a5u ^ __builtin_ia32_crc32si(s, c));
}

/*
 * Forms with no second 3-cycle step, 5 cycles: rotates, adds and xors
 * only (the best rotations of a sweep through the model), or one multiply
 * with the other SID and tclass through such ALU steps. A rotation brings
 * 9 (13) of a SID's bits into the bucket; two bring 18 (26), short of
 * what the workloads' SIDs carry (bits 0..11, blocks at bit 12 or 16).
 */
static inline uint32_t ror32(uint32_t x, unsigned int r)
{
	return x >> r | x << (32 - r);
}

/* ARX, depth 5 with the mask, low bits */
uint32_t arx(uint32_t s, uint32_t t, uint16_t c)
{
	return (s + ror32(t, 26)) ^ (t + ror32(s ^ c, 9));
}

/* ssid's product xored with an ARX mix of tsid and tclass, top bits */
uint32_t mg(uint32_t s, uint32_t t, uint16_t c)
{
	return TOP32(s * 0x962eacc9u ^ ((ror32(t, 8) + ror32(t, 20)) ^ ror32(c, 9)));
}

/*
 * mg with a third rotation of tsid (the best triple of a sweep through
 * the model): the rotations and both adds side by side with the
 * multiply, one xor before the product's arrives, one after, the shift.
 * One multiply, so on a core with one multiply pipe nothing waits for it:
 * 5 cycles from the loaded keys.
 */
uint32_t mr(uint32_t s, uint32_t t, uint16_t c)
{
	uint32_t g = (ror32(t, 19) + ror32(t, 23)) ^ (ror32(t, 8) + ror32(c, 9));

	return TOP32(s * 0x962eacc9u ^ g);
}

#ifdef AVC_CANDIDATES_MAIN
#include <hotpath/avc.h>
#include <hotpath/rng.h>
#include <stdio.h>

/* registry_avc_lookup.c's random stand-in (splitmix64 of the key) */
static uint32_t ideal(uint32_t s, uint32_t t, uint16_t c)
{
	uint64_t x = ((uint64_t)s << 32 | t) ^ ((uint64_t)c << 17) ^
		     0x2545f4914f6cdd1dull;

	return (uint32_t)hp_rng_next(&x);
}

static const struct { const char *name; hp_avc_hash_fn fn; } cands[] = {
	{ "orig", hp_avc_hash_orig }, { "muladd", hp_avc_hash_muladd },
	{ "murmur3", hp_avc_hash_murmur3 }, { "hp", hp_avc_hash_hp },
	{ "fib", fib }, { "ma64", ma64 }, { "mxs", mxs }, { "mum", mum },
	{ "crc", crc }, { "xm", xm }, { "x3", x3 }, { "x3m", x3m },
	{ "lin4", lin4 }, { "lin4f", lin4f }, { "crc2", crc2 }, { "mc", mc },
	{ "mcw", mcw }, { "mct", mct }, { "arx", arx }, { "mg", mg },
	{ "mr", mr },
};

static struct hp_avc_key *trace;
static size_t ntrace;

/* `hotpath avc --stats`' means: 1,000,000 checks (or the trace once),
 * hash_stats sampled 100 times, over 8 workload seeds (a trace: 1) */
static void model(hp_avc_hash_fn fn, uint32_t slots, uint32_t nodes,
		  double *used, double *longest)
{
	int runs = ntrace ? 1 : 8;

	*used = *longest = 0;
	for (int r = 0; r < runs; r++) {
		struct hp_avc_params cp;
		struct hp_avc_cache c;
		struct hp_avc_workload_params wp;
		struct hp_avc_workload w;
		unsigned long checks = ntrace ? ntrace : 1000000, taken = 0;
		double u = 0, l = 0;

		hp_avc_params_init(&cp);
		cp.slots = slots;
		cp.threshold = nodes;
		cp.hash = fn;
		hp_avc_workload_params_init(&wp);
		wp.seed = 1 + r;
		if (hp_avc_init(&c, &cp) || hp_avc_workload_init(&w, &wp))
			return;
		for (unsigned long i = 1; i <= checks; i++) {
			struct hp_avc_key k;
			struct hp_avc_hash_counts hc;

			if (ntrace)
				k = trace[i - 1];
			else
				hp_avc_workload_next(&w, &k.ssid, &k.tsid, &k.tclass);
			hp_avc_access(&c, k.ssid, k.tsid, k.tclass);
			if (i % (checks / 100))
				continue;
			hp_avc_get_hash_counts(&c, &hc);
			u += hc.buckets_used;
			l += hc.longest_chain;
			taken++;
		}
		*used += u / taken / slots / runs;
		*longest += l / taken / runs;
		hp_avc_workload_destroy(&w);
		hp_avc_destroy(&c);
	}
}

int main(int argc, char **argv)
{
	static const uint32_t cfg[][2] = { { 512, 512 }, { 1024, 512 },
		{ 2048, 512 }, { 8192, 8192 }, { 8192, 512 }, { 8192, 4096 } };
	const char *why;

	if (argc > 1 && (why = hp_avc_load_trace(argv[1], &trace, &ntrace))) {
		fprintf(stderr, "%s: %s\n", argv[1], why);
		return 2;
	}
	printf("buckets used (points) / longest chain against the random hash's\n%-10s", "config");
	for (size_t i = 0; i < sizeof(cands) / sizeof(cands[0]); i++)
		printf(" %12s", cands[i].name);
	printf("\n");
	for (size_t k = 0; k < 6; k++) {
		double ru, rl;

		cand_bits = (unsigned int)__builtin_ctz(cfg[k][1]);
		model(ideal, cfg[k][1], cfg[k][0], &ru, &rl);
		printf("%5u/%-4u", cfg[k][0], cfg[k][1]);
		for (size_t i = 0; i < sizeof(cands) / sizeof(cands[0]); i++) {
			double u, l;

			model(cands[i].fn, cfg[k][1], cfg[k][0], &u, &l);
			printf(" %+5.1f/%+6.3f", (u - ru) * 100, l - rl);
		}
		printf("\n");
		fflush(stdout);
	}
	return 0;
}
#endif
