#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""A/A check of the engine: N identical runs, each compared with the next.

    .venv/bin/python scripts/aa_check.py --runs 10 -- csum --sizes 40,1500 --align 0,1

Runs `hotpath ARGS` N times into a fresh database, then `hotpath compare`
of every consecutive pair, and prints how many figures each comparison
called different, and the spread of the figures you name with --watch
(VARIANT:SIZE:ALIGN:MODE) across the N runs. A benchmark, not a test: its
figures belong in docs/engine.md with the machine they came from.
"""

import argparse
import json
import subprocess
import sys
import tempfile
from pathlib import Path


def hotpath(*args: str) -> str:
    exe = Path(sys.executable).parent / "hotpath"
    done = subprocess.run([str(exe), *args], capture_output=True, text=True, check=False)
    if done.returncode not in (0, 1):
        sys.exit(f"hotpath {' '.join(args)} failed ({done.returncode}):\n{done.stderr}")
    return done.stdout


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=10)
    parser.add_argument("--watch", action="append", default=[], metavar="VARIANT:SIZE:ALIGN:MODE")
    parser.add_argument("args", nargs=argparse.REMAINDER, help="-- then the hotpath command")
    opts = parser.parse_args()
    args = [a for a in opts.args if a != "--"] or ["csum", "--sizes", "40,1500", "--align", "0,1"]
    watch = opts.watch or ["hp-csum:1500:0:throughput"]
    with tempfile.TemporaryDirectory() as tmp:
        db = str(Path(tmp) / "aa.sqlite")
        medians: dict[str, list[float]] = {w: [] for w in watch}
        for i in range(opts.runs):
            doc = json.loads(hotpath(*args, "--db", db, "--json"))
            for w in watch:
                variant, size, align, mode = w.split(":")
                for f in doc["figures"]:
                    if (f["variant"], str(f["size"]), str(f["align"]), f["mode"]) == (
                        variant, size, align, mode
                    ) and f["median"] is not None:  # fmt: skip
                        medians[w].append(f["median"])
            print(f"run {i + 1}/{opts.runs} done", file=sys.stderr)
        worst = 1.0
        for i in range(1, opts.runs):
            doc = json.loads(hotpath("compare", str(i), str(i + 1), "--db", db, "--json"))
            verdicts = [f["verdict"] for f in doc["figures"]]
            none = sum(v.startswith("no evidence") for v in verdicts)
            worst = min(worst, none / len(verdicts))
            called = [
                f"{f['variant']} {f['size']}/{f['align']} {f['mode']} {f['ratio']:.3f}"
                for f in doc["figures"]
                if not f["verdict"].startswith("no evidence")
            ]
            print(f"{i}->{i + 1}: {none}/{len(verdicts)} no evidence; called: {called}")
        print(f"worst pair: {worst:.1%} of figures 'no evidence'")
        for w, values in medians.items():
            if values:
                spread = max(values) / min(values) - 1
                shown = ", ".join(f"{v:.2f}" for v in values)
                print(f"{w}: {shown}; max/min - 1 = {spread:.2%}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
