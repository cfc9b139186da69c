# SPDX-License-Identifier: GPL-2.0-only
"""Ending a child that runs in a process group of its own (the runner, a
tune workload, QEMU): everything it started goes with it, none left orphaned.

Loads nothing beyond the standard library: `python -m hotpath.tune` uses it.
"""

import contextlib
import os
import signal
import subprocess
from typing import Any


def kill_group(proc: "subprocess.Popen[Any]") -> None:
    """SIGKILL the group whose leader is `proc` (started with process_group=0
    or start_new_session). Call it before the leader is reaped, while the
    group id is still surely its; none of the group left is no error."""
    with contextlib.suppress(ProcessLookupError):
        os.killpg(proc.pid, signal.SIGKILL)


def end_group(proc: "subprocess.Popen[Any]") -> None:
    """kill_group, then reap the leader."""
    kill_group(proc)
    proc.wait()
