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
 * Two keys made from the last bucket x, a column each:
 * - staggered: (x, x + 7, x + 1), ssid ready a cycle before tsid and
 *   tclass (an add, and for a 32-bit use of tclass its zero extension);
 * - together: each field one xor from x, as three loads arrive at once
 *   (tclass already zero-extended, as a 16-bit load leaves it). Where a
 *   core has one pipe for imul and crc32 (Zen 4: two of them started in
 *   one cycle finish a cycle apart), this column shows it and the
 *   staggered one hides it. The three fields come from one x, so a form
 *   that xors two of them (arx's ssid ^ tclass) folds to a constant
 *   here: read such a form by its count.
 * Each column carries its key's one cycle (the "(loop)" row).
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

/* the keys a bucket makes: three fields that all depend on it */
#define KEY x, x + 7, (uint16_t)(x + 1)
#define KEYT xs_, xt_, (uint16_t)xc_

/* ticks per bucket of EXPR, written over KEYT: the fields together */
#define TOGETHER(expr)							\
	({								\
		uint32_t a_ = k_s, b_ = k_t, d_ = k_c & 0xffff;		\
		LATENCY(({						\
			uint32_t xs_ = x ^ a_, xt_ = x ^ b_, xc_ = x ^ d_; \
			(void)xt_;					\
			if (xc_ > 0xffff)				\
				__builtin_unreachable();		\
			(expr);						\
		}));							\
	})
/* opaque to the compiler, so the fields are computed per bucket */
static volatile uint32_t k_s = 3, k_t = 7, k_c = 1;

#define LOW(h, b) (hp_avc_hash_##h##_inl(KEY) & ((1u << (b)) - 1))
#define LOWT(h, b) (hp_avc_hash_##h##_inl(KEYT) & ((1u << (b)) - 1))

#define ROW(name, e9, e13, t9, t13)					\
	printf("%-8s %10.2f %10.2f %10.2f %10.2f\n", name, LATENCY(e9),	\
	       LATENCY(e13), TOGETHER(t9), TOGETHER(t13))
#define LAB(h) ROW(#h, LOW(h, 9), LOW(h, 13), LOWT(h, 9), LOWT(h, 13))

int main(void)
{
	printf("%-8s %10s %10s %10s %10s   (TSC ticks per chained bucket, by slots;\n"
	       "%-8s %10s %10s %10s %10s    the key's fields staggered, then together)\n",
	       "hash", "512", "8192", "512", "8192", "", "stagg.", "stagg.", "together", "together");
	LAB(orig);
	LAB(muladd);
	LAB(murmur3);
	LAB(jhash);
	ROW("hp", hp_avc_hp_bucket_inl(KEY, 9), hp_avc_hp_bucket_inl(KEY, 13),
	    hp_avc_hp_bucket_inl(KEYT, 9), hp_avc_hp_bucket_inl(KEYT, 13));
	/* the loop alone: what every row above carries */
	ROW("(loop)", x + 1, x + 1, xs_, xs_);

	printf("\n%-8s %10s %10s   (issue 42's candidates, 512 slots)\n", "form",
	       "stagg.", "together");
#define CAND(f, mask)							\
	printf("%-8s %10.2f %10.2f\n", #f, LATENCY(f(KEY) & (mask)),	\
	       TOGETHER(f(KEYT) & (mask)))
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
	CAND(crc2, 511u);
	CAND(mc, ~0u);
	CAND(mcw, ~0u);
	CAND(mct, ~0u);
	CAND(arx, 511u);
	CAND(mg, ~0u);
	CAND(mr, ~0u);
	return 0;
}
