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
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/time.h>
#include <unistd.h>

static size_t page_size(void)
{
	return (size_t)sysconf(_SC_PAGESIZE);
}

/* The live mappings' guard pages, so that a fault in any of them (a check
 * that keeps a guarded buffer of its own: the fn lab's) is told from a
 * crash: hp_guarded_is_guard(). */
#define MAX_LIVE 32
static struct hp_guarded live[MAX_LIVE];

static void live_add(const struct hp_guarded *g)
{
	for (size_t i = 0; i < MAX_LIVE; i++)
		if (!live[i].map) {
			live[i] = *g;
			return;
		}
}

static void live_drop(const struct hp_guarded *g)
{
	for (size_t i = 0; i < MAX_LIVE; i++)
		if (live[i].map == g->map)
			memset(&live[i], 0, sizeof(live[i]));
}

int hp_guarded_is_guard(const void *addr)
{
	const uint8_t *a = addr;

	for (size_t i = 0; i < MAX_LIVE; i++) {
		const uint8_t *map = live[i].map;

		if (map && a >= map && a < map + live[i].map_size &&
		    (a < live[i].base || a >= live[i].base + live[i].size))
			return 1;
	}
	return 0;
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
	live_add(g);
	return 0;
}

void hp_guarded_free(struct hp_guarded *g)
{
	if (g->map) {
		live_drop(g);
		munmap(g->map, g->map_size);
	}
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

/*
 * The trap. While armed, SIGSEGV, SIGBUS, SIGILL, SIGFPE and SIGABRT jump
 * back to the sigjmp_buf the caller entered, with the signal and fault
 * address kept for hp_trap_fault(); and with a time limit, a SIGALRM each
 * second watches hp_trap_beat: when it has not moved for the limit, the
 * code running is stuck, and the same jump ends it. Outside an entered
 * region a signal is fatal as usual.
 */
static const int trapped[] = { SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT };
#define NTRAPPED (sizeof(trapped) / sizeof(trapped[0]))

volatile unsigned long hp_trap_beat;
static __thread sigjmp_buf *trap_env;
static struct hp_fault last_fault;
static struct sigaction old_actions[NTRAPPED], old_alarm;
static unsigned armed, limit_s, stalled;
static unsigned long last_beat;

#define MAX_FIXUPS 16
static hp_fixup_fn fixups[MAX_FIXUPS];
static unsigned nfixups;

static int fixed_up(int sig, siginfo_t *info, void *ctx)
{
	if (sig != SIGSEGV && sig != SIGBUS)
		return 0;
	for (unsigned i = 0; i < nfixups; i++)
		if (fixups[i](sig, info, ctx))
			return 1;
	return 0;
}

static void trap_handler(int sig, siginfo_t *info, void *ctx)
{
	if (fixed_up(sig, info, ctx))
		return;
	if (sig == SIGALRM) {
		if (hp_trap_beat != last_beat || !trap_env) {
			last_beat = hp_trap_beat;
			stalled = 0;
			return;
		}
		if (++stalled < limit_s)
			return;
	}
	if (!trap_env) {
		signal(sig, SIG_DFL);
		raise(sig);
		_exit(128 + sig);
	}
	last_fault.sig = sig;
	last_fault.addr = sig == SIGALRM ? NULL : info->si_addr;
	last_fault.timed_out = sig == SIGALRM;
	stalled = 0;
	siglongjmp(*trap_env, 1);
}

void hp_trap_arm(unsigned seconds)
{
	struct sigaction sa;

	if (armed++)
		return;
	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = trap_handler;
	sigemptyset(&sa.sa_mask);
	sa.sa_flags = SA_SIGINFO | SA_NODEFER;
	for (size_t i = 0; i < NTRAPPED; i++)
		sigaction(trapped[i], &sa, &old_actions[i]);
	limit_s = seconds;
	if (seconds) {
		struct itimerval tick = { { 1, 0 }, { 1, 0 } };

		sa.sa_flags = SA_SIGINFO | SA_RESTART;
		sigaction(SIGALRM, &sa, &old_alarm);
		setitimer(ITIMER_REAL, &tick, NULL);
	}
}

void hp_trap_disarm(void)
{
	if (!armed || --armed)
		return;
	if (limit_s) {
		struct itimerval off = { { 0, 0 }, { 0, 0 } };

		setitimer(ITIMER_REAL, &off, NULL);
		sigaction(SIGALRM, &old_alarm, NULL);
	}
	for (size_t i = 0; i < NTRAPPED; i++)
		sigaction(trapped[i], &old_actions[i], NULL);
}

/* Outside the trap: a fault a fixup mends resumes, any other is fatal. */
static void fixup_handler(int sig, siginfo_t *info, void *ctx)
{
	if (fixed_up(sig, info, ctx))
		return;
	signal(sig, SIG_DFL);
	raise(sig);
}

int hp_trap_add_fixup(hp_fixup_fn fn)
{
	struct sigaction sa;

	for (unsigned i = 0; i < nfixups; i++)
		if (fixups[i] == fn)
			return 0;
	if (nfixups == MAX_FIXUPS)
		return -1;
	fixups[nfixups++] = fn;
	if (nfixups > 1)
		return 0;
	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = fixup_handler;
	sigemptyset(&sa.sa_mask);
	sa.sa_flags = SA_SIGINFO | SA_NODEFER;
	/* Armed, the trap's handler (which asks the fixups too) stays in
	 * place, and this becomes the one it restores on disarm. */
	if (armed) {
		old_actions[0] = old_actions[1] = sa;
	} else {
		sigaction(SIGSEGV, &sa, NULL);
		sigaction(SIGBUS, &sa, NULL);
	}
	return 0;
}

void hp_trap_enter(sigjmp_buf *env)
{
	trap_env = env;
}

void hp_trap_leave(void)
{
	trap_env = NULL;
}

struct hp_fault hp_trap_fault(void)
{
	return last_fault;
}

const char *hp_fault_describe(const struct hp_fault *f, char *buf, size_t n)
{
	if (f->timed_out)
		snprintf(buf, n, "did not return within %u s (--time-limit)",
			 limit_s);
	else if (f->sig == SIGILL)
		snprintf(buf, n, "crashed: SIGILL (an instruction this CPU lacks?)");
	else if (f->sig == SIGABRT)
		snprintf(buf, n, "crashed: SIGABRT (abort)");
	else
		snprintf(buf, n, "crashed: SIG%s (%s) at address %p",
			 sigabbrev_np(f->sig), strsignal(f->sig), f->addr);
	return buf;
}

int hp_guarded_call(void (*fn)(void *arg), void *arg)
{
	sigjmp_buf env;
	volatile int faulted = 0;

	hp_trap_arm(0);
	if (sigsetjmp(env, 1) == 0) {
		hp_trap_enter(&env);
		fn(arg);
	} else {
		faulted = 1;
	}
	hp_trap_leave();
	hp_trap_disarm();
	return faulted ? -1 : 0;
}
