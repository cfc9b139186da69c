# SPDX-License-Identifier: GPL-2.0-only
"""A developer's repository cannot make hotpath's git run a program
(hotpath.kernelsrc.git): its core.fsmonitor, its filter drivers (picked by
a committed .gitattributes) and its post-checkout hook each leave a marker
file when run. Plain git runs them (checked first, so the test can fail);
every path hotpath reads or prepares a tree by runs none."""

import subprocess
from pathlib import Path

import pytest

from hotpath.errors import HotpathError, UsageError
from hotpath.kernelsrc import devtrees, trees
from hotpath.kernelsrc import git as hotpath_git

MAKEFILE = "VERSION = 6\nPATCHLEVEL = 12\nSUBLEVEL = 0\nEXTRAVERSION =\n"


def run(*args: str, cwd: Path) -> None:
    subprocess.run(args, cwd=cwd, check=True, capture_output=True)


@pytest.fixture
def hostile(tmp_path, monkeypatch) -> tuple[Path, Path]:
    monkeypatch.setenv("HOTPATH_GUEST_CACHE", str(tmp_path / "cache"))
    marks = tmp_path / "marks"
    marks.mkdir()
    repo = tmp_path / "linux"
    repo.mkdir()
    (repo / "Makefile").write_text(MAKEFILE)
    (repo / "Kconfig").write_text("")
    (repo / ".gitattributes").write_text("* filter=evil diff=evil\n")
    run("git", "init", "-q", ".", cwd=repo)
    run("git", "add", "-A", cwd=repo)
    run("git", "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "one", cwd=repo)
    for key, mark in (
        ("filter.evil.clean", "clean"),
        ("filter.evil.smudge", "smudge"),
        ("diff.evil.textconv", "textconv"),
        ("core.fsmonitor", "fsmonitor"),
    ):
        run("git", "config", key, f"sh -c 'touch {marks}/{mark}; cat' #", cwd=repo)
    hook = repo / ".git" / "hooks" / "post-checkout"
    hook.write_text(f"#!/bin/sh\ntouch {marks}/hook\n")
    hook.chmod(0o755)
    (repo / "Makefile").write_text(MAKEFILE + "# an uncommitted change\n")
    (repo / ".config").write_text("")  # configured in place
    return repo, marks


def test_plain_git_runs_what_the_repository_says(hostile, tmp_path):
    repo, marks = hostile
    for args in (
        ["status"],
        ["diff", "HEAD"],
        ["worktree", "add", "--detach", str(tmp_path / "wt")],
    ):
        subprocess.run(["git", *args], cwd=repo, capture_output=True, check=False)
    assert {p.name for p in marks.iterdir()} >= {"fsmonitor", "clean", "smudge", "hook"}


def test_hotpaths_git_runs_nothing_the_repository_says(hostile):
    repo, marks = hostile
    (head,) = trees.parse_kernel_tree(f"{repo}@HEAD", ("Makefile",))
    assert head.read("Makefile") == MAKEFILE.encode()
    (work,) = trees.parse_kernel_tree(str(repo), ("Makefile",))
    assert work.name == "linux-HEAD+dirty"
    # A worktree of HEAD (git worktree add: the hook, the smudge filter) and
    # the configured checkout's changes (git diff: fsmonitor, clean,
    # textconv); both then stop at Kbuild, which this tree does not have.
    with pytest.raises(HotpathError, match="No rule to make target 'defconfig'"):
        devtrees.prepare_worktree(repo, "HEAD", "defconfig", log=lambda line: None)
    with pytest.raises(HotpathError, match="No rule to make target 'defconfig'"):
        devtrees.prepare_working(repo, "defconfig", log=lambda line: None)
    assert [p.name for p in marks.iterdir()] == []


def test_a_repository_of_another_user_is_refused_with_gits_words_unless_allowed(
    tmp_path, monkeypatch
):
    """(issue 40, item 17): before, "not the top of a git checkout"."""
    repo = tmp_path / "theirs"
    repo.mkdir()
    (repo / "Makefile").write_text(MAKEFILE)
    run("git", "init", "-q", ".", cwd=repo)
    run("git", "add", "-A", cwd=repo)
    run("git", "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "one", cwd=repo)
    subprocess.run(["chown", "-R", "nobody", str(repo)], check=True)
    monkeypatch.setenv("HOME", str(tmp_path))  # a global config of the test's own
    monkeypatch.delenv("XDG_CONFIG_HOME", raising=False)
    hotpath_git._safe_directories.cache_clear()
    with pytest.raises(UsageError, match=r"dubious ownership.*safe\.directory"):
        trees.parse_kernel_tree(f"{repo}@HEAD", ("Makefile",))
    run("git", "config", "--global", "--add", "safe.directory", str(repo), cwd=tmp_path)
    hotpath_git._safe_directories.cache_clear()
    (head,) = trees.parse_kernel_tree(f"{repo}@HEAD", ("Makefile",))
    assert head.read("Makefile") == MAKEFILE.encode()
    hotpath_git._safe_directories.cache_clear()
