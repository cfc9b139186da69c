# SPDX-License-Identifier: GPL-2.0-only
"""The labs' kernel variants from a tree's own Kbuild objects.

A prepared tree (kbuild.py: the tree configured and modules_prepare'd by
its own build) builds the objects a component names with Kbuild itself
(`make arch/x86/lib/csum-partial_64.o`: -mcmodel=kernel, `call
__fentry__`, return thunks, alternatives, exactly as the kernel's), and
hotpath's glue, where the kernel has no function of the primitive's
signature, as an external module's object (`make M=DIR`). The runner
loads them into its own process as the kernel loads a module and patches
them as the kernel patches itself on this CPU (c/kload; the spec that
tells it how: kload.py), with --mitigations off or host.

Before anything is timed the image is loaded once (`hotpath-bench kload`):
a symbol hotpath's kernel runtime lacks, a relocation out of reach, an
init that fails, is said here with the tree's name, and the tree is left
out (Debian's) or refused (the user's, exit 2).
"""

import functools
import json
import os
import signal
import stat
import subprocess
from collections.abc import Callable, Collection
from dataclasses import dataclass
from pathlib import Path

from hotpath.errors import HotpathError, UsageError
from hotpath.kernelsrc import contain, kbuild, kload
from hotpath.kernelsrc.catalogue import FUNCTIONS, Function
from hotpath.kernelsrc.layouts import KBUILD_COMPONENTS, Entry
from hotpath.kernelsrc.shapes import KbuildComponent


@dataclass(frozen=True)
class Loaded:
    """An image the runner loads: its spec, and what the loading did."""

    spec: Path
    patched: dict[str, int]
    mitigations: kload.Mitigations
    stubs: tuple[str, ...] = ()

    def said(self) -> str:
        p = self.patched
        stubs = (
            f", {len(self.stubs)} symbol(s) the timed code never reaches made traps"
            if self.stubs
            else ""
        )
        return (
            f"Kbuild objects loaded by hotpath (c/kload): {p.get('fentry_nops', 0)} __fentry__ "
            f"call(s) made NOPs, {p.get('returns_patched', 0)} return(s) patched, "
            f"{p.get('alternatives_applied', 0)} of {p.get('alternatives', 0)} "
            f"alternative(s) applied{stubs}; {self.mitigations.said}"
        )


def kbuild_components(
    lab: str, primitives: Collection[str] | None = None
) -> tuple[KbuildComponent, ...]:
    """The lab's Kbuild components; with `primitives`, those with an entry of one."""
    return tuple(
        c
        for c in KBUILD_COMPONENTS
        if c.layout.lab == lab
        and (primitives is None or any(e.primitive in primitives for e in c.layout.entries))
    )


def _glue_source(
    glue: str, component: KbuildComponent, tree: kbuild.PreparedTree, repo: Path
) -> Path:
    """The glue as built: the tree files it wraps included by absolute path
    first (their static functions become the glue's), then hotpath's file."""
    own = (repo / glue).read_text()
    head = "".join(f'#include "{tree.root / f}"\n' for f in component.includes)
    if not head:
        return repo / glue
    folder = tree.entry / "hotpath-glue-src"
    folder.mkdir(parents=True, exist_ok=True)
    source = folder / Path(glue).name
    text = head + own
    if not source.is_file() or source.read_text() != text:
        partial = source.with_suffix(".partial")
        partial.write_text(text)
        partial.replace(source)
    return source


class LoadRefusedError(HotpathError):
    """The runner refused an image; `missing` names the undefined symbols."""

    def __init__(self, message: str, missing: list[str]) -> None:
        super().__init__(message)
        self.missing = missing


LOAD_SECONDS = 60  # an init that loops is said, not waited for


