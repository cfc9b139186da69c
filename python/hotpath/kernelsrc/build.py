# SPDX-License-Identifier: GPL-2.0-only
"""Building a kernel tree's components into a shared object the runner loads.

For each component the tree's files are staged in a folder of their own
(headers under include/, in front of the shim's; sources under src/),
the shim's patches applied (layouts.Patch), then compiled with gcc and
the kernel's code-generation flags that apply in user space (KERNEL_CFLAGS)
behind -nostdinc, so that a header the shim lacks fails the build naming
it instead of a host header standing in. The shim's runtime (the
exception-table fixups, kernel_fpu_begin/end) is linked in, and the
object linked against the runner's libhotpath.so (the CPU detector and
the fault trap it registers with).

Built objects are kept in <cache>/kernel-build/<digest>/, the digest over
every input (the tree's files, the shim, the flags, the compiler, the
runner's build folder), so that a tree is compiled once until it changes.
"""

import hashlib
import os
import re
import shlex
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path

from hotpath.debian import cache_root, locked
from hotpath.errors import RunnerError, UsageError
from hotpath.kernelsrc.layouts import Component, components_for
from hotpath.kernelsrc.trees import KernelTree

# The kernel's x86-64 flags (arch/x86/Makefile, the top Makefile) that
# shape the code of these files in user space: no red zone, general
# registers only, no SSE/AVX of the compiler's own, loops and jumps
# unaligned, no unwind tables. Not taken: -mcmodel=kernel and the
# absence of -fPIC (a shared object needs position-independent code;
# these files touch no global data on their hot paths), retpolines and
# return thunks (asm/nospec-branch.h says why). Functions are 64-byte
# aligned as every variant of hotpath's library is (linux/linkage.h).
KERNEL_CFLAGS = (
    "-std=gnu11",
    "-O2",
    "-fPIC",
    "-fno-semantic-interposition",
    "-falign-functions=64",
    "-fno-strict-aliasing",
    "-fno-common",
    "-fno-delete-null-pointer-checks",
    "-fno-asynchronous-unwind-tables",
    "-mno-red-zone",
    "-mgeneral-regs-only",
    "-mskip-rax-setup",
    "-falign-jumps=1",
    "-falign-loops=1",
    "-Wa,--noexecstack",
    "-Wno-unused-function",
    "-nostdinc",
)
RUNTIME_CFLAGS = ("-std=gnu11", "-O2", "-fPIC", "-fvisibility=hidden", "-Wall")
LINK_FLAGS = ("-shared", "-Wl,-Bsymbolic", "-Wl,--no-undefined", "-Wl,-z,notext")


@dataclass(frozen=True)
class Built:
    tree: KernelTree
    component: Component
    shared: Path  # the .so the runner loads
    patched: tuple[str, ...]  # the patches' reasons, for the origin line
    shim: str  # the shim's revision (HP_KSHIM_VERSION in kshim.h)


def shim_version(kshim: Path) -> str:
    match = re.search(
        rb"#define HP_KSHIM_VERSION (\d+)", (kshim / "include" / "kshim.h").read_bytes()
    )
    return match.group(1).decode() if match else "?"


def _compiler() -> list[str]:
    return shlex.split(os.environ.get("CC") or "cc")


def _run(command: list[str], what: str) -> None:
    try:
        done = subprocess.run(command, capture_output=True, text=True, check=False)
    except OSError as err:
        raise RunnerError(f"cannot start the compiler '{command[0]}': {err}") from err
    if done.returncode != 0:
        raise UsageError(f"{what} does not build ({shlex.join(command)}):\n{done.stderr.rstrip()}")


def _system_include(compiler: list[str]) -> str:
    done = subprocess.run(
        [*compiler, "-print-file-name=include"], capture_output=True, text=True, check=False
    )
    return done.stdout.strip()


def _layout_problem(tree: KernelTree, component: Component) -> str | None:
    """What keeps the tree from the component's layout, None when nothing does."""
    for path in component.files():
        if tree.read(path) is None:
            return f"no {path} (the {component.name} layout of {component.kernels})"
    for path, symbol in component.symbols:
        if symbol.encode() not in (tree.read(path) or b""):
            return f"{path} has no {symbol.rstrip('(')} (the {component.name} layout)"
    return None


def fitting(tree: KernelTree, lab: str) -> list[Component]:
    """The lab's components whose layout the tree has; UsageError naming,
    for each, what it lacks when it has none (and a newer layout it has)."""
    found, problems = [], []
    for component in components_for(lab):
        problem = _layout_problem(tree, component)
        if problem is None:
            found.append(component)
        else:
            problems.append(problem)
    if found:
        return found
    newer = dict.fromkeys(
        f"{what} ({file})"
        for component in components_for(lab)
        for file, what in component.newer
        if tree.read(file) is not None
    )
    hint = f"; the tree has {', '.join(newer)}, not known to the shim yet" if newer else ""
    raise UsageError(
        f"{tree.name} ({tree.where}): no {lab} layout the shim knows: {'; '.join(problems)}{hint}"
    )


