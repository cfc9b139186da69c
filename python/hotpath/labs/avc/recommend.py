# SPDX-License-Identifier: GPL-2.0-only
"""`hotpath avc --recommend [--sizes N] [--trace FILE]`: a slot count and a hash.

For a cache of N nodes (the threshold; default the kernel's 512) under a
workload (the synthetic one, or a recorded trace), every slot count the
kernel's Kconfig allows (2^9..2^14) is timed with every hash: avc_search_node()
in latency mode, core cycles, median over clean samples. The choice: among
the configurations within TOLERANCE of the fastest lookup, the one that
costs the fewest bytes (slots and nodes, as the kernel lays them out), the
cheaper hash on a tie. The table it chose from is printed with it.

Each run is kept in the history (--db; not with --no-store) as one run,
command "avc --recommend": the engine's figures of avc_lookup and the
model's statistics as exact figures (primitive "model"), each with the slot
count in its mode ("latency, 4096 slots", "hit rate, 4096 slots";
hotpath.labs.avc.stored), so `hotpath compare` works on two of them. The
run's "avc-recommend" section holds the workload and the model's rows (the
memory of each configuration, ...); from_run() gives back the options the
choice is made from, and hotpath.render.avc_recommend prints the same text
(and --json, hotpath.avc-recommend/1) from the stored run.
"""

import argparse
from dataclasses import dataclass
from typing import Any

from hotpath import measure
from hotpath.delivery import check_common, deliver_printed
from hotpath.errors import HotpathError, UsageError
from hotpath.inputs import check_repeat, check_rounds
from hotpath.labs.avc import stats as avc_stats
from hotpath.labs.avc import stored as avc_stored
from hotpath.labs.avc.seed_table import time_lookups
from hotpath.render import avc_recommend as shown
from hotpath.results import RunResult

KCONFIG_SLOTS = tuple(1 << bits for bits in range(9, 15))
TOLERANCE = 0.05
COMMAND = "avc --recommend"
SCHEMA = "hotpath.avc-recommend/1"
RULE = f"fewest bytes within {TOLERANCE:.0%} of the fastest lookup"


@dataclass(frozen=True)
class Option:
    slots: int
    hash: str
    cycles: float
    memory: int
    hit_rate: float


def choose(options: list[Option]) -> Option:
    """The fewest bytes within TOLERANCE of the fastest; then the faster."""
    fastest = min(o.cycles for o in options)
    near = [o for o in options if o.cycles <= fastest * (1 + TOLERANCE)]
    return min(near, key=lambda o: (o.memory, o.cycles))


def _measure(
    args: argparse.Namespace, nodes: int
) -> tuple[dict[int, dict[str, Any]], dict[int, RunResult]]:
    """Per slot count, the model's `analyze` document and the engine's run."""
    docs: dict[int, dict[str, Any]] = {}
    timings: dict[int, RunResult] = {}
    trace = ("--param", f"trace={args.trace.resolve()}") if args.trace is not None else ()
    for slots in KCONFIG_SLOTS:
        sub = argparse.Namespace(
            sizes=str(nodes), variants=None, checks=args.checks, trace=args.trace, runs=1
        )
        docs[slots] = avc_stats.analyses(sub, slots)
        timings[slots] = time_lookups(args, slots, (nodes,), trace)
    return docs, timings


def settings(args: argparse.Namespace, nodes: int) -> dict[str, Any]:
    """The inputs of a --recommend run, as its history row keeps them."""
    return {
        "nodes": nodes,
        "slots": list(KCONFIG_SLOTS),
        "checks": args.checks,
        "runs": 1,
        "samples": avc_stats.DEFAULT_SAMPLES,
        "workload": "synthetic" if args.trace is None else "trace",
        "trace": str(args.trace.resolve()) if args.trace is not None else None,
        "rule": RULE,
        "tolerance": TOLERANCE,
    }


@dataclass
class Recommendation:
    """What --recommend shows: the options timed, why the others are not,
    the choice among them (None: none timed) and the rule it was made by."""

    settings: dict[str, Any]
    options: list[Option]
    untimed: list[str]
    choice: Option | None = None
    slots: tuple[int, ...] = KCONFIG_SLOTS
    rule: str = RULE
    tolerance: float = TOLERANCE
    schema: str = SCHEMA


def from_run(run: RunResult) -> Recommendation:
    """The options back from a run (fresh or stored) of --recommend."""
    settings, model = avc_stored.slot_model(run, COMMAND, SCHEMA)
    slots_timed = tuple(settings.get("slots", KCONFIG_SLOTS))
    found = Recommendation(settings, [], [], slots=slots_timed)
    for fig in run.figures:
        _, slots = avc_stored.slots_of(fig.mode)
        if fig.primitive != avc_stats.PRIMITIVE or slots is None:
            continue
        result = model.get((fig.size, slots, fig.variant))
        if fig.timed and fig.median is not None and result:
            memory, hit_rate = result["memory_bytes"], result["hit_rate"]
            found.options.append(Option(slots, fig.variant, fig.median, memory, hit_rate))
        elif not fig.timed:
            found.untimed.append(f"{slots} slots {fig.variant}: {fig.reason or fig.status}")
    found.choice = choose(found.options) if found.options else None
    return found


def run(args: argparse.Namespace) -> int:
    """--recommend (command.run() has checked --checks): the choice and its
    table, kept in the history."""
    check_rounds(args.rounds)
    check_repeat(getattr(args, "repeat", 1))
    check_common(args)  # the history can be written, before anything runs
    sizes = avc_stats.node_counts(measure.listing(measure.get_runner()), args.sizes, (512,))
    if len(sizes) != 1:
        raise UsageError(f"--sizes '{args.sizes}': allowed with --recommend: one node count, "
                         "a power of two")  # fmt: skip
    if args.trace is not None and not args.trace.is_file():
        raise UsageError(f"--trace '{args.trace}': not a file")
    started = measure.now_utc()
    docs, timings = _measure(args, sizes[0])
    result = avc_stored.slot_run(
        COMMAND, SCHEMA, docs, timings, settings(args, sizes[0]), args.command_line, started
    )
    rec = from_run(result)  # printed as a stored run renders
    if not rec.options:
        # Not the input's fault: exit 1, with the engine's reason; nothing to keep.
        raise HotpathError("--recommend: no configuration could be timed"
                           + (f" ({rec.untimed[0]})" if rec.untimed else ""))  # fmt: skip

    deliver_printed(
        args, result, lambda: shown.render(rec), lambda: shown.to_json(rec, result.run_id)
    )
    return 0
