// SPDX-License-Identifier: GPL-2.0-only
/*
 * The row measured on this machine. A built-in row rots as the code under
 * it changes, on CPUs nobody here can run, so `hotpath dispatch --save`
 * (run by the set-up) measures this machine's row and keeps it in the
 * user's cache, and `hotpath dispatch --system` (root) in HP_SYSTEM_ROWS
 * for every program linking an installed libhpsum. Each file is named by
 * this CPU's key (hp_dispatch_key()): what decides which method wins, and
 * nothing that changes after a reboot (no clock rate, no bogomips):
 *
 *   VENDOR-FAMILY-MODEL-STEPPING-MICROCODE-fFEATURES-cCODE
 *
 * FEATURES are hp_cpu_features()'s bits after HOTPATH_CPU_HIDE, so a row
 * measured with features hidden is kept apart from the whole CPU's; CODE
 * identifies the methods' source and flags (the Makefile's HP_CODE_ID),
 * so a library rebuilt from other code measures again.
 *
 * A measured file is taken only if its owner could not have been anyone
 * but the reader or root and nobody else may write it or its folder: the
 * row steers the code every program linking the library runs.
 */
#define _GNU_SOURCE	/* secure_getenv */
#include <hotpath/bench.h>
#include <hotpath/cpu_features.h>
#include <hotpath/dispatch.h>

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "dispatch_internal.h"

#ifndef HP_CODE_ID
#define HP_CODE_ID "unknown"
#endif

/* The microcode revision of the first CPU ("0x1"), or "none". */
static void microcode(char *buf, size_t len)
{
	char text[8192];
	ssize_t n = 0;
	int fd = open("/proc/cpuinfo", O_RDONLY | O_CLOEXEC);
	const char *at;

	snprintf(buf, len, "none");
	if (fd < 0)
		return;
	n = read(fd, text, sizeof(text) - 1);
	close(fd);
	if (n <= 0)
		return;
	text[n] = 0;
	at = strstr(text, "\nmicrocode");
	if (!at || !(at = strchr(at, ':')))
		return;
	at += 1 + strspn(at + 1, " \t");
	snprintf(buf, len, "%.*s", (int)strcspn(at, " \t\n"), at);
}

size_t hp_dispatch_key(char *buf, size_t len)
{
	struct hp_cpu_id id;
	char mc[32];
	int n;

	hp_cpu_identify(&id);
	microcode(mc, sizeof(mc));
	n = snprintf(buf, len, "%s-%u-%u-%u-%s-f%x-c%s", id.vendor, id.family,
		     id.model, id.stepping, mc, hp_cpu_features(), HP_CODE_ID);
	return n > 0 ? (size_t)n : 0;
}

/* The user's cache folder: $XDG_CACHE_HOME, else $HOME/.cache; read
 * with secure_getenv, so a set-uid program takes no user's row. */
static int user_folder(char *buf, size_t len)
{
	const char *xdg = secure_getenv("XDG_CACHE_HOME");
	const char *home = secure_getenv("HOME");
	int n;

	if (xdg && *xdg == '/')
		n = snprintf(buf, len, "%s/hotpath/dispatch", xdg);
	else if (home && *home == '/')
		n = snprintf(buf, len, "%s/.cache/hotpath/dispatch", home);
	else
		return -1;
	return n > 0 && (size_t)n < len ? 0 : -1;
}

int hp_dispatch_measured_path(int system, char *buf, size_t len)
{
	char folder[256], key[160];
	int n;

	if (system)
		snprintf(folder, sizeof(folder), "%s", HP_SYSTEM_ROWS);
	else if (user_folder(folder, sizeof(folder)))
		return -1;
	hp_dispatch_key(key, sizeof(key));
	n = snprintf(buf, len, "%s/%s.row", folder, key);
	return n > 0 && (size_t)n < len ? 0 : -1;
}

/* Why a file with @st (or its folder) may not steer the code, or NULL. */
static const char *untrusted(const struct stat *st, int system)
{
	if (st->st_uid != 0 && (system || st->st_uid != geteuid()))
		return system ? "not owned by root" : "owned by another user";
	if (st->st_mode & (S_IWGRP | S_IWOTH))
		return "writable by others";
	return NULL;
}

/* Why each measured file was refused (hp_dispatch_refused()); written
 * once, while choose.c chooses the row in use under pthread_once. */
static char refusals[2][256];

/* A measured file not taken: said on stderr (a library has no one else to
 * tell) and kept for hotpath to say, and the next row in the order used. */
static int refuse(const char *path, int system, const char *what, const char *why)
{
	fprintf(stderr, "hotpath: measured row '%s': %s%s; not used\n", path, what, why);
	snprintf(refusals[system], sizeof(refusals[system]), "%s%s", what, why);
	return -1;
}

const char *hp__dispatch_measured_refusal(int system)
{
	return refusals[!!system][0] ? refusals[!!system] : NULL;
}

/* 0 and *row from the measured file at @path; 1 when there is none;
 * -1 when there is one it cannot take. */
static int read_measured(const char *path, int system, struct hp_dispatch_row *row)
{
	char text[HP_ROW_FILE_MAX], err[200], folder[512];
	const char *why;
	struct stat st;

	if (access(path, F_OK))
		return 1;
	snprintf(folder, sizeof(folder), "%s", path);
	*strrchr(folder, '/') = 0;
	if (stat(folder, &st))
		return 1;
	if ((why = untrusted(&st, system)))
		return refuse(path, system, "its folder is ", why);
	if ((why = hp__dispatch_read_text(path, text, sizeof(text), &st)))
		return refuse(path, system, "", why);
	if ((why = untrusted(&st, system)))
		return refuse(path, system, "", why);
	if (hp_dispatch_parse(text, row, err, sizeof(err)))
		return refuse(path, system, "", err);
	snprintf(row->source, sizeof(row->source), "%s", path);
	return 0;
}

int hp__dispatch_read_measured(struct hp_dispatch_row *row)
{
	char path[sizeof(row->source)];

	for (int system = 0; system < 2; system++)
		if (!hp_dispatch_measured_path(system, path, sizeof(path)) &&
		    !read_measured(path, system, row))
			return 0;
	return -1;
}
