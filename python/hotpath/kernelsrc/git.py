# SPDX-License-Identifier: GPL-2.0-only
"""git, run so that nothing a repository says can run a program.

A developer's tree is input hotpath reads (`--kernel-tree DIR@REV`: its
revisions, its status, its uncommitted changes; worktrees of it in the
cache). A repository's own configuration can name programs git runs
while it reads: `core.fsmonitor` on `status` and `diff`, clean and smudge
filters (`filter.<driver>.clean/smudge/process`, chosen by
.gitattributes) when a file is read from or written to a working tree,
hooks (`post-checkout` on `worktree add`), external diff and textconv
drivers, a pager. Every git command of hotpath's goes through git() here:

- no system or global configuration (GIT_CONFIG_NOSYSTEM, GIT_CONFIG_GLOBAL
  and the system attributes off) but their safe.directory entries, no
  pager, no prompt, no optional locks;
- `-c` overrides for the repository's own: fsmonitor off, hooks from an
  empty path, no external diff, no network protocol, no automatic gc or
  maintenance, and every filter driver its configuration names made empty
  and not required (an empty command is no filter: the file passes as it
  is stored), found by reading its configuration first (which runs
  nothing);
- diff is always asked for `--no-ext-diff --no-textconv` by its callers.

Building a tree still runs the tree's code (its Makefiles, its host
programs): contain.py says how that is contained.
"""

import functools
import os
import subprocess
from pathlib import Path

from hotpath.errors import HotpathError

SAFE_ENV = {
    "GIT_CONFIG_NOSYSTEM": "1",
    "GIT_CONFIG_GLOBAL": os.devnull,
    "GIT_ATTR_NOSYSTEM": "1",
    "GIT_TERMINAL_PROMPT": "0",
    "GIT_PAGER": "cat",
    "PAGER": "cat",
    "GIT_OPTIONAL_LOCKS": "0",
}
# Variables that would point git at other programs or configurations.
DROPPED = ("GIT_EXTERNAL_DIFF", "GIT_SSH", "GIT_SSH_COMMAND", "GIT_ASKPASS", "GIT_EDITOR",
           "GIT_CONFIG", "GIT_CONFIG_PARAMETERS", "GIT_CONFIG_COUNT", "GIT_DIR",
           "GIT_WORK_TREE", "GIT_INDEX_FILE", "GIT_EXEC_PATH")  # fmt: skip
SAFE_CONFIG = (
    "core.fsmonitor=false",
    f"core.hooksPath={os.devnull}",
    "core.pager=cat",
    "core.untrackedCache=false",
    "core.sshCommand=false",
    "diff.external=",
    "protocol.allow=never",
    "credential.helper=",
    "gc.auto=0",
    "maintenance.auto=false",
)


@functools.cache
def _safe_directories() -> tuple[str, ...]:
    """The system's and the user's safe.directory values: the one setting of
    theirs that reading a repository honours (a repository owned by another
    user is refused by git unless it is listed), passed on with `-c`.
    Reading a configuration runs nothing."""
    found: list[str] = []
    for scope in ("--system", "--global"):
        try:
            done = subprocess.run(
                ["git", "config", scope, "--get-all", "safe.directory"],
                capture_output=True, text=True, check=False,
            )  # fmt: skip
        except OSError:
            return ()
        found += done.stdout.splitlines()
    return tuple(dict.fromkeys(found))


def environment() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in DROPPED}
    return {**env, **SAFE_ENV}


def _config_args() -> list[str]:
    items = [*SAFE_CONFIG, *(f"safe.directory={d}" for d in _safe_directories())]
    return [arg for item in items for arg in ("-c", item)]


def _filter_overrides(repo: Path, mine: list[str]) -> list[str]:
    """`-c` pairs emptying every filter driver the repository's config names."""
    try:
        done = subprocess.run(
            ["git", *_config_args(), *mine, "-C", str(repo), "config", "--name-only",
             "--get-regexp", r"^filter\..*\.(clean|smudge|process|required)$"],
            capture_output=True, text=True, env=environment(), check=False,
        )  # fmt: skip
    except OSError as err:
        raise HotpathError(f"cannot run git: {err}") from err
    drivers = {key[len("filter.") : key.rindex(".")] for key in done.stdout.split()}
    args = []
    for driver in sorted(drivers):
        for key, value in (("clean", ""), ("smudge", ""), ("process", ""), ("required", "false")):
            args += ["-c", f"filter.{driver}.{key}={value}"]
    return args


def git(
    repo: Path, *args: str, input: bytes | None = None, ours: bool = False
) -> subprocess.CompletedProcess[bytes]:
    """`git -C repo ARGS` as the module docstring says; never raises for git's
    own exit status (the caller reads it), HotpathError when git cannot start.
    `ours`: `repo` is a worktree of hotpath's cache, which a contained build
    owns (kernelsrc/contain.py); git's check of an owner is for another
    user's repository, and this one is hotpath's own."""
    mine = ["-c", f"safe.directory={repo}"] if ours else []
    command = [
        "git",
        *_config_args(),
        *mine,
        *_filter_overrides(repo, mine),
        "-C",
        str(repo),
        *args,
    ]
    try:
        return subprocess.run(
            command, input=input, capture_output=True, env=environment(), check=False
        )
    except OSError as err:
        raise HotpathError(f"cannot run git: {err}") from err
