# SPDX-License-Identifier: GPL-2.0-only
"""Where a run's results go: checked before measuring, written whole or not at all.

check_folder() refuses, before anything is measured, a folder hotpath
could not write: one under /proc or /sys, one whose nearest existing
ancestor is not a folder or is not writable. StagedFolder writes a folder
in a hidden temporary place beside it (or, for a folder that exists, in
it) and moves it into place at the end, so an interrupt or a full disk
leaves no half-written folder behind. write_file() replaces one file the
same way. write_folder() fills a StagedFolder and moves it into place
(a report folder, `compare --html`, `trend --html`).
"""

import os
import secrets
import shutil
from collections.abc import Callable
from pathlib import Path

from hotpath.errors import HotpathError, UsageError

# Kernel file systems: writable-looking to root, but no place for our files.
PSEUDO_ROOTS = (Path("/proc"), Path("/sys"))


def can_write(folder: Path) -> bool:
    """Whether files can be made in `folder` (a read-only mount says no, even to root)."""
    return os.access(folder, os.W_OK | os.X_OK)


def pseudo_root(path: Path) -> Path | None:
    """/proc or /sys when `path` (symbolic links followed) lies under it."""
    try:
        resolved = path.resolve()
    except (OSError, RuntimeError):
        resolved = path.absolute()
    for root in PSEUDO_ROOTS:
        if resolved == root or root in resolved.parents:
            return root
    return None


def nearest_existing(path: Path) -> Path:
    """`path` itself if it exists, else its nearest ancestor that does."""
    ancestor = path.absolute()
    while not ancestor.exists() and ancestor != ancestor.parent:
        ancestor = ancestor.parent
    return ancestor


def check_folder(folder: Path, label: str, hint: str = "") -> None:
    """Raise UsageError naming `label` unless `folder` can be made or written into.

    Writes nothing. `hint` ends the message of an unwritable place (where
    the user says otherwise, e.g. " (--out DIR)").
    """
    root = pseudo_root(folder)
    if root is not None:
        raise UsageError(
            f"{label} '{folder}': under {root}, a kernel file system; "
            f"allowed: a folder on a writable file system{hint}"
        )
    if folder.exists() and not folder.is_dir():
        raise UsageError(f"{label} '{folder}': exists and is not a folder; allowed: a folder path")
    ancestor = nearest_existing(folder)
    if not ancestor.is_dir():
        raise UsageError(
            f"{label} '{folder}': '{ancestor}' is not a folder; allowed: a folder path"
        )
    if not can_write(ancestor):
        raise UsageError(
            f"{label} '{folder}': '{ancestor}' is not writable; "
            f"allowed: a folder you can write to{hint}"
        )


def reason(err: OSError) -> str:
    """An OSError in a few words: its strerror, else the exception's text."""
    return err.strerror or str(err)


class StagedFolder:
    """A folder written at `path` and moved to `folder` by commit().

    A new folder is staged as a hidden sibling of its topmost missing
    component and renamed into place (one rename: the folder appears
    whole). Into a folder that exists, the staged entries are moved one by
    one at commit (each file replaced whole). discard() removes the stage.
    """

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        if folder.is_dir():
            self._top: Path | None = None
            self._stage = _hidden_folder(folder, "hotpath")
            self.path = self._stage
        else:
            top = folder.absolute()
            while not top.parent.exists():
                top = top.parent
            self._top = top
            self._stage = _hidden_folder(top.parent, top.name)
            self.path = self._stage.joinpath(*folder.absolute().relative_to(top).parts)
            self.path.mkdir(parents=True, exist_ok=True)

    def commit(self) -> None:
        """Move the staged folder into place; OSError if it cannot be."""
        if self._top is None:
            _merge(self._stage, self.folder)
            self._stage.rmdir()
        elif self._top.is_dir():  # made meanwhile (another run, same second)
            _merge(self._stage, self._top)
            self._stage.rmdir()
        else:
            self._stage.rename(self._top)

    def discard(self) -> None:
        shutil.rmtree(self._stage, ignore_errors=True)


def write_folder(folder: Path, write: Callable[[Path], None]) -> None:
    """Stage `folder`, let `write` fill it, move it into place; nothing left on failure."""
    try:
        staged = StagedFolder(folder)
    except OSError as err:
        raise HotpathError(f"report folder '{folder}' could not be made ({reason(err)})") from err
    try:
        write(staged.path)
        staged.commit()
    except OSError as err:
        staged.discard()
        raise HotpathError(
            f"report folder '{folder}' could not be written ({reason(err)})"
        ) from err
    except BaseException:
        staged.discard()
        raise


def _partial_name(name: str) -> str:
    return f".{name}.partial-{os.getpid()}-{secrets.token_hex(4)}"


def _hidden_folder(parent: Path, name: str) -> Path:
    """A new hidden folder in `parent`, with the permissions a plain mkdir gives."""
    while True:
        stage = parent / _partial_name(name)
        try:
            stage.mkdir()
        except FileExistsError:
            continue
        return stage


def _merge(source: Path, target: Path) -> None:
    """Move every entry of `source` into the folder `target`, replacing files."""
    for entry in sorted(source.iterdir()):
        into = target / entry.name
        if entry.is_dir() and into.is_dir():
            _merge(entry, into)
            entry.rmdir()
        else:
            entry.replace(into)


def write_file(path: Path, text: str) -> None:
    """Write `path` whole: into a hidden sibling, then renamed over it."""
    temp = path.with_name(_partial_name(path.name))
    try:
        temp.write_text(text, encoding="utf-8")
        temp.replace(path)
    except BaseException:
        temp.unlink(missing_ok=True)
        raise
