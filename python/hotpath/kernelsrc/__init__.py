# SPDX-License-Identifier: GPL-2.0-only
"""The kernel's own code, timed: real kernel trees' code as the kernel runs it.

Every lab can time hotpath's re-implementations of the kernel's code
(kernel-2024, kernel-x86, ...); where a real tree has the code, this
package gives the runner that tree's own code as variants named after
their kernel: `linux-6.1`, `linux-6.12` (Debian's linux-source packages
with Debian's config), `linux-v6.8` (a git revision of the developer's
tree), `linux-HEAD+dirty` (its working files). A path of the kernel's
that its dispatch chooses among is a variant of its own beside the
dispatch: `linux-6.12:pcl`.

Debian's trees are prepared by their own Kbuild (kbuild.py) and their
objects loaded into the runner as the kernel loads a module and patched
as the kernel patches itself on this CPU (kbuilt.py, kload.py, c/kload),
with `--mitigations off` (the default) or `host`; a `host` variant is
named with `+host`. A developer's tree is still built with hotpath's
kernel shim (c/kshim: the headers, macros and runtime the files need in
user space; build.py), until trees of every layout are prepared by Kbuild.

They pass the correctness gate like every variant; they are flagged
"kernel" (HP_V_KERNEL) so the reports know real code from a
re-implementation. docs/kernel-source.md has the whole story.

- trees: where source comes from (Debian, a folder, git revisions)
- kbuild: whole trees prepared by their own build, objects from Kbuild
- kbuilt, kload: the Kbuild components, the loader's spec, mitigations
- debian: the linux-source files the shim builds, in the cache
- layouts: which files, which symbols, which variants
- build: the shim's staging, compiler and cache of built objects
"""

import sys
from collections.abc import Callable, Iterable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

from hotpath.errors import HotpathError, UsageError
from hotpath.kernelsrc import kbuild, kload
from hotpath.kernelsrc.build import Built, build, fitting
from hotpath.kernelsrc.kbuilt import (
    KbuildComponent,
    fitting_kbuild,
    kbuild_components,
    load_component,
)
from hotpath.kernelsrc.layouts import Component, Entry, components_for
from hotpath.kernelsrc.trees import KernelTree, parse_kernel_tree, version_key

__all__ = [
    "KernelSet",
    "KernelTree",
    "KernelVariant",
    "lab_kernels",
    "timed_files",
    "version_key",
]

Log = Callable[[str], None]


def _stderr(message: str) -> None:
    print(f"hotpath: {message}", file=sys.stderr, flush=True)


@dataclass(frozen=True)
class KernelVariant:
    """One layout entry of one built tree, as the runner is given it."""

    name: str
    entry: Entry
    shared: Path
    origin: str

    def runner_args(self) -> list[str]:
        e = self.entry
        args = ["--with", f"{self.shared}:{e.symbol}", "--with-as", self.name, "--with-kernel"]
        args += ["--with-origin", self.origin, "--with-desc", e.desc]
        if e.needs:
            args += ["--with-needs", ",".join(e.needs)]
        if e.promise:
            args += ["--with-promise", str(e.promise)]
        if e.min_len:
            args += ["--with-min-len", str(e.min_len)]
        return args


@dataclass
class KernelSet:
    """The real kernels' variants for one lab run, and what is missing."""

    variants: list[KernelVariant] = field(default_factory=list)
    missing: list[str] = field(default_factory=list)

    def names(self) -> list[str]:
        return [v.name for v in self.variants]

    def runner_args(self, primitive: str, wanted: Iterable[str] | None = None) -> list[str]:
        keep = set(wanted) if wanted is not None else None
        args: list[str] = []
        for variant in self.variants:
            if variant.entry.primitive == primitive and (keep is None or variant.name in keep):
                args += variant.runner_args()
        return args


def timed_files(lab: str) -> tuple[str, ...]:
    layouts = [*components_for(lab), *(k.layout for k in kbuild_components(lab))]
    return tuple(dict.fromkeys(f for c in layouts for f in c.files()))


def _variants(built: Built) -> list[KernelVariant]:
    tree = built.tree
    patched = f"; shim patch: {'; '.join(built.patched)}" if built.patched else ""
    return [
        KernelVariant(
            name=tree.name + entry.suffix,
            entry=entry,
            shared=built.shared,
            origin=f"{entry.where}, Linux {tree.version}: {tree.where}; kernel shim "
            f"v{built.shim}{patched}",
        )
        for entry in built.component.entries
    ]


