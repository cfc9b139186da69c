// SPDX-License-Identifier: GPL-2.0-only
/*
 * The built-in dispatch rows: which method hp_csum() and hp_crc32c() use
 * from which length, per CPU (hotpath/dispatch.h has the format). Each row
 * says where its figures come from; `hotpath dispatch` measures a row on
 * the machine it runs on and `--write FILE` saves it for HOTPATH_DISPATCH.
 */
#include <hotpath/dispatch.h>

#include <pthread.h>
#include <stdio.h>
#include <string.h>

struct builtin {
	const char *vendor;		/* cpuid's vendor string */
	unsigned int family;
	unsigned int model_lo, model_hi;
	const char *text;
};

/*
 * generic: what hp_csum() and hp_crc32c() did before rows, measured on a
 * Zen 1-class EPYC (docs/labs/csum.md, docs/labs/crc32c.md): vector
 * checksum from 1 KiB, CRC folding from 64 bytes, eight lanes from 128,
 * the 512-bit fold from 256 where the CPU has it.
 */
#define GENERIC_CRC32C "crc32c = sse42 0, fold4 64, fold8 128, avx512 256\n"
static const char generic[] =
	"name = generic\n"
	"csum.even = scalar 0, avx512 1024\n"
	"csum.odd = scalar 0, avx512 1024\n"
	GENERIC_CRC32C;

#define ZEN3 \
	"name = zen3\n" \
	"csum.even = scalar 0, avx2 384\n" \
	"csum.odd = scalar 0, avx2 384\n" \
	"crc32c = sse42 0, sse42-4way 96\n"

#define ZEN4 \
	"name = zen4\n" \
	"csum.even = scalar 0, avx512 256\n" \
	"csum.odd = scalar 0, avx2 384, avx512 768\n" \
	"crc32c = sse42 0, sse42-seedlast 64, avx512-seedlast 192, avx512 1536, avx512-fused 32768\n"

#define ZEN5 \
	"name = zen5\n" \
	"csum.even = scalar 0, avx512 256\n" \
	"csum.odd = scalar 0, avx512 256\n" \
	"crc32c = sse42 0, sse42-seedlast 64, sse42-4way-seedlast 256, avx512 512, avx512-fused 1792\n"

