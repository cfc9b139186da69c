# SPDX-License-Identifier: GPL-2.0-only
"""The kernel's own code, timed: files of real kernel trees built in user space.

Every lab can time hotpath's re-implementations of the kernel's code
(kernel-2024, kernel-x86, ...); where a real tree has the code, this
package builds that tree's own files instead, with hotpath's kernel shim
(c/kshim: the headers, macros and runtime those files need in user space)
and gives them to the runner as variants named after their kernel:
`linux-6.1`, `linux-6.12` (Debian's linux-source packages), `linux-v6.8`
(a git revision of the developer's tree), `linux-HEAD+dirty` (its working
files). A path of the kernel's that its dispatch chooses among is a
variant of its own beside the dispatch: `linux-6.12:pcl`.

They pass the correctness gate like every variant; they are flagged
"kernel" (HP_V_KERNEL) so the reports know real code from a
re-implementation. docs/kernel-source.md has the whole story.

- trees: where source comes from (Debian, a folder, git revisions)
- debian: the linux-source packages in the cache
- layouts: which files, which symbols, which variants
- build: staging, the shim, the compiler, the cache of built objects
"""

import sys
from collections.abc import Callable, Iterable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

from hotpath.errors import HotpathError, UsageError
from hotpath.kernelsrc.build import Built, build, fitting
from hotpath.kernelsrc.debian import debian_trees
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
    return tuple(f for c in components_for(lab) for f in c.files())


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
) -> KernelSet:
    """The real kernels' variants of `lab`: Debian's (when `debian`), then
    each --kernel-tree. A tree the user named that the shim cannot place or
    build is refused (UsageError, exit 2); a Debian kernel that is not at
    hand is said in one line and left out."""
    components = components_for(lab)
    found = KernelSet()
    if not components:
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
    ours: list[KernelTree] = []
    if debian:
        ours, found.missing = debian_trees()
        if found.missing:
            log(
                "the real kernels were not available, timed without them: "
                + "; ".join(found.missing)
            )
    names = [t.name for t in (*ours, *mine)]
    for name in names:
        if names.count(name) > 1:
            raise UsageError(
                f"--kernel-tree: two kernels named '{name}'; allowed: trees and revisions "
                "of different names (--no-debian-kernels leaves Debian's out)"
            )
    pairs = []
    for tree in (*ours, *mine):
        try:
            pairs += [(tree, c) for c in fitting(tree, lab)]
        except UsageError as err:
            if tree in mine:
                raise
            found.missing.append(f"{tree.name}: {err}")
            log(f"{tree.name} left out: {err}")
    for (tree, component), done in zip(pairs, _build_all(pairs, repo, runner_build), strict=True):
        if isinstance(done, Built):
            found.variants += _variants(done)
        elif tree in mine:
            raise done
        else:
            first = str(done).splitlines()[0]
            found.missing.append(f"{tree.name}: {first}")
            log(f"{tree.name} ({component.name}) left out: {str(done).rstrip()}")
    return found
