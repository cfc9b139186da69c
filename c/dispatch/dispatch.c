// SPDX-License-Identifier: GPL-2.0-only
/*
 * The dispatch row in use: HOTPATH_DISPATCH's file, else the built-in row
 * for this CPU (rows.c), else the generic one; and the row text format
 * (hotpath/dispatch.h). A library must not exit or print on stdout: a bad
 * file is named on stderr once and the built-in row used.
 */
#include <hotpath/bench.h>
#include <hotpath/csum.h>
#include <hotpath/dispatch.h>

#include <ctype.h>
#include <errno.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define ROW_FILE_MAX 4096

static const char *const crc32c_names[HP_CRC32C_NMETHODS] = {
	[HP_CRC32C_SLICE8] = "slice8",
	[HP_CRC32C_SSE42] = "sse42",
	[HP_CRC32C_SSE42_3WAY] = "sse42-3way",
	[HP_CRC32C_SSE42_4WAY] = "sse42-4way",
	[HP_CRC32C_SSE42_SEEDLAST] = "sse42-seedlast",
	[HP_CRC32C_SSE42_4WAY_SEEDLAST] = "sse42-4way-seedlast",
	[HP_CRC32C_AVX512_FUSED] = "avx512-fused",
	[HP_CRC32C_FOLD4] = "fold4",
	[HP_CRC32C_FOLD8] = "fold8",
	[HP_CRC32C_AVX512] = "avx512",
};

const char *hp_crc32c_method_name(enum hp_crc32c_method method)
{
	return (unsigned int)method < HP_CRC32C_NMETHODS ? crc32c_names[method] :
							   "unknown";
}

static void say(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
}

static int csum_method(const char *name)
{
	for (int p = HP_CSUM_PATH_SCALAR; p <= HP_CSUM_PATH_AVX512; p++)
		if (!strcmp(name, hp_csum_path_name(p)))
			return p;
	return -1;
}

static int crc32c_method(const char *name)
{
	for (int m = 0; m < HP_CRC32C_NMETHODS; m++)
		if (!strcmp(name, crc32c_names[m]))
			return m;
	return -1;
}

/* "scalar 0, avx512 256, avx2 4096" into steps. */
static int parse_steps(const char *key, char *value, struct hp_steps *steps,
		       int (*method)(const char *), const char *allowed,
		       char *err, size_t errlen)
{
	char *save = NULL;

	memset(steps, 0, sizeof(*steps));
	for (char *item = strtok_r(value, ",", &save); item;
	     item = strtok_r(NULL, ",", &save)) {
		char name[32], extra;
		unsigned long from;
		int m;

		if (sscanf(item, " %31s %lu %c", name, &from, &extra) != 2) {
			say(err, errlen, "%s: step '%s': expected METHOD LENGTH", key, item);
			return -1;
		}
		m = method(name);
		if (m < 0) {
			say(err, errlen, "%s: method '%s': allowed: %s", key, name, allowed);
			return -1;
		}
		if (steps->n == HP_STEPS_MAX) {
			say(err, errlen, "%s: more than %d steps", key, HP_STEPS_MAX);
			return -1;
		}
		if (steps->n == 0 ? from != 0 : from <= steps->from[steps->n - 1] ||
			from > UINT32_MAX) {
			say(err, errlen, "%s: lengths must start at 0 and ascend ('%s')", key, item);
			return -1;
		}
		steps->from[steps->n] = (uint32_t)from;
		steps->method[steps->n++] = (uint8_t)m;
	}
	if (!steps->n) {
		say(err, errlen, "%s: no steps", key);
		return -1;
	}
	return 0;
}

static char *trim(char *s)
{
	char *end;

	while (isspace((unsigned char)*s))
		s++;
	end = s + strlen(s);
	while (end > s && isspace((unsigned char)end[-1]))
		*--end = 0;
	return s;
}

