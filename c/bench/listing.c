// SPDX-License-Identifier: GPL-2.0-only
/*
 * The runner's commands that measure nothing: `list` (every primitive and
 * variant, the CPU, the dispatch row in use and the facts Python must not
 * copy) and `row` (a dispatch row as the library reads it).
 * docs/runner-protocol.md has their output.
 */
#include "runner.h"
#include <hotpath/dispatch.h>

#include <stdio.h>

int hp_list_command(void)
{
	struct hp_json j;

	hp_json_init(&j, stdout);
	hp_json_obj_begin(&j);
	hp_json_key(&j, "schema");
	hp_json_str(&j, "hotpath.bench/1");
	hp_json_key(&j, "command");
	hp_json_str(&j, "list");
	hp_emit_cpu(&j, -1, 0);
	hp_emit_dispatch(&j);
	hp_emit_dispatch_facts(&j);
	/* every feature name the runner tells apart (cpu.features: those here) */
	hp_json_key(&j, "cpu_feature_names");
	hp_json_arr_begin(&j);
	for (unsigned b = 0; b < HP_CPU_NFEATURES; b++)
		hp_json_str(&j, hp_cpu_feature_name(b));
	hp_json_arr_end(&j);
	hp_json_key(&j, "primitives");
	hp_json_arr_begin(&j);
	for (const struct hp_primitive *const *pp = hp_primitives; *pp; pp++) {
		const struct hp_primitive *p = *pp;
		uint32_t have = hp_cpu_features();

		hp_json_obj_begin(&j);
		hp_json_key(&j, "name");
		hp_json_str(&j, p->name);
		hp_json_key(&j, "lab");
		hp_json_str(&j, p->lab);
		hp_json_key(&j, "seed_name");
		hp_json_str(&j, p->seed_name);
		hp_json_key(&j, "default_sizes");
		hp_json_arr_begin(&j);
		for (size_t i = 0; i < p->ndefault_sizes; i++)
			hp_json_uint(&j, p->default_sizes[i]);
		hp_json_arr_end(&j);
		hp_json_key(&j, "variants");
		hp_json_arr_begin(&j);
		for (size_t i = 0; i < p->nvariants; i++) {
			struct hp_variant_result r = { .v = &p->variants[i] };

			r.status = p->variants[i].unavailable ? "unavailable"
				: (p->variants[i].needs & ~have) ? "skipped"
								 : "unchecked";
			r.reason = p->variants[i].unavailable;
			hp_emit_variant(&j, p, &r);
		}
		hp_json_arr_end(&j);
		hp_json_obj_end(&j);
	}
	hp_json_arr_end(&j);
	hp_json_obj_end(&j);
	return fflush(stdout) ? 1 : 0;
}

/*
 * `hotpath-bench row TEXT`: the dispatch row in TEXT as the library reads
 * it (hp_dispatch_parse, the one parser of the row format), so that no
 * other program parses a row again: {"ok": true, "name", "steps", "text"
 * (the row as the library would write it)} or {"ok": false, "error"}.
 * Exit 0 either way: a row that is refused is an answer, not a failure.
 */
int hp_row_command(int argc, char **argv)
{
	struct hp_dispatch_row row;
	char err[200], text[HP_ROW_FILE_MAX];
	struct hp_json j;
	int bad;

	if (argc != 3)
		hp_usage_error("row", argc < 3 ? "" : argv[3], "one argument: the row's text");
	bad = hp_dispatch_parse(argv[2], &row, err, sizeof(err));
	hp_json_init(&j, stdout);
	hp_json_obj_begin(&j);
	hp_json_key(&j, "schema");
	hp_json_str(&j, "hotpath.bench/1");
	hp_json_key(&j, "command");
	hp_json_str(&j, "row");
	hp_json_key(&j, "ok");
	hp_json_bool(&j, !bad);
	hp_json_key(&j, "error");
	hp_json_str(&j, bad ? err : NULL);
	if (!bad) {
		hp_json_key(&j, "name");
		hp_json_str(&j, row.name);
		hp_json_key(&j, "steps");
		hp_emit_row_steps(&j, &row);
		hp_dispatch_format(&row, text, sizeof(text));
		hp_json_key(&j, "text");
		hp_json_str(&j, text);
	}
	hp_json_obj_end(&j);
	return fflush(stdout) ? 1 : 0;
}