def check_load(runner_build: Path, spec: Path, entries: tuple[Entry, ...]) -> dict[str, int]:
    """Load the image once as the runner will; its patch counts, or the reason."""
    bench = runner_build / "hotpath-bench"
    command = [str(bench), "kload", str(spec), *(e.symbol for e in entries)]
    contained = contain.active()
    if contained:
        command = contain.runner_command(command, runner_build)
    try:
        done = subprocess.run(
            command,
            capture_output=True,
            text=True,
            timeout=LOAD_SECONDS,
            check=False,
        )
    except subprocess.TimeoutExpired as err:
        raise LoadRefusedError(
            f"loading the objects did not finish within {LOAD_SECONDS} s (their init?); "
            f"the load spec: {spec}",
            [],
        ) from err
    try:
        facts = json.loads(done.stdout)
    except ValueError:
        returncode = contain.status(done.returncode, contained)
        if returncode < 0:
            signal_name = signal.Signals(-returncode).name
            why = f"loading them killed the loader with {signal_name} (their init, or code it ran)"
        else:
            why = done.stderr.strip() or f"exit status {returncode}"
        facts = {"error": f"{why}; the load spec: {spec}"}
    if "error" in facts:
        said = f"the runner refused the objects: {facts['error']}"
        raise LoadRefusedError(said, facts.get("missing", []))
    missing = [name for name, at in facts["symbols"].items() if not at]
    if missing:
        raise HotpathError(f"the objects have no {', '.join(missing)}")
    return {k: int(v) for k, v in facts.items() if isinstance(v, int)}


def build_component(
    tree: kbuild.PreparedTree, component: KbuildComponent, repo: Path
) -> list[Path]:
    """The component's objects and glue, built in `tree` by its Kbuild: their paths."""
    objects = kbuild.build_objects(tree, list(component.targets)) if component.targets else []
    if component.glue is not None:
        objects.append(
            kbuild.build_glue(
                tree,
                _glue_source(component.glue, component, tree, repo),
                "hp_glue_" + Path(component.glue).stem,
                ccflags=[f"-I{tree.root / d}" for d in component.include_dirs],
                needs=component.needs,
            )
        )
    return objects


def load_component(
    tree: kbuild.PreparedTree,
    component: KbuildComponent,
    mits: kload.Mitigations,
    repo: Path,
    runner_build: Path,
) -> Loaded:
    """Build the component's objects and glue in `tree`, write the spec, check the load."""
    objects = build_component(tree, component, repo)
    runtime = runner_build / "kruntime.o"
    if not runtime.is_file():
        raise HotpathError(f"the runner's build {runner_build} has no kruntime.o (make)")

    def spec_with(stubs: tuple[str, ...]) -> Path:
        return kload.write_spec(
            tree.root, objects, runtime, mits, tree.entry / "kload", component.init, stubs
        )

    entries = component.layout.entries
    try:
        return Loaded(spec_with(()), check_load(runner_build, spec_with(()), entries), mits)
    except LoadRefusedError as refused:
        if not component.stub_unreached or not refused.missing:
            raise
        stubs = tuple(sorted(refused.missing))
    spec = spec_with(stubs)
    return Loaded(spec, check_load(runner_build, spec, entries), mits, stubs)


Reader = Callable[[str], bytes | None]


# The largest tree file hotpath reads itself (the kernel's largest source
# files are a few MB): a sparse file or a link to /dev/zero is refused.
MAX_TREE_FILE = 64 << 20


def folder_reader(root: Path) -> Reader:
    """A tree's files as they are on disk, by their path in the tree, each
    read once (a layout is checked from the same files its version comes
    from). Regular files only, opened without blocking (a FIFO never hangs
    the read) and at most MAX_TREE_FILE bytes: else UsageError naming it."""

    @functools.cache
    def read(path: str) -> bytes | None:
        where = root / path
        try:
            fd = os.open(where, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)
        except (FileNotFoundError, NotADirectoryError, IsADirectoryError):
            return None
        except OSError as err:
            raise UsageError(f"--kernel-tree: cannot read {where}: {err.strerror}") from err
        with os.fdopen(fd, "rb") as handle:
            info = os.fstat(handle.fileno())
            if not stat.S_ISREG(info.st_mode):
                raise UsageError(
                    f"--kernel-tree: {where} is not a regular file; allowed: a tree's files"
                )
            if info.st_size > MAX_TREE_FILE:
                raise UsageError(
                    f"--kernel-tree: {where} has {info.st_size} bytes; allowed: at most "
                    f"{MAX_TREE_FILE} for a file hotpath reads"
                )
            return handle.read(MAX_TREE_FILE + 1)

    return read


