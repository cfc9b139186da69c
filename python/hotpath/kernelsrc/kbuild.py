# SPDX-License-Identifier: GPL-2.0-only
"""Whole kernel trees prepared by their own Kbuild, and objects built there.

An object exactly as the kernel has it (its flags: -mcmodel=kernel,
fentry, return thunks, padding; its alternatives, objtool's sections) is
made only by the tree's own Kbuild, so here a tree is unpacked whole,
configured with the config its kernel was built with, and prepared
(`make modules_prepare`); single objects and hotpath's glue files are
then built by `make` in it. Building a tree runs its code (its Makefiles,
scripts and compiler plugins): every command of a tree's goes through
_run(), contained as contain.py says when hotpath runs as root.

Debian's trees: linux-source-<short> (the tree, 1.7 GB unpacked) and
linux-config-<short> (config.amd64_none_amd64, Debian's own config) of
the same version, changed only where a user-space build cannot or need
not follow it (CONFIG_CHANGES). Each is kept in

    <cache>/kbuild/<short>-<Debian version>-<config digest>/
        tree/            the prepared tree (make -C tree ...)
        READY            written last: versions, changes, seconds taken
        objects.json     objects built, stamped (Kbuild rebuilds a single
                         object on every call, about a second)
        hotpath-glue/    external-module folders of glue files (M=)
    <cache>/kbuild/<entry>.log   the output of the last failed make

The config digest (of the final .config) is known only after `make
olddefconfig`; the work starts in `<short>-<version>.partial-<pid>` and
is renamed when the digest is known, before `modules_prepare`: that
builds objtool with absolute paths, so the tree never moves after it.
READY marks an entry complete; a lock per Debian version keeps two
processes from preparing the same one, and an error or Ctrl-C removes
what was begun. A prepared entry is found without running make.

Developer trees (`--kernel-tree DIR@REV`, `DIR`) are prepared the same
way, by devtrees.py, into kbuild/worktrees/ and kbuild/out/. `hotpath
kernels prune` removes what is not current (prune()).
"""

import fcntl
import functools
import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

from hotpath.debian import cache_root, candidate_version, download, locked
from hotpath.errors import HotpathError, UsageError
from hotpath.kernelsrc import contain
from hotpath.kernelsrc.git import git

SHORTS = ("6.1", "6.12")
DEBIAN_CONFIG = "config.amd64_none_amd64"

# Each change to the kernel's config: (option, value as .config writes it,
# why). Nothing else is changed. CONFIG_MODULE_SIG itself stays y: Debian's
# SECURITY_LOCKDOWN_LSM selects it (olddefconfig turns it back on), it only
# adds fields to struct module, and no key is needed until a module is
# signed, which nothing here does.
CONFIG_CHANGES: tuple[tuple[str, str, str], ...] = (
    ("DEBUG_INFO_BTF", "n", "BTF is made by pahole at link time; objects never carry it"),
    ("MODULE_SIG_ALL", "n", "no signing key: no module is installed, so none is signed"),
    (
        "SYSTEM_TRUSTED_KEYS",
        '""',
        "Debian's build points it at debian/certs/, which linux-source does not have",
    ),
    (
        "SYSTEM_REVOCATION_KEYS",
        '""',
        "Debian's build points it at debian/certs/, which linux-source does not have",
    ),
)
CONFIG_SUMMARY = "BTF, module signing off"

# Variables a user's shell may hold that would change what Kbuild builds
# (another arch, another output folder) or how make runs (a parent make's
# jobserver): never passed on.
KBUILD_ENV_DROPPED = ("ARCH", "CROSS_COMPILE", "KBUILD_OUTPUT", "KBUILD_EXTMOD", "O", "M",
                      "KCFLAGS", "KCPPFLAGS", "KAFLAGS", "LOCALVERSION", "MAKEFLAGS",
                      "MFLAGS", "MAKELEVEL", "MAKEOVERRIDES", "GNUMAKEFLAGS")  # fmt: skip

Log = Callable[[str], None]


def say(line: str) -> None:
    """The default log: one line on stderr, as hotpath's progress lines are."""
    print(f"hotpath: {line}", file=sys.stderr, flush=True)


