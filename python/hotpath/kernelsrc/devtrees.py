# SPDX-License-Identifier: GPL-2.0-only
"""Developer trees prepared by their own Kbuild (`--kernel-tree`).

A commit of a git repository (`DIR@REV`) is checked out as a git worktree
of the cache, never in the developer's checkout, and prepared there once
per commit and config. A working tree as it is (`DIR`): a clean one is
built with O= into the cache, so that nothing is written to it; a git
checkout configured in place (Kbuild builds out of place only from a
clean tree) is built as its HEAD in a worktree with its uncommitted
changes applied. Their config: the tree's own .config, Debian's
(debian-6.12, debian-6.1), `make defconfig`'s, or a file; CONFIG_CHANGES
made to it. Every git command goes through kernelsrc/git.py (nothing the
repository says runs); the building runs the tree's code.

Debian's trees, the cache's layout and the building itself: kbuild.py.
"""

import dataclasses
import hashlib
import os
import shutil
import time
from collections.abc import Callable, Iterable
from pathlib import Path

from hotpath.debian import locked
from hotpath.errors import HotpathError, UsageError
from hotpath.kernelsrc.git import git
from hotpath.kernelsrc.kbuild import (
    CONFIG_SUMMARY,
    DEBIAN_CONFIG,
    SHORTS,
    Log,
    PreparedTree,
    _digest,
    _jobs,
    _log_of,
    _ready,
    _tree_of,
    _write_json,
    configure,
    debian_config,
    kbuild_root,
    kernelrelease,
    make,
    say,
    toolchain,
)

CONFIG_CHOICES = ("auto", "debian-6.12", "debian-6.1", "defconfig")


def check_config(config: str) -> str:
    """`config` when base_config() can take it (nothing downloaded here),
    else UsageError naming it and what is allowed."""
    if config in CONFIG_CHOICES:
        return config
    path = Path(config)
    if config and path.is_file():
        return config
    why = "no such choice or file" if not path.exists() else "not a file"
    raise UsageError(
        f"--kernel-config '{config}': {why}; allowed: {', '.join(CONFIG_CHOICES)}, "
        "or a kernel config file"
    )


def base_config(source: Path, config: str) -> tuple[bytes | None, str]:
    """The config a developer tree starts from (None: defconfig's), and the
    words that say which. `auto`: the tree's own .config, else Debian's 6.12."""
    check_config(config)
    if config == "auto":
        if (source / ".config").is_file():
            return (source / ".config").read_bytes(), f"{source}/.config"
        config = "debian-6.12"
    if config.startswith("debian-") and config.removeprefix("debian-") in SHORTS:
        short = config.removeprefix("debian-")
        data, version = debian_config(short)
        return data, f"Debian's {DEBIAN_CONFIG} of linux-config-{short} {version}"
    if config == "defconfig":
        return None, "make defconfig"
    return Path(config).read_bytes(), str(Path(config).resolve())


def _git(repo: Path, *args: str, ours: bool = False) -> str:
    """git's output (kernelsrc/git.py: nothing the repository says runs;
    `ours`: a worktree of the cache); HotpathError with git's message when
    it fails."""
    done = git(repo, *args, ours=ours)
    if done.returncode != 0:
        said = done.stderr.decode(errors="replace").strip()
        raise HotpathError(f"git -C {repo} {' '.join(args)} failed: {said}")
    return done.stdout.decode(errors="replace").strip()


def _found(
    folders: Iterable[Path], wanted: Callable[[dict[str, object]], bool]
) -> PreparedTree | None:
    for entry in folders:
        facts = _ready(entry)
        if facts is not None and facts.get("toolchain") == toolchain() and wanted(facts):
            return _tree_of(entry, facts)
    return None


