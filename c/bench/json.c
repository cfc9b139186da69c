// SPDX-License-Identifier: GPL-2.0-only
/*
 * A minimal streaming JSON writer: the runner prints large arrays of
 * samples, so it writes as it goes instead of building a tree. The one
 * JSON writer of the C side: the runner's output, the AVC model's
 * analyses (c/avc/registry_avc_analyze.c) and the crossing program's
 * (c/crossing/tool/main.c) all go through it, and so its escaping.
 */
#include <hotpath/json.h>

#include <math.h>

void hp_json_init(struct hp_json *j, FILE *f)
{
	j->f = f;
	j->depth = 0;
	j->first[0] = 1;
	j->after_key = 0;
}

/* Before any value: a comma unless it is the first in its container. */
static void sep(struct hp_json *j)
{
	if (j->after_key) {
		j->after_key = 0;
		return;
	}
	if (!j->first[j->depth])
		fputc(',', j->f);
	j->first[j->depth] = 0;
}

static void open_(struct hp_json *j, char c)
{
	sep(j);
	fputc(c, j->f);
	j->first[++j->depth] = 1;
}

static void close_(struct hp_json *j, char c)
{
	j->depth--;
	fputc(c, j->f);
	if (j->depth == 0)
		fputc('\n', j->f);
}

void hp_json_obj_begin(struct hp_json *j) { open_(j, '{'); }
void hp_json_obj_end(struct hp_json *j) { close_(j, '}'); }
void hp_json_arr_begin(struct hp_json *j) { open_(j, '['); }
void hp_json_arr_end(struct hp_json *j) { close_(j, ']'); }

static void put_string(FILE *f, const char *s)
{
	fputc('"', f);
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;

		if (c == '"' || c == '\\')
			fprintf(f, "\\%c", c);
		else if (c == '\n')
			fputs("\\n", f);
		else if (c < 0x20)
			fprintf(f, "\\u%04x", c);
		else
			fputc(c, f);
	}
	fputc('"', f);
}

void hp_json_key(struct hp_json *j, const char *k)
{
	sep(j);
	put_string(j->f, k);
	fputc(':', j->f);
	j->after_key = 1;
}

void hp_json_str(struct hp_json *j, const char *s)
{
	sep(j);
	if (s)
		put_string(j->f, s);
	else
		fputs("null", j->f);
}

void hp_json_num(struct hp_json *j, double v)
{
	sep(j);
	if (isfinite(v))
		fprintf(j->f, "%.10g", v);
	else
		fputs("null", j->f);
}

void hp_json_fixed(struct hp_json *j, double v, int decimals)
{
	sep(j);
	if (isfinite(v))
		fprintf(j->f, "%.*f", decimals, v);
	else
		fputs("null", j->f);
}

void hp_json_uint(struct hp_json *j, uint64_t v)
{
	sep(j);
	fprintf(j->f, "%llu", (unsigned long long)v);
}

void hp_json_int(struct hp_json *j, long long v)
{
	sep(j);
	fprintf(j->f, "%lld", v);
}

void hp_json_bool(struct hp_json *j, int v)
{
	sep(j);
	fputs(v ? "true" : "false", j->f);
}

void hp_json_null(struct hp_json *j)
{
	sep(j);
	fputs("null", j->f);
}
