# SPDX-License-Identifier: GPL-2.0-only
"""The labs, declared as data: adding a lab is one package and one line.

A lab (csum, crc32c, ...) groups the runner primitives of one kernel hot
path. Each lab's spec (labs/<lab>/spec.py: plain data, no numpy, nothing
above this layer) says what the CLI and the reports need: the `hotpath
<lab>` subcommand and its defaults, the suite `hotpath run` measures, the
column labels of its tables, its seed tables. What a lab does beyond the
engine is its hooks (labs/<lab>/hooks.py, hotpath.labs.hooks.LabHooks),
which the commands reach through commands/labs.py. Which primitives a lab
has is the runner's listing to say (each C primitive names its lab).

Adding a lab, C side to docs, step by step: docs/adding-a-lab.md.
"""

from hotpath.labs.avc.spec import LAB as AVC
from hotpath.labs.crc32c.spec import LAB as CRC32C
from hotpath.labs.crossing.spec import LAB as CROSSING
from hotpath.labs.csum.spec import LAB as CSUM
from hotpath.labs.fn.spec import LAB as FN
from hotpath.labs.lab import Lab, Part, Roles, Suite
from hotpath.labs.tune.spec import LAB as TUNE

ALL_LABS: tuple[Lab, ...] = (CSUM, CRC32C, AVC, CROSSING, TUNE, FN)

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

__all__ = ["ALL_LABS", "LABS", "Lab", "Part", "Roles", "Suite", "lab_for"]


def lab_for(name: str) -> Lab | None:
    """The lab with this name, or None (the calibration pseudo-lab has none)."""
    return CALIBRATE if name == CALIBRATE.name else LABS.get(name)
