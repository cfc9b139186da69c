// SPDX-License-Identifier: GPL-2.0-only
/*
 * One image per spec: loaded, patched, its init run, its jump labels set,
 * its text made read-only and executable; then symbols are looked up in
 * it. The steps and what each models: kload.h, elf.c, patch.c.
 */
#define _GNU_SOURCE
#include "kload.h"
#include "kload_internal.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

static struct kl_image *images;
static struct kl_image *failed;	/* the last refused load, for its missing symbols */

int kl_fail(struct kl_image *img, const char *fmt, ...)
{
	va_list ap;

	if (img->err[0])
		return -1;	/* the first reason is the one said */
	va_start(ap, fmt);
	vsnprintf(img->err, img->errlen, fmt, ap);
	va_end(ap);
	return -1;
}

static int run_init(struct kl_image *img)
{
	uintptr_t init;
	int done;

	if (!img->spec.init[0])
		return 0;
	init = kl_global(img, img->spec.init);
	if (!init)
		return kl_fail(img, "no init function %s in the objects", img->spec.init);
	done = ((int (*)(void))init)();
	if (done)
		return kl_fail(img, "the objects' init %s returned %d", img->spec.init, done);
	return 0;
}

static struct kl_image *load(const char *spec, char *err, size_t errlen)
{
	struct kl_image *img = calloc(1, sizeof(*img));

	img->err = err;
	img->errlen = errlen;
	err[0] = 0;
	img->spec_path = strdup(spec);
	if (kl_read_spec(spec, &img->spec, err, errlen) || kl_load_objects(img) ||
	    kl_patch_text(img) || run_init(img) || kl_patch_labels(img)) {
		failed = img;	/* the mapping stays: code may point into it */
		return NULL;
	}
	kl_register_extables(img);
	if (mprotect(img->base, img->text_size, PROT_READ | PROT_EXEC)) {
		kl_fail(img, "cannot make the text read-only");
		return NULL;
	}
	img->next = images;
	images = img;
	return img;
}

static struct kl_image *find(const char *spec, char *err, size_t errlen)
{
	for (struct kl_image *img = images; img; img = img->next)
		if (!strcmp(img->spec_path, spec))
			return img;
	return load(spec, err, errlen);
}

void *hp_kload_symbol(const char *spec, const char *symbol, char *err, size_t errlen)
{
	struct kl_image *img = find(spec, err, errlen);
	uintptr_t at;

	if (!img)
		return NULL;
	at = kl_global(img, symbol);
	if (!at)
		snprintf(err, errlen, "symbol '%s' is not in the objects of %s", symbol, spec);
	return (void *)at;
}

const char *hp_kload_summary(const char *spec)
{
	for (struct kl_image *img = images; img; img = img->next)
		if (!strcmp(img->spec_path, spec))
			return img->summary;
	return NULL;
}

const char *hp_kload_missing(const char *spec)
{
	static char list[4096];
	size_t used = 0;

	strcpy(list, "[]");
	if (!failed || strcmp(failed->spec_path, spec))
		return list;
	for (size_t i = 0; i < failed->nmissing && used + 260 < sizeof(list); i++)
		used += (size_t)snprintf(list + used, sizeof(list) - used, "%s\"%.250s\"",
					 i ? ", " : "[", failed->missing[i]);
	if (failed->nmissing)
		snprintf(list + used, sizeof(list) - used, "]");
	return list;
}

void *hp_kload_bounds(const char *spec, size_t *text_size)
{
	for (struct kl_image *img = images; img; img = img->next)
		if (!strcmp(img->spec_path, spec)) {
			*text_size = img->text_size;
			return img->base;
		}
	return NULL;
}
