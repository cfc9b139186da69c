#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""A recorded-style AVC trace with clustered SIDs, for `hotpath avc --stats --trace`.

    .venv/bin/python scripts/avc_clustered_trace.py > clustered.trace
    .venv/bin/hotpath avc --stats --trace clustered.trace --slots 512 --sizes 512,1024,2048,8192

The workload it writes (issue 42): CLUSTERS containers, each given its SIDs
from a block of its own starting at a multiple of SPACING (as MLS/MCS
category ranges or per-container SID blocks place them), each running the
same services: DOMAINS subject and TYPES object SIDs at the same offsets
in every block, and the same TRIPLES (ssid, tsid, tclass) offsets, checked
with Zipf(1.0) popularity. So SIDs of different containers agree in their
low bits and differ only above log2(SPACING): a hash whose bucket depends
only on the low bits of the SIDs (orig, muladd: the low bits of a sum of
products see only the low bits of the factors) puts one triple of every
container in one bucket. Deterministic from --seed; not a test, a workload.
"""

import argparse
import bisect
import random
import sys


def triples(rng: random.Random, domains: int, types: int, count: int, classes: int) -> list:
    """`count` distinct (ssid, tsid, tclass) offsets within one block."""
    seen: set = set()
    while len(seen) < count:
        s = rng.randrange(domains)
        t = rng.randrange(domains + types)  # targets: domains and types
        c = 1 + min(int(rng.paretovariate(1.2)) - 1, classes - 1)  # a few classes dominate
        seen.add((s, t, c))
    return sorted(seen)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--clusters", type=int, default=16, help="containers (default 16)")
    ap.add_argument("--spacing", type=int, default=1 << 16, help="SID block size (default 65536)")
    ap.add_argument("--domains", type=int, default=24, help="subject SIDs per block (24)")
    ap.add_argument("--types", type=int, default=200, help="object SIDs per block (200)")
    ap.add_argument("--triples", type=int, default=512, help="triples per block (512)")
    ap.add_argument("--classes", type=int, default=100, help="tclass 1..N (100)")
    ap.add_argument("--checks", type=int, default=1_000_000, help="lines written (1000000)")
    ap.add_argument("--seed", type=int, default=42)
    a = ap.parse_args()
    if a.domains + a.types > a.spacing or a.triples > a.domains * (a.domains + a.types):
        ap.error("a block must hold its SIDs and triples")
    rng = random.Random(a.seed)
    offsets = triples(rng, a.domains, a.types, a.triples, a.classes)
    rng.shuffle(offsets)  # popularity rank: the same in every container
    cdf, total = [], 0.0
    for r in range(len(offsets)):
        total += 1.0 / (r + 1)
        cdf.append(total)
    out = sys.stdout
    out.write(
        f"# clustered SIDs: {a.clusters} blocks of {a.spacing}, {a.domains}+{a.types} SIDs "
        f"and {a.triples} triples each, seed {a.seed}\n"
    )
    for _ in range(a.checks):
        base = 28 + rng.randrange(a.clusters) * a.spacing
        s, t, c = offsets[bisect.bisect_left(cdf, rng.random() * total)]
        out.write(f"{base + s},{base + t},{c}\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
