/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * What every test that walks a registry asks of a variant: can it run
 * here (and if not, why), and is a length in its domain. One copy, so a
 * new lab's test walks its registry the same way (docs/adding-a-lab.md).
 */
#ifndef HOTPATH_TEST_REGISTRY_WALK_H
#define HOTPATH_TEST_REGISTRY_WALK_H

#include <hotpath/bench.h>

#include <stddef.h>

/* Why @v cannot run on this machine, or NULL when it can. */
static inline const char *skip_reason(const struct hp_variant *v)
{
	if (v->unavailable)
		return v->unavailable;
	if (v->needs & ~hp_cpu_features())
		return "this CPU lacks a needed feature";
	return NULL;
}

/* @len within [min_len, max_len] (max_len 0: no bound). */
static inline int in_domain(const struct hp_variant *v, size_t len)
{
	return len >= v->min_len && (!v->max_len || len <= v->max_len);
}

#endif /* HOTPATH_TEST_REGISTRY_WALK_H */
