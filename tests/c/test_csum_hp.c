// SPDX-License-Identifier: GPL-2.0-only
/*
 * hp_csum() with each path forced (hp_csum_set_path() and the
 * HOTPATH_CSUM_FORCE environment variable): every path returns the same
 * bits as the scalar one and folds like the reference, at every length
 * 0..4096 at eight alignments, around 8 KiB at 32, at random lengths to
 * 64 KiB, with the last byte against a guard page. Paths this CPU lacks are refused, and said
 * to be skipped.
 */
#include <hotpath/csum.h>
#include <hotpath/guard.h>

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#define TEST_RNG_SEED 0x2545f4914f6cdd1dull
#include "testdata.h"

#define BIG (64 * 1024)

static struct hp_guarded g;

static unsigned long bad;

static void one(const uint8_t *buf, size_t len, uint32_t seed)
{
	uint32_t want = hp_csum_scalar(buf, (int)len, seed);
	uint32_t got = hp_csum(buf, (int)len, seed);
	uint16_t ref = hp_csum_fold(hp_csum_ref(buf, (int)len, seed));

	if ((got != want || hp_csum_fold(got) != ref) && bad++ < 5)
		fprintf(stderr,
			"  path %s: len %zu align %zu seed %#x: got %#x, scalar %#x, ref fold %#x\n",
			hp_csum_path_name(hp_csum_get_path()), len,
			(size_t)((uintptr_t)buf & 63), seed, got, want, ref);
}

static void sweep(void *arg)
{
	size_t len, a;
	int i;

	for (len = 0; len <= 4096; len++)
		for (a = 0; a < 8; a++)
			one(hp_guarded_place(&g, len, a * 9), len,
			    (uint32_t)rnd());
	for (len = 0; len <= 2048; len++)
		one(hp_guarded_butt(&g, len), len, 0xffffffffu);
	/* where the vector paths move to a 32-byte boundary (8 KiB): every
	 * head length 0..31 at lengths on both sides of it */
	for (len = 8192 - 2; len <= 8192 + 40; len += 3)
		for (a = 0; a < 32; a++)
			one(hp_guarded_place(&g, len, a), len,
			    (uint32_t)rnd());
	for (i = 0; i < 200; i++) {
		len = rnd() % (BIG + 1);
		one(hp_guarded_place(&g, len, rnd() & 63), len,
		    (i & 1) ? 0 : (uint32_t)rnd());
	}
}

static void test_path(enum hp_csum_path path)
{
	int pat;

	if (hp_csum_set_path(path)) {
		CHECK(errno == ENOTSUP, "set_path(%s) errno %d",
		      hp_csum_path_name(path), errno);
		printf("  path %-12s skipped: this CPU lacks it\n",
		       hp_csum_path_name(path));
		return;
	}
	CHECK(hp_csum_get_path() == path, "path %s not set",
	      hp_csum_path_name(path));
	bad = 0;
	for (pat = 0; pat < 2; pat++) {
		if (pat == 0) {
			for (size_t i = 0; i < g.size; i++)
				g.base[i] = (uint8_t)rnd();
		} else {
			memset(g.base, 0xff, g.size);
		}
		CHECK(!hp_guarded_call(sweep, NULL), "path %s read outside",
		      hp_csum_path_name(path));
	}
	CHECK(bad == 0, "path %s: %lu cases wrong", hp_csum_path_name(path),
	      bad);
	printf("  path %-12s %s\n", hp_csum_path_name(path),
	       bad ? "WRONG" : "same bits as scalar, folds as the reference");
}

/* HOTPATH_CSUM_FORCE is read when the library loads: ask a child. */
static void test_env(const char *self, const char *force, const char *want)
{
	char cmd[512], out[64] = "";
	FILE *f;

	snprintf(cmd, sizeof(cmd), "HOTPATH_CSUM_FORCE=%s %s --print-path 2>/dev/null",
		 force, self);
	f = popen(cmd, "r");
	if (!f || !fgets(out, sizeof(out), f))
		out[0] = 0;
	if (f)
		pclose(f);
	out[strcspn(out, "\n")] = 0;
	CHECK(!strcmp(out, want), "HOTPATH_CSUM_FORCE=%s gave '%s', want '%s'",
	      force, out, want);
}

int main(int argc, char **argv)
{
	enum hp_csum_path auto_path;

	if (argc > 1 && !strcmp(argv[1], "--print-path")) {
		printf("%s\n", hp_csum_path_name(hp_csum_get_path()));
		return 0;
	}
	if (hp_guarded_alloc(&g, BIG + 4096)) {
		perror("hp_guarded_alloc");
		return 2;
	}
	hp_csum_set_path(HP_CSUM_PATH_AUTO);
	auto_path = hp_csum_get_path();
	printf("  auto path on this CPU: %s\n", hp_csum_path_name(auto_path));
	test_path(HP_CSUM_PATH_SCALAR);
	test_path(HP_CSUM_PATH_AVX2);
	test_path(HP_CSUM_PATH_AVX2_HYBRID);
	test_path(HP_CSUM_PATH_AVX512);

	test_env(argv[0], "scalar", "scalar");
	/* unknown names are refused, and the automatic choice stays */
	test_env(argv[0], "sse9", hp_csum_path_name(auto_path));
	if (auto_path != HP_CSUM_PATH_SCALAR)
		test_env(argv[0], hp_csum_path_name(auto_path),
			 hp_csum_path_name(auto_path));
	hp_guarded_free(&g);
	return check_summary("test_csum_hp");
}