@dataclass(frozen=True)
class PreparedTree:
    root: Path  # the tree: make -C root
    name: str  # linux-6.12
    version: str  # make kernelrelease: 6.12.117
    where: str  # for origin lines: "Debian linux-source-6.12 6.12.117-1~deb12u1, ..."
    config_digest: str  # the first 12 hex digits of the final .config's sha256
    entry: Path  # the cache folder: READY, objects.json, hotpath-glue/
    fixed: bool = True  # its sources never change (a package, a commit): objects are kept
    out: Path | None = None  # O= folder, for a developer's working tree

    @property
    def objtree(self) -> Path:
        """Where the objects land: the tree itself, or its O= folder."""
        return self.out or self.root

    @property
    def log_file(self) -> Path:
        return _log_of(self.entry)


def kbuild_root() -> Path:
    return cache_root() / "kbuild"


def _log_of(entry: Path) -> Path:
    """Where a failed make's output is kept: beside the entry, not in it."""
    return entry.with_name(f"{entry.name}.log")


@functools.cache
def toolchain() -> str:
    """The compiler and linker Kbuild would use (their first --version lines).
    The .config records both, so an entry is for the toolchain it was made
    with; a new gcc prepares a new one."""
    lines = []
    for tool in ("gcc", "ld"):
        try:
            done = subprocess.run([tool, "--version"], capture_output=True, text=True, check=False)
        except OSError as err:
            raise HotpathError(f"{tool} not found: Kbuild needs it ({err})") from err
        lines.append((done.stdout.splitlines() or ["?"])[0])
    return " / ".join(lines)


def _ready(entry: Path) -> dict[str, object] | None:
    try:
        facts = json.loads((entry / "READY").read_text())
    except (OSError, ValueError):
        return None
    return facts if isinstance(facts, dict) else None


def _tree_of(entry: Path, facts: dict[str, object]) -> PreparedTree:
    out = facts.get("out")
    return PreparedTree(
        root=Path(str(facts.get("root") or entry / "tree")),
        name=str(facts["name"]),
        version=str(facts["kernelrelease"]),
        where=str(facts["where"]),
        config_digest=str(facts["config_digest"]),
        entry=entry,
        fixed=bool(facts.get("fixed", True)),
        out=Path(str(out)) if out else None,
    )


def first_seconds(tree: PreparedTree) -> float | None:
    """How long the tree took to prepare, the first time."""
    seconds = (_ready(tree.entry) or {}).get("seconds")
    total = seconds.get("total") if isinstance(seconds, dict) else None
    return float(total) if isinstance(total, int | float) else None


def cached(short: str) -> list[tuple[str, PreparedTree]]:
    """The complete entries of linux-<short> for this toolchain, newest first,
    each with its Debian version."""
    found = []
    for entry in kbuild_root().glob(f"{short}-*-*"):
        facts = _ready(entry)
        if facts is None or facts.get("short") != short or facts.get("toolchain") != toolchain():
            continue
        found.append((entry.stat().st_mtime, str(facts["debian_version"]), _tree_of(entry, facts)))
    return [(version, tree) for _, version, tree in sorted(found, key=lambda f: -f[0])]


def prepare_debian(short: str, allow_fetch: bool = True, log: Log = say) -> PreparedTree:
    """Debian's linux-<short> prepared by its Kbuild: from the cache when
    there for apt's candidate, else downloaded and prepared (under a minute)."""
    if short not in SHORTS:
        raise UsageError(f"linux-{short}: no Debian tree; allowed: {', '.join(SHORTS)}")
    package = f"linux-source-{short}"
    version = candidate_version(package)
    have = cached(short)
    for debian_version, tree in have:
        if debian_version == version:
            return tree
    if version is None or not allow_fetch:
        if have:
            return have[0][1]
        why = "apt knows no such package (apt-get update?)" if version is None else "not fetched"
        raise HotpathError(f"linux-{short}: no prepared tree in {kbuild_root()}: {package}: {why}")
    with locked(kbuild_root() / f"{short}-{version}.lock"):
        for debian_version, tree in cached(short):
            if debian_version == version:
                return tree  # another process prepared it meanwhile
        return _prepare_debian(short, version, log)


