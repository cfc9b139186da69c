/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The one JSON writer (c/bench/json.c): a streaming writer that places the
 * commas itself. The runner's output, a primitive's `analyze` object and
 * a lab's own program (the crossing tool) all write through it.
 */
#ifndef HOTPATH_JSON_H
#define HOTPATH_JSON_H

#include <stdint.h>
#include <stdio.h>

struct hp_json {
	FILE *f;
	int depth;
	unsigned char first[64];
	int after_key;
};

void hp_json_init(struct hp_json *j, FILE *f);
void hp_json_obj_begin(struct hp_json *j);
void hp_json_obj_end(struct hp_json *j);
void hp_json_arr_begin(struct hp_json *j);
void hp_json_arr_end(struct hp_json *j);
void hp_json_key(struct hp_json *j, const char *k);
void hp_json_str(struct hp_json *j, const char *s);	/* NULL -> null */
void hp_json_num(struct hp_json *j, double v);
/* @v with @decimals digits after the point ("%.*f"); not finite: null. */
void hp_json_fixed(struct hp_json *j, double v, int decimals);
void hp_json_uint(struct hp_json *j, uint64_t v);
void hp_json_int(struct hp_json *j, long long v);
void hp_json_bool(struct hp_json *j, int v);
void hp_json_null(struct hp_json *j);

#endif /* HOTPATH_JSON_H */
