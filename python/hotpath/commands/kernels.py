# SPDX-License-Identifier: GPL-2.0-only
"""`hotpath kernels [prepare|prune|TREE]`: the real kernel trees the labs time.

`hotpath kernels` lists the trees prepared by their own Kbuild in the
cache (Debian's linux-6.1 and linux-6.12, and the developer trees that
--kernel-tree prepared: git worktrees, O= folders), and the variants
each lab gets from each; with --kernel-tree, also those trees' files
checked against the labs' layouts (nothing is built). `hotpath kernels
prepare` makes Debian's whole trees ready for their own Kbuild
(hotpath.kernelsrc.kbuild: about 35 s each the first time, 1.5 to 1.7
GB each; the set-up runs it); `hotpath kernels prune` removes the
prepared trees that are not current. `hotpath kernels TREE` (DIR or
DIR@REV) lists the catalogue's functions the tree provides (file,
symbol, kind; hotpath.kernelsrc.catalogue) and those it lacks, with
why. Exit status: 0; 1 when a tree could not be prepared; 2 for a tree
that cannot be placed.
"""

import argparse
import shlex
import shutil
import time
from pathlib import Path

from hotpath.commands.common import add_trust_option
from hotpath.errors import HotpathError, UsageError
from hotpath.kernelsrc import contain, kbuild, kbuilt
from hotpath.kernelsrc.kbuilt import (
    KBUILD_COMPONENTS,
    Reader,
    fitting,
    folder_reader,
)
from hotpath.kernelsrc.trees import parse_kernel_tree


def add_parser(subparsers: "argparse._SubParsersAction[argparse.ArgumentParser]") -> None:
    parser = subparsers.add_parser(
        "kernels",
        description="List the kernel trees prepared by their own Kbuild whose code the csum, "
        "crc32c and avc labs time (linux-6.1, linux-6.12, --kernel-tree) and what each lab "
        "gets from each; prepare Debian's trees (the set-up does), or prune those not current.",
    )
    parser.add_argument(
        "action",
        nargs="?",
        default="list",
        metavar="list|prepare|prune|TREE",
        help="TREE: DIR or DIR@REV, whose catalogue functions are listed (nothing is built)",
    )
    parser.add_argument(
        "--kernel-tree",
        action="append",
        default=[],
        metavar="DIR[@REV,...]",
        help="also check this tree's files (or its revisions') against the labs' layouts; "
        "nothing is built",
    )
    add_trust_option(parser)
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    contain.trust(args.trust_tree)
    if args.action == "prepare":
        return prepare()
    if args.action == "prune":
        return prune()
    if args.action != "list":
        if args.kernel_tree:
            raise UsageError("hotpath kernels TREE: allowed: TREE or --kernel-tree, not both")
        return catalogue(args.action)
    mine = [tree for spec in args.kernel_tree for tree in parse_kernel_tree(spec, ())]
    trees = kbuild.prepared()
    print(f"Kbuild trees prepared in {kbuild.kbuild_root()}:")
    for short in kbuild.SHORTS:
        if not kbuild.cached(short):
            print(f"linux-{short}: not prepared (hotpath kernels prepare)")
    for tree in trees:
        print(f"\n{tree.name}: Linux {tree.version}, {tree.where}\n  {tree.root}")
        _labs(tree.name, folder_reader(tree.root), f"{tree.name} ({tree.where})")
    for user in mine:
        print(f"\n{user.name}: Linux {user.version}, {user.spec} ({user.said}), not built here")
        _labs(user.name, user.read, f"{user.name} ({user.spec})")
    print("\nEach variant is also timed as NAME+host with --mitigations host (or off,host).")
    return 0


def _labs(name: str, read: Reader, what: str) -> None:
    """What each lab gets from a tree: its variants, or what the tree lacks."""
    for lab in dict.fromkeys(c.layout.lab for c in KBUILD_COMPONENTS):
        try:
            components = fitting(read, lab, what)
        except UsageError as err:
            print(f"  {lab}: not built: {str(err).removeprefix(what + ': ')}")
            continue
        names = ", ".join(
            f"{name}{e.suffix} ({e.primitive})" for c in components for e in c.layout.entries
        )
        print(f"  {lab} ({', '.join(c.layout.name for c in components)}): {names}")


def catalogue(spec: str) -> int:
    """The catalogue's functions a tree (or one revision) provides, and those it lacks."""
    if "@" not in spec and not Path(spec).is_dir():
        raise UsageError(
            f"hotpath kernels '{spec}': no such folder; allowed: list, prepare, prune, "
            "or a kernel tree: DIR or DIR@REV"
        )
    trees = parse_kernel_tree(spec, ())
    if len(trees) > 1:
        raise UsageError(f"hotpath kernels '{spec}': allowed: one revision (DIR@REV)")
    (tree,) = trees
    found = kbuilt.catalogue_in(tree.read)
    print(f"{tree.name}: Linux {tree.version}, {tree.spec} ({tree.said}); nothing built")
    rows = [
        (p.function.name, p.function.kind, p.entry.where, _symbol(p.entry.symbol, p.function.name))
        for p in found
        if p.entry is not None
    ]
    widths = [
        max(len(r[i]) for r in [("function", "kind", "file", "symbol"), *rows]) for i in range(4)
    ]
    for row in [("function", "kind", "file", "symbol"), *rows]:
        print("  " + "  ".join(cell.ljust(w) for cell, w in zip(row, widths, strict=True)).rstrip())
    absent = [p for p in found if p.entry is None]
    if absent:
        print(f"\nNot in this tree in a form hotpath builds ({len(absent)}):")
        for p in absent:
            print(f"  {p.function.name} ({p.function.kind}): {p.problem}")
    print(
        f"\n{len(rows)} of {len(found)} catalogue functions; time one with `hotpath fn NAME "
        f"--kernel-tree {shlex.quote(spec)}`, a commit's with `hotpath patch`."
    )
    return 0


def _symbol(symbol: str, name: str) -> str:
    return f"{symbol} (glue: the inline {name}())" if symbol.startswith("hp_glue_") else symbol


def prepare() -> int:
    """Each Debian tree prepared for its Kbuild: the time it took, and where."""
    status = 0
    for short in kbuild.SHORTS:
        start = time.monotonic()
        try:
            tree = kbuild.prepare_debian(short)
        except HotpathError as err:
            print(f"linux-{short}: not prepared: {err}")
            status = 1
            continue
        took = time.monotonic() - start
        first = kbuild.first_seconds(tree)
        how = (
            f"prepared in {took:.0f} s"
            if took > 5 or first is None
            else f"cached ({took:.2f} s; prepared in {first:.0f} s the first time)"
        )
        print(f"{tree.name} (Linux {tree.version}, {tree.where}): {how}, {tree.root}")
    print(f"A tree's code (its build, its objects when timed) runs {contain.said()}.")
    return status


def prune() -> int:
    """The prepared trees that are not current removed, and what that freed."""
    keep = kbuild.current()
    removed = kbuild.prune(keep)
    for entry in removed:
        print(f"removed {entry}")
    for entry in sorted(keep):
        print(f"kept {entry}")
    if removed:
        free = shutil.disk_usage(kbuild.kbuild_root()).free
        print(f"{len(removed)} removed; {free / 2**30:.1f} GiB free there now")
    else:
        print(f"nothing to remove in {kbuild.kbuild_root()}")
    return 0
