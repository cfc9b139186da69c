// SPDX-License-Identifier: GPL-2.0-only
/*
 * The row format (hotpath/dispatch.h): each dispatched primitive's methods,
 * row text into a struct hp_dispatch_row and back, and a row file's bytes
 * read as the library may read them. It calls nothing else of c/dispatch/:
 * the built-in rows (rows.c), the measured ones (measured.c) and the
 * choice of the row in use (choose.c) call it.
 */
#include <hotpath/bench.h>
#include <hotpath/dispatch.h>

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "dispatch_internal.h"

/*
 * Each dispatched primitive's methods: the name a row gives the method and
 * the variant that runs it alone (c/csum/registry.c, c/crc32c/registry.c;
 * tests/c/test_dispatch_rows.c checks that each is there). The only list of
 * them: the row parser, the row writer, HOTPATH_CSUM_FORCE and the
 * runner's listing (which Python reads) all take them from here.
 */
static const struct hp_dispatch_method csum_methods[HP_CSUM_NPATHS] = {
	[HP_CSUM_PATH_SCALAR] = { "scalar", "hp-csum-scalar" },
	[HP_CSUM_PATH_AVX2] = { "avx2", "hp-csum-avx2" },
	[HP_CSUM_PATH_AVX2_HYBRID] = { "avx2-hybrid", "hp-csum-avx2-hybrid" },
	[HP_CSUM_PATH_AVX512] = { "avx512", "hp-csum-avx512" },
};

static const struct hp_dispatch_method crc32c_methods[HP_CRC32C_NMETHODS] = {
	[HP_CRC32C_SLICE8] = { "slice8", "slice-by-8" },
	[HP_CRC32C_SSE42] = { "sse42", "sse42-1stream" },
	[HP_CRC32C_SSE42_SEEDLAST] = { "sse42-seedlast", "sse42-seedlast" },
	[HP_CRC32C_SSE42_3WAY] = { "sse42-3way", "sse42-3way" },
	[HP_CRC32C_SSE42_4WAY] = { "sse42-4way", "sse42-4way" },
	[HP_CRC32C_SSE42_4WAY_SEEDLAST] = { "sse42-4way-seedlast", "sse42-4way-seedlast" },
	[HP_CRC32C_FOLD4] = { "fold4", "pclmul-fold4" },
	[HP_CRC32C_FOLD8] = { "fold8", "pclmul-fold8" },
	[HP_CRC32C_AVX512] = { "avx512", "vpclmul-avx512" },
	[HP_CRC32C_AVX512_FUSED] = { "avx512-fused", "fused-crc32-vpclmul" },
	[HP_CRC32C_AVX2_VPCLMUL] = { "avx2-vpclmul", "vpclmul-avx2" },
	[HP_CRC32C_AVX2_FUSED] = { "avx2-fused", "fused-crc32-vpclmul-avx2" },
	[HP_CRC32C_AVX512_SEEDLAST] = { "avx512-seedlast", "vpclmul-avx512-seedlast" },
	[HP_CRC32C_AVX2_SEEDLAST] = { "avx2-seedlast", "vpclmul-avx2-seedlast" },
	[HP_CRC32C_AVX2_FUSED_4X24] = { "avx2-fused-4x24", "fused-crc32-vpclmul-avx2-4x24" },
	[HP_CRC32C_AVX2_FUSED_4X32] = { "avx2-fused-4x32", "fused-crc32-vpclmul-avx2-4x32" },
};

const struct hp_dispatch_primitive hp_dispatch_primitives[HP_DISPATCH_NPRIMITIVES] = {
	[HP_DISPATCH_CSUM] = { "csum_partial", { "csum.even", "csum.odd" },
			       csum_methods, HP_CSUM_PATH_SCALAR, HP_CSUM_NPATHS },
	[HP_DISPATCH_CRC32C] = { "crc32c", { "crc32c", NULL },
				 crc32c_methods, 0, HP_CRC32C_NMETHODS },
};

const char *hp_dispatch_method_name(int prim, int method)
{
	const struct hp_dispatch_primitive *p;

	if ((unsigned int)prim >= HP_DISPATCH_NPRIMITIVES)
		return "unknown";
	p = &hp_dispatch_primitives[prim];
	return method >= p->first && method < p->n ? p->methods[method].name : "unknown";
}

