# SPDX-License-Identifier: GPL-2.0-only
"""The labs, declared as data: adding a lab is one module and one line.

A lab (csum, crc32c, ...) groups the runner primitives of one kernel hot
path. Everything the Python side does for a lab is driven by its Lab
object: the `hotpath <lab>` subcommand and its defaults, which primitives
`hotpath list <lab>` shows, the suite `hotpath run` measures, the column
labels of its tables and whether its plots show bytes per cycle.

Adding a lab, C side to docs, step by step: docs/adding-a-lab.md. Here it
is one module with `LAB = Lab(...)` and one line in ALL_LABS; which
primitives the lab has is the runner's listing to say (each C primitive
names its lab), never declared again here.
"""

from hotpath.labs import avc, crc32c, crossing, csum, tune
from hotpath.labs.lab import Lab, Part, Roles, Suite
from hotpath.results import RunResult

ALL_LABS: tuple[Lab, ...] = (csum.LAB, crc32c.LAB, avc.LAB, crossing.LAB, tune.LAB)

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

__all__ = ["ALL_LABS", "LABS", "Lab", "Part", "Roles", "Suite", "enrich", "lab_for"]


def lab_for(name: str) -> Lab | None:
    """The lab with this name, or None (the calibration pseudo-lab has none)."""
    return CALIBRATE if name == CALIBRATE.name else LABS.get(name)


def enrich(run: RunResult) -> RunResult:
    """`run` (hotpath.measure.new_run's) with what each of its labs adds to
    its figures (csum: the chain bounds); returned for chaining."""
    for name in run.labs:
        lab = lab_for(name)
        if lab is not None and lab.attach_bounds is not None:
            lab.attach_bounds(run)
    return run
