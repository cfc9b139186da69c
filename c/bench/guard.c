// SPDX-License-Identifier: GPL-2.0-only
/*
 * Guard-page buffers and a fault trap, so that an over-read is reported
 * as "read outside the buffer" at a (length, alignment) instead of
 * killing the run or, worse, passing unnoticed.
 */
#define _GNU_SOURCE
#include <hotpath/guard.h>

#include <setjmp.h>
#include <signal.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

static size_t page_size(void)
{
	return (size_t)sysconf(_SC_PAGESIZE);
}

int hp_guarded_alloc(struct hp_guarded *g, size_t size)
{
	size_t ps = page_size();
	size_t usable = (size + ps - 1) / ps * ps;
	uint8_t *map;

	if (usable == 0)
		usable = ps;
	map = mmap(NULL, usable + 2 * ps, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (map == MAP_FAILED)
		return -1;
	if (mprotect(map, ps, PROT_NONE) ||
	    mprotect(map + ps + usable, ps, PROT_NONE)) {
		munmap(map, usable + 2 * ps);
		return -1;
	}
	g->map = map;
	g->map_size = usable + 2 * ps;
	g->base = map + ps;
	g->size = usable;
	return 0;
}

void hp_guarded_free(struct hp_guarded *g)
{
	if (g->map)
		munmap(g->map, g->map_size);
	memset(g, 0, sizeof(*g));
}

uint8_t *hp_guarded_place(const struct hp_guarded *g, size_t len,
			  size_t align)
{
	uintptr_t end = (uintptr_t)(g->base + g->size);
	uintptr_t p = ((end - len) & ~(uintptr_t)63) + (align & 63);

	while (p + len > end)
		p -= 64;
	return (uint8_t *)p;
}

uint8_t *hp_guarded_butt(const struct hp_guarded *g, size_t len)
{
	return g->base + g->size - len;
}

static __thread sigjmp_buf *trap_env;

static void trap_handler(int sig)
{
	(void)sig;
	if (trap_env)
		siglongjmp(*trap_env, 1);
	_exit(128 + sig);
}

int hp_guarded_call(void (*fn)(void *arg), void *arg)
{
	struct sigaction sa, old_segv, old_bus;
	sigjmp_buf env;
	int faulted = 0;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = trap_handler;
	sigemptyset(&sa.sa_mask);
	sa.sa_flags = SA_NODEFER;
	sigaction(SIGSEGV, &sa, &old_segv);
	sigaction(SIGBUS, &sa, &old_bus);
	if (sigsetjmp(env, 1) == 0) {
		trap_env = &env;
		fn(arg);
	} else {
		faulted = 1;
	}
	trap_env = NULL;
	sigaction(SIGSEGV, &old_segv, NULL);
	sigaction(SIGBUS, &old_bus, NULL);
	return faulted ? -1 : 0;
}