int hp_dispatch_method_find(int prim, const char *name)
{
	const struct hp_dispatch_primitive *p;

	if ((unsigned int)prim >= HP_DISPATCH_NPRIMITIVES)
		return -1;
	p = &hp_dispatch_primitives[prim];
	for (int m = p->first; m < p->n; m++)
		if (!strcmp(name, p->methods[m].name))
			return m;
	return -1;
}

void hp_dispatch_methods_list(int prim, const char *last, char *buf, size_t len)
{
	const struct hp_dispatch_primitive *p = &hp_dispatch_primitives[prim];
	size_t at = 0;

	if (len)
		buf[0] = 0;
	for (int m = p->first; m < p->n && at < len; m++) {
		int n = snprintf(buf + at, len - at, "%s%s%s%s",
				 m == p->first ? "" : m == p->n - 1 && *last ? " " : ", ",
				 m > p->first && m == p->n - 1 ? last : "",
				 m > p->first && m == p->n - 1 && *last ? " " : "",
				 p->methods[m].name);

		at += n > 0 ? (size_t)n : 0;
	}
}

const char *hp_crc32c_method_name(enum hp_crc32c_method method)
{
	return hp_dispatch_method_name(HP_DISPATCH_CRC32C, method);
}

static void say(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
}

/* "scalar 0, avx512 256, avx2 4096" into steps; 0, or -1 with a reason
 * in @why that names the step by its number, not by its text. */
