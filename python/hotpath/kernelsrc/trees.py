# SPDX-License-Identifier: GPL-2.0-only
"""A developer's kernel tree as --kernel-tree names it, before it is built.

- `--kernel-tree DIR`: the working tree as it is, prepared by its own
  Kbuild with O= into the cache, nothing written to it
  (devtrees.prepare_working): `linux-HEAD` in a git checkout whose timed
  files equal HEAD's, `linux-HEAD+dirty` where they differ (uncommitted
  or untracked), `linux-<version>` outside git.
- `--kernel-tree DIR@REV[,REV...]`: each revision a commit, prepared in a
  git worktree of the cache, never the developer's checkout
  (devtrees.prepare_worktree): `linux-<REV>`, REV spelt as the user wrote
  it (`linux-HEAD~1`, `linux-v6.8`, `linux-origin/main`); a revision with
  a character outside REVISION_TEXT is refused (exit 2).
  DIR is the top of a git checkout, or a bare repository.

Everything that can be checked before a tree is built is checked when
it is named: the folder, the commit, the kernel version in its top-level
Makefile (VERSION, PATCHLEVEL, SUBLEVEL, EXTRAVERSION), and through
`read` (its working files, or `git show` of the commit's) the files and
symbols a lab's layout needs (kbuilt.fitting).
"""

import dataclasses
import functools
import re
import subprocess
from dataclasses import dataclass
from pathlib import Path

from hotpath.errors import HotpathError, UsageError
from hotpath.kernelsrc import devtrees, kbuild
from hotpath.kernelsrc.git import git
from hotpath.kernelsrc.kbuilt import MAX_TREE_FILE, Reader, folder_reader


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
    for key, value in fields.items():
        if value is not None and not kbuild.VERSION_TEXT.fullmatch(value):
            raise UsageError(
                f"{where}: its top-level Makefile's {key} is {value!a}; allowed: letters, "
                "digits and ._+~-"
            )
    return (
        f"{fields['VERSION']}.{fields['PATCHLEVEL']}.{fields['SUBLEVEL'] or 0}"
        f"{fields['EXTRAVERSION'] or ''}"
    )


@dataclass(frozen=True)
class UserTree:
    """A tree --kernel-tree names: a working tree (rev None) or a commit."""

    spec: str  # as given: DIR or DIR@REV,...
    root: Path
    rev: str | None
    name: str  # the variants' name: linux-v6.8, linux-HEAD+dirty, linux-6.13.0-rc2
    version: str  # from its top-level Makefile
    said: str  # what the origin line adds to Kbuild's words: git describe, dirty
    read: Reader  # a file by its path in the tree, None when the tree has none
    commit: str | None = None  # a revision's full commit id

    def prepare(self, config: str, log: kbuild.Log = kbuild.say) -> kbuild.PreparedTree:
        """The tree prepared by its own Kbuild (cached), named as here."""
        if self.rev is None:
            tree = devtrees.prepare_working(self.root, config, log)
        else:
            tree = devtrees.prepare_worktree(self.root, self.rev, config, log)
        where = f"{tree.where}; {self.said}" if self.said else tree.where
        return dataclasses.replace(tree, name=self.name, where=where)


def _text(data: bytes | None) -> str | None:
    return data.decode("utf-8", "replace") if data is not None else None


def _git(root: Path, *args: str) -> subprocess.CompletedProcess[bytes]:
    try:
        return git(root, *args)
    except HotpathError as err:
        raise UsageError(f"--kernel-tree '{root}': git is needed for revisions: {err}") from err


def _is_git(root: Path) -> bool:
    """The top of a git checkout, or a bare repository. One git refuses to
    read (owned by another user) is refused with git's words and the way
    to allow it."""
    top = _git(root, "rev-parse", "--show-toplevel")
    if top.returncode == 0:
        return Path(top.stdout.decode().strip()) == root.resolve()
    said_err = top.stderr.decode(errors="replace")
    if "safe.directory" in said_err:
        first = next(line for line in said_err.splitlines() if line.strip())
        raise UsageError(
            f"--kernel-tree '{root}': git will not read it: {first.removeprefix('fatal: ')} "
            f"(it is owned by another user); allowed: a repository git reads for you, e.g. "
            f"after `git config --global --add safe.directory {root.resolve()}`"
        )
    bare = _git(root, "rev-parse", "--is-bare-repository", "--absolute-git-dir")
    said = bare.stdout.decode().split("\n")
    return bare.returncode == 0 and said[0] == "true" and Path(said[1]) == root.resolve()


