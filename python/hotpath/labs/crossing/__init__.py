# SPDX-License-Identifier: GPL-2.0-only
"""The crossing lab (seed 001): user write() against kernel_write() from a
module, against batched user-space I/O, and the price of one system call.

`hotpath crossing [--kernel host|vm] [--chunk B] [--count N] [--iterations I]
[--dir DIR] [--paths LIST]`. The seed's workload is the default: open a
file, 100 x 1024 writes of 1 KiB zeros, close; 128 iterations.

- No --kernel: the user-space paths on this machine (write, pwrite, writev,
  io_uring), with a note on how to add the module's path.
- --kernel host: the running kernel, module included (headers and root
  needed; without them: what is missing and how to get it, exit 2).
- --kernel vm: a guest kernel in QEMU (hotpath.guest), the module built
  against it, the user paths run inside by the same static program.

The lab has no runner primitives: its timing is a program of its own
(c/crossing/tool/main.c) because a kernel crossing cannot be timed in the
engine's 10-microsecond bursts. So the engine's options (--sizes, --modes,
--with, ...) are refused here. The run is kept in the history like any
other (hotpath.labs.crossing.stored: figures in ns of wall clock), so
`hotpath compare` gives a verdict per path. --json prints
hotpath.crossing-report/1.

spec.py: the lab as data; hooks.py: its command, its share of `hotpath
run`, its summary and report files.
"""

import argparse
import os
import shutil
import tempfile
from dataclasses import dataclass
from pathlib import Path

from hotpath.errors import UsageError
from hotpath.inputs import DEFAULT_NOISY_FRACTION, ascii_int, shown
from hotpath.labs.lab import DEFAULT_ROUNDS

USER_PATHS = ("write", "pwrite", "writev", "io_uring")
KERNEL_PATH = "kernel_write"
PATH_WORDS = (*USER_PATHS, KERNEL_PATH, "user", "all")
KERNELS = ("host", "vm")
# What its report and its renderer (hotpath.render.crossing) share.
UNIT = "ns per iteration, wall clock"
BASELINE = "write"
EMULATED = "emulated: not a performance figure"

# Seed 001: 128 iterations of open, 100 x 1024 writes of 1 KiB, close.
DEFAULT_CHUNK = 1024
DEFAULT_COUNT = 100 * 1024
DEFAULT_ITERATIONS = 128
# In a guest the seed's 128 took 17 minutes under software emulation (TCG):
# 16 by default there (about 2 minutes); --iterations 128 for the seed's.
DEFAULT_VM_ITERATIONS = 16
MAX_CHUNK = 64 << 20  # the static program's limit, and io_uring's 32-bit length
MAX_BYTES = 64 << 30  # per iteration
MAX_ITERATIONS = 100_000
# The module's own limits (kmod/hotpath_crossing.c: HP_MAX_CHUNK, _COUNT, _ITERATIONS).
MODULE_MAX_CHUNK = 1 << 20
MODULE_MAX_COUNT = 1 << 20
MODULE_MAX_ITERATIONS = 4096
DEFAULT_PARENT = Path("/dev/shm")  # a tmpfs on Debian: no disk in the figures

# The engine's options, which this lab does not take: (attribute, flag, its default).
ENGINE_OPTIONS: tuple[tuple[str, str, object], ...] = (
    ("sizes", "--sizes", None), ("align", "--align", None), ("modes", "--modes", None),
    ("variants", "--variants", None), ("primitive", "--primitive", None),
    ("cpu", "--cpu", None), ("with_", "--with", []), ("with_cflags", "--with-cflags", ""),
    ("unit", "--unit", "cycles"), ("plot", "--plot", None), ("repeat", "--repeat", 1),
    ("noisy_threshold", "--noisy-threshold", DEFAULT_NOISY_FRACTION),
)  # fmt: skip
# Shown in --help with this lab's meaning instead of the engine's.
OWN_HELP = {
    "time_limit": "--kernel vm: the guest's time limit in seconds (default: estimated for "
    "software emulation from the workload)",
    "json": "print hotpath.crossing-report/1 JSON, every sample included",
    "markdown": "print the table as Markdown, for a commit message",
}
DESCRIPTION = (
    "Seed 001's workload (open, COUNT writes of CHUNK zero bytes, close) through write(), "
    "pwrite(), writev() and io_uring, and with --kernel through kernel_write() from a "
    "module; each path's file checked before it is timed; per path the median ns per "
    "iteration with its 95% CI and the speed-up over write(); the price of one system "
    "call beside the kernel's mitigations. Kept in the history (--db, --no-store): "
    "`hotpath compare` gives a verdict per path in ns. Exit status 1 when a path is WRONG "
    "or failed, 2 on bad input."
)


@dataclass(frozen=True)
class Workload:
    chunk: int
    count: int
    iterations: int
    user_paths: tuple[str, ...]
    kernel_path: bool  # kernel_write from the module

    @property
    def bytes(self) -> int:
        return self.chunk * self.count


def _whole(flag: str, text: str, lo: int, hi: int, what: str = "") -> int:
    value = ascii_int(text)
    if value is None or not lo <= value <= hi:
        raise UsageError(f"{flag} '{shown(text)}': allowed: a whole number {lo}..{hi}{what}")
    return value


