/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Buffers butted against PROT_NONE guard pages, so that a variant that
 * reads one byte past its end (or before its start) faults instead of
 * silently summing whatever follows.
 */
#ifndef HOTPATH_GUARD_H
#define HOTPATH_GUARD_H

#include <setjmp.h>
#include <signal.h>
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
/* Whether @addr is in a guard page of a mapping hp_guarded_alloc() made
 * and hp_guarded_free() has not freed. */
int hp_guarded_is_guard(const void *addr);

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
 * Run fn(arg) with the trap armed (below): returns 0 when it ran to the
 * end, -1 when it faulted (hp_trap_fault() says how: a guard page is a
 * SIGSEGV at an address inside hp_guarded.map).
 */
int hp_guarded_call(void (*fn)(void *arg), void *arg);

/* ---- the trap: a variant that crashes or hangs is named, not fatal ---- */
struct hp_fault {
	int sig;		/* SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT, SIGALRM */
	const void *addr;	/* fault address (SIGSEGV, SIGBUS) */
	int timed_out;		/* hp_trap_beat stood still for the limit */
};

/* Bumped by whoever calls variants, after each call or burst returns. */
extern volatile unsigned long hp_trap_beat;

/* Nested arms count; @seconds > 0 also starts the watchdog (the first
 * arm's limit holds). */
void hp_trap_arm(unsigned seconds);
void hp_trap_disarm(void);
/* Between these, a trapped signal siglongjmp()s to @env. */
void hp_trap_enter(sigjmp_buf *env);
void hp_trap_leave(void);
struct hp_fault hp_trap_fault(void);
/* "crashed: SIGILL (...)", "did not return within 30 s", ... into @buf. */
const char *hp_fault_describe(const struct hp_fault *f, char *buf, size_t n);

/*
 * Fixups: code that may fault by design (the kernel's
 * load_unaligned_zeropad(), whose exception table says how the fault is
 * mended; c/kload/extable.c) registers a function that looks at a
 * SIGSEGV/SIGBUS and returns 1 when it mended the context (the signal is
 * then resumed from), 0 when the fault is not its own. Fixups are asked
 * before the trap, armed or not; from the first registration on, a
 * handler of the library's own is in place for SIGSEGV and SIGBUS.
 */
typedef int (*hp_fixup_fn)(int sig, siginfo_t *info, void *uctx);
int hp_trap_add_fixup(hp_fixup_fn fn);

#endif /* HOTPATH_GUARD_H */