def _kbuild_variants(
    tree: kbuild.PreparedTree,
    component: KbuildComponent,
    mits: kload.Mitigations,
    repo: Path,
    runner_build: Path,
) -> list[KernelVariant]:
    loaded = load_component(tree, component, mits, repo, runner_build)
    suffix = "" if mits.mode == "off" else f"+{mits.mode}"
    return [
        KernelVariant(
            name=tree.name + entry.suffix + suffix,
            entry=entry,
            shared=loaded.spec,
            origin=f"{entry.where}, Linux {tree.version}: {tree.where}; {loaded.said()}",
        )
        for entry in component.layout.entries
    ]


def _debian_kernels(
    lab: str, modes: list[str], repo: Path, runner_build: Path, log: Log, found: "KernelSet"
) -> list[str]:
    """Debian's trees' variants, from their Kbuild objects, into `found`;
    their names. A tree that cannot be prepared or loaded is said and left out."""
    names, absent = [], []
    for short in kbuild.SHORTS:
        try:
            tree = kbuild.prepare_debian(short, allow_fetch=True, log=log)
            components = fitting_kbuild(tree, lab)
        except (HotpathError, UsageError, OSError) as err:
            absent.append(f"linux-{short}: {str(err).splitlines()[0]}")
            continue
        names.append(tree.name)
        for component in components:
            for mode in modes:
                try:
                    found.variants += _kbuild_variants(
                        tree, component, kload.mitigations(mode), repo, runner_build
                    )
                except (HotpathError, UsageError, OSError) as err:
                    what = f"{tree.name} ({component.layout.name}, mitigations {mode})"
                    found.missing.append(f"{what}: {str(err).splitlines()[0]}")
                    log(f"{what} left out: {str(err).splitlines()[0]}")
    if absent:
        found.missing += absent
        log("the real kernels were not available, timed without them: " + "; ".join(absent))
    return names


def _build_all(
    pairs: list[tuple[KernelTree, Component]], repo: Path, runner_build: Path
) -> list[Built | BaseException]:
    def one(pair: tuple[KernelTree, Component]) -> Built | BaseException:
        try:
            return build(pair[0], pair[1], repo, runner_build)
        except (UsageError, HotpathError, OSError) as err:
            return err

    with ThreadPoolExecutor(max_workers=2) as pool:
        return list(pool.map(one, pairs))


def lab_kernels(
    lab: str,
    tree_specs: list[str],
    debian: bool,
    repo: Path,
    runner_build: Path,
    log: Log = _stderr,
    mitigations: str = "off",
) -> KernelSet:
    """The real kernels' variants of `lab`: Debian's (when `debian`: Kbuild
    objects, once per --mitigations mode, "off,host" for both), then each
    --kernel-tree (the shim). A tree the user named that the shim cannot
    place or build is refused (UsageError, exit 2); a Debian kernel that is
    not at hand is said in one line and left out."""
    modes = list(dict.fromkeys(m.strip() for m in mitigations.split(",")))
    for mode in modes:
        kload.mitigations(mode)  # UsageError naming a mode not allowed
    found = KernelSet()
    if not timed_files(lab):
        return found
    if not (runner_build / "libhotpath.so").is_file():
        # A stand-in runner (the Python tests'): nothing to link against.
        found.missing.append(f"the runner's build {runner_build} has no libhotpath.so")
        if tree_specs:
            raise UsageError(f"--kernel-tree: {found.missing[0]} to build the tree's code with")
        return found
    mine: list[KernelTree] = []
    for spec in tree_specs:
        mine += parse_kernel_tree(spec, timed_files(lab))
    ours = _debian_kernels(lab, modes, repo, runner_build, log, found) if debian else []
    names = [*ours, *(t.name for t in mine)]
    for name in names:
        if names.count(name) > 1:
            raise UsageError(
                f"--kernel-tree: two kernels named '{name}'; allowed: trees and revisions "
                "of different names (--no-debian-kernels leaves Debian's out)"
            )
    pairs = [(tree, c) for tree in mine for c in fitting(tree, lab)]  # the shim's, for now
    for done in _build_all(pairs, repo, runner_build):
        if not isinstance(done, Built):
            raise done
        found.variants += _variants(done)
    return found
