// SPDX-License-Identifier: GPL-2.0-only
/*
 * The dispatch rows (hotpath/dispatch.h): every built-in row parses and
 * prints back to the same text, CPUs find their rows, bad row text is
 * refused with the reason, and hp_csum() and hp_crc32c() under every
 * built-in row (its methods falling back where this CPU lacks them) give
 * the reference's results at every length 0..4096, even and odd, with the
 * last byte against a guard page. HOTPATH_DISPATCH's file is taken, and a
 * bad one named (by its line, never its text) and replaced by the built-in
 * row, in a child process; so is a FIFO, a folder or a device, unread.
 */
#include <hotpath/bench.h>
#include <hotpath/crc32c.h>
#include <hotpath/csum.h>
#include <hotpath/dispatch.h>
#include <hotpath/guard.h>

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "check.h"
#define TEST_RNG_SEED 0x9e3779b97f4a7c15ull
#include "testdata.h"

static struct hp_guarded g;

static const struct {
	const char *vendor;
	unsigned int family, model;
	const char *row;
} cpus[] = {
	{ "AuthenticAMD", 0x17, 0x01, "zen1" },		/* EPYC 7001 */
	{ "HygonGenuine", 0x18, 0x00, "zen1" },
	{ "AuthenticAMD", 0x19, 0x11, "zen4" },		/* EPYC 9004 */
	{ "AuthenticAMD", 0x19, 0x61, "zen4" },
	{ "AuthenticAMD", 0x19, 0x01, "zen3" },		/* EPYC 7003 */
	{ "AuthenticAMD", 0x19, 0x30, "generic" },	/* no Zen core there */
	{ "AuthenticAMD", 0x1a, 0x02, "zen5" },		/* EPYC 9005 */
	{ "GenuineIntel", 0x06, 0xcf, "emerald-rapids" },
	{ "GenuineIntel", 0x06, 0x8f, "generic" },	/* Sapphire Rapids: not measured */
};

static void test_rows_parse_and_print_back(void)
{
	for (size_t i = 0; i < sizeof(cpus) / sizeof(*cpus); i++) {
		const struct hp_dispatch_row *row =
			hp_dispatch_builtin(cpus[i].vendor, cpus[i].family, cpus[i].model);
		struct hp_dispatch_row again;
		char text[1024], text2[1024], err[200];

		CHECK(!strcmp(row->name, cpus[i].row), "%s %#x/%#x: row %s, want %s",
		      cpus[i].vendor, cpus[i].family, cpus[i].model, row->name, cpus[i].row);
		CHECK(!strcmp(row->source, "built-in"), "source %s", row->source);
		hp_dispatch_format(row, text, sizeof(text));
		CHECK(!hp_dispatch_parse(text, &again, err, sizeof(err)), "%s: %s", row->name, err);
		hp_dispatch_format(&again, text2, sizeof(text2));
		CHECK(!strcmp(text, text2), "%s does not print back:\n%s\n%s", row->name, text,
		      text2);
	}
}

static void refused(const char *text, const char *want)
{
	struct hp_dispatch_row row;
	char err[200] = "";

	CHECK(hp_dispatch_parse(text, &row, err, sizeof(err)) == -1, "accepted: %s", text);
	CHECK(strstr(err, want) != NULL, "'%s': said '%s', want '%s'", text, err, want);
	/* the reason names the line, never its text: a set-uid program's
	 * message must not show a file's content */
	CHECK(strstr(err, "SECRET") == NULL, "'%s': said '%s', the text itself", text, err);
}

static void test_bad_rows(void)
{
	const char *ok = "csum.odd = scalar 0\ncrc32c = sse42 0\n";
	char text[512];

	refused("csum.even = scalar 0\ncrc32c = sse42 0\n", "missing csum.odd");
	snprintf(text, sizeof(text), "csum.even = avx2 0\n%s", ok);
	refused(text, "the first step must be scalar");
	snprintf(text, sizeof(text), "csum.even = scalar 0, avx2 128\n%s", ok);
	refused(text, "no vector method below 256 bytes");
	snprintf(text, sizeof(text), "csum.even = scalar 0, avx2 512, avx512 256\n%s", ok);
	refused(text, "must start at 0 and ascend");
	snprintf(text, sizeof(text), "csum.even = scalar 0, SECRET 512\n%s", ok);
	refused(text, "line 1: csum.even: step 2: method not known; allowed: scalar, avx2, "
		"avx2-hybrid, avx512");
	snprintf(text, sizeof(text), "csum.even = scalar SECRET\n%s", ok);
	refused(text, "line 1: csum.even: step 1: expected METHOD LENGTH");
	snprintf(text, sizeof(text), "csum.even = scalar 0\n%s\n# comment\nSECRET = 3\n", ok);
	refused(text, "line 6: key not known; allowed: name, csum.even, csum.odd, crc32c");
	refused("name = x\n\nSECRET line\n", "line 3: expected KEY = VALUE");
	snprintf(text, sizeof(text), "csum.even = scalar 0\ncsum.odd = scalar 0\n"
		 "crc32c = sse42 0, fold4 1, fold4 2, fold4 3, fold4 4, fold4 5, fold4 6, "
		 "fold4 7, fold4 8\n");
	refused(text, "more than 8 steps");
}

