// SPDX-License-Identifier: GPL-2.0-only
/*
 * The median every part of the engine takes (the clock's TSC windows, the
 * timer's overhead, the sampler's per-batch clocks, the timeline, the JSON
 * writer's shares): one helper below all of them, so that none has to
 * reach into another for it.
 */
#include "engine.h"

#include <stdlib.h>

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

double hp_median(double *v, size_t n)
{
	if (!n)
		return 0;
	qsort(v, n, sizeof(*v), cmp_double);
	return n & 1 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}
