// SPDX-License-Identifier: GPL-2.0-only
/*
 * The latency of each lab hash's bucket alone (issue 42): the inline twin
 * with its slot count's mask (hp: its shift) built in, as the kernel
 * inlines avc_hash() with AVC_CACHE_SLOTS a constant; each bucket the
 * next key, so the calls are chained. TSC ticks per bucket, the best of
 * 50 runs of 100,000 (multiply by the run's core cycles per tick, from
 * `hotpath avc`'s clock line, for cycles). Not a lookup: no memory, no
 * chain; what a hash adds to one, and why the shift-xor hash wins where
 * chains are short. (The lab's timed lookup calls the bucket function
 * through a pointer; a call's own cost there is the same for every hash.)
 *
 * Then issue 42's candidates (scripts/avc_candidates.c, included here with
 * BITS 9), each bucket among 512 slots: the top-bits forms as they are,
 * the low-bits forms masked.
 *
 *   cc -O2 -msse4.2 -Ic/include scripts/avc_hash_latency.c -o build/avc-hash-latency
 *   flock /tmp/hotpath-measure.lock build/avc-hash-latency
 */
#include <stdint.h>
#include <stdio.h>
#include <x86intrin.h>

#include <hotpath/avc_hash.h>

#define BITS 9
#include "avc_candidates.c"

#define CALLS 100000
#define RUNS 50

/* ticks per bucket of EXPR(x) over 2^BITS slots, chained through x */
#define LATENCY(expr)							\
	({								\
		double best_ = 1e30;					\
		for (int r_ = 0; r_ < RUNS; r_++) {			\
			uint32_t x = (uint32_t)r_;			\
			uint64_t t0_ = __rdtsc();			\
			for (int i_ = 0; i_ < CALLS; i_++) {		\
				x = (expr);				\
				__asm__ volatile("" : "+r"(x));		\
			}						\
			double t_ = (double)(__rdtsc() - t0_) / CALLS;	\
			best_ = t_ < best_ ? t_ : best_;		\
		}							\
		best_;							\
	})

/* the key a bucket makes: three fields that all depend on it */
#define KEY x, x + 7, (uint16_t)(x + 1)
#define LOW(h, b) (hp_avc_hash_##h##_inl(KEY) & ((1u << (b)) - 1))

#define ROW(name, e9, e13)						\
	printf("%-8s %10.2f %10.2f\n", name, LATENCY(e9), LATENCY(e13))

int main(void)
{
	printf("%-8s %10s %10s   (TSC ticks per chained bucket, by slots)\n", "hash",
	       "512", "8192");
	ROW("orig", LOW(orig, 9), LOW(orig, 13));
	ROW("muladd", LOW(muladd, 9), LOW(muladd, 13));
	ROW("murmur3", LOW(murmur3, 9), LOW(murmur3, 13));
	ROW("jhash", LOW(jhash, 9), LOW(jhash, 13));
	ROW("hp", hp_avc_hp_bucket_inl(KEY, 9), hp_avc_hp_bucket_inl(KEY, 13));
	/* the loop alone: what every row above carries */
	ROW("(loop)", x + 1, x + 1);

	printf("\n%-8s %10s   (issue 42's candidates, 512 slots)\n", "form", "512");
#define CAND(f, mask) printf("%-8s %10.2f\n", #f, LATENCY(f(KEY) & (mask)))
	CAND(fib, ~0u);
	CAND(ma64, ~0u);
	CAND(xm, ~0u);
	CAND(x3, ~0u);
	CAND(x3m, ~0u);
	CAND(mxs, 511u);
	CAND(mum, 511u);
	CAND(crc, 511u);
	CAND(lin4, 511u);
	CAND(lin4f, 511u);
	return 0;
}