static unsigned long wrong;

static void sweep(void *arg)
{
	const char *name = arg;

	for (size_t len = 0; len <= 4096; len++)
		for (size_t a = 0; a < 2; a++) {
			const uint8_t *p = hp_guarded_butt(&g, len);
			uint32_t seed = (uint32_t)rnd();

			p -= a;	/* odd and even addresses, still ending at the guard */
			if (hp_csum(p, (int)len, seed) != hp_csum_scalar(p, (int)len, seed) &&
			    wrong++ < 5)
				fprintf(stderr, "  %s: hp_csum len %zu odd %zu wrong\n", name, len,
					(size_t)((uintptr_t)p & 1));
			if (hp_crc32c(seed, p, len) != hp_crc32c_ref(seed, p, len) && wrong++ < 5)
				fprintf(stderr, "  %s: hp_crc32c len %zu wrong\n", name, len);
		}
}

static void test_every_row_is_correct_here(void)
{
	for (size_t i = 0; i < sizeof(cpus) / sizeof(*cpus); i++) {
		const struct hp_dispatch_row *row =
			hp_dispatch_builtin(cpus[i].vendor, cpus[i].family, cpus[i].model);

		hp_csum_use_row(row);
		hp_crc32c_use_row(row);
		wrong = 0;
		CHECK(!hp_guarded_call(sweep, (void *)row->name), "%s read outside", row->name);
		CHECK(wrong == 0, "row %s: %lu results wrong", row->name, wrong);
	}
	hp_csum_use_row(hp_dispatch());
	hp_crc32c_use_row(hp_dispatch());
}

/* crc32c rows of shapes no built-in row has: the stream alone (nothing
 * in the plan after the inlined stream), a first step that is not the
 * stream (nothing inlined, the plan from 0), and eight steps (the scan
 * past the two steps compared inline). */
static void test_row_shapes_are_correct_here(void)
{
	static const char *const crc[] = {
		"sse42 0",
		"fold8 0, sse42 40, sse42-seedlast 100",
		"sse42 0, sse42-seedlast 9, fold4 64, sse42-4way 100, fold8 200, "
		"sse42-3way 333, avx512 1000, avx512-fused 2000",
	};

	for (size_t i = 0; i < sizeof(crc) / sizeof(*crc); i++) {
		struct hp_dispatch_row row;
		char text[512], err[200] = "";

		snprintf(text, sizeof(text),
			 "csum.even = scalar 0\ncsum.odd = scalar 0\ncrc32c = %s\n", crc[i]);
		CHECK(hp_dispatch_parse(text, &row, err, sizeof(err)) == 0, "%s: %s",
		      crc[i], err);
		hp_crc32c_use_row(&row);
		wrong = 0;
		CHECK(!hp_guarded_call(sweep, (void *)crc[i]), "%s read outside", crc[i]);
		CHECK(wrong == 0, "crc32c = %s: %lu results wrong", crc[i], wrong);
	}
	hp_crc32c_use_row(hp_dispatch());
}

/*
 * hp_csum() jumps straight to the AVX-512 path (from its first compare
 * past 80 bytes) from hp_csum_avx512_from bytes: only when that path is
 * the row's last step at both parities, else a later step or the other
 * parity's method would be skipped. Rows of each shape, each also swept
 * for its results.
 */
extern int32_t hp_csum_avx512_from;	/* hidden in the library, c/csum/csum_hp.c */

static void test_csum_shortcut_only_for_avx512_last(void)
{
	static const struct {
		const char *csum;
		int32_t from;	/* on a CPU with AVX-512 (BW) */
	} rows[] = {
		{ "csum.even = scalar 0, avx512 256\ncsum.odd = scalar 0, avx512 256\n", 256 },
		{ "csum.even = scalar 0, avx512 512\ncsum.odd = scalar 0, avx512 384\n", -1 },
		{ "csum.even = scalar 0, avx512 256, avx2 3072\n"
		  "csum.odd = scalar 0, avx512 256, avx2 3072\n", -1 },
		{ "csum.even = scalar 0, avx512 256\ncsum.odd = scalar 0, avx2 256\n", -1 },
		{ "csum.even = scalar 0, avx2 384\ncsum.odd = scalar 0, avx2 384\n", -1 },
	};
	int has512 = (hp_cpu_features() & (HP_CPU_AVX512F | HP_CPU_AVX512BW)) ==
		     (HP_CPU_AVX512F | HP_CPU_AVX512BW);

	for (size_t i = 0; i < sizeof(rows) / sizeof(*rows); i++) {
		struct hp_dispatch_row row;
		char text[512], err[200] = "";
		int32_t want = rows[i].from > 0 && has512 ? rows[i].from : INT32_MAX;

		snprintf(text, sizeof(text), "%scrc32c = sse42 0\n", rows[i].csum);
		CHECK(hp_dispatch_parse(text, &row, err, sizeof(err)) == 0, "%s: %s", text, err);
		hp_csum_use_row(&row);
		CHECK(hp_csum_avx512_from == want, "%s: shortcut from %d, want %d", rows[i].csum,
		      hp_csum_avx512_from, want);
		wrong = 0;
		CHECK(!hp_guarded_call(sweep, (void *)rows[i].csum), "%s read outside",
		      rows[i].csum);
		CHECK(wrong == 0, "%s: %lu results wrong", rows[i].csum, wrong);
	}
	hp_csum_use_row(hp_dispatch());
}

