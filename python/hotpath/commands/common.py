# SPDX-License-Identifier: GPL-2.0-only
"""Options and steps every measuring subcommand shares.

--db/--no-store (the history), --json/--markdown (output format),
--noisy-threshold (when a figure is marked "~"), and the order in which a
finished run goes to its destinations.

Every destination is checked before measuring (hotpath.delivery.check_common,
check_plot, report.check_folder); after measuring, hotpath.delivery.deliver
sends the run to them in one order.
"""

import argparse
import json
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from hotpath.db.access import db_path
from hotpath.db.location import location_type
from hotpath.destination import check_folder
from hotpath.errors import UsageError
from hotpath.labs import Lab
from hotpath.render import markdown, text
from hotpath.results import RunResult
from hotpath.runner import Runner, repo_root
from hotpath.stats import DEFAULT_NOISY_FRACTION

if TYPE_CHECKING:
    from hotpath.kernelsrc.variants import KernelSet


def add_db_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--db",
        type=location_type,
        default=None,
        metavar="PATH|URL",
        help="the history: a SQLite file or postgresql://USER@HOST/DB (default: $HOTPATH_DB, "
        "else $XDG_STATE_HOME/hotpath/history.sqlite; docs/history.md)",
    )


def add_output_options(parser: argparse.ArgumentParser, store: bool = True) -> None:
    add_db_option(parser)
    if store:
        parser.add_argument("--no-store", action="store_true", help="do not save the run")
    fmt = parser.add_mutually_exclusive_group()
    fmt.add_argument("--json", action="store_true", help="print hotpath.result/2 JSON")
    fmt.add_argument("--markdown", action="store_true", help="print tables for a commit message")
    parser.add_argument(
        "--noisy-threshold",
        type=float,
        default=DEFAULT_NOISY_FRACTION,
        metavar="F",
        help="mark a figure noisy when its 95%% CI is wider than F x median (default 0.05)",
    )


def add_repeat_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--repeat",
        type=int,
        default=1,
        metavar="N",
        help="run the measurement in N fresh runner processes, stored as one run with N "
        "replicas; compare decides from their spread when both sides have 3 or more",
    )


def check_plot(args: argparse.Namespace) -> None:
    """--plot DIR: a folder that can be made or written into (before measuring)."""
    plot: Path | None = getattr(args, "plot", None)
    if plot is not None:
        check_folder(plot, "--plot")


def emit(args: argparse.Namespace, run: RunResult, plain: str | None = None) -> None:
    """Print the run in the chosen format (plain: text to use instead of the tables)."""
    if args.json:
        sys.stdout.write(json.dumps(run.to_json(), indent=2) + "\n")
    elif args.markdown:
        sys.stdout.write(markdown.render_run(run))
    else:
        sys.stdout.write(plain if plain is not None else text.render_run(run))
        if run.run_id is not None:
            sys.stdout.write(f"stored as run {run.run_id} in {db_path(args)}\n")


def add_kernel_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--kernel-tree",
        action="append",
        default=[],
        metavar="DIR[@REV,...]",
        help="time this kernel tree's own code beside the rest, built by the tree's own "
        "Kbuild, repeatable: DIR as its files are (linux-HEAD, linux-HEAD+dirty; a clean tree, "
        "built with O= into the cache), DIR@REV[,REV...] as each git revision has them "
        "(linux-REV, each in a git worktree of the cache, never your checkout); about a "
        "minute per tree the first time. Building a tree runs its code (its Makefiles, "
        "scripts, compiler plugins; its objects when timed): as root, contained (bubblewrap: "
        "as nobody, no network, all read-only but its build folder) unless --trust-tree; "
        "docs/kernel-source.md",
    )
    parser.add_argument(
        "--kernel-config",
        default="auto",
        type=_kernel_config,
        metavar="FILE|debian-6.12|debian-6.1|defconfig",
        help="the config a --kernel-tree is built with (BTF and module signing then switched "
        "off): a config file, Debian's config.amd64_none_amd64 of 6.12 or 6.1, or `make "
        "defconfig`'s (default: auto, the tree's own .config if it has one, else debian-6.12). "
        "Building a tree runs its code: see --kernel-tree",
    )
    add_trust_option(parser)
    parser.add_argument(
        "--debian-kernels",
        action=argparse.BooleanOptionalAction,
        default=True,
        help="time Debian's linux-source 6.1 and 6.12 kernels' own code (linux-6.1, "
        "linux-6.12: the objects their Kbuild builds with Debian's config, prepared by the "
        "set-up, `hotpath kernels`) (default: yes)",
    )
    parser.add_argument(
        "--mitigations",
        default="off",
        metavar="off|host|off,host",
        help="how the kernel's objects run: off as a mitigations=off kernel (a ret for each "
        "return thunk, direct indirect calls; the default), host as this host's kernel runs "
        "them (/sys/devices/system/cpu/vulnerabilities: the SRSO safe return, retpolines; "
        "variants named +host); both with off,host. Named in each variant's origin",
    )


def add_trust_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--trust-tree",
        action="store_true",
        help="run a kernel tree's code (its build, its objects when timed) as root when "
        "hotpath runs as root, not contained by bubblewrap as nobody with no network: only "
        "for a tree whose every file you trust",
    )


def _kernel_config(value: str) -> str:
    """--kernel-config's value, checked (exit 2 naming it and what is allowed)."""
    from hotpath.kernelsrc import devtrees  # only where a tree option is given

    try:
        return devtrees.check_config(value)
    except UsageError as err:
        raise argparse.ArgumentTypeError(str(err).removeprefix("--kernel-config ")) from err


def real_kernels(
    args: argparse.Namespace,
    lab: Lab,
    runner: Runner,
    wanted: Sequence[str] | None = None,
    primitives: Sequence[str] | None = None,
) -> "KernelSet":
    """The real kernels' variants a lab command times: none for a lab
    without, or when --variants names none of them (every real kernel's
    variant is linux-*: Debian's linux-6.1, a tree's linux-REV) and no
    --kernel-tree is given, so no kernel source is even imported."""
    from hotpath.kernelsrc import contain, layouts, variants

    named = wanted is None or any(name.startswith("linux-") for name in wanted)
    if not layouts.timed_files(lab.name, primitives) or not (named or args.kernel_tree):
        return variants.KernelSet()
    contain.trust(args.trust_tree)
    return variants.lab_kernels(
        lab.name,
        args.kernel_tree,
        args.debian_kernels,
        repo_root(),
        runner.build,
        mitigations=args.mitigations,
        config=args.kernel_config,
        primitives=primitives,
    )
