# SPDX-License-Identifier: GPL-2.0-only
"""Temporary folders a hotpath run makes and a kill -9 could leave.

Each is named PREFIX<process id>-<random>; before making one, a run
removes this user's folders of the same prefix whose process is gone, so a
killed run's leftovers (a crossing lab's data file, the compiled --with
libraries) go with the next run.
"""

import contextlib
import os
import re
import shutil
import stat
import tempfile
from collections.abc import Iterator
from pathlib import Path


def alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # another user's
        return True
    return True


def remove_stale(parent: Path, prefix: str) -> None:
    """Remove this user's `prefix` folders in `parent` whose hotpath is gone."""
    for folder in parent.glob(f"{prefix}*-*"):
        owner = re.fullmatch(rf"{re.escape(prefix)}(\d+)-\w+", folder.name)
        try:
            info = folder.lstat()
        except OSError:  # gone meanwhile
            continue
        mine = info.st_uid == os.getuid() and stat.S_ISDIR(info.st_mode)
        if owner and mine and not alive(int(owner.group(1))):
            shutil.rmtree(folder, ignore_errors=True)


def fresh_folder(prefix: str, parent: Path | None = None) -> Path:
    """A new folder `prefix<pid>-<random>` in `parent` (the temporary folder
    by default), the stale ones of that prefix removed first."""
    remove_stale(parent or Path(tempfile.gettempdir()), prefix)
    return Path(tempfile.mkdtemp(prefix=f"{prefix}{os.getpid()}-", dir=parent))


@contextlib.contextmanager
def fresh(prefix: str, parent: Path | None = None) -> Iterator[Path]:
    """fresh_folder(), removed when the block ends."""
    folder = fresh_folder(prefix, parent)
    try:
        yield folder
    finally:
        shutil.rmtree(folder, ignore_errors=True)