def _prepare_debian(short: str, version: str, log: Log) -> PreparedTree:
    name = f"linux-{short}"
    for stale in kbuild_root().glob(f"{short}-{version}.partial-*"):
        shutil.rmtree(stale, ignore_errors=True)  # a killed process's; the lock is ours
    work = kbuild_root() / f"{short}-{version}.partial-{os.getpid()}"
    work.mkdir(parents=True)
    made: list[Path] = [work]
    seconds: dict[str, float] = {}
    start = time.monotonic()

    def step(key: str, what: str) -> Callable[[], None]:
        begun = time.monotonic()
        log(f"preparing {name} (first time, under a minute): {what}...")
        return lambda: seconds.__setitem__(key, round(time.monotonic() - begun, 1))

    try:
        done = step(
            "download", f"downloading linux-source-{short} and linux-config-{short} {version}"
        )
        download([f"linux-source-{short}={version}", f"linux-config-{short}={version}"], work)
        done()
        source_deb = _one(work, f"linux-source-{short}_*.deb")
        config_deb = _one(work, f"linux-config-{short}_*.deb")
        done = step("unpack", "unpacking the whole tree (1.7 GB)")
        _unpack(source_deb, f"./usr/src/linux-source-{short}.tar.xz", work / "tree")
        base_config = _read_member(
            config_deb, f"./usr/src/linux-config-{short}/{DEBIAN_CONFIG}.xz", xz=True
        )
        _keep_config(short, version, base_config)
        source_deb.unlink()
        config_deb.unlink()
        done()
        done = step("configure", f"configuring ({DEBIAN_CONFIG}; {CONFIG_SUMMARY})")
        digest, results = configure(
            work / "tree", base_config, kbuild_root() / f"{short}-{version}.log", work
        )
        done()
        entry = kbuild_root() / f"{short}-{version}-{digest}"
        facts = _ready(entry)
        if facts is not None:
            # The same final config, made by another toolchain line: the
            # prepared tree is right as it is.
            facts["toolchain"] = toolchain()
            _write_json(entry / "READY", facts)
            shutil.rmtree(work)
            return _tree_of(entry, facts)
        shutil.rmtree(entry, ignore_errors=True)
        work.rename(entry)
        made = [entry]
        tree = entry / "tree"
        done = step("modules_prepare", "make modules_prepare")
        make(tree, ["-j", str(_jobs()), "modules_prepare"], _log_of(entry), entry)
        done()
        release = kernelrelease(tree, [], _log_of(entry), entry)
        seconds["total"] = round(time.monotonic() - start, 1)
        facts = {
            "kind": "debian",
            "short": short,
            "name": name,
            "debian_version": version,
            "packages": {f"linux-source-{short}": version, f"linux-config-{short}": version},
            "config": DEBIAN_CONFIG,
            "config_digest": digest,
            "changes": results,
            "kernelrelease": release,
            "where": f"Debian linux-source-{short} {version}, {DEBIAN_CONFIG} ({CONFIG_SUMMARY})",
            "toolchain": toolchain(),
            "seconds": seconds,
        }
        _write_json(entry / "READY", facts)
    except BaseException:
        for folder in made:
            shutil.rmtree(folder, ignore_errors=True)
        raise
    log(f"{name} prepared in {seconds['total']:.0f} s: {tree}")
    return _tree_of(entry, facts)


def _one(folder: Path, pattern: str) -> Path:
    found = sorted(folder.glob(pattern))
    if not found:
        raise HotpathError(f"apt-get download left no {pattern} in {folder}")
    return found[0]


def _unpack(deb: Path, member: str, into: Path) -> None:
    """The package's inner tarball, whole, streamed into `into`."""
    into.mkdir(parents=True)
    outer = subprocess.Popen(["dpkg-deb", "--fsys-tarfile", str(deb)], stdout=subprocess.PIPE)
    middle = subprocess.Popen(
        ["tar", "-xOf", "-", member], stdin=outer.stdout, stdout=subprocess.PIPE
    )
    assert outer.stdout is not None and middle.stdout is not None
    outer.stdout.close()
    inner = subprocess.run(
        ["tar", "-xJf", "-", "-C", str(into), "--strip-components=1"],
        stdin=middle.stdout,
        capture_output=True,
        text=True,
        check=False,
    )
    middle.stdout.close()
    if middle.wait() != 0 or outer.wait() != 0 or inner.returncode != 0:
        raise HotpathError(f"{deb.name}: could not unpack {member}: {inner.stderr.strip()}")


