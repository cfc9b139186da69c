#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""Issue 26's bar: is hotpath's own dispatched variant within 3% or 1 core cycle
(whichever is larger) of the best correct variant, at every figure of a run?

    .venv/bin/hotpath csum --sizes 1..65536 --align 0,1 --modes latency,throughput \\
        --repeat 3 --no-store --json > csum.json
    .venv/bin/python scripts/own_bar.py csum.json

Reads a `--json` result (hotpath.result/1 or /2, core cycles), and per size,
alignment and mode compares the own variant (`hp-csum` for csum_partial,
`hotpath` for crc32c; `--own NAME` for another) with the fastest variant whose
check passed. Prints the figures that miss the bar, with the variant ahead,
and three counts: within 3%, within 3% or 1 cycle, and not behind any variant
that is not hotpath's own (its single-method variants, `hp-csum-*`, excluded)
by more than the margin. A benchmark, not a test: its figures belong in
docs/dispatch.md with the machine they came from.
"""

import argparse
import json
import sys
from collections import defaultdict

OWN = {"csum_partial": "hp-csum", "crc32c": "hotpath"}
# hotpath's single-method variants, called directly: the row chooses among
# them, so "no other variant ahead" leaves them out (the first count does not)
OWN_METHODS = ("hp-csum-", "sse42-", "pclmul-fold", "vpclmul-", "fused-crc32-", "slice-by-8")


def margin(best: float) -> float:
    return max(0.03 * best, 1.0)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("result", help="a `hotpath LAB ... --json` output file")
    parser.add_argument("--own", help="the variant held to the bar (default: by primitive)")
    parser.add_argument(
        "--exclude",
        action="append",
        default=[],
        metavar="VARIANT",
        help="leave a variant out, e.g. a peer with its own CPU dispatch (isal-crc32_iscsi)"
        " in a run with HOTPATH_CPU_HIDE, which hides features from hotpath only",
    )
    opts = parser.parse_args()
    with open(opts.result, encoding="utf-8") as f:
        doc = json.load(f)
    correct = {
        (v["primitive"], v["name"])
        for v in doc["variants"]
        if v["status"] == "ok" and v["name"] not in opts.exclude
    }
    cells: dict[tuple, dict[str, float]] = defaultdict(dict)
    for fig in doc["figures"]:
        if fig["unit"] != "cycles":
            sys.exit(f"own_bar: a figure in {fig['unit']}, expected core cycles (no --unit ticks)")
        if (
            fig["status"] == "ok"
            and fig["median"] is not None
            and (fig["primitive"], fig["variant"]) in correct
        ):
            key = (fig["primitive"], fig["size"], fig["align"], fig["mode"])
            cells[key][fig["variant"]] = fig["median"]
    counts = {"figures": 0, "within 3%": 0, "within 3% or 1 cycle": 0, "ahead of every other": 0}
    misses = []
    for key in sorted(cells):
        prim, size, align, mode = key
        own = opts.own or OWN.get(prim)
        times = cells[key]
        if own not in times:
            continue
        mine = times[own]
        best_name = min(times, key=times.__getitem__)
        best = times[best_name]
        others = {n: t for n, t in times.items() if n != own and not n.startswith(OWN_METHODS)}
        counts["figures"] += 1
        counts["within 3%"] += mine <= 1.03 * best
        ok = mine <= best + margin(best)
        counts["within 3% or 1 cycle"] += ok
        if others:
            other = min(others, key=others.__getitem__)
            counts["ahead of every other"] += mine <= others[other] + margin(others[other])
        if not ok:
            misses.append(
                f"{prim:13} {size:>8} {align:>5} {mode:10} {own} {mine:9.1f}  "
                f"{best_name} {best:9.1f}  ({mine / best:.3f}x, +{mine - best:.1f})"
            )
    if not counts["figures"]:
        sys.exit("own_bar: no figure of the own variant in this result")
    machine = doc.get("machine", {})
    m = machine.get
    cpu = f"family {m('family')} model {m('model')} stepping {m('stepping')}"
    where = machine.get("hypervisor") or "bare metal"
    print(
        f"machine: {machine.get('model_name')}, {cpu}, {machine.get('logical_cpus')} CPUs, {where}"
    )
    for line in misses:
        print(line)
    total = counts.pop("figures")
    print(", ".join(f"{name}: {n} of {total}" for name, n in counts.items()))
    return 0 if not misses else 1


if __name__ == "__main__":
    sys.exit(main())
