# SPDX-License-Identifier: GPL-2.0-only
"""What the fn lab adds to the engine: `hotpath fn NAME`, a catalogue
function by its kernel name (hotpath.kernelsrc.catalogue), the same as
`--primitive NAME` (a function another lab times, csum_partial, crc32c,
avc_lookup, is sent there with the command that times it), and the copy
primitives' --dst-align and --overlap (params.py)."""

import argparse

from hotpath.errors import UsageError
from hotpath.kernelsrc.catalogue import BY_NAME
from hotpath.labs.fn import params
from hotpath.labs.hooks import LabHooks


def _add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "function",
        nargs="?",
        default=None,
        metavar="NAME",
        help="the catalogue function to time, by its kernel name (crc32_le, memset, ...; "
        "`hotpath kernels TREE` lists them); the same as --primitive NAME",
    )
    params.add_arguments(parser)


def _function(args: argparse.Namespace) -> int | None:
    """NAME made the primitive; None: the lab's run goes on."""
    name = args.function
    if name is None:
        return None
    if args.primitive is not None and args.primitive != name:
        raise UsageError(f"hotpath fn {name} --primitive {args.primitive}: allowed: one of them")
    function = BY_NAME.get(name)
    if function is not None and function.lab != "fn":
        raise UsageError(
            f"hotpath fn '{name}': {name} is timed by the {function.lab} lab; allowed: a "
            f"function of the fn lab, or `hotpath {function.lab} --primitive {function.primitive}`"
        )
    args.primitive = name  # the lab checks it against the runner's primitives
    return None


HOOKS = LabHooks(
    add_arguments=_add_arguments, runner_args=params.runner_args, own_command=_function
)
