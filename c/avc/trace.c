// SPDX-License-Identifier: GPL-2.0-only
/*
 * A recorded AVC trace (avc_lookup's trace=PATH): one check per line,
 * "ssid,tsid,tclass", '#' starting a comment. Read whole and checked: the
 * first line that is not one is named with its number, never shown past
 * 80 bytes; a line over 255 bytes or holding a NUL byte is refused.
 */
#include <hotpath/avc_workload.h>

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* One "ssid,tsid,tclass" line; 0, or -1 when it is not one. */
static int parse_key(const char *line, struct hp_avc_key *k)
{
	unsigned long v[3];
	const char *p = line;
	char *end;

	for (int i = 0; i < 3; i++) {
		while (*p == ' ' || *p == '\t')
			p++;
		if (*p < '0' || *p > '9')
			return -1;
		v[i] = strtoul(p, &end, 10);
		p = end;
		while (*p == ' ' || *p == '\t')
			p++;
		if (*p != (i < 2 ? ',' : 0))
			return -1;
		p++;
	}
	if (v[0] > UINT32_MAX || v[1] > UINT32_MAX || v[2] > UINT16_MAX)
		return -1;
	k->ssid = (uint32_t)v[0];
	k->tsid = (uint32_t)v[1];
	k->tclass = (uint16_t)v[2];
	return 0;
}

/* One line of @f into @line, without its newline; its length, or
 * LINE_END (no more lines) or LINE_LONG (more than @size - 1 bytes).
 * Counted, not found with strchr: a NUL byte inside is seen as such. */
#define LINE_END (-1)
#define LINE_LONG (-2)
static long read_line(FILE *f, char *line, size_t size)
{
	size_t n = 0;
	int c;

	while ((c = getc_unlocked(f)) != EOF && c != '\n') {
		if (n == size - 1)
			return LINE_LONG;
		line[n++] = (char)c;
	}
	line[n] = 0;
	return c == EOF && !n ? LINE_END : (long)n;
}

const char *hp_avc_load_trace(const char *path, struct hp_avc_key **keys, size_t *nkeys)
{
	static char why[320];
	char line[256];
	size_t cap = 0, number = 0;
	long n;
	FILE *f = fopen(path, "r");

	if (!f) {
		snprintf(why, sizeof(why), "cannot read the trace");
		return why;
	}
	free(*keys);
	*keys = NULL;
	*nkeys = 0;
	while ((n = read_line(f, line, sizeof(line))) != LINE_END) {
		struct hp_avc_key k;

		number++;
		if (n == LINE_LONG) {
			snprintf(why, sizeof(why), "line %zu is longer than 255 bytes",
				 number);
			goto bad;
		}
		if (memchr(line, 0, (size_t)n)) {
			snprintf(why, sizeof(why), "line %zu holds a NUL byte; allowed: "
				 "text, ssid,tsid,tclass per line", number);
			goto bad;
		}
		line[strcspn(line, "#")] = 0;
		if (strspn(line, " \t\r") == strlen(line))
			continue;
		line[strcspn(line, "\r")] = 0;
		if (parse_key(line, &k)) {
			snprintf(why, sizeof(why),
				 "line %zu, '%.80s': allowed: ssid,tsid,tclass as "
				 "unsigned integers (tclass below 65536), '#' "
				 "starts a comment", number, line);
			goto bad;
		}
		if (*nkeys == cap) {
			void *q = realloc(*keys, (cap = cap ? 2 * cap : 4096) *
						 sizeof(**keys));

			if (!q) {
				snprintf(why, sizeof(why), "out of memory");
				goto bad;
			}
			*keys = q;
		}
		(*keys)[(*nkeys)++] = k;
	}
	fclose(f);
	if (!*nkeys) {
		snprintf(why, sizeof(why), "the trace holds no check");
		return why;
	}
	return NULL;
bad:
	fclose(f);
	return why;
}
