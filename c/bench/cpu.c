// SPDX-License-Identifier: GPL-2.0-only
/*
 * What this CPU can run: cpuid once, checked against what the OS enables
 * in XCR0 (a CPU with AVX-512 under a kernel or hypervisor that does not
 * save its state cannot run AVX-512 code), less what HOTPATH_CPU_HIDE
 * names: HOTPATH_CPU_HIDE=avx512f,avx512bw makes the runner, the dispatch
 * rows and hp_csum()/hp_crc32c() behave as on a CPU without them (their
 * fallbacks, a --with file's needs= skip), so a machine that has every
 * feature can still show and test what one without would do.
 */
#define _GNU_SOURCE	/* secure_getenv */
#include <hotpath/bench.h>
#include "engine.h"

#include <cpuid.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const feature_names[HP_CPU_NFEATURES] = {
	"sse4.2", "pclmulqdq", "avx2", "bmi2", "adx",
	"avx512f", "avx512bw", "avx512vl", "vpclmulqdq",
};

const char *hp_cpu_feature_name(unsigned bit)
{
	return bit < HP_CPU_NFEATURES ? feature_names[bit] : "?";
}

const char *hp_cpu_features_allowed(void)
{
	static char allowed[128];

	if (!allowed[0]) {
		strcpy(allowed, "comma-separated, of:");
		for (unsigned b = 0; b < HP_CPU_NFEATURES; b++) {
			strcat(allowed, " ");
			strcat(allowed, feature_names[b]);
		}
	}
	return allowed;
}

/* @list's names as HP_CPU_* bits; 0, or -1 with *bad (a copy, in @badbuf)
 * the first name that is not one. */
int hp_cpu_parse_features(const char *list, uint32_t *bits, char *badbuf,
			  size_t badlen)
{
	const char *tok = list;

	*bits = 0;
	while (*tok) {
		size_t n = strcspn(tok, ",");
		unsigned b;

		for (b = 0; b < HP_CPU_NFEATURES; b++)
			if (strlen(feature_names[b]) == n &&
			    !strncmp(tok, feature_names[b], n))
				break;
		if (b == HP_CPU_NFEATURES) {
			snprintf(badbuf, badlen, "%.*s", (int)n, tok);
			return -1;
		}
		*bits |= 1u << b;
		tok += n + (tok[n] == ',');
	}
	return 0;
}

static int hide_bad;	/* HOTPATH_CPU_HIDE named something else */

/* HOTPATH_CPU_HIDE's bits, read once. A name that is not a feature is
 * said on stderr and nothing is hidden: a library has no one to refuse;
 * the runner asks hp_cpu_hide_ok() and exits with status 2. Not read in a
 * set-uid or set-capability program (secure_getenv): whoever runs it must
 * not steer the code it runs with its rights. */
uint32_t hp_cpu_hidden(void)
{
	static uint32_t cached;
	static int done;

	if (!done) {
		const char *v = secure_getenv("HOTPATH_CPU_HIDE");
		char bad[64];

		if (v && hp_cpu_parse_features(v, &cached, bad, sizeof(bad))) {
			fprintf(stderr,
				"hotpath: HOTPATH_CPU_HIDE: '%s' is not a CPU feature; allowed: %s\n",
				bad, hp_cpu_features_allowed());
			cached = 0;
			hide_bad = 1;
		}
		done = 1;
	}
	return cached;
}

int hp_cpu_hide_ok(void)
{
	hp_cpu_hidden();
	return !hide_bad;
}

