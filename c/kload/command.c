// SPDX-License-Identifier: GPL-2.0-only
/*
 * `hotpath-bench kload SPEC [SYMBOL...] [--dump FILE]`: load an image as a
 * run would and say what the loading did, as JSON on stdout: where the
 * text lies, the patch counts (patch.c), each symbol's address; --dump
 * writes the patched text to FILE (for objdump -b binary). Python runs it
 * once per built image before any timing, so that a refusal (a symbol
 * the runtime lacks, a relocation out of reach) is said with the tree's
 * name and never reaches a measurement. Exit 0, or 3 with {"error": ...}.
 */
#include "kload.h"

#include <stdint.h>
#include <stdio.h>
#include <string.h>

static void json_string(const char *s)
{
	putchar('"');
	for (; *s; s++)
		if (*s == '"' || *s == '\\')
			printf("\\%c", *s);
		else if ((unsigned char)*s < 0x20)
			printf("\\u%04x", *s);
		else
			putchar(*s);
	putchar('"');
}

int hp_kload_command(int argc, char **argv)
{
	char err[4096];
	const char *spec = argc > 2 ? argv[2] : "", *dump = NULL;
	void *first;
	size_t text_size = 0;

	if (argc < 3) {
		fprintf(stderr, "hotpath-bench: usage: kload SPEC [SYMBOL...] [--dump FILE]\n");
		return 2;
	}
	for (int i = 3; i < argc; i++)
		if (!strcmp(argv[i], "--dump") && i + 1 < argc)
			dump = argv[i + 1];
	first = hp_kload_symbol(spec, argc > 3 && strcmp(argv[3], "--dump") ? argv[3] : "", err,
				sizeof(err));
	if (!hp_kload_bounds(spec, &text_size)) {
		printf("{\"error\": ");
		json_string(err);
		printf(", \"missing\": %s}\n", hp_kload_missing(spec));
		return 3;
	}
	(void)first;
	printf("{\"spec\": ");
	json_string(spec);
	printf(", \"text\": \"0x%lx\", \"text_size\": %zu, %s, \"symbols\": {",
	       (unsigned long)(uintptr_t)hp_kload_bounds(spec, &text_size), text_size,
	       hp_kload_summary(spec));
	for (int i = 3, n = 0; i < argc; i++) {
		void *at;

		if (!strcmp(argv[i], "--dump")) {
			i++;
			continue;
		}
		at = hp_kload_symbol(spec, argv[i], err, sizeof(err));
		printf("%s", n++ ? ", " : "");
		json_string(argv[i]);
		printf(": %s%lx%s", at ? "\"0x" : "", (unsigned long)(uintptr_t)at, at ? "\"" : "");
	}
	printf("}}\n");
	if (dump) {
		FILE *f = fopen(dump, "wb");

		if (!f || fwrite(hp_kload_bounds(spec, &text_size), 1, text_size, f) != text_size) {
			fprintf(stderr, "hotpath-bench: cannot write %s\n", dump);
			return 3;
		}
		fclose(f);
	}
	return 0;
}
