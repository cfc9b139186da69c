/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Buffers butted against PROT_NONE guard pages, so that a variant that
 * reads one byte past its end (or before its start) faults instead of
 * silently summing whatever follows.
 */
#ifndef HOTPATH_GUARD_H
#define HOTPATH_GUARD_H

#include <stddef.h>
#include <stdint.h>

struct hp_guarded {
	uint8_t *base;		/* first usable byte, page aligned */
	size_t size;		/* usable bytes, a multiple of the page size */
	void *map;		/* whole mapping, guards included */
	size_t map_size;
};

/* Map @size usable bytes (rounded up to pages) between two guard pages.
 * Returns 0, or -1 with errno set. */
int hp_guarded_alloc(struct hp_guarded *g, size_t size);
void hp_guarded_free(struct hp_guarded *g);

/*
 * hp_guarded_place() - where to put @len bytes at offset @align (mod 64)
 * from a 64-byte boundary, ending as close to the rear guard as the
 * alignment allows (within 63 bytes).
 */
uint8_t *hp_guarded_place(const struct hp_guarded *g, size_t len,
			  size_t align);
/* @len bytes whose last byte is the last byte before the rear guard. */
uint8_t *hp_guarded_butt(const struct hp_guarded *g, size_t len);

/*
 * Run fn(arg) with a SIGSEGV/SIGBUS trap armed: returns 0 when it ran to
 * the end, -1 when it touched a guard page (or any unmapped address).
 */
int hp_guarded_call(void (*fn)(void *arg), void *arg);

#endif /* HOTPATH_GUARD_H */