def _describe(root: Path, rev: str) -> str:
    done = _git(root, "describe", "--always", "--tags", rev)
    return done.stdout.decode().strip() if done.returncode == 0 else rev


# What a revision's name may hold: git's revision syntax (HEAD~1, v6.8^,
# HEAD@{1}, origin/main) without a shell's quoting characters, spaces or
# the `,` and `:` that --kernel-tree and RUN:VARIANT split on.
REVISION_TEXT = re.compile(r"[A-Za-z0-9._+~^@{}/-]+")


def revision_name(rev: str, spec: str) -> str:
    """A revision's variant name, spelt as written: linux-HEAD~1."""
    if not REVISION_TEXT.fullmatch(rev):
        raise UsageError(
            f"--kernel-tree '{spec}': revision {rev!a}; allowed: letters, digits and "
            "._+~^@{}/- (a commit, tag or branch as git spells it)"
        )
    return "linux-" + rev


def revision_tree(spec: str, root: Path, rev: str) -> UserTree:
    """A commit of the repository at `root`, its files read with git show."""
    name = revision_name(rev, spec)
    done = _git(root, "rev-parse", "--verify", "--quiet", f"{rev}^{{commit}}")
    if done.returncode != 0:
        raise UsageError(
            f"--kernel-tree '{root}@{rev}': revision '{rev}' is not a commit of {root}; "
            "allowed: a commit, tag or branch git knows there"
        )
    commit = done.stdout.decode().strip()

    @functools.cache
    def read(path: str) -> bytes | None:
        size = _git(root, "cat-file", "-s", f"{commit}:{path}")
        if size.returncode != 0:
            return None
        if int(size.stdout) > MAX_TREE_FILE:
            raise UsageError(
                f"--kernel-tree '{root}@{rev}': {path} has {int(size.stdout)} bytes; allowed: "
                f"at most {MAX_TREE_FILE} for a file hotpath reads"
            )
        shown = _git(root, "cat-file", "blob", f"{commit}:{path}")
        return shown.stdout if shown.returncode == 0 else None

    version = makefile_version(_text(read("Makefile")), f"{root} at {rev}")
    said = f"git describe {_describe(root, commit)}"
    return UserTree(spec, root, rev, name, version, said, read, commit)


def working_tree(spec: str, root: Path, timed_files: tuple[str, ...]) -> UserTree:
    """The files on disk; in a git checkout named after HEAD, +dirty where a
    file hotpath times differs from HEAD's (uncommitted or untracked)."""
    read = folder_reader(root)
    version = makefile_version(_text(read("Makefile")), f"--kernel-tree '{root}'")
    if not _is_git(root):
        return UserTree(spec, root, None, f"linux-{version}", version, "not a git checkout", read)
    changed = _git(root, "status", "--porcelain", "--no-renames", "--", *timed_files)
    dirty = bool(changed.stdout.strip())
    state = (
        "with uncommitted changes to the timed files" if dirty else "the timed files as committed"
    )
    said = f"HEAD: git describe {_describe(root, 'HEAD')}, {state}"
    name = "linux-HEAD+dirty" if dirty else "linux-HEAD"
    return UserTree(spec, root, None, name, version, said, read)


def parse_kernel_tree(text: str, timed_files: tuple[str, ...]) -> list[UserTree]:
    """`--kernel-tree DIR` or `DIR@REV[,REV...]`, each checked to exist."""
    if not text:
        raise UsageError("--kernel-tree '': allowed: DIR or DIR@REV[,REV...]")
    path = Path(text)
    if path.is_dir():
        return [working_tree(text, path, timed_files)]
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
            f"--kernel-tree '{text}': '{folder}' is not the top of a git checkout (nor a bare "
            "repository), so it has no revisions; allowed: DIR alone for its files as they are"
        )
    names = [rev.strip() for rev in revs.split(",")]
    if any(not rev for rev in names):
        raise UsageError(f"--kernel-tree '{text}': an empty revision; allowed: REV[,REV...]")
    return [revision_tree(text, root, rev) for rev in dict.fromkeys(names)]