static const struct builtin builtins[] = {
	/*
	 * Zen 1 and Zen+ (family 17h below model 30h; Hygon's family 18h is
	 * built on them): 256-bit operations run as two 128-bit halves, so
	 * the hybrid path (vector and adc chains at once) wins; crossovers
	 * measured there as for the generic row.
	 */
	{ "AuthenticAMD", 0x17, 0x00, 0x2f,
	  "name = zen1\n"
	  "csum.even = scalar 0, avx2-hybrid 1024\n"
	  "csum.odd = scalar 0, avx2-hybrid 1024\n" GENERIC_CRC32C },
	{ "HygonGenuine", 0x18, 0x00, 0xff,
	  "name = zen1\n"
	  "csum.even = scalar 0, avx2-hybrid 1024\n"
	  "csum.odd = scalar 0, avx2-hybrid 1024\n" GENERIC_CRC32C },
	/*
	 * Zen 3 (family 19h models 00h-0Fh Milan, 20h-2Fh Vermeer, 40h-5Fh
	 * Rembrandt and Cezanne), measured with `hotpath dispatch --rounds 50`
	 * on an EPYC family 25 model 1 (2 vCPUs under KVM), 2026-11-23
	 * (geometric mean of latency and throughput, core cycles):
	 * - csum: hp_csum's own adc chains up to 256 bytes (256: 21.2 against
	 *   24.2 through the AVX2 step), AVX2 from 384 at both parities (384:
	 *   24.2 against 27.7 for the adc chains; 512: 27.2 against 36.3);
	 * - crc32c: PCLMULQDQ folds 16 bytes per 4 cycles here and competes
	 *   with crc32q for its unit, so no folding; one crc32q stream below
	 *   96 bytes, hotpath's four streams from 96 (128: 28.2 against 33.3
	 *   for three streams; 1 MiB: 136.4k against 158.5k). The measured
	 *   row would run three streams at 96..127 (26.2 against 27.2); the
	 *   third step would cost hp_crc32c() a scan at every longer length.
	 */
	{ "AuthenticAMD", 0x19, 0x00, 0x0f, ZEN3 },
	{ "AuthenticAMD", 0x19, 0x20, 0x2f, ZEN3 },
	{ "AuthenticAMD", 0x19, 0x40, 0x5f, ZEN3 },
	/*
	 * Zen 4 (family 19h models 10h-1Fh Genoa, 60h-7Fh Phoenix/Raphael,
	 * A0h-AFh Bergamo): the repaired row `hotpath dispatch --rounds 60`
	 * measured and ran on an EPYC family 25 model 17 (2 vCPUs under KVM),
	 * 2026-11-28, the same steps in two runs but the fused fold's start
	 * (65536 before 32768 was on the grid); geometric mean of latency and
	 * throughput, core cycles, each method alone
	 * (docs/measurements/zen4-2026-11-28-dispatch-tax/dispatch-write.txt):
	 * - csum: the aligned AVX-512 loop from 256 bytes at even addresses
	 *   (256: 16.5 against 19.0 for the row before); at odd ones the adc
	 *   chains to 383 (256 odd: 18.8 against 20.2 through the row
	 *   before's AVX-512), AVX2 at 384..767 (384: 22.9 against 25.9) and
	 *   AVX-512 from 768 (the measured row's 1024 ran 0.93x at 768 odd
	 *   through hp_csum() and was repaired back);
	 * - crc32c: one crc32q stream below 64 bytes, inlined (the measured
	 *   seed-last stream at 48 ran 0.93x through hp_crc32c(), repaired
	 *   back), one seed-last stream from 64, the 512-bit fold with the CRC
	 *   joined last from 192 (256: 30.9 against 37.0 for the row before's
	 *   plain fold; 384: 38.9 against 46.7), the plain fold from 1536, the
	 *   fold with four crc32q streams from 32 KiB (32768: 1978 against
	 *   2058). From 256 to 1023 bytes the plain fold
	 *   is 3 to 7% faster in throughput and the seed-last fold 3 to 41%
	 *   faster in latency: `hotpath dispatch` prints that split.
	 */
	{ "AuthenticAMD", 0x19, 0x10, 0x1f, ZEN4 },
	{ "AuthenticAMD", 0x19, 0x60, 0x7f, ZEN4 },
	{ "AuthenticAMD", 0x19, 0xa0, 0xaf, ZEN4 },
	/*
	 * Zen 5 with the full 512-bit datapath (family 1Ah models 00h-1Fh
	 * Turin and Turin Dense, 40h-4Fh Granite Ridge; the mobile parts,
	 * which split 512-bit operations, keep the generic row until
	 * measured), from `hotpath dispatch --rounds 50` on an EPYC family 26
	 * model 2 (2 vCPUs under KVM), 2026-11-25 (geometric mean of latency
	 * and throughput, core cycles):
	 * - csum: the aligned AVX-512 loop from 256 bytes at both parities
	 *   (256 even: 12.2 against 16.4 for the adc chains; odd 15.1 against
	 *   16.6; 768 odd: 21.3 against 46.7);
	 * - crc32c: one crc32q stream below 64 bytes, the same stream with the
	 *   input CRC joined last from 64 (96: 14.3 against 22.5 for one
	 *   stream), four streams with the CRC joined last from 256 (256: 25.6
	 *   against 27.7 for the stream; the stream from 192 since its words
	 *   go by the length's bits, `hotpath dispatch --try`: 1.16x at 192,
	 *   two runs), the 512-bit fold from 512 (512: 46.9), the fold with
	 *   four crc32q streams beside it from 1792
	 *   (1792: 109.5 against 120.3; 64 KiB: 2821 against 4162; 1 MiB:
	 *   46.7k against 66.0k).
	 */
	{ "AuthenticAMD", 0x1a, 0x00, 0x1f, ZEN5 },
	{ "AuthenticAMD", 0x1a, 0x40, 0x4f, ZEN5 },
	/*
	 * Emerald Rapids (Intel family 6 model CFh, Raptor Cove cores), from
	 * `hotpath dispatch --rounds 50` on a 16-vCPU Xeon under KVM,
	 * 2026-11-25 (geometric mean of latency and throughput, core
	 * cycles); Sapphire Rapids (model 8Fh) is not measured and keeps the
	 * generic row:
	 * - csum: the aligned AVX-512 loop from 128 bytes at both parities
	 *   (256 even: 15.2 against 27.2 for the adc chains; 768 odd: 29.2
	 *   against 67.6; on the 2-vCPU machine, 2026-11-26, once
	 *   HP_CSUM_SHORT allowed it: 128 even 14.6 against 18.2 through
	 *   hp_csum(), 192 even 14.3 against 21.7, 192 odd 16.9 against 21.7;
	 *   at 96 the adc chains still win, 15.2 against 15.5);
	 * - crc32c: one crc32q stream below 64 bytes, inlined; one seed-last
	 *   stream from 64 (64: 12.4 against 19.4 for fold4), four from 96
	 *   (96: 15.0 / 14.7 against 16.6 / 14.7 for one), the 512-bit fold
	 *   with the input CRC multiplied in last from 128 (2026-11-26,
	 *   latency / throughput: 192 18.3 / 19.1 against 26.6 / 26.7 for
	 *   four streams, 384 23.1 / 24.1 against 45.1 / 24.0 for the fold
	 *   that takes the CRC first; from 2048 it is that fold). The fold
	 *   runs 31 bytes/cycle at 1 MiB here, so the fused fold's crc32q
	 *   streams do not pay. `hotpath dispatch` picked seed-last streams
	 *   from 32 by a cycle or less (one or four, differing between runs),
	 *   but through hp_crc32c() the inlined stream is faster at 32 and 48
	 *   (32: 15.5 / 16.5 against 18.2 / 16.7) and the non-linear 64-byte
	 *   skb walk, two 32-byte pieces, takes 34.2 / 34.1 cycles against
	 *   42.8 / 42.8 (chained: 44.0 / 41.4); two alternating runs each.
	 */
	{ "GenuineIntel", 0x06, 0xcf, 0xcf,
	  "name = emerald-rapids\n"
	  "csum.even = scalar 0, avx512 128\n"
	  "csum.odd = scalar 0, avx512 128\n"
	  "crc32c = sse42 0, sse42-seedlast 64, sse42-4way-seedlast 96, avx512-seedlast 128\n" },
};

