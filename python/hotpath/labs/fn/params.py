# SPDX-License-Identifier: GPL-2.0-only
"""The copy primitives' parameters on `hotpath fn`: --dst-align N and
--overlap none|forward|backward, told to the runner as `--param
dst_align=N` and `--param overlap=...` (c/fn/registry_copy.c; the runner
refuses them, exit 2, for a primitive that takes none). For the lab's
hooks: add_arguments(parser) beside theirs, runner_args(args) as theirs."""

import argparse

from hotpath.errors import UsageError

OVERLAPS = ("none", "forward", "backward")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--dst-align",
        default=None,
        metavar="N",
        help="memcpy, memmove: the destination's offset from a 64-byte boundary, 0..63 "
        "(default 0; --align is the source's)",
    )
    parser.add_argument(
        "--overlap",
        default=None,
        metavar="|".join(OVERLAPS),
        help="memmove: the destination above the source (forward) or below it (backward), "
        "1 to 64 bytes apart at --dst-align (default none)",
    )


def runner_args(args: argparse.Namespace) -> list[str]:
    """The --param arguments for what was given; bad values: UsageError (exit 2)."""
    out: list[str] = []
    dst_align = getattr(args, "dst_align", None)
    if dst_align is not None:
        text = str(dst_align)
        if not text.isdigit() or int(text) > 63:
            raise UsageError(f"--dst-align '{text}': allowed: an offset 0..63")
        out += ["--param", f"dst_align={int(text)}"]
    overlap = getattr(args, "overlap", None)
    if overlap is not None:
        if overlap not in OVERLAPS:
            raise UsageError(f"--overlap '{overlap}': allowed: {', '.join(OVERLAPS)}")
        out += ["--param", f"overlap={overlap}"]
    return out