def _read_member(deb: Path, member: str, xz: bool = False) -> bytes:
    outer = subprocess.Popen(["dpkg-deb", "--fsys-tarfile", str(deb)], stdout=subprocess.PIPE)
    assert outer.stdout is not None
    done = subprocess.run(
        ["tar", "-xOf", "-", member], stdin=outer.stdout, capture_output=True, check=False
    )
    outer.stdout.close()
    if outer.wait() != 0 or done.returncode != 0:
        raise HotpathError(f"{deb.name}: no {member} in the package")
    if not xz:
        return done.stdout
    unpacked = subprocess.run(["xz", "-dc"], input=done.stdout, capture_output=True, check=False)
    if unpacked.returncode != 0:
        raise HotpathError(f"{deb.name}: {member} is not xz: {unpacked.stderr.decode().strip()}")
    return unpacked.stdout


def configure(
    tree: Path,
    base: bytes | None,
    log_file: Path,
    entry: Path,
    out: Path | None = None,
    changes: Sequence[tuple[str, str, str]] = CONFIG_CHANGES,
) -> tuple[str, list[dict[str, str]]]:
    """`base` as the .config (None: `make defconfig`'s), the changes made,
    `make olddefconfig`, in the tree or its O= folder `out` (in the cache
    folder `entry`, which the build may write): the final config's digest,
    and each change with the line it left."""
    objtree = out or tree
    objtree.mkdir(parents=True, exist_ok=True)
    where = [f"O={out}"] if out else []
    if base is None:
        make(tree, ["-s", *where, "defconfig"], log_file, entry)
    else:
        (objtree / ".config").write_bytes(base)
    edits = []
    for option, value, _ in changes:
        if value == "n":
            edits += ["--disable", option]
        elif value.startswith('"'):
            edits += ["--set-str", option, value.strip('"')]
        else:
            edits += ["--set-val", option, value]
    if edits:
        config = ["scripts/config", "--file", str(objtree / ".config"), *edits]
        _run(config, tree, log_file, entry)
    make(tree, ["-s", *where, "olddefconfig"], log_file, entry)
    final = (objtree / ".config").read_bytes()
    text = final.decode("utf-8", "replace")
    results = []
    for option, value, why in changes:
        line = re.search(rf"^(CONFIG_{option}=.*|# CONFIG_{option} is not set)$", text, re.M)
        results.append(
            {
                "option": f"CONFIG_{option}",
                "value": value,
                "why": why,
                "result": line.group(1) if line else "absent (its dependencies are off)",
            }
        )
    return _digest(final), results


