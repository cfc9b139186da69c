#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""Power check of the engine: how small a change does compare call?

    .venv/bin/python scripts/power_check.py --extra 0.02 --sizes 40,1500,65536 --trials 20

docs/examples/kernel_5_17_plus.c is built twice: `plus_0` (kernel-5.17
behind the example's call, no extra add) and `plus_N` (the same, and a
chain of adds of about the --extra share of its latency), so that only
the adds differ. Each trial is two runs with --repeat N (N runner
processes each) into a fresh database: A times plus_0, B times plus_0
and plus_N. Then `hotpath compare A:plus_0 B:plus_N` (two runs: Welch on
the replicas) and `hotpath compare B:plus_0 B:plus_N` (one run: paired
replica by replica), each with --threshold 0 (every difference the
evidence shows has a direction) and with the default 0.02.
Prints per size and mode how often each design calls B slower, and the
B/A ratios measured (a whole add is the smallest step, and calls overlap
the chain in throughput mode). A benchmark, not a test: its figures belong in
docs/engine.md.
"""

import argparse
import json
import subprocess
import sys
import tempfile
from collections import Counter, defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PLUS = ROOT / "docs" / "examples" / "kernel_5_17_plus.c"


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
    parser.add_argument("--extra", type=float, default=0.05, help="share of latency added")
    parser.add_argument("--json", type=Path, default=None, help="also write the tallies here")
    opts = parser.parse_args()
    permille = round(opts.extra * 1000)
    if not 1 <= permille <= 1000:
        sys.exit(f"--extra '{opts.extra}': allowed: 0.001 to 1")
    base = ["csum", "--sizes", opts.sizes, "--align", "0", "--modes", "latency,throughput"]
    base += ["--variants", "rfc1071-ref", "--repeat", str(opts.repeat), "--no-debian-kernels"]
    fast, slow = "plus_0", f"plus_{permille}"
    # (design, threshold, size, mode) -> verdicts; (design, size, mode) -> ratios
    tallies: dict[tuple[str, str, int, str], Counter[str]] = defaultdict(Counter)
    ratios: dict[tuple[str, int, str], list[float]] = defaultdict(list)
    with tempfile.TemporaryDirectory() as tmp:
        db = str(Path(tmp) / "power.sqlite")
        brought = []
        for name, share in ((fast, 0), (slow, permille)):
            source = Path(tmp) / f"{name}.c"
            source.write_text(
                f"// hotpath: cflags=-DHP_EXTRA_PERMILLE={share} -DHP_EXTRA_FN={name}\n"
                f'#include "{PLUS}"\n'
            )
            brought.append(["--with", f"{source}:{name}"])
        for trial in range(opts.trials):
            hotpath(*base, *brought[0], "--db", db)
            hotpath(*base, *brought[0], *brought[1], "--db", db)
            a, b = 2 * trial + 1, 2 * trial + 2
            pairs = {
                "two runs": (f"{a}:{fast}", f"{b}:{slow}"),
                "one run, paired": (f"{b}:{fast}", f"{b}:{slow}"),
            }
            for design, (left, right) in pairs.items():
                for threshold in ("0", "0.02"):
                    doc = json.loads(
                        hotpath(
                            "compare", left, right, "--db", db, "--json", "--threshold", threshold
                        )
                    )
                    for row in doc["figures"]:
                        key = (design, threshold, row["size"], row["mode"])
                        tallies[key][row["verdict"]] += 1
                        if threshold == "0":
                            ratios[(design, row["size"], row["mode"])].append(row["ratio"])
            print(f"trial {trial + 1}/{opts.trials} done", file=sys.stderr)
    print(f"extra {opts.extra:g} of the modelled latency, --repeat {opts.repeat}, ", end="")
    print(f"{opts.trials} trials")
    rows = []
    for (design, threshold, size, mode), tally in sorted(tallies.items()):
        measured = ratios[(design, size, mode)]
        shown = ", ".join(f"{k}: {n}" for k, n in sorted(tally.items()))
        print(
            f"{design:<16} threshold {threshold:<4} {size:>6} B {mode:<10} slower in "
            f"{tally['slower']}/{opts.trials}; B/A {min(measured):.3f}..{max(measured):.3f} "
            f"({shown})"
        )
        rows.append(
            {"design": design, "threshold": float(threshold), "size": size, "mode": mode,
             "slower": tally["slower"], "trials": opts.trials, "verdicts": dict(tally),
             "ratio_min": min(measured), "ratio_max": max(measured)}
        )  # fmt: skip
    if opts.json is not None:
        opts.json.write_text(json.dumps({"extra": opts.extra, "repeat": opts.repeat, "rows": rows}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
