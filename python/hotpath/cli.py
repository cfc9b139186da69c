# SPDX-License-Identifier: GPL-2.0-only
"""The `hotpath` command: argument parsing and the one place exits happen.

Subcommands live in hotpath.commands (one module each); every lab in the
registry (hotpath.labs) gets its own subcommand. A HotpathError raised
anywhere ends the command with its message on stderr and its exit status:
2 for bad input (nothing written), 1 for a failure or a WRONG variant.
"""

import argparse
import importlib
import shlex
import sys
from collections.abc import Callable, Collection, Sequence
from types import ModuleType
from typing import TypeAlias

from hotpath import __version__
from hotpath.db.location import masked
from hotpath.exits import run_handler
from hotpath.inputs import decimal, integer
from hotpath.labs import ALL_LABS, LABS
from hotpath.render import symbols

# Every subcommand: its module in hotpath.commands and its line in `hotpath
# --help`. A command's module (and what it imports: numpy, SciPy,
# SQLAlchemy, the kernel sources) is imported only when that command is
# asked for, so `hotpath --version`, `--help` and `tune list` start at once.
# The labs' commands (`hotpath csum` ...) come from their specs, after calibrate.
COMMANDS: dict[str, tuple[str, str]] = {
    "calibrate": ("calibrate", "clock source, TSC ticks per core cycle, and the N-adds self-check"),
    "run": ("suite", "run every lab's default suite and write a report folder"),
    "history": ("history", "list stored runs, newest first"),
    "machines": ("machines", "list the machines the history has seen, with their keys and runs"),
    "compare": ("compare", "compare two stored runs (or two variants) figure by figure"),
    "patch": (
        "patch",
        "what a commit did to the kernel hot functions it touched: both sides built, checked, "
        "timed, and the commit message's table",
    ),
    "report": ("report", "write the report folder (HTML, Markdown, plots) of a stored run"),
    "dispatch": (
        "dispatch",
        "measure which method of hp_csum()/hp_crc32c() wins at each length here",
    ),
    "list": ("listing", "variants and their status on this CPU"),
    "kernels": (
        "kernels",
        "the real kernel trees the labs time (Debian's linux-source, your trees)",
    ),
    "tune": ("tune", "tuning profiles: apply with an undo, verify, revert, A/B evaluate, export"),
    "trend": ("trend", "one figure's medians over the stored runs, and where they changed"),
    "db": ("db", "upgrade or check the history's database"),
    "push": ("push", "copy runs of this history into another (a shared PostgreSQL store)"),
}
Subparsers: TypeAlias = "argparse._SubParsersAction[argparse.ArgumentParser]"


def _table() -> dict[str, tuple[str, Callable[[Subparsers], None]]]:
    """Each command's help line and how to add its parser (importing it)."""

    def lab_adder(name: str) -> Callable[[Subparsers], None]:
        return lambda subparsers: _module("lab").add_parser(subparsers, LABS[name])

    def adder(module: str) -> Callable[[Subparsers], None]:
        return lambda subparsers: _module(module).add_parser(subparsers)

    table = {name: (line, adder(module)) for name, (module, line) in COMMANDS.items()}
    labs = {
        lab.name: (f"measure the {lab.name} lab: {lab.title}", lab_adder(lab.name))
        for lab in ALL_LABS
        if lab.subcommand
    }
    first, *rest = table.items()  # calibrate, then the labs, then the rest
    return dict([first, *labs.items(), *rest])


def _module(name: str) -> ModuleType:
    return importlib.import_module(f"hotpath.commands.{name}")


EPILOG = """exit status: 0 done; 1 the run failed, a calibration self-check failed,
a variant you brought (--with) or named (--variants) is WRONG (a mismatch, a
read outside its buffer, a crash or a hang), or the run was measured but not
everything could be written (the message says what); 2 bad input (nothing was
written); 130 interrupted, 143 terminated (nothing half-written kept)."""


def build_parser(wanted: Collection[str] | None = None) -> argparse.ArgumentParser:
    """The whole parser (`wanted` None), or one whose `wanted` commands are
    built and the rest only listed (main(): the one command asked for)."""
    parser = argparse.ArgumentParser(
        prog="hotpath",
        description="Measure Linux kernel hot-path functions from user space.",
        epilog=EPILOG,
    )
    parser.add_argument("--version", action="version", version=f"hotpath {__version__}")
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    for name, (line, add) in _table().items():
        if wanted is None or name in wanted:
            add(subparsers)
        else:  # listed in --help; never parsed (main() builds the one asked for)
            subparsers.add_parser(name, help=line, add_help=False)
    ascii_numbers(parser)
    return parser


def ascii_numbers(parser: argparse.ArgumentParser) -> None:
    """Every option of `parser` and its subcommands declared type=int or
    type=float takes ASCII digits only (inputs.integer, inputs.decimal):
    int("\uff14\uff10") is 40. Done here, once, so no option can miss it."""
    for action in parser._actions:
        if action.type is int:
            action.type = integer
        elif action.type is float:
            action.type = decimal
        if isinstance(action, argparse._SubParsersAction):
            for sub in action.choices.values():
                ascii_numbers(sub)


def main(argv: Sequence[str] | None = None) -> int:
    # A stream that cannot encode "±" or "≈" (LC_ALL=C with PYTHONIOENCODING=ascii)
    # gets their ASCII spellings instead of a UnicodeEncodeError.
    streams = (sys.stdout, sys.stderr)
    handlers = [symbols.ascii_fallback(stream) for stream in streams]
    try:
        return _main(argv)
    finally:
        for stream, handler in zip(streams, handlers, strict=True):
            symbols.restore(stream, handler)


def _main(argv: Sequence[str] | None) -> int:
    arguments = list(sys.argv[1:] if argv is None else argv)
    # The command is the first word that is not an option (the top level
    # has only --help and --version).
    asked = next((word for word in arguments if not word.startswith("-")), None)
    parser = build_parser({asked} if asked else set())
    args = parser.parse_args(arguments)
    # Stored with the run and shown by history and reports: no password in it.
    args.command_line = masked(shlex.join(["hotpath", *arguments]))
    return run_handler(args)
