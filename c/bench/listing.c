// SPDX-License-Identifier: GPL-2.0-only
/*
 * The runner's commands that measure nothing: `facts` (what this build
 * takes and tells apart, which Python must not copy), `cpu` (this CPU as
 * the runner sees it), `list` (every primitive and variant, the CPU, the
 * dispatch row in use) and `row` (a dispatch row as the library reads it).
 * docs/runner-protocol.md has their output.
 */
#include "runner.h"
#include <hotpath/dispatch.h>

#include <stdio.h>
#include <string.h>

static void begin(struct hp_json *j, const char *command)
{
	hp_json_init(j, stdout);
	hp_json_obj_begin(j);
	hp_json_key(j, "schema");
	hp_json_str(j, "hotpath.bench/1");
	hp_json_key(j, "command");
	hp_json_str(j, command);
}

/*
 * `hotpath-bench facts`: what this build takes and tells apart, the same
 * on every machine and in every environment (nothing of this CPU, of
 * HOTPATH_CPU_HIDE or of the row in use), so the build keeps it in
 * runner-facts.json beside the runner and Python reads it from there:
 * the input limits args.c refuses beyond, the CPU feature names in their
 * bit order, the primitives whose figures depend on the dispatch row
 * (a variant flagged HP_V_ROW) and what a dispatch row may say.
 */
int hp_facts_command(void)
{
	struct hp_json j;

	begin(&j, "facts");
	hp_json_key(&j, "limits");
	hp_json_obj_begin(&j);
	hp_json_key(&j, "size_max");
	hp_json_uint(&j, HP_MAX_SIZE);
	hp_json_key(&j, "align_max");
	hp_json_uint(&j, HP_MAX_ALIGN);
	hp_json_key(&j, "rounds_max");
	hp_json_uint(&j, HP_MAX_ROUNDS);
	hp_json_key(&j, "time_limit_max");
	hp_json_uint(&j, HP_MAX_TIME_LIMIT);
	hp_json_obj_end(&j);
	hp_json_key(&j, "cpu_features");
	hp_json_arr_begin(&j);
	for (unsigned b = 0; b < HP_CPU_NFEATURES; b++)
		hp_json_str(&j, hp_cpu_feature_name(b));
	hp_json_arr_end(&j);
	hp_json_key(&j, "row_primitives");
	hp_json_arr_begin(&j);
	for (const struct hp_primitive *const *pp = hp_primitives; *pp; pp++)
		for (size_t i = 0; i < (*pp)->nvariants; i++)
			if ((*pp)->variants[i].flags & HP_V_ROW) {
				hp_json_str(&j, (*pp)->name);
				break;
			}
	hp_json_arr_end(&j);
	hp_emit_dispatch_facts(&j);
	hp_json_obj_end(&j);
	return fflush(stdout) ? 1 : 0;
}

/* `hotpath-bench cpu`: the cpu object of `list` alone (what hotpath's
 * machine key takes of the CPU), without the cost of the listing. */
int hp_cpu_command(void)
{
	struct hp_json j;

	begin(&j, "cpu");
	hp_emit_cpu(&j, -1, 0);
	hp_json_obj_end(&j);
	return fflush(stdout) ? 1 : 0;
}

int hp_list_command(void)
{
	struct hp_json j;

	begin(&j, "list");
	hp_emit_cpu(&j, -1, 0);
	hp_emit_dispatch(&j);
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
 * `row --file PATH`: the row file at PATH as the library reads
 * HOTPATH_DISPATCH's (hp_dispatch_read_file(), the one reader of a row
 * file), with "file": its text, or null when it is not read as a row file.
 * Exit 0 either way: a row that is refused is an answer, not a failure.
 */
int hp_row_command(int argc, char **argv)
{
	struct hp_dispatch_row row;
	char err[200], text[HP_ROW_FILE_MAX], file[HP_ROW_FILE_MAX];
	int from_file = argc == 4 && !strcmp(argv[2], "--file");
	struct hp_json j;
	int bad;

	if (argc != 3 && !from_file)
		hp_usage_error("row", argc < 3 ? "" : argv[3],
			       "one argument: the row's text; or --file PATH");
	if (from_file)
		bad = hp_dispatch_read_file(argv[3], file, &row, err, sizeof(err));
	else
		bad = hp_dispatch_parse(argv[2], &row, err, sizeof(err));
	begin(&j, "row");
	hp_json_key(&j, "ok");
	hp_json_bool(&j, !bad);
	hp_json_key(&j, "error");
	hp_json_str(&j, bad ? err : NULL);
	if (from_file) {
		hp_json_key(&j, "file");
		hp_json_str(&j, bad == -1 ? NULL : file);
	}
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
