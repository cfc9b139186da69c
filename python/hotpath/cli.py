# SPDX-License-Identifier: GPL-2.0-only
"""The `hotpath` command: argument parsing and the one place exits happen.

Subcommands live in hotpath.commands (one module each); every lab in the
registry (hotpath.labs) gets its own subcommand. A HotpathError raised
anywhere ends the command with its message on stderr and its exit status:
2 for bad input (nothing written), 1 for a failure or a WRONG variant.
"""

import argparse
import shlex
import sys
from collections.abc import Sequence

from hotpath import __version__
from hotpath.commands import (
    calibrate,
    compare,
    db,
    dispatch,
    history,
    kernels,
    lab,
    listing,
    machines,
    push,
    report,
    suite,
    trend,
    tune,
)
from hotpath.db.location import masked
from hotpath.exits import run_handler
from hotpath.inputs import decimal, integer
from hotpath.labs import ALL_LABS
from hotpath.render import symbols

EPILOG = """exit status: 0 done; 1 the run failed, a calibration self-check failed,
a variant you brought (--with) or named (--variants) is WRONG (a mismatch, a
read outside its buffer, a crash or a hang), or the run was measured but not
everything could be written (the message says what); 2 bad input (nothing was
written); 130 interrupted, 143 terminated (nothing half-written kept)."""


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="hotpath",
        description="Measure Linux kernel hot-path functions from user space.",
        epilog=EPILOG,
    )
    parser.add_argument("--version", action="version", version=f"hotpath {__version__}")
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    calibrate.add_parser(subparsers)
    for one_lab in ALL_LABS:
        if one_lab.subcommand:
            lab.add_parser(subparsers, one_lab)
    suite.add_parser(subparsers)
    history.add_parser(subparsers)
    machines.add_parser(subparsers)
    compare.add_parser(subparsers)
    report.add_parser(subparsers)
    dispatch.add_parser(subparsers)
    listing.add_parser(subparsers)
    kernels.add_parser(subparsers)
    tune.add_parser(subparsers)
    trend.add_parser(subparsers)
    db.add_parser(subparsers)
    push.add_parser(subparsers)
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
    parser = build_parser()
    args = parser.parse_args(arguments)
    # Stored with the run and shown by history and reports: no password in it.
    args.command_line = masked(shlex.join(["hotpath", *arguments]))
    return run_handler(args)
