# SPDX-License-Identifier: GPL-2.0-only
"""`python -m hotpath.tune ACTION ...`: `hotpath tune` without the rest of the CLI.

The same subcommand and exit statuses, but only this package is loaded, so
list/show/diff/apply/verify/revert/export run without numpy and matplotlib:
on a rescue system, or in a guest whose emulated CPU numpy's wheels do not
run on (they stop with SIGILL below x86-64-v2). evaluate loads the
statistics (numpy) when it runs.
"""

import argparse
import sys
from collections.abc import Sequence

from hotpath.commands import tune
from hotpath.exits import run_handler


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m hotpath")
    tune.add_parser(parser.add_subparsers(dest="command", required=True))
    args = parser.parse_args(["tune", *(sys.argv[1:] if argv is None else argv)])
    return run_handler(args)


if __name__ == "__main__":
    sys.exit(main())