def parse_paths(text: str | None, kernel: str | None) -> tuple[tuple[str, ...], bool]:
    """--paths: the user paths and whether kernel_write is in, checked against --kernel."""
    words = [w.strip() for w in (text if text is not None else "all").split(",")]
    bad = [w for w in words if w not in PATH_WORDS]
    if bad or not words:
        raise UsageError(f"--paths '{text}': allowed: a comma list of {', '.join(PATH_WORDS)}")
    user = [p for p in USER_PATHS if p in words or "user" in words or "all" in words]
    wants_kernel = KERNEL_PATH in words or ("all" in words and kernel is not None)
    if KERNEL_PATH in words and kernel is None:
        raise UsageError(
            f"--paths '{text}': kernel_write allowed only with --kernel host or --kernel vm "
            "(it needs --kernel: without it only the user-space paths run)"
        )
    if not user and not wants_kernel:
        raise UsageError(f"--paths '{text}': names no path; allowed: {', '.join(PATH_WORDS)}")
    return tuple(user), wants_kernel


def check_workload(args: argparse.Namespace) -> Workload:
    chunk = _whole("--chunk", args.chunk, 1, MAX_CHUNK, " (bytes per write)")
    count = _whole("--count", args.count, 1, MAX_BYTES, " (writes per iteration)")
    if chunk * count > MAX_BYTES:
        raise UsageError(
            f"--chunk {chunk} x --count {count} = {chunk * count} bytes per iteration: "
            f"allowed: at most {MAX_BYTES} (64 GiB)"
        )
    if args.iterations is None:
        args.iterations = str(DEFAULT_VM_ITERATIONS if args.kernel == "vm" else DEFAULT_ITERATIONS)
    iterations = _whole("--iterations", args.iterations, 1, MAX_ITERATIONS)
    user, kernel = parse_paths(args.paths, args.kernel)
    if kernel:
        for flag, value, most in (("--chunk", chunk, MODULE_MAX_CHUNK),
                                  ("--count", count, MODULE_MAX_COUNT),
                                  ("--iterations", iterations, MODULE_MAX_ITERATIONS)):  # fmt: skip
            if value > most:
                raise UsageError(
                    f"{flag} '{value}': allowed with kernel_write: at most {most} "
                    "(the module's limit; --paths user runs the user paths alone)"
                )
    return Workload(chunk, count, iterations, user, kernel)


def check_dir(text: str | None, needed: int) -> Path | None:
    """--dir: an existing, writable folder with room for one iteration's file.
    None: the default, a fresh folder under /dev/shm made when the run starts."""
    if text is None:
        parent = DEFAULT_PARENT if os.access(DEFAULT_PARENT, os.W_OK) else None
        free = shutil.disk_usage(parent or tempfile.gettempdir()).free
        if free < needed:
            raise UsageError(
                f"--chunk x --count: {needed} bytes per iteration do not fit in "
                f"{parent or tempfile.gettempdir()} ({free} bytes free); allowed: at most "
                f"{free}, or --dir DIR with room"
            )
        return None
    if not text:  # Path("") is the current folder
        raise UsageError(
            "--dir '': allowed: an existing folder (without --dir: a fresh one under /dev/shm)"
        )
    path = Path(text)
    if not path.is_dir():
        raise UsageError(f"--dir '{text}': allowed: an existing folder")
    if not os.access(path, os.W_OK | os.X_OK):
        raise UsageError(f"--dir '{text}': allowed: a folder you can write in")
    free = shutil.disk_usage(path).free
    if free < needed:
        raise UsageError(
            f"--dir '{text}': {free} bytes free, one iteration writes {needed}; "
            "allowed: a folder with room for --chunk x --count bytes"
        )
    return path


def refuse_engine_options(args: argparse.Namespace) -> None:
    for attr, flag, default in ENGINE_OPTIONS:
        if getattr(args, attr, default) != default:
            raise UsageError(
                f"{flag}: not an option of hotpath crossing; allowed: --kernel, --chunk, "
                "--count, --iterations, --dir, --paths, --time-limit (vm), --json, --markdown, "
                "--db, --no-store"
            )
    if args.rounds != DEFAULT_ROUNDS:
        raise UsageError(f"--rounds '{args.rounds}': not an option of hotpath crossing; "
                         "allowed: --iterations I")  # fmt: skip


def add_arguments(parser: argparse.ArgumentParser) -> None:
    # The lab command's shared options are the engine's; hide those this lab
    # refuses (refuse_engine_options) and say what the others mean here.
    hidden = {attr for attr, _, _ in ENGINE_OPTIONS} | {"rounds"}
    for action in parser._actions:
        if action.dest in hidden:
            action.help = argparse.SUPPRESS
        elif action.dest in OWN_HELP:
            action.help = OWN_HELP[action.dest]
    parser.description = DESCRIPTION
    parser.add_argument(
        "--kernel",
        choices=KERNELS,
        default=None,
        help="where kernel_write runs: host (the running kernel: its headers and root "
        "needed) or vm (a guest kernel in QEMU); without it, the user-space paths alone",
    )
    parser.add_argument("--chunk", default=str(DEFAULT_CHUNK), metavar="B",
                        help=f"bytes per write (default {DEFAULT_CHUNK}, the seed's)")  # fmt: skip
    parser.add_argument("--count", default=str(DEFAULT_COUNT), metavar="N",
                        help=f"writes per iteration (default {DEFAULT_COUNT})")  # fmt: skip
    parser.add_argument(
        "--iterations",
        default=None,
        metavar="I",
        help=f"timed iterations per path (default {DEFAULT_ITERATIONS}, the seed's; "
        f"{DEFAULT_VM_ITERATIONS} with --kernel vm, where emulation makes each one slow)",
    )
    parser.add_argument(
        "--dir",
        default=None,
        metavar="DIR",
        help="folder for the file (default: a fresh folder under /dev/shm, a tmpfs); "
        "its file system is shown. Host only: the guest writes to a tmpfs of its own",
    )
    parser.add_argument(
        "--paths",
        default=None,
        metavar="LIST",
        help=f"comma list of {', '.join(PATH_WORDS)} (default all: the user paths, and "
        "kernel_write with --kernel)",
    )
