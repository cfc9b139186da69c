# SPDX-License-Identifier: GPL-2.0-only
"""`hotpath dispatch [--write FILE]`: measure this machine's dispatch row.

Times each method of hp_csum() (even and odd addresses) and hp_crc32c()
beside the row in use (hotpath.dispatch says how the row is chosen),
prints the row this machine's figures ask for and, per length, the gain
over the row in use. `--write FILE` saves the row; HOTPATH_DISPATCH=FILE
then makes the library (libhotpath, libhpsum) use it, no recompiling.
"""

import argparse
import sys
from pathlib import Path

from hotpath import dispatch, measure
from hotpath.destination import check_folder, write_file
from hotpath.errors import UsageError
from hotpath.inputs import check_rounds

MODES = ("latency", "throughput")


def add_parser(subparsers: "argparse._SubParsersAction[argparse.ArgumentParser]") -> None:
    parser = subparsers.add_parser(
        "dispatch",
        help="measure which method of hp_csum()/hp_crc32c() wins at each length here",
        description="Times hp_csum()'s and hp_crc32c()'s methods at each length (latency and "
        "throughput) beside the dispatch row in use, and prints the row this machine's "
        "figures ask for with the gain over the one in use. About a minute. "
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
    for primitive, methods, own, sizes, aligns in (
        ("csum_partial", dispatch.CSUM_METHODS, dispatch.CSUM_IN_USE, dispatch.CSUM_SIZES, (0, 1)),
        ("crc32c", dispatch.CRC32C_METHODS, dispatch.CRC32C_IN_USE, dispatch.CRC32C_SIZES, (0,)),
    ):
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
    lines = [
        f"machine: {machine.one_line()}",
        f"row in use: {in_use.get('name', 'unknown')} ({in_use.get('source', 'unknown')})",
        *(f"    {line}" for line in in_use.get("text", "").splitlines()),
        "",
        "core cycles per call, geometric mean of the latency and throughput medians "
        f"({rounds} samples each):",
        f"{'primitive':<13} {'size':>8} {'addr':>4} {'method':<19} {'cycles':>9} "
        f"{'in use':>9} {'gain':>6}",
    ]
    for primitive, points in (("csum_partial", csum[0] + csum[1]), ("crc32c", crc)):
        for p in points:
            addr = "odd" if p.align % 2 else "even"
            in_use_text = f"{p.in_use:9.1f}" if p.in_use else f"{'-':>9}"
            gain = f"{p.gain:5.2f}x" if p.gain else f"{'-':>6}"
            split = "; ".join(f"{mode}: {m} {r:.2f}x faster" for mode, m, r in p.split)
            lines.append(
                f"{primitive:<13} {p.size:>8} {addr:>4} {p.method:<19} {p.chosen:9.1f} "
                f"{in_use_text} {gain}" + (f"  ({split})" if split else "")
            )
    if any(p.split for points in (*csum.values(), crc) for p in points):
        lines.append(
            "(in brackets: a mode whose own best method is more than 3% faster than the "
            "chosen one; no one method is within 3% in every mode at that length)"
        )
    gains = [p.gain for points in (*csum.values(), crc) for p in points if p.gain]
    if gains:
        lines.append(
            f"the measured row is {max(gains):.2f}x faster than the row in use at best, "
            f"{min(gains):.2f}x at worst (below 1: the row in use's own method won there)"
        )
    lines += ["", "measured row:", *(f"    {line}" for line in text.splitlines())]
    print("\n".join(lines))
    if args.write is not None:
        header = f"# hotpath dispatch row, measured on {machine.one_line()}\n"
        write_file(args.write, header + text)
        print(f"written to {args.write}; use it with HOTPATH_DISPATCH={args.write}")
    return 0
