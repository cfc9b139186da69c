# SPDX-License-Identifier: GPL-2.0-only
"""`hotpath kernels [fetch]`: the real kernel sources the labs time.

`hotpath kernels` lists Debian's linux-source packages in the cache (the
version, the files kept, the variants each lab gets from them) and any
--kernel-tree given, each checked against the layouts the shim knows;
`hotpath kernels fetch` downloads the packages apt offers now (the
set-up runs it). Exit status: 0; 1 when a package could not be fetched;
2 for a tree the shim cannot place.
"""

import argparse

from hotpath.debian import candidate_version
from hotpath.errors import UsageError
from hotpath.kernelsrc import debian
from hotpath.kernelsrc.build import fitting
from hotpath.kernelsrc.layouts import COMPONENTS, LINUX_SOURCE_PACKAGES
from hotpath.kernelsrc.trees import KernelTree, parse_kernel_tree


def add_parser(subparsers: "argparse._SubParsersAction[argparse.ArgumentParser]") -> None:
    parser = subparsers.add_parser(
        "kernels",
        help="the real kernel sources the labs time (Debian's linux-source, your trees)",
        description="List the kernel sources whose own code the csum and crc32c labs build "
        "and time (linux-6.1, linux-6.12, --kernel-tree), or fetch Debian's into the cache.",
    )
    parser.add_argument("action", nargs="?", choices=("list", "fetch"), default="list")
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
