// SPDX-License-Identifier: GPL-2.0-only
/*
 * The dispatch row in use, chosen once: HOTPATH_DISPATCH's file, else the
 * row measured on this CPU (measured.c), else the built-in row for this
 * CPU (rows.c), else the generic one. A library must not exit or print on
 * stdout: a bad file is named on stderr once and the next row in that
 * order used. Nothing else of c/dispatch/ calls this file.
 */
#define _GNU_SOURCE	/* secure_getenv */
#include <hotpath/bench.h>
#include <hotpath/dispatch.h>

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#include "dispatch_internal.h"

static struct hp_dispatch_row in_use;
static pthread_once_t chosen = PTHREAD_ONCE_INIT;

static int read_row_file(const char *path, struct hp_dispatch_row *row)
{
	char text[HP_ROW_FILE_MAX], err[200];

	if (hp_dispatch_read_file(path, text, row, err, sizeof(err))) {
		fprintf(stderr, "hotpath: HOTPATH_DISPATCH '%s': %s; using the built-in row\n",
			path, err);
		return -1;
	}
	return 0;
}

/* secure_getenv: in a set-uid or set-capability program the variable is
 * not the user's to set (the file would be read with the program's
 * rights); the built-in row is used there. */
static void choose(void)
{
	const char *path = secure_getenv("HOTPATH_DISPATCH");
	struct hp_cpu_id id;

	if (path && *path && !read_row_file(path, &in_use))
		return;
	if (!hp__dispatch_read_measured(&in_use))
		return;
	hp_cpu_identify(&id);
	in_use = *hp_dispatch_builtin(id.vendor, id.family, id.model);
}

const struct hp_dispatch_row *hp_dispatch(void)
{
	pthread_once(&chosen, choose);
	return &in_use;
}

const char *hp_dispatch_refused(int system)
{
	hp_dispatch();	/* the choice, and any refusal, made first */
	return hp__dispatch_measured_refusal(system);
}
