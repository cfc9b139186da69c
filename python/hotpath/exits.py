# SPDX-License-Identifier: GPL-2.0-only
"""The one place a command's errors become exit statuses.

`hotpath` (hotpath.cli) and `python -m hotpath.tune` (which loads no
numpy) both run their handler through run_handler(): a HotpathError ends
with its message and status (2 bad input, 1 failure), Ctrl-C with 130,
SIGTERM with 143. SIGTERM unwinds like SIGINT, so finally blocks run: the
runner is killed, temporary folders go, nothing half-written is stored,
and tune's evaluate puts the settings back.
"""

import argparse
import signal
import sys

from hotpath.errors import HotpathError


class Terminated(BaseException):
    """SIGTERM arrived: unwind everything, as for SIGINT."""


def _terminated(signum: int, frame: object) -> None:
    raise Terminated()


def run_handler(args: argparse.Namespace) -> int:
    previous = signal.signal(signal.SIGTERM, _terminated)
    try:
        status: int = args.handler(args)
    except HotpathError as err:
        print(f"hotpath: {err}", file=sys.stderr)
        return err.exit_status
    except KeyboardInterrupt:
        print("hotpath: interrupted", file=sys.stderr)
        return 130
    except Terminated:
        print("hotpath: terminated", file=sys.stderr)
        return 143
    except BrokenPipeError:
        return 1
    finally:
        signal.signal(signal.SIGTERM, previous)
    return status
