# SPDX-License-Identifier: GPL-2.0-only
"""The real kernels' variants a lab times (lab_kernels): Debian's trees and
the developer's, each built, loaded and checked (the package's docstring
says how)."""

import sys
from collections.abc import Callable, Collection, Iterable
from dataclasses import dataclass, field
from pathlib import Path

from hotpath.errors import HotpathError, UsageError
from hotpath.kernelsrc import devtrees, kbuild, kload
from hotpath.kernelsrc.kbuilt import (
    KbuildComponent,
    fitting,
    fitting_kbuild,
    load_component,
)
from hotpath.kernelsrc.layouts import Entry, timed_files
from hotpath.kernelsrc.trees import UserTree, parse_kernel_tree

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
    lab: str,
    primitives: Collection[str] | None,
    modes: list[str],
    repo: Path,
    runner_build: Path,
    log: Log,
    found: "KernelSet",
) -> list[str]:
    """Debian's trees' variants, from their Kbuild objects, into `found`;
    their names. A tree that cannot be prepared or loaded is said and left out."""
    names, absent = [], []
    for short in kbuild.SHORTS:
        try:
            tree = kbuild.prepare_debian(short, allow_fetch=True, log=log)
            components = fitting_kbuild(tree, lab, primitives)
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


def _user_variants(
    mine: UserTree,
    components: list[KbuildComponent],
    lab: str,
    modes: list[str],
    config: str,
    repo: Path,
    runner_build: Path,
    log: Log,
) -> list[KernelVariant]:
    """A tree the user named prepared, built and loaded, each component in
    each mode; UsageError (exit 2) naming the tree and why it cannot be."""
    said = f"--kernel-tree '{mine.spec}': {mine.name}"
    try:
        tree = mine.prepare(config, log)
    except UsageError:
        raise
    except (HotpathError, OSError) as err:
        raise UsageError(f"{said} cannot be prepared by its Kbuild: {err}") from err
    variants = []
    for component in components:
        for mode in modes:
            try:
                variants += _kbuild_variants(
                    tree, component, kload.mitigations(mode), repo, runner_build
                )
            except (HotpathError, OSError) as err:
                what = f"{said} ({component.layout.name} for the {lab} lab, mitigations {mode})"
                raise UsageError(f"{what} cannot be built or loaded: {err}") from err
    return variants


def _same_names(names: list[str]) -> None:
    for name in names:
        if names.count(name) > 1:
            raise UsageError(
                f"--kernel-tree: two kernels named '{name}'; allowed: trees and revisions "
                "of different names (--no-debian-kernels leaves Debian's out)"
            )


def lab_kernels(
    lab: str,
    tree_specs: list[str],
    debian: bool,
    repo: Path,
    runner_build: Path,
    log: Log = _stderr,
    mitigations: str = "off",
    config: str = "auto",
    primitives: Collection[str] | None = None,
) -> KernelSet:
    """The real kernels' variants of `lab`, each tree's Kbuild objects once
    per --mitigations mode ("off,host" for both): Debian's (when `debian`),
    then each --kernel-tree, prepared with `config` (--kernel-config);
    with `primitives`, only the components that time one of them are built.

    A tree the user named that cannot be placed, prepared, built or loaded
    is refused (UsageError, exit 2, naming it and why: the command and its
    first error line, the loader's refusal), and what it needs is checked
    (the folder, the commit, the layout's files and symbols) before any
    tree is built; a Debian kernel that is not at hand is said in one line
    and left out."""
    modes = list(dict.fromkeys(m.strip() for m in mitigations.split(",")))
    for mode in modes:
        kload.mitigations(mode)  # UsageError naming a mode not allowed
    devtrees.check_config(config)
    found = KernelSet()
    files = timed_files(lab, primitives)
    if not files:
        return found
    if not (runner_build / "libhotpath.so").is_file():
        # A stand-in runner (the Python tests'): nothing to load into.
        found.missing.append(f"the runner's build {runner_build} has no libhotpath.so")
        if tree_specs:
            raise UsageError(f"--kernel-tree: {found.missing[0]} to load the tree's code into")
        return found
    mine = [tree for spec in tree_specs for tree in parse_kernel_tree(spec, files)]
    components = [
        fitting(
            tree.read,
            lab,
            f"--kernel-tree '{tree.spec}': {tree.name} (Linux {tree.version})",
            primitives,
        )
        for tree in mine
    ]
    _same_names([tree.name for tree in mine])
    ours = _debian_kernels(lab, primitives, modes, repo, runner_build, log, found) if debian else []
    _same_names([*ours, *(tree.name for tree in mine)])
    for tree, fit in zip(mine, components, strict=True):
        found.variants += _user_variants(tree, fit, lab, modes, config, repo, runner_build, log)
    return found