def prepare_worktree(
    repo: Path, rev: str, config: str = "auto", log: Log = say, patch: bytes | None = None
) -> PreparedTree:
    """A commit of a git repository prepared by its Kbuild in a git worktree
    of the cache (`DIR@REV`), kept per commit and config. With `patch` (a
    binary git diff against the commit: a configured working tree's
    uncommitted changes) one more worktree per commit and config holds the
    working files: its tracked files are reset to the commit and the patch
    applied on each use, and make rebuilds what that changed (not fixed)."""
    repo = repo.resolve()
    try:
        sha = _git(repo, "rev-parse", "--verify", "--quiet", f"{rev}^{{commit}}")
    except HotpathError as err:
        raise UsageError(
            f"--kernel-tree '{repo}@{rev}': '{rev}' is not a commit of {repo}; "
            "allowed: a commit, tag or branch git knows there"
        ) from err
    base, config_words = base_config(repo, config)
    source_key = _digest(base if base is not None else b"defconfig")
    folder = kbuild_root() / "worktrees"
    key = sha[:12] + ("+work" if patch is not None else "")
    # Named after the revision asked for now: an entry is kept per commit,
    # and another name of the same commit (a tag, HEAD) finds it too.
    name = "linux-" + rev  # as trees.revision_name checked it
    where = f"{repo} at {rev} (commit {sha[:12]}), {config_words}, in a git worktree"

    def wanted(facts: dict[str, object]) -> bool:
        sources = facts.get("config_sources")
        return facts.get("commit") == sha and isinstance(sources, list) and source_key in sources

    if patch is None:
        tree = _found(folder.glob(f"{key}-*"), wanted)
        if tree is not None:
            return dataclasses.replace(tree, name=name, where=where)
    with locked(folder / f"{key}.lock"):
        tree = _found(folder.glob(f"{key}-*"), wanted)
        if tree is not None:
            if patch is not None:
                _apply(tree.root, patch)
            return dataclasses.replace(tree, name=name, where=where)
        facts: dict[str, object] = {
            "kind": "worktree",
            "name": name,
            "where": where,
            "repo": str(repo),
            "commit": sha,
            "config": config_words,
            "config_sources": [source_key],
            "fixed": patch is None,
        }
        tree = _prepare_checkout(repo, folder, sha, key, patch, base, source_key, facts, log)
        return dataclasses.replace(tree, name=name, where=where)


def _apply(tree: Path, patch: bytes) -> None:
    """A working tree's uncommitted changes into the prepared worktree
    `tree`, its tracked files first reset to its commit where an earlier
    patch changed them; nothing is touched (so make rebuilds nothing) when
    the patch is the one applied last."""
    applied_file = tree.parent / "patch.sha256"
    digest = hashlib.sha256(patch).hexdigest()
    if applied_file.is_file() and applied_file.read_text() == digest:
        return
    applied_file.unlink(missing_ok=True)
    _git(tree, "checkout", "--force", "--", ".", ours=True)
    if patch:
        _git_apply(tree, patch)
    applied_file.write_text(digest)


def _git_apply(tree: Path, patch: bytes) -> None:
    applied = git(tree, "apply", "--binary", "-", input=patch, ours=True)
    if applied.returncode != 0:
        raise HotpathError(
            f"the working tree's uncommitted changes do not apply to its HEAD in {tree}: "
            f"{applied.stderr.decode(errors='replace').strip()}"
        )


def _drop_worktree(repo: Path, entry: Path) -> None:
    """A worktree of the cache removed, and forgotten by its repository."""
    git(repo, "worktree", "remove", "--force", str(entry / "tree"))
    shutil.rmtree(entry, ignore_errors=True)
    git(repo, "worktree", "prune")


def _prepare_checkout(
    repo: Path,
    folder: Path,
    sha: str,
    key: str,
    patch: bytes | None,
    base: bytes | None,
    source_key: str,
    facts: dict[str, object],
    log: Log,
) -> PreparedTree:
    for stale in [*folder.glob(f"{key}.partial-*"), *folder.glob(f"{key}-*")]:
        if _ready(stale) is None:
            _drop_worktree(repo, stale)  # a killed process's; the lock is ours
    work = folder / f"{key}.partial-{os.getpid()}"
    work.mkdir(parents=True)
    made = [work]
    start = time.monotonic()
    log_file = folder / f"{key}.log"
    try:
        log(f"preparing {facts['name']} (first time): git worktree add...")
        _git(repo, "worktree", "add", "--detach", str(work / "tree"), sha)
        if patch:
            _git_apply(work / "tree", patch)
        log(f"preparing {facts['name']}: configuring ({facts['config']}; {CONFIG_SUMMARY})...")
        digest, results = configure(work / "tree", base, log_file, work)
        entry = folder / f"{key}-{digest}"
        known = _ready(entry)
        if known is not None:
            # Another config that ends the same: the prepared tree is right.
            sources = known.get("config_sources")
            known["config_sources"] = [
                *(sources if isinstance(sources, list) else []),
                source_key,
            ]
            known["toolchain"] = toolchain()
            _write_json(entry / "READY", known)
            _drop_worktree(repo, work)
            if patch is not None:
                _apply(entry / "tree", patch)
            return _tree_of(entry, known)
        entry.mkdir()
        made.append(entry)
        _git(repo, "worktree", "move", str(work / "tree"), str(entry / "tree"))
        work.rmdir()
        made.remove(work)
        tree = entry / "tree"
        log(f"preparing {facts['name']}: make modules_prepare...")
        make(tree, ["-j", str(_jobs()), "modules_prepare"], _log_of(entry), entry)
        release = kernelrelease(tree, [], _log_of(entry), entry)
        facts.update(
            config_digest=digest,
            changes=results,
            kernelrelease=release,
            toolchain=toolchain(),
            seconds={"total": round(time.monotonic() - start, 1)},
        )
        if patch is not None:  # what _apply() finds applied next time
            (entry / "patch.sha256").write_text(hashlib.sha256(patch).hexdigest())
        _write_json(entry / "READY", facts)
    except BaseException:
        for made_folder in made:
            _drop_worktree(repo, made_folder)
        raise
    log(f"{facts['name']} prepared in {time.monotonic() - start:.0f} s: {tree}")
    return _tree_of(entry, facts)


