// SPDX-License-Identifier: GPL-2.0-only
/*
 * The copy and search kinds' references: byte loops, obviously right.
 * The volatile pointers keep the compiler from turning a loop back into a
 * call of the library function it is the reference for.
 */
#include <hotpath/fn.h>

void *hp_fn_memcpy_ref(void *dst, const void *src, size_t len)
{
	volatile uint8_t *d = dst;
	const uint8_t *s = src;

	for (size_t i = 0; i < len; i++)
		d[i] = s[i];
	return dst;
}

void *hp_fn_memmove_ref(void *dst, const void *src, size_t len)
{
	volatile uint8_t *d = dst;
	const volatile uint8_t *s = src;

	if ((uintptr_t)dst <= (uintptr_t)src) {
		for (size_t i = 0; i < len; i++)
			d[i] = s[i];
	} else {
		for (size_t i = len; i-- > 0;)
			d[i] = s[i];
	}
	return dst;
}

void *hp_fn_memset_ref(void *s, int c, size_t n)
{
	volatile uint8_t *d = s;

	for (size_t i = 0; i < n; i++)
		d[i] = (uint8_t)c;
	return s;
}

void *hp_fn_memchr_ref(const void *s, int c, size_t n)
{
	const volatile uint8_t *p = s;

	for (size_t i = 0; i < n; i++)
		if (p[i] == (uint8_t)c)
			return (void *)(uintptr_t)(p + i);
	return NULL;
}

size_t hp_fn_strlen_ref(const char *s)
{
	const volatile char *p = s;
	size_t n = 0;

	while (p[n])
		n++;
	return n;
}

size_t hp_fn_strnlen_ref(const char *s, size_t count)
{
	const volatile char *p = s;
	size_t n = 0;

	while (n < count && p[n])
		n++;
	return n;
}

unsigned long hp_fn_find_next_bit_ref(const unsigned long *addr, unsigned long nbits,
				      unsigned long start)
{
	const volatile uint8_t *p = (const uint8_t *)addr;

	/* bit i of the bitmap is bit i % 64 of word i / 64: on a
	 * little-endian machine, bit i % 8 of byte i / 8 */
	for (unsigned long i = start; i < nbits; i++)
		if (p[i / 8] >> (i % 8) & 1)
			return i;
	return nbits;
}
