# SPDX-License-Identifier: GPL-2.0-only
"""A child that runs in a process group of its own (the runner, a tune
workload, apt-get, QEMU): started so, and ended so that everything it started
goes with it, none left orphaned.

Loads nothing beyond the standard library: `python -m hotpath tune` in a guest uses it.
"""

import contextlib
import os
import signal
import subprocess
from pathlib import Path
from typing import Any


def start_group(
    args: str | list[str], *, shell: bool = False, cwd: Path | None = None
) -> "subprocess.Popen[str]":
    """Start `args` as the leader of a process group of its own, so that
    end_group ends everything it starts (a shell's children, apt-get's
    methods); stdin closed, as a process outside the terminal's foreground
    group must not read it; stdout and stderr piped, as text. OSError when
    it cannot start."""
    return subprocess.Popen(
        args,
        shell=shell,
        cwd=cwd,
        process_group=0,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def kill_group(proc: "subprocess.Popen[Any]") -> None:
    """SIGKILL the group whose leader is `proc` (started with process_group=0
    or start_new_session). Call it before the leader is reaped, while the
    group id is still surely its; none of the group left is no error."""
    with contextlib.suppress(ProcessLookupError):
        os.killpg(proc.pid, signal.SIGKILL)


def end_group(proc: "subprocess.Popen[Any]", grace_s: float = 0.0) -> None:
    """kill_group, then reap the leader. With `grace_s`, a leader still
    running is sent SIGTERM first and given that long to end: a child that
    runs a group of its own (hotpath running its runner) can end it only
    then, as SIGKILL reaches no group but this one."""
    if grace_s > 0 and proc.poll() is None:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, signal.SIGTERM)
        with contextlib.suppress(subprocess.TimeoutExpired):
            proc.wait(timeout=grace_s)
    kill_group(proc)
    proc.wait()