static uint64_t xgetbv0(void)
{
	uint32_t lo, hi;

	__asm__ volatile("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
	return ((uint64_t)hi << 32) | lo;
}

static uint32_t detect(void)
{
	unsigned a, b, c, d, b7 = 0, c7 = 0;
	uint32_t f = 0;
	int ymm = 0, zmm = 0;

	if (!__get_cpuid(1, &a, &b, &c, &d))
		return 0;
	if (c & bit_SSE4_2)
		f |= HP_CPU_SSE42;
	if (c & bit_PCLMUL)
		f |= HP_CPU_PCLMUL;
	if (c & bit_OSXSAVE) {
		uint64_t xcr0 = xgetbv0();

		ymm = (xcr0 & 0x6) == 0x6;
		zmm = ymm && (xcr0 & 0xe0) == 0xe0;
	}
	if (__get_cpuid_max(0, NULL) >= 7)
		__cpuid_count(7, 0, a, b7, c7, d);
	if (ymm && (b7 & bit_AVX2))
		f |= HP_CPU_AVX2;
	if (b7 & bit_BMI2)
		f |= HP_CPU_BMI2;
	if (b7 & bit_ADX)
		f |= HP_CPU_ADX;
	if (zmm && (b7 & bit_AVX512F))
		f |= HP_CPU_AVX512F;
	if (zmm && (b7 & bit_AVX512BW))
		f |= HP_CPU_AVX512BW;
	if (zmm && (b7 & bit_AVX512VL))
		f |= HP_CPU_AVX512VL;
	/* VPCLMULQDQ on ymm needs only the AVX state (Zen 3, Alder Lake have
	 * it without AVX-512); its zmm form is used only with AVX512F too. */
	if (ymm && (c7 & bit_VPCLMULQDQ))
		f |= HP_CPU_VPCLMUL;
	return f;
}

uint32_t hp_cpu_features(void)
{
	static uint32_t cached;
	static int done;

	if (!done) {
		cached = detect() & ~hp_cpu_hidden();
		done = 1;
	}
	return cached;
}

void hp_cpu_identify(struct hp_cpu_id *id)
{
	unsigned a = 0, b = 0, c = 0, d = 0, fam, mod;
	uint32_t regs[12];

	memset(id, 0, sizeof(*id));
	__get_cpuid(0, &a, &b, &c, &d);
	memcpy(id->vendor, &b, 4);
	memcpy(id->vendor + 4, &d, 4);
	memcpy(id->vendor + 8, &c, 4);
	__get_cpuid(1, &a, &b, &c, &d);
	fam = (a >> 8) & 0xf;
	mod = (a >> 4) & 0xf;
	if (fam == 0xf)
		fam += (a >> 20) & 0xff;
	if (fam >= 6)
		mod |= ((a >> 16) & 0xf) << 4;
	id->family = fam;
	id->model = mod;
	id->stepping = a & 0xf;
	id->hypervisor = !!(c & (1u << 31));
	if (__get_cpuid_max(0x80000000, NULL) >= 0x80000004) {
		for (unsigned i = 0; i < 3; i++)
			__get_cpuid(0x80000002 + i, &regs[4 * i],
				    &regs[4 * i + 1], &regs[4 * i + 2],
				    &regs[4 * i + 3]);
		memcpy(id->brand, regs, 48);
		id->brand[48] = 0;
	}
}

/* rdtscp (cpuid 80000001h EDX bit 27): the engine's hp_tsc_end() needs it;
 * QEMU's default CPU model under TCG lacks it. */
int hp_cpu_has_rdtscp(void)
{
	unsigned a, b, c, d;

	return __get_cpuid(0x80000001, &a, &b, &c, &d) && (d & (1u << 27));
}

/* XGETBV with ECX=1 (XINUSE): CPUID.(EAX=0DH, ECX=1):EAX bit 2. */
static int have_xinuse(void)
{
	static int known = -1;
	unsigned a = 0, b, c, d;

	if (known < 0) {
		known = 0;
		if ((hp_cpu_features() & HP_CPU_AVX2) &&
		    __get_cpuid_max(0, NULL) >= 0xd) {
			__cpuid_count(0xd, 1, a, b, c, d);
			known = !!(a & (1u << 2));
		}
	}
	return known;
}

void hp_clean_upper(void)
{
	if (hp_cpu_features() & HP_CPU_AVX2)
		__asm__ volatile("vzeroupper" ::: "memory");
}

int hp_upper_dirty(void)
{
	uint32_t lo, hi;

	if (!have_xinuse())
		return -1;
	__asm__ volatile("xgetbv" : "=a"(lo), "=d"(hi) : "c"(1));
	/* YMM_Hi128 (bit 2) and ZMM_Hi256 (bit 6): the upper halves that
	 * vzeroupper clears and legacy SSE code after them pays for. */
	return !!(lo & ((1u << 2) | (1u << 6)));
}
