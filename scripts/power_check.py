#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""Power check of the engine: is a 5% slower variant called slower?

    .venv/bin/python scripts/power_check.py --trials 20

Each trial is two runs with --repeat 3 (3 runner processes each) into a
fresh database: A times kernel-5.17 alone, B times kernel-5.17 beside
docs/examples/kernel_5_17_plus5.c (its work and 5% more at 64 KiB). Then
`hotpath compare A:kernel-5.17 B:kernel_5_17_plus5` (two runs: Welch on
the replicas) and `hotpath compare B:kernel-5.17 B:kernel_5_17_plus5` (one
run: paired replica by replica). Prints how often each calls it slower.
A benchmark, not a test: its figures belong in docs/engine.md.
"""

import argparse
import json
import subprocess
import sys
import tempfile
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PLUS5 = ROOT / "docs" / "examples" / "kernel_5_17_plus5.c"
SLOW = "kernel_5_17_plus5"


def hotpath(*args: str) -> str:
    exe = Path(sys.executable).parent / "hotpath"
    done = subprocess.run([str(exe), *args], capture_output=True, text=True, check=False)
    if done.returncode != 0:
        sys.exit(f"hotpath {' '.join(args)} failed ({done.returncode}):\n{done.stderr}")
    return done.stdout


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--trials", type=int, default=20)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--sizes", default="65536")
    opts = parser.parse_args()
    base = ["csum", "--sizes", opts.sizes, "--align", "0", "--modes", "latency,throughput"]
    base += ["--variants", "kernel-5.17", "--repeat", str(opts.repeat)]
    tallies: dict[str, Counter[str]] = {"two runs": Counter(), "one run, paired": Counter()}
    ratios: dict[str, list[float]] = {"two runs": [], "one run, paired": []}
    with tempfile.TemporaryDirectory() as tmp:
        db = str(Path(tmp) / "power.sqlite")
        for trial in range(opts.trials):
            hotpath(*base, "--db", db)
            hotpath(*base, "--with", f"{PLUS5}:{SLOW}", "--db", db)
            a, b = 2 * trial + 1, 2 * trial + 2
            pairs = {
                "two runs": (f"{a}:kernel-5.17", f"{b}:{SLOW}"),
                "one run, paired": (f"{b}:kernel-5.17", f"{b}:{SLOW}"),
            }
            for design, (left, right) in pairs.items():
                doc = json.loads(hotpath("compare", left, right, "--db", db, "--json"))
                for row in doc["figures"]:
                    tallies[design][f"{row['mode']} {row['verdict']}"] += 1
                    ratios[design].append(row["ratio"])
            print(f"trial {trial + 1}/{opts.trials} done", file=sys.stderr)
    for design, tally in tallies.items():
        shown = ", ".join(f"{k}: {n}" for k, n in sorted(tally.items()))
        lo, hi = min(ratios[design]), max(ratios[design])
        print(f"{design}: {shown}; B/A ratios {lo:.3f}..{hi:.3f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
