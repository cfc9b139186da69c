# SPDX-License-Identifier: GPL-2.0-only
"""`hotpath dispatch [--write FILE]`: measure this machine's dispatch row.

Times each method of hp_csum() (even and odd addresses) and hp_crc32c()
beside the row in use (hotpath.dispatch says how the row is chosen),
prints the row this machine's figures ask for and, per length, the gain
over the row in use, predicted from the methods and then measured by
running that row. `--write FILE` saves the row; HOTPATH_DISPATCH=FILE
then makes the library (libhotpath, libhpsum) use it, no recompiling.
"""

import argparse
import dataclasses
import sys
import tempfile
from pathlib import Path

from hotpath import dispatch, measure
from hotpath.destination import check_folder, write_file
from hotpath.errors import RunnerError, UsageError
from hotpath.inputs import check_rounds
from hotpath.runner import Runner

MODES = ("latency", "throughput")
# primitive, its methods, hotpath's own variant (runs the row), sizes, aligns
SPECS = (
    ("csum_partial", dispatch.CSUM_METHODS, dispatch.CSUM_IN_USE, dispatch.CSUM_SIZES, (0, 1)),
    ("crc32c", dispatch.CRC32C_METHODS, dispatch.CRC32C_IN_USE, dispatch.CRC32C_SIZES, (0,)),
)


def add_parser(subparsers: "argparse._SubParsersAction[argparse.ArgumentParser]") -> None:
    parser = subparsers.add_parser(
        "dispatch",
        help="measure which method of hp_csum()/hp_crc32c() wins at each length here",
        description="Times hp_csum()'s and hp_crc32c()'s methods at each length (latency and "
        "throughput) beside the dispatch row in use, and prints the row this machine's "
        "figures ask for with the gain over the one in use; then runs that row (HOTPATH_DISPATCH) "
        "beside the one in use and prints the gain measured through the dispatch ('run'). "
        "About a minute. "
        "HOTPATH_CPU_HIDE=avx512f,avx512bw (feature names as `hotpath list` prints them) "
        "measures as on a CPU without those features.",
    )
    parser.add_argument("--rounds", type=int, default=60, help="samples per figure (default 60)")
    parser.add_argument(
        "--write", type=Path, default=None, metavar="FILE",
        help="save the measured row; use it with HOTPATH_DISPATCH=FILE",
    )  # fmt: skip
    parser.set_defaults(handler=run)


def _request(primitive: str, variants: list[str], sizes: tuple[int, ...], aligns: tuple[int, ...],
             rounds: int) -> measure.Request:  # fmt: skip
    return measure.Request(primitive, sizes, aligns, MODES, rounds, variants=tuple(variants))


RUN_PAIRS = 3  # measured row, row in use; alternated this many times


def _run_row(
    runner: Runner, rows: dict[str, tuple[str, str]], primitives: set[str], rounds: int
) -> dict[tuple[str, int, int], list[float]]:
    """hotpath's own variants run with the measured row and with the row in
    use, alternately, each read from a file through HOTPATH_DISPATCH: per
    (primitive, size, align) the in-use/measured ratio of every pair. One
    pair is not enough: on a Zen 5 two runs of the same row differed by up
    to 14% at some lengths (csum 96 bytes, crc32c 16), run to run."""
    own = [
        _request(p, [v], sizes, aligns, rounds)
        for p, _, v, sizes, aligns in SPECS
        if p in primitives
    ]
    ratios: dict[tuple[str, int, int], list[float]] = {}
    with tempfile.TemporaryDirectory(prefix="hotpath-dispatch-") as folder:
        runs = {}
        for which, (name, text) in rows.items():
            path = Path(folder) / f"{which}.txt"
            path.write_text(text)
            runs[which] = dataclasses.replace(runner, env=(("HOTPATH_DISPATCH", str(path)),))
            taken = (measure.listing(runs[which]).dispatch or {}).get("name")
            if taken != name:
                raise RunnerError(f"the runner did not take the row in {path}: "
                                  f"its row is {taken or 'unknown'}")  # fmt: skip
        for _ in range(RUN_PAIRS):
            results = {
                which: measure.new_run(
                    "dispatch",
                    measure.run_requests(run, own, [], show_progress=sys.stderr.isatty()),
                    0.05,
                    "",
                )
                for which, run in runs.items()
            }
            for key, ratio in dispatch.run_gains(results["new"], results["use"]).items():
                ratios.setdefault(key, []).append(ratio)
    return ratios