int hp_dispatch_parse(const char *text, struct hp_dispatch_row *row, char *err,
		      size_t errlen)
{
	char buf[ROW_FILE_MAX], *save = NULL;
	unsigned int seen = 0;	/* bits: csum.even, csum.odd, crc32c */

	if (strlen(text) >= sizeof(buf)) {
		say(err, errlen, "longer than %d bytes", ROW_FILE_MAX - 1);
		return -1;
	}
	strcpy(buf, text);
	memset(row, 0, sizeof(*row));
	strcpy(row->name, "unnamed");
	for (char *line = strtok_r(buf, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		char *eq, *key, *value;
		int rc = 0;

		line[strcspn(line, "#")] = 0;
		line = trim(line);
		if (!*line)
			continue;
		eq = strchr(line, '=');
		if (!eq) {
			say(err, errlen, "line '%s': expected KEY = VALUE", line);
			return -1;
		}
		*eq = 0;
		key = trim(line);
		value = trim(eq + 1);
		if (!strcmp(key, "name")) {
			snprintf(row->name, sizeof(row->name), "%s", value);
		} else if (!strcmp(key, "csum.even") || !strcmp(key, "csum.odd")) {
			int odd = key[5] == 'o';

			rc = parse_steps(key, value, &row->csum[odd], csum_method,
					 "scalar, avx2, avx2-hybrid, avx512", err, errlen);
			if (!rc && row->csum[odd].method[0] != HP_CSUM_PATH_SCALAR) {
				say(err, errlen, "%s: the first step must be scalar", key);
				rc = -1;
			}
			if (!rc && row->csum[odd].n > 1 &&
			    row->csum[odd].from[1] < HP_CSUM_SHORT) {
				say(err, errlen, "%s: no vector method below %d bytes",
				    key, HP_CSUM_SHORT);
				rc = -1;
			}
			seen |= 1u << odd;
		} else if (!strcmp(key, "crc32c")) {
			rc = parse_steps(key, value, &row->crc32c, crc32c_method,
					 "slice8, sse42, sse42-seedlast, sse42-3way, sse42-4way, sse42-4way-seedlast, fold4, fold8, avx512, avx512-fused",
					 err, errlen);
			seen |= 4;
		} else {
			say(err, errlen, "key '%s': allowed: name, csum.even, csum.odd, crc32c", key);
			return -1;
		}
		if (rc)
			return -1;
	}
	if (seen != 7) {
		say(err, errlen, "missing %s", !(seen & 1) ? "csum.even" :
				 !(seen & 2) ? "csum.odd" : "crc32c");
		return -1;
	}
	return 0;
}

/* snprintf at buf + *at, counting what the whole text needs. */
static void append(char *buf, size_t len, size_t *at, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(*at < len ? buf + *at : NULL, *at < len ? len - *at : 0, fmt, ap);
	va_end(ap);
	*at += n > 0 ? (size_t)n : 0;
}

static void format_steps(char *buf, size_t len, size_t *at, const char *key,
			 const struct hp_steps *steps, int crc)
{
	append(buf, len, at, "%s =", key);
	for (int i = 0; i < steps->n; i++)
		append(buf, len, at, "%s %s %u", i ? "," : "",
		       crc ? hp_crc32c_method_name(steps->method[i]) :
			     hp_csum_path_name(steps->method[i]),
		       steps->from[i]);
	append(buf, len, at, "\n");
}

size_t hp_dispatch_format(const struct hp_dispatch_row *row, char *buf, size_t len)
{
	size_t at = 0;

	append(buf, len, &at, "name = %s\n", row->name);
	format_steps(buf, len, &at, "csum.even", &row->csum[0], 0);
	format_steps(buf, len, &at, "csum.odd", &row->csum[1], 0);
	format_steps(buf, len, &at, "crc32c", &row->crc32c, 1);
	return at;
}

static struct hp_dispatch_row in_use;
static pthread_once_t chosen = PTHREAD_ONCE_INIT;

static int read_row_file(const char *path, struct hp_dispatch_row *row)
{
	char text[ROW_FILE_MAX], err[200];
	FILE *f = fopen(path, "r");
	size_t n;

	if (!f) {
		fprintf(stderr, "hotpath: HOTPATH_DISPATCH '%s': %s; using the built-in row\n",
			path, strerror(errno));
		return -1;
	}
	n = fread(text, 1, sizeof(text) - 1, f);
	text[n] = 0;
	fclose(f);
	if (hp_dispatch_parse(text, row, err, sizeof(err))) {
		fprintf(stderr, "hotpath: HOTPATH_DISPATCH '%s': %s; using the built-in row\n",
			path, err);
		return -1;
	}
	snprintf(row->source, sizeof(row->source), "%s", path);
	return 0;
}

static void choose(void)
{
	const char *path = getenv("HOTPATH_DISPATCH");
	struct hp_cpu_id id;

	if (path && *path && !read_row_file(path, &in_use))
		return;
	hp_cpu_identify(&id);
	in_use = *hp_dispatch_builtin(id.vendor, id.family, id.model);
}

const struct hp_dispatch_row *hp_dispatch(void)
{
	pthread_once(&chosen, choose);
	return &in_use;
}
