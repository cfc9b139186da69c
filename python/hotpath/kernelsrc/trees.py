# SPDX-License-Identifier: GPL-2.0-only
"""Where kernel source comes from: a tree is a way to read a file by its
path in the kernel, with a name for its variants and the words that say
which kernel it is.

- Debian's linux-source packages, as `hotpath kernels fetch` left them in
  the cache (hotpath.kernelsrc.debian): `linux-6.1`, `linux-6.12`.
- A developer's tree, its working files as they are (`--kernel-tree DIR`):
  `linux-HEAD` in a git checkout whose timed files equal HEAD's,
  `linux-HEAD+dirty` where they differ, `linux-<version>` outside git.
- Git revisions of a tree, read with `git show REV:PATH`, no checkout
  (`--kernel-tree DIR@REV[,REV...]`): `linux-<REV>`.

A tree's version comes from its top-level Makefile (VERSION, PATCHLEVEL,
SUBLEVEL, EXTRAVERSION), and for git also `git describe`.
"""

import functools
import re
import subprocess
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from hotpath.errors import UsageError

Reader = Callable[[str], bytes | None]


@dataclass(frozen=True)
class KernelTree:
    name: str  # the variants' name: linux-6.12, linux-v6.8, linux-HEAD+dirty
    version: str  # from the Makefile: 6.12.117, 6.8.0, 6.13.0-rc2
    where: str  # for origin lines: "Debian linux-source-6.12 6.12.117-1~deb12u1"
    read: Reader  # a file by its path in the tree, None when the tree has none

    def version_key(self) -> tuple[int, ...]:
        return version_key(self.version)


def version_key(version: str) -> tuple[int, ...]:
    """6.12.117 -> (6, 12, 117); an -rc sorts below its release."""
    numbers = [int(n) for n in re.findall(r"\d+", version.split("-", 1)[0])][:3]
    numbers += [0] * (3 - len(numbers))
    rc = re.search(r"-rc(\d+)", version)
    return (*numbers, int(rc.group(1)) if rc else 1_000)


def makefile_version(text: str | None, where: str) -> str:
    """The kernel version a top-level Makefile declares."""
    fields = {}
    for key in ("VERSION", "PATCHLEVEL", "SUBLEVEL", "EXTRAVERSION"):
        match = re.search(rf"^{key}\s*=[ \t]*(\S*)[ \t]*$", text or "", re.M)
        fields[key] = match.group(1) if match else None
    if not fields["VERSION"] or not fields["PATCHLEVEL"]:
        raise UsageError(
            f"{where}: no kernel version in its top-level Makefile (VERSION and PATCHLEVEL); "
            "allowed: a Linux source tree"
        )
    return (
        f"{fields['VERSION']}.{fields['PATCHLEVEL']}.{fields['SUBLEVEL'] or 0}"
        f"{fields['EXTRAVERSION'] or ''}"
    )


def folder_tree(root: Path, name: str, where: str) -> KernelTree:
    """A tree's files as they are on disk (a cache entry, a working tree)."""

    # Each file read once: a layout is checked, then built, from the same
    # files (and a revision's read is a `git show`).
    @functools.cache
    def read(path: str) -> bytes | None:
        try:
            return (root / path).read_bytes()
        except (FileNotFoundError, NotADirectoryError, IsADirectoryError):
            return None

    version = makefile_version(_text(read("Makefile")), str(root))
    return KernelTree(
        name=name.replace("{version}", version), version=version, where=where, read=read
    )


def _text(data: bytes | None) -> str | None:
    return data.decode("utf-8", "replace") if data is not None else None


def _git(root: Path, *args: str) -> subprocess.CompletedProcess[bytes]:
    try:
        return subprocess.run(["git", "-C", str(root), *args], capture_output=True, check=False)
    except OSError as err:
        raise UsageError(f"--kernel-tree '{root}': git is needed for revisions: {err}") from err


def _is_git(root: Path) -> bool:
    done = _git(root, "rev-parse", "--show-toplevel")
    return done.returncode == 0 and Path(done.stdout.decode().strip()) == root.resolve()


def _describe(root: Path, rev: str) -> str:
    done = _git(root, "describe", "--always", "--tags", rev)
    return done.stdout.decode().strip() if done.returncode == 0 else rev


def revision_tree(root: Path, rev: str) -> KernelTree:
    """The tree's files as they are at git revision `rev`, read with git show."""
    done = _git(root, "rev-parse", "--verify", "--quiet", f"{rev}^{{commit}}")
    if done.returncode != 0:
        raise UsageError(
            f"--kernel-tree '{root}@{rev}': revision '{rev}' is not a commit of {root}; "
            "allowed: a commit, tag or branch git knows there"
        )
    commit = done.stdout.decode().strip()

    # Each file read once: a layout is checked, then built, from the same
    # files (and a revision's read is a `git show`).
    @functools.cache
    def read(path: str) -> bytes | None:
        shown = _git(root, "show", f"{commit}:{path}")
        return shown.stdout if shown.returncode == 0 else None

    version = makefile_version(_text(read("Makefile")), f"{root} at {rev}")
    where = f"{root} at {rev} (commit {commit[:12]}, git describe {_describe(root, commit)})"
    name = "linux-" + re.sub(r"[^A-Za-z0-9._+-]", "-", rev)
    return KernelTree(name=name, version=version, where=where, read=read)


def working_tree(root: Path, timed_files: tuple[str, ...]) -> KernelTree:
    """The files on disk; in a git checkout named after HEAD, +dirty where a
    file hotpath times differs from HEAD's (uncommitted or untracked)."""
    if not _is_git(root):
        return folder_tree(root, "linux-{version}", f"{root} (not a git checkout)")
    changed = _git(root, "status", "--porcelain", "--", *timed_files)
    dirty = bool(changed.stdout.strip())
    head = _describe(root, "HEAD")
    tree = folder_tree(root, "linux-HEAD+dirty" if dirty else "linux-HEAD", "")
    state = "with uncommitted changes to the timed files" if dirty else "as committed"
    return KernelTree(
        name=tree.name,
        version=tree.version,
        where=f"{root}, working tree {state} (HEAD: git describe {head})",
        read=tree.read,
    )


def parse_kernel_tree(text: str, timed_files: tuple[str, ...]) -> list[KernelTree]:
    """`--kernel-tree DIR` or `DIR@REV[,REV...]`, each checked to exist."""
    if not text:
        raise UsageError("--kernel-tree '': allowed: DIR or DIR@REV[,REV...]")
    path = Path(text)
    if path.is_dir():
        return [working_tree(path, timed_files)]
    folder, sep, revs = text.rpartition("@")
    if not sep or not folder:
        raise UsageError(
            f"--kernel-tree '{text}': no such folder; allowed: DIR or DIR@REV[,REV...]"
        )
    root = Path(folder)
    if not root.is_dir():
        raise UsageError(f"--kernel-tree '{text}': no such folder '{folder}'")
    if not _is_git(root):
        raise UsageError(
            f"--kernel-tree '{text}': '{folder}' is not the top of a git checkout, so it has "
            "no revisions; allowed: DIR alone for its files as they are"
        )
    names = [rev.strip() for rev in revs.split(",")]
    if any(not rev for rev in names):
        raise UsageError(f"--kernel-tree '{text}': an empty revision; allowed: REV[,REV...]")
    return [revision_tree(root, rev) for rev in dict.fromkeys(names)]