def layout_problem(read: Reader, component: KbuildComponent) -> str | None:
    """What keeps a tree (its files, read by `read`) from the component's
    layout, None when nothing does."""
    layout = component.layout
    have = {path: read(path) for path in layout.files}
    for path, data in have.items():
        if data is None:
            return f"no {path} (the {layout.name} layout of {layout.kernels})"
    for path, symbol in layout.symbols:
        if symbol.encode() not in (have.get(path) or read(path) or b""):
            return f"{path} has no {symbol.rstrip('(')} (the {layout.name} layout)"
    return None


def fitting(
    read: Reader, lab: str, what: str, primitives: Collection[str] | None = None
) -> list[KbuildComponent]:
    """The lab's Kbuild components a tree has (its files read by `read`),
    those of `primitives` only when given, checked before anything is
    built; UsageError naming the tree (`what`) and what each component
    lacks when it has none."""
    found, problems = [], []
    for component in kbuild_components(lab, primitives):
        problem = layout_problem(read, component)
        if problem is None:
            found.append(component)
        else:
            problems.append(problem)
    if found or not problems:
        return found
    raise UsageError(f"{what}: no {lab} layout: {'; '.join(problems)}")


def fitting_kbuild(
    tree: kbuild.PreparedTree, lab: str, primitives: Collection[str] | None = None
) -> list[KbuildComponent]:
    """The lab's Kbuild components the prepared tree has; UsageError naming what each lacks."""
    return fitting(folder_reader(tree.root), lab, f"{tree.name} ({tree.where})", primitives)


@dataclass(frozen=True)
class Provided:
    """A catalogue function as a tree has it: its entry, or why it has none."""

    function: Function
    entry: Entry | None
    problem: str | None


def catalogue_in(read: Reader) -> list[Provided]:
    """Every catalogue function, found in the tree (its files read by `read`)
    or not, each component's layout checked once; nothing is built."""
    by_name = {c.layout.name: c for c in KBUILD_COMPONENTS}
    problems: dict[str, str | None] = {}
    found = []
    for function in FUNCTIONS:
        component = by_name[function.component]
        if component.layout.name not in problems:
            problems[component.layout.name] = layout_problem(read, component)
        problem = problems[component.layout.name]
        entry = next(
            e
            for e in component.layout.entries
            if e.primitive == function.primitive and not e.suffix
        )
        found.append(Provided(function, None if problem else entry, problem))
    return found


def object_deps(tree: kbuild.PreparedTree, component: KbuildComponent, repo: Path) -> set[str]:
    """The tree files a component's objects were built from, as Kbuild's
    dependency lists (.NAME.o.cmd's deps_) name them, paths in the tree:
    its objects and glue are built here (not loaded)."""
    built = build_component(tree, component, repo)
    root = f"{tree.root.resolve()}/"
    found: set[str] = set()
    for obj in built:
        cmd = obj.with_name(f".{obj.name}.cmd")
        try:
            text = cmd.read_text(errors="replace")
        except OSError:
            continue
        listed = False
        for line in text.splitlines():
            if line.startswith(("deps_", "source_")):
                listed = line.startswith("deps_")
                source = line.partition(":=")[2].strip()
                if source and not listed:
                    found.add(source.removeprefix(root))
                continue
            if listed and line.startswith("  ") and not line.lstrip().startswith("$("):
                found.add(line.strip().rstrip("\\").strip().removeprefix(root))
            elif listed and not line.startswith(" "):
                listed = False
    return found
