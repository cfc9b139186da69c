# SPDX-License-Identifier: GPL-2.0-only
"""`hotpath kernels [fetch|prepare|prune]`: the real kernel sources the labs time.

`hotpath kernels` lists Debian's linux-source packages in the cache (the
version, the files kept, the variants each lab gets from them) and any
--kernel-tree given, each checked against the layouts the shim knows;
`hotpath kernels fetch` downloads the packages apt offers now (the
set-up runs it). `hotpath kernels prepare` makes Debian's whole trees
ready for their own Kbuild (hotpath.kernelsrc.kbuild: under a minute
each the first time, 1.7 GB each); `hotpath kernels prune` removes the
prepared trees that are not current. Exit status: 0; 1 when a package
could not be fetched or a tree prepared; 2 for a tree the shim cannot place.
"""

import argparse
import shutil
import time

from hotpath.debian import candidate_version
from hotpath.errors import HotpathError, UsageError
from hotpath.kernelsrc import debian, kbuild
from hotpath.kernelsrc.build import fitting
from hotpath.kernelsrc.layouts import COMPONENTS, LINUX_SOURCE_PACKAGES
from hotpath.kernelsrc.trees import KernelTree, parse_kernel_tree


def add_parser(subparsers: "argparse._SubParsersAction[argparse.ArgumentParser]") -> None:
    parser = subparsers.add_parser(
        "kernels",
        help="the real kernel sources the labs time (Debian's linux-source, your trees)",
        description="List the kernel sources whose own code the csum and crc32c labs build "
        "and time (linux-6.1, linux-6.12, --kernel-tree), or fetch Debian's into the cache; "
        "prepare Debian's whole trees for their own Kbuild, or prune those not current.",
    )
    parser.add_argument(
        "action", nargs="?", choices=("list", "fetch", "prepare", "prune"), default="list"
    )
    parser.add_argument(
        "--kernel-tree",
        action="append",
        default=[],
        metavar="DIR[@REV,...]",
        help="also check this tree (or its revisions) against the layouts the shim knows",
    )
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    if args.action == "fetch":
        return fetch()
    if args.action == "prepare":
        return prepare()
    if args.action == "prune":
        return prune()
    trees: list[KernelTree] = []
    for spec in args.kernel_tree:
        trees += parse_kernel_tree(spec, ())
    for package in LINUX_SOURCE_PACKAGES:
        entries = debian.cached(package)
        if not entries:
            print(f"{package}: not in {debian.package_dir(package)}: hotpath kernels fetch")
        for entry in entries:
            print(f"{package} {entry.version}: {entry.tree_dir}")
            trees.append(entry.tree())
    for tree in trees:
        print(f"\n{tree.name}: Linux {tree.version}, {tree.where}")
        for lab in dict.fromkeys(c.lab for c in COMPONENTS):
            try:
                components = fitting(tree, lab)
            except UsageError as err:
                print(f"  {lab}: not built: {err}")
                continue
            names = ", ".join(
                f"{tree.name}{e.suffix} ({e.primitive})" for c in components for e in c.entries
            )
            print(f"  {lab} ({', '.join(c.name for c in components)}): {names}")
    return 0


def fetch() -> int:
    status = 0
    for package in LINUX_SOURCE_PACKAGES:
        entry, how = debian.locate(package, allow_fetch=True)
        if entry is None or entry.version != candidate_version(package):
            print(f"{package}: {how}")
            status = 1
        else:
            print(
                f"{package} {entry.version}: {how}, {len(entry.files())} files in {entry.tree_dir}"
            )
    return status


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
