# SPDX-License-Identifier: GPL-2.0-only
"""The labs, declared as data: adding a lab is one module and one line.

A lab (csum, crc32c, ...) groups the runner primitives of one kernel hot
path. Everything the Python side does for a lab is driven by its Lab
object: the `hotpath <lab>` subcommand and its defaults, which primitives
`hotpath list <lab>` shows, the suite `hotpath run` measures, the column
labels of its tables and whether its plots show bytes per cycle.

How to add a lab (crc32c as the example):

1. The C side registers its primitives (c/crc32c/registry.c, lab "crc32c")
   so that `build/hotpath-bench list` shows them: that listing is the one
   place that says which primitives a lab has.
2. Write python/hotpath/labs/crc32c.py::

       from hotpath.labs.lab import Lab, Suite

       LAB = Lab(
           name="crc32c",                       # subcommand and runner lab name
           title="CRC32C (iSCSI, ext4, SCTP)",  # one line for help and reports
           default_sizes=(64, 256, 1420, 16384),
           default_aligns=(0,),
           suite=Suite(sizes=(64, 256, 1420, 16384, 65536), aligns=(0,),
                       rounds=200, quick_rounds=40),
       )

3. Import it below and add it to ALL_LABS. Nothing else moves: the CLI,
   the report, the store and the tests pick it up from this registry.

A lab that needs its own options sets `add_arguments` (adds them to its
subcommand's parser) and `runner_args` (turns the parsed values into extra
runner arguments); both are plain functions, see hotpath.labs.lab.Lab.

Where primitives need different sizes or modes in `hotpath run`, the
Suite's `parts` maps a primitive to a Part that overrides them (crc32c runs
to 1 MiB, its combine at two lengths). A seed's published table to redo
is a hotpath.seedtable_spec.SeedTable in `seed_tables`, declared as data in a
module of its own (csum_seed_table.py, crc32c_skb_table.py): it adds a flag
to the lab's subcommand (`--seed-table`, `--skb-table`).
"""

from hotpath.labs import crc32c, csum
from hotpath.labs.lab import Lab, Part, Suite

ALL_LABS: tuple[Lab, ...] = (csum.LAB, crc32c.LAB)

LABS: dict[str, Lab] = {lab.name: lab for lab in ALL_LABS}

# The calibration's add_chain primitive reports under lab "calibrate"; it is
# not a user lab (no subcommand of its own here), but its tables need labels.
CALIBRATE = Lab(
    name="calibrate",
    title="clock calibration: chains of dependent one-cycle adds",
    default_sizes=(50, 100, 200),
    default_aligns=(0,),
    suite=Suite(sizes=(50, 100, 200), aligns=(0,), rounds=200, quick_rounds=60),
    default_modes=("latency",),
    sizes_are_bytes=False,
    size_unit="adds",
    show_align=False,
)

__all__ = ["ALL_LABS", "LABS", "Lab", "Part", "Suite", "lab_for"]


def lab_for(name: str) -> Lab | None:
    """The lab with this name, or None (the calibration pseudo-lab has none)."""
    return CALIBRATE if name == CALIBRATE.name else LABS.get(name)