def _digest(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()[:12]


def _write_json(path: Path, facts: dict[str, object]) -> None:
    partial = path.with_name(f"{path.name}.{os.getpid()}")
    partial.write_text(json.dumps(facts, indent=1) + "\n")
    partial.replace(path)


def _jobs() -> int:
    return max(1, len(os.sched_getaffinity(0)))


def _env() -> dict[str, str]:
    """The environment make runs in: without KBUILD_ENV_DROPPED, and in the C
    locale (the compiler's messages in ASCII, as the error line quotes them;
    Kbuild unexports LC_ALL, so LANG and every LC_ are set)."""
    env = {
        k: v
        for k, v in os.environ.items()
        if k not in KBUILD_ENV_DROPPED and not k.startswith("LC_") and k != "LANGUAGE"
    }
    return {**env, "LANG": "C", "LC_CTYPE": "C", "LC_MESSAGES": "C"}


_LOCATED = re.compile(r"^(?P<file>[^:\s]+):(?P<line>\d+)(?::\d+)?: (?:fatal )?error: ")


def first_error(output: str, cwd: Path | None = None, inside: Sequence[Path] = ()) -> str:
    """The line that says what went wrong: the compiler's first error, else
    the first line naming an error, else the last line. A compiler error
    located in a file outside the folders `inside` (the tree and its cache
    folder: an `#include "/etc/passwd"` in a tree) keeps its place and
    loses its text, which may quote that file."""
    lines = [line.strip() for line in output.splitlines() if line.strip()]
    for pattern in (r"\berror:", r"\b[Ee]rror\b", r"[Ee]rror"):
        for line in lines:
            if re.search(pattern, line):
                return _outside_cut(line, cwd, inside)
    return lines[-1] if lines else "(no output)"


def _outside_cut(line: str, cwd: Path | None, inside: Sequence[Path]) -> str:
    located = _LOCATED.match(line)
    if located is None or not inside:
        return line
    where = Path(os.path.realpath((cwd or Path("/")) / located["file"]))
    folders = [Path(os.path.realpath(f)) for f in inside]
    if any(where == f or f in where.parents for f in folders):
        return line
    return (
        f"{located['file']}:{located['line']}: error in a file outside the tree "
        "(its text is not shown here; the log has it)"
    )


def _run(command: list[str], cwd: Path, log_file: Path, entry: Path) -> str:
    """The tree's command run in the tree `cwd`, contained where hotpath
    runs as root (contain.py: it may write the cache folder `entry` only):
    its output; HotpathError with its first error line, and the whole
    output kept in log_file, when it fails."""
    argv = command
    if contain.active():
        argv = contain.wrap(command, cwd=cwd, writable=[entry], readable=[cwd])
    try:
        done = subprocess.run(
            argv, cwd=cwd, env=_env(), capture_output=True, text=True, check=False
        )
    except OSError as err:
        raise HotpathError(f"cannot run {command[0]}: {err}") from err
    if done.returncode == 0:
        return done.stdout
    output = done.stdout + done.stderr
    log_file.parent.mkdir(parents=True, exist_ok=True)
    log_file.write_text(f"$ cd {cwd} && {' '.join(command)}\n{output}")
    raise HotpathError(
        f"{' '.join(command)} failed in {cwd} (exit status {done.returncode}): "
        f"{first_error(output, cwd, [cwd, entry])}\nits output: {log_file}"
    )


# Kconfig records the Rust toolchain it finds (CONFIG_RUSTC_VERSION, ...);
# a rustc that works for one HOME and not another (rustup's) would change
# .config between two makes of one tree, rebuild its objects and leave the
# entry's config digest wrong. hotpath builds C objects only: every make
# is told there is no rustc, so a tree's .config is the same on every
# machine and for every user.
NO_RUST = ("RUSTC=false",)


def make(tree: Path, args: list[str], log_file: Path, entry: Path) -> str:
    """`make -C tree ARGS` writing into the cache folder `entry` (_run()),
    its output; HotpathError with the first error line."""
    if shutil.which("make") is None:
        raise HotpathError("make not found: a kernel tree is built by its Kbuild")
    return _run(["make", "-C", str(tree), *NO_RUST, *args], tree, log_file, entry)


# What a kernel version may hold (a Makefile's fields, make kernelrelease):
# it names variants, history rows and report lines, so a tree's escape
# sequences or markup never reach a terminal or a page.
VERSION_TEXT = re.compile(r"[A-Za-z0-9._+~-]*")


def kernelrelease(tree: Path, args: list[str], log_file: Path, entry: Path) -> str:
    """`make -s kernelrelease` (make()), checked to be a version's text."""
    release = make(tree, ["-s", *args, "kernelrelease"], log_file, entry).strip()
    if not release or not VERSION_TEXT.fullmatch(release):
        raise HotpathError(
            f"make kernelrelease in {tree} said {release!a}; allowed: letters, digits "
            "and ._+~- (LOCALVERSION in its config, localversion* files)"
        )
    return release


def _check_target(target: str) -> None:
    if (
        not re.fullmatch(r"[A-Za-z0-9_./+-]+\.o", target)
        or target.startswith("/")
        or ".." in target.split("/")
    ):
        raise UsageError(
            f"object '{target}': allowed: a path of the tree's ending in .o "
            "(arch/x86/lib/csum-partial_64.o)"
        )


def _stamp(path: Path) -> list[int]:
    info = path.stat()
    return [info.st_size, info.st_mtime_ns]


def _stamped(tree: PreparedTree) -> dict[str, list[int]]:
    try:
        known = json.loads((tree.entry / "objects.json").read_text())
    except (OSError, ValueError):
        return {}
    return known if isinstance(known, dict) else {}


def _up_to_date(tree: PreparedTree, targets: Iterable[str]) -> bool:
    if not tree.fixed:
        return False
    known = _stamped(tree)
    try:
        return all(known.get(t) == _stamp(tree.objtree / t) for t in targets)
    except OSError:
        return False


def _kbuild_args(tree: PreparedTree) -> list[str]:
    return [f"O={tree.out}"] if tree.out else []


def build_objects(tree: PreparedTree, targets: list[str]) -> list[Path]:
    """Single objects of the tree built by its Kbuild (`make -C root -s
    arch/x86/lib/csum-partial_64.o`), their absolute paths.

    Kbuild builds a single object again on every call (a second or more),
    so in a tree whose sources never change an object once built is
    stamped in objects.json and not built again.
    """
    for target in targets:
        _check_target(target)
    paths = [tree.objtree / t for t in targets]
    if not targets or _up_to_date(tree, targets):
        return paths
    with locked(tree.entry / "build.lock"):
        if _up_to_date(tree, targets):
            return paths
        # Never -j: an object below a folder that has its own Kbuild
        # (arch/x86/lib/ below arch/x86/) is built twice, by each folder's
        # Makefile.build, the right one (its own folder's flags) last; two
        # jobs would race to write it.
        make(tree.root, ["-s", *_kbuild_args(tree), *targets], tree.log_file, tree.entry)
        missing = [str(p) for p in paths if not p.is_file()]
        if missing:
            raise HotpathError(f"make {' '.join(targets)} in {tree.root} left no {missing[0]}")
        if tree.fixed:
            _write_json(
                tree.entry / "objects.json",
                {**_stamped(tree), **{t: _stamp(tree.objtree / t) for t in targets}},
            )
    return paths


def build_glue(
    tree: PreparedTree,
    source: Path,
    name: str,
    *,
    ccflags: Sequence[str] = (),
    needs: Sequence[str] = (),
) -> Path:
    """One glue file built as an external module's object, with the tree's
    full module flags (`make -C root M=<dir> <name>.o`): its path.

    The glue may #include a file of the tree by its absolute path to wrap
    its static functions; `ccflags` go to ccflags-y (-I for that file's
    own includes) and `needs` are objects of the tree built first (they
    make the headers a folder generates: security/selinux/avc.o makes
    flask.h). Kept per digest of all that, in <entry>/hotpath-glue/; a
    failed build leaves nothing there.
    """
    if not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", name):
        raise UsageError(f"glue name '{name}': allowed: a C identifier (hp_glue_csum)")
    if source.suffix not in (".c", ".S"):
        raise UsageError(f"glue '{source}': allowed: a .c or .S file")
    try:
        text = source.read_bytes()
    except OSError as err:
        raise UsageError(f"glue '{source}': cannot read it: {err}") from err
    if needs:
        build_objects(tree, list(needs))
    kbuild = f"obj-m := {name}.o\n" + (f"ccflags-y := {' '.join(ccflags)}\n" if ccflags else "")
    digest = _digest(
        b"\0".join([text, kbuild.encode(), source.suffix.encode(), *(n.encode() for n in needs)])
    )
    folder = tree.entry / "hotpath-glue" / f"{name}-{digest}"
    built = folder / f"{name}.o"
    if tree.fixed and (folder / "DONE").is_file() and built.is_file():
        return built
    with locked(tree.entry / "build.lock"):
        if tree.fixed and (folder / "DONE").is_file() and built.is_file():
            return built
        fresh = not folder.is_dir()
        folder.mkdir(parents=True, exist_ok=True)
        try:
            (folder / f"{name}{source.suffix}").write_bytes(text)
            (folder / "Kbuild").write_text(kbuild)
            glue = ["-s", *_kbuild_args(tree), f"M={folder}", f"{name}.o"]
            make(tree.root, glue, tree.log_file, tree.entry)
            if not built.is_file():
                raise HotpathError(f"make M={folder} {name}.o left no {built}")
            (folder / "DONE").write_text(json.dumps({"source": str(source)}) + "\n")
        except BaseException:
            if fresh or tree.fixed:
                shutil.rmtree(folder, ignore_errors=True)
            raise
    return built


def _configs_dir() -> Path:
    return kbuild_root() / "configs"


def _keep_config(short: str, version: str, config: bytes) -> None:
    """Debian's config kept beside the trees, for the developer trees."""
    path = _configs_dir() / f"{short}-{version}.config"
    path.parent.mkdir(parents=True, exist_ok=True)
    partial = path.with_name(f"{path.name}.{os.getpid()}")
    partial.write_bytes(config)
    partial.replace(path)


def debian_config(short: str) -> tuple[bytes, str]:
    """Debian's config.amd64_none_amd64 of linux-config-<short> (1.6 MB
    downloaded once, when no prepared tree left it), and its version."""
    version = candidate_version(f"linux-config-{short}")
    kept = sorted(_configs_dir().glob(f"{short}-*.config"), key=lambda p: p.stat().st_mtime)
    for path in reversed(kept):
        if version is None or path.name == f"{short}-{version}.config":
            return path.read_bytes(), path.name.removeprefix(f"{short}-").removesuffix(".config")
    if version is None:
        raise HotpathError(f"linux-config-{short}: apt knows no such package (apt-get update?)")
    work = _configs_dir() / f".download-{os.getpid()}"
    work.mkdir(parents=True, exist_ok=True)
    try:
        download([f"linux-config-{short}={version}"], work)
        config = _read_member(
            _one(work, f"linux-config-{short}_*.deb"),
            f"./usr/src/linux-config-{short}/{DEBIAN_CONFIG}.xz",
            xz=True,
        )
    finally:
        shutil.rmtree(work, ignore_errors=True)
    _keep_config(short, version, config)
    return config, version


def entries() -> list[Path]:
    """Every folder the kbuild cache holds: prepared, half-done, worktrees."""
    root = kbuild_root()
    if not root.is_dir():
        return []
    found = [
        p for p in root.iterdir() if p.is_dir() and p.name not in ("worktrees", "out", "configs")
    ]
    for sub in ("worktrees", "out"):
        if (root / sub).is_dir():
            found += [p for p in (root / sub).iterdir() if p.is_dir()]
    return sorted(found)


def prepared() -> list[PreparedTree]:
    """Every complete tree of the cache for this toolchain: Debian's, then
    the developer trees' (worktrees, O= folders), each as it was named
    when it was prepared."""
    debian: list[PreparedTree] = []
    developer: list[PreparedTree] = []
    for entry in entries():
        facts = _ready(entry)
        if facts is None or facts.get("toolchain") != toolchain() or "name" not in facts:
            continue
        (debian if facts.get("kind") == "debian" else developer).append(_tree_of(entry, facts))
    return [*sorted(debian, key=lambda t: t.name), *developer]


def _in_progress(entry: Path) -> bool:
    """A .partial-<pid> folder whose process is still running, or an entry
    another process holds: preparing it (its version's, commit's or
    folder's lock) or building in it (its build.lock)."""
    match = re.search(r"\.partial-(\d+)$", entry.name)
    if match is not None:
        try:
            os.kill(int(match.group(1)), 0)
        except ProcessLookupError:
            pass
        except PermissionError:
            return True
        else:
            return True
    prepared_by = re.sub(r"(-[0-9a-f]{12}|\.partial-\d+)$", "", entry.name)
    return _held(entry.with_name(f"{prepared_by}.lock")) or _held(entry / "build.lock")


def _held(lock: Path) -> bool:
    """Whether another process holds this lock (debian.locked) now."""
    try:
        with lock.open("r") as handle:
            try:
                fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                return True
            fcntl.flock(handle, fcntl.LOCK_UN)
    except OSError:
        pass  # no such lock: nobody holds it
    return False


def current() -> set[Path]:
    """The entries `hotpath kernels prune` keeps: each Debian tree's for
    apt's candidate and this toolchain (the newest when apt knows none),
    and a developer tree's while its folder is there."""
    keep = set()
    for short in SHORTS:
        have = cached(short)
        candidate = candidate_version(f"linux-source-{short}")
        keep |= {tree.entry for version, tree in have if version == candidate}
        if candidate is None and have:
            keep.add(have[0][1].entry)
    for entry in entries():
        facts = _ready(entry) or {}
        source = facts.get("repo") or facts.get("source")
        if source and Path(str(source)).is_dir() and facts.get("toolchain") == toolchain():
            keep.add(entry)
    return keep


def prune(keep: set[Path]) -> list[Path]:
    """Remove the cache's entries not in `keep` (and their logs); a removed
    git worktree is also pruned from its repository. The removed, sorted."""
    removed, repos = [], set()
    for entry in entries():
        if entry in keep or _in_progress(entry):
            continue
        facts = _ready(entry) or {}
        repo = facts.get("repo")
        if repo:
            repos.add(Path(str(repo)))
        shutil.rmtree(entry, ignore_errors=True)
        entry.with_name(f"{entry.name}.log").unlink(missing_ok=True)
        removed.append(entry)
    for repo in sorted(repos):
        if repo.is_dir():
            git(repo, "worktree", "prune")
    return removed
