// SPDX-License-Identifier: GPL-2.0-only
/* The load spec Python writes (kload.h says its lines). */
#include "kload_internal.h"

#include <stdlib.h>
#include <string.h>

static int bad(char *err, size_t errlen, const char *path, int line, const char *why)
{
	snprintf(err, errlen, "%s:%d: %s", path, line, why);
	return -1;
}

static int reg_number(const char *name)
{
	static const char *const regs[] = { "eax", "ebx", "ecx", "edx" };

	for (int i = 0; i < 4; i++)
		if (!strcmp(name, regs[i]))
			return i;
	return -1;
}

int kl_read_spec(const char *path, struct kl_spec *spec, char *err, size_t errlen)
{
	FILE *f = fopen(path, "r");
	char line[4096], key[32], arg[4000];
	int n = 0;

	memset(spec, 0, sizeof(*spec));
	strcpy(spec->rethunk, "ret");
	spec->alt_size = 12;
	if (!f) {
		snprintf(err, errlen, "cannot read the load spec %s", path);
		return -1;
	}
	while (fgets(line, sizeof(line), f)) {
		n++;
		if (line[0] == '#' || line[0] == '\n')
			continue;
		if (sscanf(line, "%31s %3999[^\n]", key, arg) != 2)
			return fclose(f), bad(err, errlen, path, n, "a key and a value");
		if (!strcmp(key, "object")) {
			if (spec->nobjects == KL_MAX_OBJECTS)
				return fclose(f), bad(err, errlen, path, n, "too many objects");
			spec->objects[spec->nobjects++] = strdup(arg);
		} else if (!strcmp(key, "word")) {
			unsigned w, leaf, sub;
			char reg[8];

			if (sscanf(arg, "%u %x %x %7s", &w, &leaf, &sub, reg) != 4 ||
			    w >= KL_NWORDS || reg_number(reg) < 0)
				return fclose(f), bad(err, errlen, path, n, "word W LEAF SUB REG");
			spec->words[w] = (struct kl_word){ 1, leaf, sub, reg_number(reg) };
		} else if (!strcmp(key, "set")) {
			if (spec->nset == KL_MAX_SET)
				return fclose(f), bad(err, errlen, path, n, "too many set lines");
			spec->set[spec->nset++] = (unsigned)strtoul(arg, NULL, 0);
		} else if (!strcmp(key, "alt")) {
			spec->alt_size = (unsigned)strtoul(arg, NULL, 0);
			if (spec->alt_size != 12 && spec->alt_size != 14)
				return fclose(f), bad(err, errlen, path, n, "alt 12 or 14");
		} else if (!strcmp(key, "rethunk")) {
			snprintf(spec->rethunk, sizeof(spec->rethunk), "%.63s", arg);
		} else if (!strcmp(key, "retpoline")) {
			if (strcmp(arg, "off") && strcmp(arg, "generic"))
				return fclose(f), bad(err, errlen, path, n, "retpoline off or generic");
			spec->retpoline = !strcmp(arg, "generic");
		} else if (!strcmp(key, "stub")) {
			if (spec->nstubs == KL_MAX_STUBS)
				return fclose(f), bad(err, errlen, path, n, "too many stubs");
			spec->stubs[spec->nstubs++] = strdup(arg);
		} else if (!strcmp(key, "init")) {
			snprintf(spec->init, sizeof(spec->init), "%.63s", arg);
		} else {
			return fclose(f), bad(err, errlen, path, n, "an unknown key");
		}
	}
	fclose(f);
	if (!spec->nobjects)
		return bad(err, errlen, path, n, "no object");
	return 0;
}