static int parse_steps(char *value, struct hp_steps *steps, int prim,
		       char *why, size_t whylen)
{
	char *save = NULL;
	int k = 0;

	memset(steps, 0, sizeof(*steps));
	for (char *item = strtok_r(value, ",", &save); item;
	     item = strtok_r(NULL, ",", &save)) {
		char name[32], extra;
		unsigned long from;
		int m;

		k++;
		if (sscanf(item, " %31s %lu %c", name, &from, &extra) != 2) {
			say(why, whylen, "step %d: expected METHOD LENGTH", k);
			return -1;
		}
		m = hp_dispatch_method_find(prim, name);
		if (m < 0) {
			char allowed[256];

			hp_dispatch_methods_list(prim, "", allowed, sizeof(allowed));
			say(why, whylen, "step %d: method not known; allowed: %s", k, allowed);
			return -1;
		}
		if (steps->n == HP_STEPS_MAX) {
			say(why, whylen, "more than %d steps", HP_STEPS_MAX);
			return -1;
		}
		if (steps->n == 0 ? from != 0 : from <= steps->from[steps->n - 1] ||
			from > UINT32_MAX) {
			say(why, whylen, "step %d: lengths must start at 0 and ascend", k);
			return -1;
		}
		steps->from[steps->n] = (uint32_t)from;
		steps->method[steps->n++] = (uint8_t)m;
	}
	if (!steps->n) {
		say(why, whylen, "no steps");
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

/* One csum.even/csum.odd or crc32c line's steps; 0, or -1 with @why. */
static int parse_key(const char *key, char *value, struct hp_dispatch_row *row,
		     char *why, size_t whylen)
{
	int odd = !strcmp(key, hp_dispatch_primitives[HP_DISPATCH_CSUM].keys[1]);
	struct hp_steps *csum = &row->csum[odd];

	if (!strcmp(key, hp_dispatch_primitives[HP_DISPATCH_CRC32C].keys[0]))
		return parse_steps(value, &row->crc32c, HP_DISPATCH_CRC32C, why, whylen);
	if (parse_steps(value, csum, HP_DISPATCH_CSUM, why, whylen))
		return -1;
	if (csum->method[0] != HP_CSUM_PATH_SCALAR) {
		say(why, whylen, "the first step must be scalar");
		return -1;
	}
	if (csum->n > 1 && csum->from[1] < HP_CSUM_SHORT) {
		say(why, whylen, "no vector method below %d bytes", HP_CSUM_SHORT);
		return -1;
	}
	return 0;
}

int hp_dispatch_parse(const char *text, struct hp_dispatch_row *row, char *err,
		      size_t errlen)
{
	const char *const keys[] = {
		hp_dispatch_primitives[HP_DISPATCH_CSUM].keys[0],
		hp_dispatch_primitives[HP_DISPATCH_CSUM].keys[1],
		hp_dispatch_primitives[HP_DISPATCH_CRC32C].keys[0],
	};
	char buf[HP_ROW_FILE_MAX], *next;
	unsigned int seen = 0;	/* bits: keys[] */
	unsigned int number = 0;

	if (strlen(text) >= sizeof(buf)) {
		say(err, errlen, "longer than %d bytes", HP_ROW_FILE_MAX - 1);
		return -1;
	}
	strcpy(buf, text);
	memset(row, 0, sizeof(*row));
	strcpy(row->name, "unnamed");
	for (char *line = buf; line; line = next) {
		char *eq, *key, *value, why[160];
		unsigned int k;

		next = strchr(line, '\n');
		if (next)
			*next++ = 0;
		number++;
		line[strcspn(line, "#")] = 0;
		line = trim(line);
		if (!*line)
			continue;
		eq = strchr(line, '=');
		if (!eq) {
			say(err, errlen, "line %u: expected KEY = VALUE", number);
			return -1;
		}
		*eq = 0;
		key = trim(line);
		value = trim(eq + 1);
		if (!strcmp(key, "name")) {
			snprintf(row->name, sizeof(row->name), "%s", value);
			continue;
		}
		for (k = 0; k < 3 && strcmp(key, keys[k]); k++)
			;
		if (k == 3) {
			say(err, errlen, "line %u: key not known; allowed: name, %s, %s, %s",
			    number, keys[0], keys[1], keys[2]);
			return -1;
		}
		if (parse_key(keys[k], value, row, why, sizeof(why))) {
			say(err, errlen, "line %u: %s: %s", number, keys[k], why);
			return -1;
		}
		seen |= 1u << k;
	}
	for (unsigned int k = 0; k < 3; k++)
		if (!(seen & (1u << k))) {
			say(err, errlen, "missing %s", keys[k]);
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
		       hp_dispatch_method_name(crc ? HP_DISPATCH_CRC32C : HP_DISPATCH_CSUM,
					       steps->method[i]),
		       steps->from[i]);
	append(buf, len, at, "\n");
}

size_t hp_dispatch_format(const struct hp_dispatch_row *row, char *buf, size_t len)
{
	size_t at = 0;
	const struct hp_dispatch_primitive *csum = &hp_dispatch_primitives[HP_DISPATCH_CSUM];

	append(buf, len, &at, "name = %s\n", row->name);
	format_steps(buf, len, &at, csum->keys[0], &row->csum[0], 0);
	format_steps(buf, len, &at, csum->keys[1], &row->csum[1], 0);
	format_steps(buf, len, &at, hp_dispatch_primitives[HP_DISPATCH_CRC32C].keys[0],
		     &row->crc32c, 1);
	return at;
}

/*
 * The file's bytes into @text (@size with the NUL); NULL, or why not.
 * Opened without blocking and taken only as a regular file of fewer than
 * @size bytes: a FIFO would stop every program linking the library before
 * main, and a device such as /dev/zero never ends.
 */
const char *hp__dispatch_read_text(const char *path, char *text, size_t size,
				   struct stat *opened)
{
	const char *why = NULL;
	struct stat st;
	size_t got = 0;
	int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);

	if (fd < 0)
		return strerror(errno);
	if (fstat(fd, &st))
		why = strerror(errno);
	else if (S_ISDIR(st.st_mode))
		why = "is a directory, expected a row file";
	else if (!S_ISREG(st.st_mode))
		why = "not a regular file, expected a row file";
	else if ((size_t)st.st_size >= size)
		why = HP_STR(HP_ROW_FILE_MAX) " bytes or more, expected a row file";
	while (!why && got < size - 1) {
		ssize_t n = read(fd, text + got, size - 1 - got);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			why = strerror(errno);
		if (n <= 0)
			break;
		got += (size_t)n;
	}
	close(fd);
	text[got] = 0;
	if (opened)
		*opened = st;
	if (!why && memchr(text, 0, got))
		why = "holds a NUL byte, expected a row file";
	return why;
}

int hp_dispatch_read_file(const char *path, char *text, struct hp_dispatch_row *row,
			  char *err, size_t errlen)
{
	const char *why = hp__dispatch_read_text(path, text, HP_ROW_FILE_MAX, NULL);

	if (why) {
		text[0] = 0;
		say(err, errlen, "%s", why);
		return -1;
	}
	if (hp_dispatch_parse(text, row, err, errlen))
		return -2;
	snprintf(row->source, sizeof(row->source), "%s", path);
	return 0;
}