def check_layout(tree: KernelTree, component: Component) -> dict[str, bytes]:
    """The component's files of the tree, or UsageError naming what is missing."""
    problem = _layout_problem(tree, component)
    if problem is not None:
        raise UsageError(f"{tree.name} ({tree.where}): {problem}")
    return {path: tree.read(path) or b"" for path in component.files()}


def _patch(component: Component, files: dict[str, bytes]) -> tuple[str, ...]:
    said = []
    for patch in component.patches:
        text = files[patch.path]
        if patch.old.encode() in text:
            files[patch.path] = text.replace(patch.old.encode(), patch.new.encode(), 1)
            said.append(f"{patch.path}: {patch.why}")
    return tuple(said)


def _digest(parts: list[bytes]) -> str:
    h = hashlib.sha256()
    for part in parts:
        h.update(len(part).to_bytes(8, "little"))
        h.update(part)
    return h.hexdigest()[:24]


def _shim_files(kshim: Path) -> list[Path]:
    return sorted(p for p in kshim.rglob("*") if p.is_file())


def build(tree: KernelTree, component: Component, repo: Path, runner_build: Path) -> Built:
    """The component of `tree` as a shared object (cached by content)."""
    files = check_layout(tree, component)
    patched = _patch(component, files)
    kshim = repo / "c" / "kshim"
    compiler = _compiler()
    shim = [*_shim_files(kshim), repo / "c" / "include" / "hotpath" / "cpu_features.h"]
    inputs = [component.name.encode(), " ".join(compiler).encode(), str(runner_build).encode()]
    inputs += [" ".join(KERNEL_CFLAGS + RUNTIME_CFLAGS + LINK_FLAGS).encode()]
    inputs += [f"{p}".encode() + b"\0" + p.read_bytes() for p in shim]
    inputs += [path.encode() + b"\0" + data for path, data in sorted(files.items())]
    entry = cache_root() / "kernel-build" / _digest(inputs)
    shared = entry / f"{component.name}.so"
    built = Built(tree, component, shared, patched, shim_version(kshim))
    if shared.is_file():
        return built
    with locked(entry.with_name(f"{entry.name}.lock")):
        if not shared.is_file():
            _compile(tree, component, files, kshim, repo, runner_build, compiler, entry)
    return built


def _compile(
    tree: KernelTree,
    component: Component,
    files: dict[str, bytes],
    kshim: Path,
    repo: Path,
    runner_build: Path,
    compiler: list[str],
    entry: Path,
) -> None:
    work = entry.with_name(f"{entry.name}.partial-{os.getpid()}")
    shutil.rmtree(work, ignore_errors=True)
    try:
        (work / "include" / "asm").mkdir(parents=True)
        (work / "src").mkdir()
        for path, data in files.items():
            if path in component.headers:
                (work / "include" / "asm" / Path(path).name).write_bytes(data)
            else:
                (work / "src" / Path(path).name).write_bytes(data)
        flags = [
            *KERNEL_CFLAGS,
            "-isystem",
            _system_include(compiler),
            "-I",
            str(work / "include"),
            "-I",
            str(kshim / "include"),
            "-I",
            str(repo / "c" / "include"),
            "-include",
            str(kshim / "include" / "kshim.h"),
        ]
        objects = []
        for path in component.sources:
            source = work / "src" / Path(path).name
            obj = source.with_suffix(".o")
            extra = ["-D__ASSEMBLY__"] if source.suffix == ".S" else []
            _run(
                [*compiler, *flags, *extra, "-c", str(source), "-o", str(obj)],
                f"{tree.name}: {path}",
            )
            objects.append(obj)
        glue = kshim / "glue" / component.glue
        obj = work / f"glue-{glue.stem}.o"
        _run(
            [*compiler, *flags, "-I", str(work / "src"), "-c", str(glue), "-o", str(obj)],
            f"{tree.name}: the shim's glue {glue.name}",
        )
        objects.append(obj)
        for runtime in sorted((kshim / "runtime").glob("*.c")):
            obj = work / f"runtime-{runtime.stem}.o"
            _run(
                [
                    *compiler,
                    *RUNTIME_CFLAGS,
                    "-I",
                    str(repo / "c" / "include"),
                    "-c",
                    str(runtime),
                    "-o",
                    str(obj),
                ],
                f"the shim's runtime {runtime.name}",
            )
            objects.append(obj)
        shared = work / f"{component.name}.so"
        _run(
            [
                *compiler,
                *LINK_FLAGS,
                "-o",
                str(shared),
                *map(str, objects),
                f"-L{runner_build}",
                "-lhotpath",
                f"-Wl,-rpath,{runner_build}",
            ],
            f"{tree.name}: linking {component.name}",
        )
        shutil.rmtree(entry, ignore_errors=True)
        work.rename(entry)
    except BaseException:
        shutil.rmtree(work, ignore_errors=True)
        raise