#define NBUILTIN (sizeof(builtins) / sizeof(*builtins))
static struct hp_dispatch_row parsed[NBUILTIN + 1];	/* [NBUILTIN]: generic */
static pthread_once_t parsed_once = PTHREAD_ONCE_INIT;

static void parse_one(const char *text, struct hp_dispatch_row *row)
{
	char err[200];

	/* The rows are this file's: one that does not parse is a bug that
	 * tests/c/test_dispatch_rows.c catches; here it falls back to generic. */
	if (hp_dispatch_parse(text, row, err, sizeof(err))) {
		fprintf(stderr, "hotpath: built-in dispatch row: %s\n", err);
		hp_dispatch_parse(generic, row, err, sizeof(err));
	}
	snprintf(row->source, sizeof(row->source), "built-in");
}

static void parse_all(void)
{
	for (size_t i = 0; i < NBUILTIN; i++)
		parse_one(builtins[i].text, &parsed[i]);
	parse_one(generic, &parsed[NBUILTIN]);
}

const struct hp_dispatch_row *hp_dispatch_builtin(const char *vendor,
						  unsigned int family,
						  unsigned int model)
{
	pthread_once(&parsed_once, parse_all);
	for (size_t i = 0; i < NBUILTIN; i++) {
		const struct builtin *b = &builtins[i];

		if (!strcmp(b->vendor, vendor) && b->family == family &&
		    model >= b->model_lo && model <= b->model_hi)
			return &parsed[i];
	}
	return &parsed[NBUILTIN];
}
