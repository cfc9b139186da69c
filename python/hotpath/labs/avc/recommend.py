# SPDX-License-Identifier: GPL-2.0-only
"""`hotpath avc --recommend [--sizes N] [--trace FILE]`: a slot count and a hash.

For a cache of N nodes (the threshold; default the kernel's 512) under a
workload (the synthetic one, or a recorded trace), every slot count the
kernel's Kconfig allows (2^9..2^14) is timed with every hash: avc_search_node()
in latency mode, core cycles, median over clean samples. The choice: among
the configurations within TOLERANCE of the fastest lookup, the one that
costs the fewest bytes (slots and nodes, as the kernel lays them out), the
cheaper hash on a tie. The table it chose from is printed with it.
"""

import argparse
import json
import sys
from dataclasses import dataclass

from hotpath import measure
from hotpath.errors import HotpathError, UsageError
from hotpath.labs.avc import stats as avc_stats

KCONFIG_SLOTS = tuple(1 << bits for bits in range(9, 15))
TOLERANCE = 0.05


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


def _measure(args: argparse.Namespace, nodes: int) -> tuple[list[Option], list[str]]:
    """The options timed, and why the others were not (a neighbour on the core)."""
    runner = measure.get_runner()
    options, untimed = [], []
    for slots in KCONFIG_SLOTS:
        sub = argparse.Namespace(
            sizes=str(nodes), variants=None, checks=args.checks, trace=args.trace, runs=1
        )
        model = {a["variant"]: a["result"] for a in avc_stats.analyses(sub, slots)["analyses"]}
        extra = ["--param", f"slots={slots}"]
        if args.trace is not None:
            extra += ["--param", f"trace={args.trace.resolve()}"]
        request = measure.Request(
            primitive=avc_stats.PRIMITIVE,
            sizes=(nodes,),
            aligns=(0,),
            modes=("latency",),
            rounds=args.rounds,
            extra=extra,
        )
        groups = measure.run_requests(runner, [request], [], show_progress=sys.stderr.isatty())
        run = measure.new_run("avc", groups, 0.05, args.command_line)
        for fig in run.figures:
            result = model.get(fig.variant)
            if fig.timed and fig.median is not None and result:
                memory, hit_rate = result["memory_bytes"], result["hit_rate"]
                options.append(Option(slots, fig.variant, fig.median, memory, hit_rate))
            elif not fig.timed:
                untimed.append(f"{slots} slots {fig.variant}: {fig.reason or fig.status}")
    return options, untimed


def run(args: argparse.Namespace) -> int:
    sizes = avc_stats.node_counts(measure.listing(measure.get_runner()), args.sizes, (512,))
    if len(sizes) != 1:
        raise UsageError(f"--sizes '{args.sizes}': allowed with --recommend: one node count, "
                         "a power of two")  # fmt: skip
    options, untimed = _measure(args, sizes[0])
    if not options:
        # Not the input's fault: exit 1, with the engine's reason.
        raise HotpathError("--recommend: no configuration could be timed"
                           + (f" ({untimed[0]})" if untimed else ""))  # fmt: skip
    best = choose(options)
    if getattr(args, "json", False):
        doc = {
            "schema": "hotpath.avc-recommend/1",
            "nodes": sizes[0],
            "rule": f"fewest bytes within {TOLERANCE:.0%} of the fastest lookup",
            "choice": best.__dict__,
            "options": [o.__dict__ for o in options],
            "untimed": untimed,
        }
        sys.stdout.write(json.dumps(doc, indent=2) + "\n")
        return 0
    hashes = sorted({o.hash for o in options})
    table = {(o.slots, o.hash): o for o in options}
    workload = f"trace {args.trace}" if args.trace is not None else "the synthetic workload"
    lines = [
        f"{sizes[0]} nodes, {workload}: avc_search_node() in latency mode, core cycles "
        "(median over clean samples), per slot count (CONFIG_SECURITY_SELINUX_AVC_HASH_BITS "
        "9..14) and hash",
        "",
        f"{'slots':>6} {'memory':>9} " + "".join(f"{h:>9}" for h in hashes),
    ]
    for slots in KCONFIG_SLOTS:
        row = [table.get((slots, h)) for h in hashes]
        memory = next((o.memory for o in row if o), 0)
        lines.append(
            f"{slots:>6} {memory / 1024:>6.0f} KiB "
            + "".join(f"{o.cycles:>9.1f}" if o else f"{'n/a':>9}" for o in row)
        )
    lines += [
        "",
        f"recommended: {best.slots} slots (CONFIG_SECURITY_SELINUX_AVC_HASH_BITS="
        f"{best.slots.bit_length() - 1}) with {best.hash}: {best.cycles:.1f} cycles a lookup, "
        f"{best.memory / 1024:.0f} KiB; the rule: the fewest bytes among the configurations "
        f"within {TOLERANCE:.0%} of the fastest lookup ({min(o.cycles for o in options):.1f} "
        "cycles)",
    ]
    if untimed:
        lines.append(f"chosen among the timed ones; {len(untimed)} not timed (n/a above): "
                     f"{untimed[0]}" + (", ..." if len(untimed) > 1 else ""))  # fmt: skip
    sys.stdout.write("\n".join(lines) + "\n")
    return 0
