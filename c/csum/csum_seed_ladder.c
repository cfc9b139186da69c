// SPDX-License-Identifier: GPL-2.0-only
/*
 * Seed 000's ladder (Arjan van de Ven's csum_partial notes): each step the
 * notes took from kernel 5.17 toward a 40-byte IPv6-header checksum, as
 * its own variant so that each is checked and timed on its own. The
 * baseline is kernel-5.17 itself (csum_kernel_5_17.c).
 *
 * Steps from "dead code removed" on only handle len == 40 (the registry
 * says so with min_len = max_len = 40). Tails use 4/2/1-byte loads instead
 * of load_unaligned_zeropad() so that nothing is read past the buffer.
 *
 * Each step's asm is written out whole, as the notes list it, though
 * neighbouring steps share lines (steps 5 and 7 end alike, step 5 as
 * printed differs from step 5 by one instruction): a step is read against
 * its listing, and a change to one step must not move another.
 */
#include <hotpath/csum.h>

#include "csum_impl.h"

/* Kernel 5.17 minus the odd-address dance: unaligned loads are cheap, and
 * summing from the buffer's start already pairs bytes as RFC 1071 does. */
static inline __attribute__((always_inline)) uint32_t
csum_no_odd(const uint8_t *buff, int len, uint32_t sum)
{
	uint64_t temp64 = sum;

	while (__builtin_expect(len >= 64, 0)) {
		temp64 = csum_adc32(temp64, buff);
		temp64 = csum_adc32(temp64, buff + 32);
		buff += 64;
		len -= 64;
	}
	temp64 = csum_adc_rest63(temp64, buff, len);
	return csum_add32c(temp64 >> 32, temp64 & 0xffffffff);
}

/*
 * Step 1, "specialised": the notes branch on a compile-time len == 40 in
 * an inline wrapper and call the same body either way. Out of line the
 * constant is gone, so the branch tests len at run time; both arms are
 * the unchanged 5.17 code, which is why the step gained nothing.
 */
uint32_t hp_csum_seed_specialised(const void *buf, int len, uint32_t sum)
{
	if (len == 40)
		return hp_csum_kernel_5_17(buf, 40, sum);
	return hp_csum_kernel_5_17(buf, len, sum);
}

/* Step 2, "odd-alignment handling removed": any length. */
uint32_t hp_csum_seed_no_odd(const void *buf, int len, uint32_t sum)
{
	return csum_no_odd(buf, len, sum);
}

/* Step 3, "dead code removed": one 40-byte chain, one fold. 40 bytes only. */
uint32_t hp_csum_seed_dead_code(const void *buf, int len, uint32_t sum)
{
	uint64_t temp64 = csum_adc40(sum, buf);

	return csum_add32c(temp64 >> 32, temp64 & 0xffffffff);
}

/*
 * Step 4, ADX: words 0..3 on a CF-only chain (adcx), the seed, word 4 and
 * that chain's result on an OF-only chain (adox). The xor clears both
 * flags and gives the zero that absorbs each chain's last carry.
 */
__attribute__((target("adx")))
uint32_t hp_csum_seed_adx(const void *buf, int len, uint32_t sum)
{
	uint64_t temp64 = sum, a, zero;

	__asm__("xorl %k[zero],%k[zero]\n\t"
		"movq 0*8(%[src]),%[a]\n\t"
		"adcxq 1*8(%[src]),%[a]\n\t"
		"adcxq 2*8(%[src]),%[a]\n\t"
		"adcxq 3*8(%[src]),%[a]\n\t"
		"adcxq %[zero],%[a]\n\t"
		"adoxq 4*8(%[src]),%[res]\n\t"
		"adoxq %[a],%[res]\n\t"
		"adoxq %[zero],%[res]"
		: [res] "+r"(temp64), [a] "=&r"(a), [zero] "=&r"(zero)
		: [src] "r"(buf), "m"(*(const uint8_t(*)[40])buf)
		: "cc");
	return csum_add32c(temp64 >> 32, temp64 & 0xffffffff);
}

/*
 * Step 5, two streams with plain adc: the first chain's flags die at the
 * second chain's add, so out-of-order execution overlaps them.
 *
 * The notes' listing adds word 3 with addq, not adcq, dropping the carry
 * out of word 2: wrong whenever words 0..2 carry there (all-0xff data, for
 * one). hp_csum_seed_two_streams() is the algorithm as the notes describe
 * it; hp_csum_seed_two_streams_published() is the listing as printed, kept
 * so that the correctness gate shows what nothing checked at the time.
 */
