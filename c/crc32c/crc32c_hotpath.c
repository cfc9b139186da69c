// SPDX-License-Identifier: GPL-2.0-only
/*
 * hp_crc32c(): hotpath's CRC32C for user space, choosing its method per
 * CPU (cpuid once, before main) and per length.
 *
 * Crossovers (measured on the development machine, an AMD EPYC family 23
 * where crc32q issues once per 3 cycles and PCLMULQDQ once per 2; see
 * docs/labs/crc32c.md for the figures):
 * - below 64 bytes one crc32 stream: at 32 bytes it ties folding (whose
 *   fixed cost, two crc32q to reduce and one fold to merge, is not yet
 *   paid back), and the four-lane fold needs 64 bytes to start;
 * - 64 to 127 bytes four folding lanes (eight need 128 bytes to start);
 * - from 128 bytes eight lanes: more multiplies in flight.
 * Where the CPU has VPCLMULQDQ and AVX-512 the 512-bit fold takes over from
 * 256 bytes (untested here: no such CPU).
 */
#include <hotpath/bench.h>
#include <hotpath/crc32c.h>

#include "crc32c_internal.h"

#define HP_CRC32C_STREAM_BELOW	64
#define HP_CRC32C_FOLD8_FROM	128
#define HP_CRC32C_AVX512_FROM	256	/* > HP_CRC32C_FOLD8_FROM */

/* HP_CPU_* bits of this CPU: hp_cpu_features(), the engine's one
 * detector (cpuid checked against XCR0, cached), kept for callers of
 * this lab's header. */
uint32_t hp_crc32c_cpu(void)
{
	return hp_cpu_features();
}

#define NEED_FOLD	(HP_CPU_SSE42 | HP_CPU_PCLMUL)
#define NEED_AVX512	(NEED_FOLD | HP_CPU_AVX512F | HP_CPU_AVX512BW | \
			 HP_CPU_AVX512VL | HP_CPU_VPCLMUL)

/*
 * The method for each length class, filled in once for this CPU. One
 * table-driven indirect jump instead of a ladder of compares: on the
 * development machine the ladder (seven branches in one cache line) cost
 * about 10 cycles at 32 and 64 bytes, more than the work it chose.
 */
enum { CLASS_SHORT, CLASS_MID, CLASS_LONG, CLASS_WIDE, NCLASSES };
static hp_crc32c_fn by_class[NCLASSES];

__attribute__((constructor)) static void crc32c_dispatch_init(void)
{
	/* Read once, before main: hp_crc32c() then pays one load from
	 * by_class per call and nothing for the detection. Safe from a
	 * constructor: hp_cpu_features() fills its cache on first use. */
	uint32_t f = hp_cpu_features();

	if ((f & NEED_FOLD) != NEED_FOLD) {
		hp_crc32c_fn all = (f & HP_CPU_SSE42) ? hp__crc32c_sse42 :
							hp_crc32c_slice8;

		for (int c = 0; c < NCLASSES; c++)
			by_class[c] = all;
		return;
	}
	by_class[CLASS_SHORT] = hp__crc32c_sse42;
	by_class[CLASS_MID] = hp__crc32c_fold4;
	by_class[CLASS_LONG] = hp__crc32c_fold8;
	by_class[CLASS_WIDE] = (f & NEED_AVX512) == NEED_AVX512 ?
			       hp__crc32c_avx512 : hp__crc32c_fold8;
}

uint32_t hp_crc32c(uint32_t crc, const void *buf, size_t len)
{
	unsigned c = (len >= HP_CRC32C_STREAM_BELOW) +
		     (len >= HP_CRC32C_FOLD8_FROM) +
		     (len >= HP_CRC32C_AVX512_FROM);

	return by_class[c](crc, buf, len);
}
