// SPDX-License-Identifier: GPL-2.0-only
/*
 * A helper's life is its parent's: hotpath's runner and programs must not
 * go on spinning, holding a CPU or a folder, after whoever started them
 * is gone (killed with SIGKILL, it can clean up nothing itself).
 */
#define _GNU_SOURCE
#include "engine.h"

#include <signal.h>
#include <sys/prctl.h>
#include <unistd.h>

void hp_die_with_parent(void)
{
	pid_t parent = getppid();

	if (prctl(PR_SET_PDEATHSIG, SIGKILL))
		return;	/* not Linux's: nothing to arrange */
	/* The parent may have died before the call took effect: then no
	 * signal comes, and the parent is someone else already. */
	if (getppid() != parent)
		_exit(1);
}
