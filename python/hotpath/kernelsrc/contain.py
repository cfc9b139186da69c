# SPDX-License-Identifier: GPL-2.0-only
"""A kernel tree's code runs contained when hotpath runs as root.

Building a tree runs its code (its Makefiles, scripts/, host programs,
compiler plugins) and timing it runs its objects in the runner. Run as
root, that code could read and change anything. So when hotpath runs as
root, and `--trust-tree` was not given, every such command (make and
scripts/config in kbuild.py, the runner loading a tree's objects) runs
under bubblewrap (Debian's `bubblewrap`, installed by the set-up):

- as nobody (uid and gid 65534, no other group, no capabilities, no new
  privileges), so the host's permissions say what it may read: nothing
  of root's (/root, /etc/shadow);
- with no network (a network namespace of its own: loopback only), its
  own process, IPC and host-name namespaces, killed with hotpath;
- the whole file system read-only, a private /tmp, and writable only the
  cache entry the build writes (handed to nobody first, hand_over());
  the folders on the way to what it needs (the tree, the cache, the
  runner) are shown and nothing else of them where root alone may enter.

hotpath run as another user runs these as that user: they have no more
rights than the user's own commands. docs/kernel-source.md says the same.
"""

import itertools
import os
import shutil
import subprocess
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path

from hotpath.errors import HotpathError
from hotpath.kernelsrc.kload import spec_objects

# nobody:nogroup on every Debian: owns nothing the build could use.
BUILD_UID = 65534
BUILD_GID = 65534

_trusted = False


def trust(yes: bool) -> None:
    """--trust-tree: the tree's code runs as the user who runs hotpath."""
    global _trusted
    _trusted = yes


def active() -> bool:
    """Whether a tree's code runs contained (root, without --trust-tree)."""
    return os.geteuid() == 0 and not _trusted


def said() -> str:
    """How a tree's code runs now, for progress lines and errors."""
    if active():
        return "contained (bubblewrap: nobody, no network, read-only but its build folder)"
    if os.geteuid() == 0:
        return "as root (--trust-tree)"
    return "as this user"


def _bwrap() -> str:
    found = shutil.which("bwrap")
    if found is None:
        raise HotpathError(
            "bwrap not found: as root, hotpath builds and runs a kernel tree's code contained "
            "by bubblewrap (`apt-get install bubblewrap`; the set-up installs it), or as root "
            "with --trust-tree"
        )
    return found


def hand_over(folder: Path) -> None:
    """`folder` and everything in it owned by the build user, so the
    contained build can write there (Kbuild writes objects beside the
    sources of a tree built in place). Only what is not yet its is
    changed; find walks a whole tree in about 0.3 s (os.walk: 0.9 s)."""
    found = subprocess.run(
        ["find", str(folder), "(", "!", "-uid", str(BUILD_UID), "-o", "!", "-gid",
         str(BUILD_GID), ")", "-print0"],
        capture_output=True, check=False,
    )  # fmt: skip
    if found.returncode != 0:
        said = found.stderr.decode(errors="replace").strip()
        raise HotpathError(f"cannot hand {folder} to the contained build: {said}")
    for name in filter(None, found.stdout.split(b"\0")):
        os.lchown(name, BUILD_UID, BUILD_GID)


def _ancestors(path: Path) -> list[Path]:
    """The folders above `path`, outermost first, without /."""
    return list(reversed(path.parents))[1:]


def _under(path: Path, folders: Iterable[Path]) -> bool:
    return any(path == f or f in path.parents for f in folders)


def _hidden_above(paths: Sequence[Path]) -> list[Path]:
    """Folders that others may not enter on the way to `paths` (/root):
    each becomes an empty tmpfs in the sandbox, in which the way down to
    the paths is made again (the rest of it stays out of sight)."""
    hidden = [Path("/tmp")]
    for path in paths:
        for folder in _ancestors(path):
            if _under(folder, hidden):
                break
            if not folder.stat().st_mode & 0o001:
                hidden.append(folder)
                break
    return hidden


