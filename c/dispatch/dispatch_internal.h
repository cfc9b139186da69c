/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Shared by the files of c/dispatch/ only (hidden from the libraries'
 * users). Their calls go one way: choose.c calls measured.c, rows.c and
 * format.c; measured.c and rows.c call format.c; format.c calls none.
 */
#ifndef HOTPATH_DISPATCH_INTERNAL_H
#define HOTPATH_DISPATCH_INTERNAL_H

#include <stddef.h>
#include <sys/stat.h>

#include <hotpath/dispatch.h>

/* The file's bytes into @text (@size with the NUL), and its stat into
 * *@opened when not NULL; NULL, or why not (format.c). */
__attribute__((visibility("hidden")))
const char *hp__dispatch_read_text(const char *path, char *text, size_t size,
				   struct stat *opened);

/* The measured row for this CPU's key into *@row: the user's, else the
 * system's; 0, or -1 when neither is there or usable (measured.c). */
__attribute__((visibility("hidden")))
int hp__dispatch_read_measured(struct hp_dispatch_row *row);

/* Why hp__dispatch_read_measured() refused @system's file, or NULL
 * (measured.c; hp_dispatch_refused() asks after the choice is made). */
__attribute__((visibility("hidden")))
const char *hp__dispatch_measured_refusal(int system);

#endif /* HOTPATH_DISPATCH_INTERNAL_H */
