# SPDX-License-Identifier: GPL-2.0-only
"""`hotpath avc --stats`: what the AVC cache's hash_stats say, per hash.

Not a timing: the runner's `analyze` runs the synthetic workload's checks
through the C model of the cache (c/avc/, the kernel's insert and reclaim)
for each hash and node count in --slots buckets, sampling hash_stats as the
seed sampled /sys/fs/selinux/avc/hash_stats, and reports the means beside
what a perfectly random hash gives for as many entries (the limit). With
one hash and one size it also prints hash_stats and cache_stats as the
kernel would.

Each run is kept in the history (--db; not with --no-store) as exact
figures, one per statistic (hotpath.labs.avc.stored), so `hotpath compare`
works on two of them.
"""

import argparse
from typing import Any

from hotpath import measure
from hotpath.delivery import check_common, deliver_printed
from hotpath.errors import RunnerError, UsageError
from hotpath.inputs import parse_names, parse_sizes
from hotpath.labs.avc import PRIMITIVE
from hotpath.labs.avc import stored as avc_stored
from hotpath.machine import fingerprint
from hotpath.protocol import Listing, parse_cpu
from hotpath.render import avc_stats as shown
from hotpath.results import RunResult
from hotpath.runner import invoke, runner_facts

DEFAULT_SAMPLES = 100
MAX_RUNS = 100
MAX_CHECKS = 1_000_000_000


def node_counts(known: Listing, text: str | None, default: tuple[int, ...]) -> tuple[int, ...]:
    """--sizes as node counts: powers of two within the sizes the runner's
    avc_lookup takes (its variants' domain, c/avc/registry_avc_lookup.c).
    Its `analyze` models any count it is given, 0 and 2^30 included."""
    sizes = parse_sizes(text) if text is not None else default
    prim = known.primitive(PRIMITIVE)
    if prim is None or not prim.variants:
        raise RunnerError(f"the runner has no primitive '{PRIMITIVE}'")
    low = max(1, *(v.min_len for v in prim.variants))
    most = runner_facts().limits.size_max
    high = min((v.max_len for v in prim.variants if v.max_len), default=most)
    for size in sizes:
        if not low <= size <= high or size & (size - 1):
            raise UsageError(f"--sizes '{size}': allowed: node counts, powers of two "
                             f"{low}..{high}")  # fmt: skip
    return sizes


def analyses(args: argparse.Namespace, slots: int) -> dict[str, Any]:
    """The runner's `analyze` output for the asked hashes and node counts."""
    runner = measure.get_runner()
    known = measure.listing(runner)
    sizes = node_counts(known, args.sizes, (512, 2048, 8192))
    wanted = parse_names(args.variants) if args.variants is not None else None
    if wanted:
        measure.check_variants(known, (PRIMITIVE,), wanted)
    command = ["analyze", "--primitive", PRIMITIVE, "--sizes", ",".join(map(str, sizes))]
    command += ["--param", f"slots={slots}", "--param", f"checks={args.checks}"]
    command += ["--param", f"runs={getattr(args, 'runs', 1)}"]
    command += ["--param", f"samples={DEFAULT_SAMPLES}"]
    # the seed table's: the timed walk over its lookups' workload seeds, and
    # the random hash's figures the mean of several random functions
    command += ["--param", f"lookup_seeds={getattr(args, 'walk_seeds', 1)}"]
    command += ["--param", f"randoms={getattr(args, 'randoms', 1)}"]
    if args.trace is not None:
        if not args.trace.is_file():
            raise UsageError(f"--trace '{args.trace}': not a file")
        command += ["--param", f"trace={args.trace.resolve()}"]
    if wanted:
        command += ["--variants", ",".join(wanted)]
    doc = invoke(runner, command)
    if not isinstance(doc, dict) or not isinstance(doc.get("analyses"), list):
        raise RunnerError("runner's analyze output has no analyses")
    return doc


def check_checks(checks: int) -> int:
    if not 1 <= checks <= MAX_CHECKS:
        raise UsageError(f"--checks '{checks}': allowed: 1..{MAX_CHECKS}")
    return checks


def check_runs(runs: int) -> int:
    if not 1 <= runs <= MAX_RUNS:
        raise UsageError(f"--runs '{runs}': allowed: 1..{MAX_RUNS}")
    return runs


def settings(args: argparse.Namespace, slots: int) -> dict[str, Any]:
    """The inputs of a --stats run, as its history row keeps them."""
    return {
        "slots": slots,
        "checks": args.checks,
        "runs": args.runs,
        "samples": DEFAULT_SAMPLES,
        "workload": "synthetic" if args.trace is None else "trace",
        "trace": str(args.trace.resolve()) if args.trace is not None else None,
    }


def to_run(args: argparse.Namespace, slots: int, doc: dict[str, Any]) -> RunResult:
    cpu = doc.get("cpu")
    machine = fingerprint(cpu=parse_cpu(cpu) if isinstance(cpu, dict) else None)
    command_line = getattr(args, "command_line", "")
    return avc_stored.to_run(doc, settings(args, slots), command_line, machine, measure.now_utc())


def run(args: argparse.Namespace, slots: int) -> int:
    """--stats (command.run() has checked --checks): the table, kept in the history."""
    check_runs(args.runs)
    check_common(args)  # the history can be written, before anything runs
    doc = analyses(args, slots)
    result = to_run(args, slots, doc)

    deliver_printed(
        args,
        result,
        lambda: shown.render(doc, slots),
        lambda: shown.to_json(avc_stored.SCHEMA, doc, slots, result.run_id),
    )
    return 0
