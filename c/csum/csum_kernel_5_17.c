// SPDX-License-Identifier: GPL-2.0-only
/*
 * csum_partial() as Linux 5.17 computes it on x86-64 (Eric Dumazet's
 * rewrite, arch/x86/lib/csum-partial_64.c): one 64-bit add-with-carry chain,
 * a 64-byte loop, then 32/16/8-byte steps and a tail, folded to 32 bits.
 *
 * Two differences from the kernel, both about user space and correctness:
 * - the kernel reads the tail with load_unaligned_zeropad(), an 8-byte
 *   load that may run past the buffer and relies on an exception fixup;
 *   here the tail is assembled from 4/2/1-byte loads so the buffer's last
 *   byte can sit against a guard page;
 * - odd addresses rotate the incoming sum first (the later fix "x86/csum:
 *   Fix initial seed for odd buffers"); the first 5.17 code added the seed
 *   unrotated and so gave wrong sums for odd buffers with non-zero seeds.
 */
#include <hotpath/csum.h>

#include <string.h>

static inline uint32_t add32_with_carry(uint32_t a, uint32_t b)
{
	__asm__("addl %2,%0\n\t"
		"adcl $0,%0"
		: "=r"(a)
		: "0"(a), "rm"(b));
	return a;
}

static inline uint32_t ror32(uint32_t x, unsigned int n)
{
	return (x >> n) | (x << (32 - n));
}

static inline uint32_t from32to16(uint32_t a)
{
	uint16_t b = a >> 16;

	__asm__("addw %w2,%w0\n\t"
		"adcw $0,%w0\n"
		: "=r"(b)
		: "0"(b), "r"(a));
	return b;
}

/* The 1..7 tail bytes, little-endian, zero-padded, without over-reading. */
static inline uint64_t load_tail(const uint8_t *p, unsigned int n)
{
	uint64_t v = 0;
	unsigned int k = 0;

	if (n & 4) {
		uint32_t w;

		memcpy(&w, p, 4);
		v = w;
		k = 4;
	}
	if (n & 2) {
		uint16_t w;

		memcpy(&w, p + k, 2);
		v |= (uint64_t)w << (8 * k);
		k += 2;
	}
	if (n & 1)
		v |= (uint64_t)p[k] << (8 * k);
	return v;
}

uint32_t hp_csum_kernel_5_17(const void *buf, int len, uint32_t sum)
{
	const uint8_t *buff = buf;
	uint64_t temp64 = sum;
	unsigned int odd;
	uint32_t result;

	odd = 1 & (uintptr_t)buff;
	if (__builtin_expect(odd, 0)) {
		if (__builtin_expect(len == 0, 0))
			return sum;
		temp64 = ror32(sum, 8);
		temp64 += (uint32_t)(*buff << 8);
		len--;
		buff++;
	}

	while (__builtin_expect(len >= 64, 0)) {
		__asm__("addq 0*8(%[src]),%[res]\n\t"
			"adcq 1*8(%[src]),%[res]\n\t"
			"adcq 2*8(%[src]),%[res]\n\t"
			"adcq 3*8(%[src]),%[res]\n\t"
			"adcq 4*8(%[src]),%[res]\n\t"
			"adcq 5*8(%[src]),%[res]\n\t"
			"adcq 6*8(%[src]),%[res]\n\t"
			"adcq 7*8(%[src]),%[res]\n\t"
			"adcq $0,%[res]"
			: [res] "+r"(temp64)
			: [src] "r"(buff)
			: "memory");
		buff += 64;
		len -= 64;
	}

	if (len & 32) {
		__asm__("addq 0*8(%[src]),%[res]\n\t"
			"adcq 1*8(%[src]),%[res]\n\t"
			"adcq 2*8(%[src]),%[res]\n\t"
			"adcq 3*8(%[src]),%[res]\n\t"
			"adcq $0,%[res]"
			: [res] "+r"(temp64)
			: [src] "r"(buff)
			: "memory");
		buff += 32;
	}
	if (len & 16) {
		__asm__("addq 0*8(%[src]),%[res]\n\t"
			"adcq 1*8(%[src]),%[res]\n\t"
			"adcq $0,%[res]"
			: [res] "+r"(temp64)
			: [src] "r"(buff)
			: "memory");
		buff += 16;
	}
	if (len & 8) {
		__asm__("addq 0*8(%[src]),%[res]\n\t"
			"adcq $0,%[res]"
			: [res] "+r"(temp64)
			: [src] "r"(buff)
			: "memory");
		buff += 8;
	}
	if (len & 7) {
		uint64_t trail = load_tail(buff, len & 7);

		__asm__("addq %[trail],%[res]\n\t"
			"adcq $0,%[res]"
			: [res] "+r"(temp64)
			: [trail] "r"(trail));
	}
	result = add32_with_carry(temp64 >> 32, temp64 & 0xffffffff);
	if (__builtin_expect(odd, 0)) {
		result = from32to16(result);
		result = ((result >> 8) & 0xff) | ((result & 0xff) << 8);
	}
	return result;
}