def run(args: argparse.Namespace) -> int:
    rounds = check_rounds(args.rounds)
    if args.write is not None:
        if args.write.is_dir():
            raise UsageError(f"--write '{args.write}': a folder; allowed: a file to write")
        check_folder(args.write.parent, "--write")
    runner = measure.get_runner()
    known = measure.listing(runner)
    in_use = known.dispatch or {}
    requests = []
    for primitive, methods, own, sizes, aligns in SPECS:
        prim = known.primitive(primitive)
        if prim is None:
            raise UsageError(f"the runner has no primitive '{primitive}'")
        names = {v.name for v in prim.variants}
        wanted = [v for v in (*methods.values(), own) if v in names]
        requests.append(_request(primitive, wanted, sizes, aligns, rounds))
    groups = measure.run_requests(runner, requests, [], show_progress=sys.stderr.isatty())
    result = measure.new_run("dispatch", groups, 0.05, args.command_line)
    csum = {
        align: dispatch.choose(
            result, "csum_partial", dispatch.CSUM_METHODS, dispatch.CSUM_IN_USE, align
        )
        for align in (0, 1)
    }
    crc = dispatch.choose(result, "crc32c", dispatch.CRC32C_METHODS, dispatch.CRC32C_IN_USE, 0)
    machine = result.machine
    name = f"measured-{machine.vendor.lower()}-f{machine.family}m{machine.model}"
    text = dispatch.row_text(
        name,
        {align: dispatch.steps(points, "scalar") for align, points in csum.items()},
        dispatch.steps(crc),
    )
    by_primitive = (("csum_partial", csum[0] + csum[1]), ("crc32c", crc))
    every = [p for _, points in by_primitive for p in points]
    # no row text from the runner: nothing to run the measured row against
    runs = dispatch.changed(text, in_use["text"]) if in_use.get("text") else set()
    if runs:
        rows = {"new": (name, text), "use": (in_use.get("name", ""), in_use.get("text", ""))}
        run_gains = _run_row(runner, rows, runs, rounds)
        for primitive, points in by_primitive:
            for p in points:
                p.run_ratios = tuple(run_gains.get((primitive, p.size, p.align), ()))
    lines = [
        f"machine: {machine.one_line()}",
        f"row in use: {in_use.get('name', 'unknown')} ({in_use.get('source', 'unknown')})",
        *(f"    {line}" for line in in_use.get("text", "").splitlines()),
        "",
        "core cycles per call, geometric mean of the latency and throughput medians "
        f"({rounds} samples each):",
        f"{'primitive':<13} {'size':>8} {'addr':>4} {'method':<19} {'cycles':>9} "
        f"{'in use':>9} {'gain':>6} {'run':>7}",
    ]
    for primitive, points in by_primitive:
        for p in points:
            addr = "odd" if p.align % 2 else "even"
            in_use_text = f"{p.in_use:9.1f}" if p.in_use else f"{'-':>9}"
            gain = f"{p.gain:5.2f}x" if p.gain else f"{'-':>6}"
            run_text = (
                f"{p.run_gain:5.2f}x" + ("!" if p.run_worse else " ")
                if p.run_gain
                else "same"
                if runs and primitive not in runs
                else "-"
            )
            split = "; ".join(f"{mode}: {m} {r:.2f}x faster" for mode, m, r in p.split)
            lines.append(
                f"{primitive:<13} {p.size:>8} {addr:>4} {p.method:<19} {p.chosen:9.1f} "
                f"{in_use_text} {gain} {run_text:>7}" + (f"  ({split})" if split else "")
            )
    if any(p.split for p in every):
        lines.append(
            "(in brackets: a mode whose own best method is more than 3% faster than the "
            "chosen one; no one method is within 3% in every mode at that length)"
        )
    gains = [p.gain for p in every if p.gain]
    if gains:
        lines.append(
            f"the measured row is {max(gains):.2f}x faster than the row in use at best, "
            f"{min(gains):.2f}x at worst (below 1: the row in use's own method won there)"
        )
    ran = [p.run_gain for p in every if p.run_gain]
    if ran:
        worse = sum(p.run_worse for p in every)
        lines.append(
            "run: hp_csum() and hp_crc32c() timed with the measured row and with the row in use "
            f"(HOTPATH_DISPATCH, {RUN_PAIRS} alternating pairs of runs): {max(ran):.2f}x at best, "
            f"{min(ran):.2f}x at worst; "
            + (f"{worse} length(s) marked '!' ran more than {dispatch.RUN_WORSE:.0%} slower "
               "with the measured row in every pair: the gain column, methods timed alone, "
               "missed what the dispatch costs there" if worse
               else "no length ran slower in every pair")
        )  # fmt: skip
    if runs and len(runs) < len(SPECS):
        lines.append("same: the measured row's steps for that primitive are the row in use's")
    elif not in_use.get("text"):
        lines.append("the runner does not say which row it uses: the measured row was not run")
    elif not runs:
        lines.append("the measured row names the row in use's steps: nothing to run")
    lines += ["", "measured row:", *(f"    {line}" for line in text.splitlines())]
    print("\n".join(lines))
    if args.write is not None:
        header = f"# hotpath dispatch row, measured on {machine.one_line()}\n"
        write_file(args.write, header + text)
        print(f"written to {args.write}; use it with HOTPATH_DISPATCH={args.write}")
    return 0
