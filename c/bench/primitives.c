// SPDX-License-Identifier: GPL-2.0-only
/*
 * The table of primitives the runner knows. Adding a primitive is one
 * line here plus its own files under c/<lab>/.
 */
#include <hotpath/bench.h>

#include <string.h>

extern const struct hp_primitive hp_prim_add_chain;
extern const struct hp_primitive hp_prim_csum_partial;

const struct hp_primitive *const hp_primitives[] = {
	&hp_prim_add_chain,
	&hp_prim_csum_partial,
	NULL
};

const struct hp_primitive *hp_primitive_find(const char *name)
{
	for (const struct hp_primitive *const *p = hp_primitives; *p; p++)
		if (!strcmp((*p)->name, name))
			return *p;
	return NULL;
}
