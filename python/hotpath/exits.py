# SPDX-License-Identifier: GPL-2.0-only
"""The one place a command's errors become exit statuses.

`hotpath` (hotpath.cli, which loads only the command asked for: `hotpath
tune list` no numpy) runs every handler through run_handler(): a HotpathError ends
with its message and status (2 bad input, 1 failure), Ctrl-C with 130,
SIGTERM with 143, a write that cannot be made (a full disk under
`> /dev/full`, a broken pipe) with 1 and one line. SIGTERM unwinds like
SIGINT, so finally blocks run: the
runner is killed, temporary folders go, nothing half-written is stored,
and tune's evaluate puts the settings back.
"""

import argparse
import errno
import os
import signal
import sys

from hotpath.errors import HotpathError


class Terminated(BaseException):
    """SIGTERM arrived: unwind everything, as for SIGINT."""


def _terminated(signum: int, frame: object) -> None:
    raise Terminated()


# A write that cannot be made: a full disk, a quota, a file too large, an
# I/O error (`hotpath history > /dev/full`). One line and exit 1, never a
# traceback, whichever output it was.
WRITE_ERRNOS = (errno.ENOSPC, errno.EDQUOT, errno.EFBIG, errno.EIO)


def _silence_stdout() -> None:
    """After a failed write to stdout, the interpreter's last flush at exit
    would fail again and print a second message: stdout goes nowhere."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)
    except (OSError, ValueError):
        pass


def run_handler(args: argparse.Namespace) -> int:
    previous = signal.signal(signal.SIGTERM, _terminated)
    try:
        status: int = args.handler(args)
        sys.stdout.flush()  # a write that fails is found here, not at exit
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
        _silence_stdout()
        return 1
    except OSError as err:
        if err.errno not in WRITE_ERRNOS:
            raise
        _silence_stdout()
        print(f"hotpath: cannot write the output: {err.strerror}", file=sys.stderr)
        return 1
    finally:
        signal.signal(signal.SIGTERM, previous)
    return status
