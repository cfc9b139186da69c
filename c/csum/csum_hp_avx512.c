// SPDX-License-Identifier: GPL-2.0-only
/*
 * hp_csum's AVX-512 path: the AVX2 path's method (csum_hp_avx2.c) on
 * 64-byte vectors. Needs AVX512F; registered as needing AVX512BW too so
 * that it is only chosen on cores with full-width integer units.
 *
 * Not executed on the development machine (no AVX-512 there): the
 * correctness gate and tests/c/test_csum_hp.c run it wherever the CPU
 * has it, and skip it, saying so, elsewhere.
 */
#include <hotpath/csum.h>

#include <immintrin.h>

#include "csum_impl.h"

#define AVX512 __attribute__((target("avx512f,avx512bw")))

/**
 * hp_csum_avx512() - hp_csum's AVX-512 path, for any length.
 * @buf: bytes, any alignment
 * @len: length in bytes, >= 0
 * @sum: 32-bit partial sum to continue from
 *
 * Return: the same bits as hp_csum_scalar().
 */
AVX512 uint32_t hp_csum_avx512(const void *buf, int len, uint32_t sum)
{
	const uint8_t *p = buf;
	size_t n = (size_t)len;
	__m512i all0, all1, hi0, hi1, all, hi, t;
	uint32_t r;

	if (n < 128)
		return csum_add32c(hp_csum_scalar_nosum(p, n), sum);
	all0 = all1 = hi0 = hi1 = _mm512_setzero_si512();
	do {
		__m512i x0 = _mm512_loadu_si512((const void *)p);
		__m512i x1 = _mm512_loadu_si512((const void *)(p + 64));

		all0 = _mm512_add_epi64(all0, x0);
		hi0 = _mm512_add_epi64(hi0, _mm512_srli_epi64(x0, 32));
		all1 = _mm512_add_epi64(all1, x1);
		hi1 = _mm512_add_epi64(hi1, _mm512_srli_epi64(x1, 32));
		p += 128;
		n -= 128;
	} while (n >= 128);
	all = _mm512_add_epi64(all0, all1);
	hi = _mm512_add_epi64(hi0, hi1);
	/* ALL = L + 2^32 H (mod 2^64) per lane, H exact: recover L. */
	t = _mm512_add_epi64(_mm512_sub_epi64(all, _mm512_slli_epi64(hi, 32)),
			     hi);
	r = csum_fold64((uint64_t)_mm512_reduce_add_epi64(t));
	if (n)
		r = csum_add32c(r, hp_csum_scalar_nosum(p, n));
	return csum_add32c(r, sum);
}