def wrap(
    argv: Sequence[str],
    *,
    cwd: Path,
    writable: Sequence[Path] = (),
    readable: Sequence[Path] = (),
    setenv: Sequence[tuple[str, str]] = (),
) -> list[str]:
    """`argv` wrapped to run contained (the module's docstring): every
    path read-only but `writable` (each handed to the build user first),
    `readable` and `writable` made reachable, in `cwd`; HOME and TMPDIR
    the private /tmp, then `setenv`."""
    writable = [Path(os.path.realpath(p)) for p in writable]
    readable = [Path(os.path.realpath(p)) for p in readable]
    readable = [p for p in readable if not _under(p, writable)]  # a tree built in place
    for folder in writable:
        hand_over(folder)
    shown = [*readable, *writable]
    hidden = _hidden_above(shown)
    args = [_bwrap(), "--unshare-ipc", "--unshare-pid", "--unshare-net", "--unshare-uts"]
    args += ["--unshare-cgroup-try", "--die-with-parent", "--new-session"]
    args += ["--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc"]
    for folder in sorted(hidden, key=lambda p: len(p.parts)):
        args += ["--perms", "1777" if folder == Path("/tmp") else "0755", "--tmpfs", str(folder)]
    ways = {a for p in shown for a in _ancestors(p) if _under(a, hidden) and a not in hidden}
    for folder in sorted(ways, key=lambda p: len(p.parts)):
        args += ["--perms", "0755", "--dir", str(folder)]
    binds = [("--ro-bind", p) for p in readable] + [("--bind", p) for p in writable]
    for how, path in sorted(binds, key=lambda b: len(b[1].parts)):
        args += [how, str(path), str(path)]
    args += ["--chdir", str(cwd)]
    for name, value in {"HOME": "/tmp", "TMPDIR": "/tmp", **dict(setenv)}.items():
        args += ["--setenv", name, value]
    args += ["--", "setpriv", f"--reuid={BUILD_UID}", f"--regid={BUILD_GID}", "--clear-groups"]
    args += ["--no-new-privs", "--bounding-set=-all", "--inh-caps=-all", "--"]
    return [*args, *argv]


def _rows(env: Mapping[str, str]) -> tuple[set[Path], list[tuple[str, str]]]:
    """What the runner's library reads to choose its dispatch row, as
    c/dispatch/measured.c and choose.c find it: the file HOTPATH_DISPATCH
    names and the user's measured rows ($XDG_CACHE_HOME, else
    $HOME/.cache, then hotpath/dispatch). Their folders are shown
    read-only and XDG_CACHE_HOME points at the user's cache, so a
    contained runner times hp_csum() and hp_crc32c() with the row the
    same runner takes uncontained (the set-up's measured row), not the
    built-in one its HOME of /tmp would leave it."""
    readable: set[Path] = set()
    named = env.get("HOTPATH_DISPATCH", "")
    if named.startswith("/"):
        readable.add(Path(named).parent)
    xdg, home = env.get("XDG_CACHE_HOME", ""), env.get("HOME", "")
    if xdg.startswith("/"):
        cache = Path(xdg)
    elif home.startswith("/"):
        cache = Path(home, ".cache")
    else:
        return readable, []
    if not (cache / "hotpath" / "dispatch").is_dir():
        return readable, []
    readable.add(cache / "hotpath" / "dispatch")
    return readable, [("XDG_CACHE_HOME", str(cache))]


def runner_command(
    command: Sequence[str], build: Path, env: Mapping[str, str] | None = None
) -> list[str]:
    """The runner's command line wrapped to run contained when it loads a
    tree's objects: it reads its build, the files --with names, the
    objects each load spec names (`kload SPEC`, `--with SPEC:SYMBOL`) and
    its dispatch row (_rows(), from `env`, else ours); it writes nothing
    (stdout is a pipe)."""
    rows, setenv = _rows(os.environ if env is None else env)
    readable = {build, Path(command[0]).parent, *(p for p in rows if p.is_dir())}
    for option, value in itertools.pairwise(command):
        path = Path(value.rpartition(":")[0] or value)
        if option == "--with":
            readable.add(path.parent)
        if path.suffix == ".kload" and path.is_file():
            readable.add(path.parent)
            readable.update(p.parent for p in spec_objects(path))
    return wrap(command, cwd=Path("/"), readable=sorted(readable), setenv=setenv)


def status(returncode: int, contained: bool) -> int:
    """A contained command's exit status as the command's own: bubblewrap
    exits 128+N when the command was killed by signal N (subprocess's -N)."""
    return -(returncode - 128) if contained and 128 < returncode < 128 + 65 else returncode