def _git_top(source: Path) -> Path | None:
    done = git(source, "rev-parse", "--show-toplevel")
    return Path(done.stdout.decode().strip()).resolve() if done.returncode == 0 else None


def prepare_working(source: Path, config: str = "auto", log: Log = say) -> PreparedTree:
    """A developer's working tree as it is, prepared by its Kbuild with O=
    into the cache: nothing is written to the tree. Its sources change, so
    make decides what to build each time (fixed is False). A git checkout
    configured in place is prepared as HEAD in a worktree with its
    uncommitted changes (tracked files) applied, and its own .config."""
    source = source.resolve()
    if not (source / "Makefile").is_file() or not (source / "Kconfig").is_file():
        raise UsageError(f"--kernel-tree '{source}': no Makefile and Kconfig: not a kernel tree")
    if (source / ".config").is_file() or (source / "include/config").is_dir():
        # Kbuild builds into another folder (O=) only from a clean tree: a
        # git checkout configured in place is built as its HEAD in a
        # worktree with its uncommitted changes applied (its own .config).
        if _git_top(source) != source:
            raise UsageError(
                f"--kernel-tree '{source}': it has been configured or built in place (.config, "
                "include/config) and is not the top of a git checkout; Kbuild builds into "
                "another folder (O=) only from a clean tree; allowed: a git checkout, "
                "DIR@REV, or the tree after `make mrproper`"
            )
        patch = git(source, "diff", "HEAD", "--binary", "--no-ext-diff", "--no-textconv").stdout
        return prepare_worktree(source, "HEAD", config, log, patch=patch)
    base, config_words = base_config(source, config)
    key = _digest(str(source).encode() + b"\0" + (base if base is not None else b"defconfig"))
    entry = kbuild_root() / "out" / key
    tree = _found([entry], lambda facts: True)
    if tree is not None:
        return tree
    with locked(entry.with_name(f"{key}.lock")):
        tree = _found([entry], lambda facts: True)
        if tree is not None:
            return tree
        shutil.rmtree(entry, ignore_errors=True)
        entry.mkdir(parents=True)
        out = entry / "obj"
        start = time.monotonic()
        name = f"linux-{source.name}"
        try:
            log(f"preparing {name} (first time): configuring ({config_words}) in {out}...")
            digest, results = configure(source, base, _log_of(entry), entry, out=out)
            log(f"preparing {name}: make O={out} modules_prepare...")
            make(source, ["-j", str(_jobs()), f"O={out}", "modules_prepare"], _log_of(entry), entry)
            release = kernelrelease(source, [f"O={out}"], _log_of(entry), entry)
            facts: dict[str, object] = {
                "kind": "working",
                "name": name,
                "where": f"{source}, working tree as it is, {config_words}, built in {out}",
                "source": str(source),
                "root": str(source),
                "out": str(out),
                "fixed": False,
                "config": config_words,
                "config_digest": digest,
                "changes": results,
                "kernelrelease": release,
                "toolchain": toolchain(),
                "seconds": {"total": round(time.monotonic() - start, 1)},
            }
            _write_json(entry / "READY", facts)
        except BaseException:
            shutil.rmtree(entry, ignore_errors=True)
            raise
    return _tree_of(entry, facts)
