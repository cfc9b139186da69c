# SPDX-License-Identifier: GPL-2.0-only
"""`python -m hotpath.tune ACTION ...`: `hotpath tune` without the rest of the CLI.

The same subcommand and exit statuses, but only this package is loaded, so
list/show/diff/apply/verify/revert/export run without numpy and matplotlib:
on a rescue system, or in a guest whose emulated CPU numpy's wheels do not
run on (they stop with SIGILL below x86-64-v2). evaluate loads the
statistics (numpy) when it runs.
"""

import argparse
import signal
import sys
from collections.abc import Sequence

from hotpath.commands import tune
from hotpath.errors import HotpathError


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m hotpath")
    tune.add_parser(parser.add_subparsers(dest="command", required=True))
    args = parser.parse_args(["tune", *(sys.argv[1:] if argv is None else argv)])
    # SIGTERM unwinds like Ctrl-C, so that evaluate's finally restores the settings.
    previous = signal.signal(signal.SIGTERM, signal.default_int_handler)
    try:
        status: int = args.handler(args)
    except HotpathError as err:
        print(f"hotpath: {err}", file=sys.stderr)
        return err.exit_status
    except KeyboardInterrupt:
        print("hotpath: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        return 1
    finally:
        signal.signal(signal.SIGTERM, previous)
    return status


if __name__ == "__main__":
    sys.exit(main())