uint32_t hp_csum_seed_two_streams(const void *buf, int len, uint32_t sum)
{
	uint64_t temp64 = sum, a;

	__asm__("movq 0*8(%[src]),%[a]\n\t"
		"addq 1*8(%[src]),%[a]\n\t"
		"adcq 2*8(%[src]),%[a]\n\t"
		"adcq 3*8(%[src]),%[a]\n\t"
		"adcq $0,%[a]\n\t"
		"addq 4*8(%[src]),%[res]\n\t"
		"adcq %[a],%[res]\n\t"
		"adcq $0,%[res]"
		: [res] "+r"(temp64), [a] "=&r"(a)
		: [src] "r"(buf), "m"(*(const uint8_t(*)[40])buf)
		: "cc");
	return csum_add32c(temp64 >> 32, temp64 & 0xffffffff);
}

/* Step 6, 32-bit only: ten dwords on four streams, no 64->32 fold. */
uint32_t hp_csum_seed_32bit(const void *buf, int len, uint32_t sum)
{
	uint32_t a, b, c;

	__asm__("movl 0*4(%[src]),%[a]\n\t"
		"movl 1*4(%[src]),%[b]\n\t"
		"movl 2*4(%[src]),%[c]\n\t"
		"addl 3*4(%[src]),%[a]\n\t"
		"adcl 4*4(%[src]),%[a]\n\t"
		"adcl $0,%[a]\n\t"
		"addl 5*4(%[src]),%[b]\n\t"
		"adcl 6*4(%[src]),%[b]\n\t"
		"adcl $0,%[b]\n\t"
		"addl 7*4(%[src]),%[c]\n\t"
		"adcl 8*4(%[src]),%[c]\n\t"
		"adcl $0,%[c]\n\t"
		"addl 9*4(%[src]),%[res]\n\t"
		"adcl %[a],%[res]\n\t"
		"adcl %[b],%[res]\n\t"
		"adcl %[c],%[res]\n\t"
		"adcl $0,%[res]"
		: [res] "+r"(sum), [a] "=&r"(a), [b] "=&r"(b), [c] "=&r"(c)
		: [src] "r"(buf), "m"(*(const uint8_t(*)[40])buf)
		: "cc");
	return sum;
}

/*
 * Step 7, "assume zero input": the seed is ignored (the notes' asm makes
 * the result an output-only operand), which balances the tree into two
 * 20-byte halves. With no input there is no latency chain to measure.
 */
uint32_t hp_csum_seed_zero_sum(const void *buf, int len, uint32_t sum)
{
	uint64_t temp64, a;

	__asm__("movq 0*8(%[src]),%[a]\n\t"
		"addq 1*8(%[src]),%[a]\n\t"
		"adcq 2*8(%[src]),%[a]\n\t"
		"adcq $0,%[a]\n\t"
		"movq 3*8(%[src]),%[res]\n\t"
		"addq 4*8(%[src]),%[res]\n\t"
		"adcq %[a],%[res]\n\t"
		"adcq $0,%[res]"
		: [res] "=&r"(temp64), [a] "=&r"(a)
		: [src] "r"(buf), "m"(*(const uint8_t(*)[40])buf)
		: "cc");
	return csum_add32c(temp64 >> 32, temp64 & 0xffffffff);
}

/* Step 5 exactly as printed in the notes: "addq 3*8" loses a carry. */
uint32_t hp_csum_seed_two_streams_published(const void *buf, int len,
					    uint32_t sum)
{
	uint64_t temp64 = sum, a;

	__asm__("movq 0*8(%[src]),%[a]\n\t"
		"addq 1*8(%[src]),%[a]\n\t"
		"adcq 2*8(%[src]),%[a]\n\t"
		"addq 3*8(%[src]),%[a]\n\t"
		"adcq $0,%[a]\n\t"
		"addq 4*8(%[src]),%[res]\n\t"
		"adcq %[a],%[res]\n\t"
		"adcq $0,%[res]"
		: [res] "+r"(temp64), [a] "=&r"(a)
		: [src] "r"(buf), "m"(*(const uint8_t(*)[40])buf)
		: "cc");
	return csum_add32c(temp64 >> 32, temp64 & 0xffffffff);
}