/* HOTPATH_DISPATCH is read on first use: ask a child what it took. */
static void child_says(const char *self, const char *file, const char *want_out,
		       const char *want_err)
{
	char cmd[1024], out[512] = "", err_path[] = "/tmp/hotpath-dispatch-XXXXXX";
	char err[512] = "";
	int fd = mkstemp(err_path);
	FILE *f;

	/* timeout: a file that blocks (a FIFO) must not hang the test */
	snprintf(cmd, sizeof(cmd), "HOTPATH_DISPATCH=%s timeout 10 %s --print-row 2>%s", file,
		 self, err_path);
	f = popen(cmd, "r");
	if (f) {
		size_t n = fread(out, 1, sizeof(out) - 1, f);

		out[n] = 0;
		pclose(f);
	}
	f = fdopen(fd, "r");
	if (f) {
		size_t n = fread(err, 1, sizeof(err) - 1, f);

		err[n] = 0;
		fclose(f);
	}
	unlink(err_path);
	CHECK(strstr(out, want_out) != NULL, "HOTPATH_DISPATCH=%s: row\n%s\nwant %s", file, out,
	      want_out);
	CHECK(strstr(err, want_err) != NULL, "HOTPATH_DISPATCH=%s: said '%s', want '%s'", file,
	      err, want_err);
}

static void test_env_file(const char *self)
{
	char good[] = "/tmp/hotpath-row-XXXXXX", bad[] = "/tmp/hotpath-row-XXXXXX";
	FILE *f = fdopen(mkstemp(good), "w");

	fputs("# measured here\nname = mine\ncsum.even = scalar 0, avx2 512\n"
	      "csum.odd = scalar 0\ncrc32c = sse42 0, sse42-3way 64\n", f);
	fclose(f);
	f = fdopen(mkstemp(bad), "w");
	fputs("name = broken\ncsum.even = scalar 0\n", f);
	fclose(f);
	child_says(self, good, "name = mine\ncsum.even = scalar 0, avx2 512\n", "");
	child_says(self, bad, "name = ", "missing csum.odd; using the built-in row");
	child_says(self, "/nonexistent/row", "name = ", "No such file or directory");
	unlink(good);
	unlink(bad);
}

/* Files that are not row files: named for what they are, never read
 * without end or waited on (a FIFO blocked every program at load). */
static void test_env_not_a_row_file(const char *self)
{
	char dir[] = "/tmp/hotpath-row-XXXXXX", fifo[64], nul[64], big[64];
	FILE *f;

	CHECK(mkdtemp(dir) != NULL, "mkdtemp");
	snprintf(fifo, sizeof(fifo), "%s/fifo", dir);
	snprintf(nul, sizeof(nul), "%s/nul", dir);
	snprintf(big, sizeof(big), "%s/big", dir);
	CHECK(mkfifo(fifo, 0600) == 0, "mkfifo %s", fifo);
	child_says(self, fifo, "name = ", "/fifo': not a regular file, expected a row file; "
		   "using the built-in row");
	child_says(self, dir, "name = ", "': is a directory, expected a row file; using");
	child_says(self, "/dev/zero", "name = ", "'/dev/zero': not a regular file");
	f = fopen(nul, "w");
	fputs("name = x", f);
	fputc(0, f);
	fputs("\ncsum.even = scalar 0\ncsum.odd = scalar 0\ncrc32c = sse42 0\n", f);
	fclose(f);
	child_says(self, nul, "name = ", "/nul': holds a NUL byte, expected a row file");
	f = fopen(big, "w");
	for (int i = 0; i < HP_ROW_FILE_MAX; i++)
		fputc('\n', f);
	fclose(f);
	child_says(self, big, "name = ", "/big': 4096 bytes or more, expected a row file");
	unlink(fifo);
	unlink(nul);
	unlink(big);
	rmdir(dir);
}

int main(int argc, char **argv)
{
	if (argc > 1 && !strcmp(argv[1], "--print-row")) {
		char text[1024];

		hp_dispatch_format(hp_dispatch(), text, sizeof(text));
		fputs(text, stdout);
		return 0;
	}
	if (hp_guarded_alloc(&g, 4096 + 64)) {
		perror("hp_guarded_alloc");
		return 2;
	}
	test_rows_parse_and_print_back();
	test_bad_rows();
	test_every_row_is_correct_here();
	test_row_shapes_are_correct_here();
	test_csum_shortcut_only_for_avx512_last();
	test_env_file(argv[0]);
	test_env_not_a_row_file(argv[0]);
	hp_guarded_free(&g);
	return check_summary("test_dispatch");
}
