// SPDX-License-Identifier: GPL-2.0-only
/*
 * The dispatch row format and its source (hotpath/dispatch.h): every
 * built-in row parses and prints back to the same text, CPUs find their
 * rows, bad row text is refused with the reason, the method table names
 * the runner's variants. HOTPATH_DISPATCH's file is taken, and a bad one
 * named (by its line, never its text) and replaced by the built-in row, in
 * a child process; so is a FIFO, a folder or a device, unread.
 */
#include <hotpath/bench.h>
#include <hotpath/csum.h>
#include <hotpath/dispatch.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "check.h"
#include "dispatch_cpus.h"

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
	snprintf(text, sizeof(text), "csum.even = scalar 0, avx2 64\n%s", ok);
	refused(text, "no vector method below 96 bytes");
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

static int has_variant(const struct hp_primitive *p, const char *name)
{
	for (size_t i = 0; p && i < p->nvariants; i++)
		if (!strcmp(p->variants[i].name, name))
			return 1;
	return 0;
}

/* hp_dispatch_primitives[] (the one list of methods and their variants):
 * each primitive and each method's variant are the runner's, the
 * primitive has a variant of hotpath's own (HP_V_OWN); each name finds
 * its method. */
static void test_method_table(void)
{
	char list[256];

	for (int k = 0; k < HP_DISPATCH_NPRIMITIVES; k++) {
		const struct hp_dispatch_primitive *d = &hp_dispatch_primitives[k];
		const struct hp_primitive *p = hp_primitive_find(d->primitive);

		CHECK(p != NULL, "dispatched primitive %s not in the runner", d->primitive);
		CHECK(p && *hp_own_variant(p), "%s: no variant flagged HP_V_OWN", d->primitive);
		for (int m = d->first; m < d->n; m++) {
			CHECK(d->methods[m].name && d->methods[m].variant, "%s: method %d unnamed",
			      d->primitive, m);
			CHECK(has_variant(p, d->methods[m].variant), "%s: method %s's variant %s missing",
			      d->primitive, d->methods[m].name, d->methods[m].variant);
			CHECK(hp_dispatch_method_find(k, d->methods[m].name) == m,
			      "%s: %s does not find itself", d->primitive, d->methods[m].name);
		}
	}
	hp_dispatch_methods_list(HP_DISPATCH_CSUM, "or", list, sizeof(list));
	CHECK(!strcmp(list, "scalar, avx2, avx2-hybrid or avx512"), "csum list: %s", list);
	CHECK(!strcmp(hp_csum_path_name(HP_CSUM_PATH_AUTO), "auto"), "auto's name");
	CHECK(hp_dispatch_method_find(HP_DISPATCH_CSUM, "auto") < 0, "auto is not a method");
}

int main(int argc, char **argv)
{
	if (argc > 1 && !strcmp(argv[1], "--print-row")) {
		char text[1024];

		hp_dispatch_format(hp_dispatch(), text, sizeof(text));
		fputs(text, stdout);
		return 0;
	}
	test_method_table();
	test_rows_parse_and_print_back();
	test_bad_rows();
	test_env_file(argv[0]);
	test_env_not_a_row_file(argv[0]);
	return check_summary("test_dispatch_rows");
}
