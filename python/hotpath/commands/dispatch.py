# SPDX-License-Identifier: GPL-2.0-only
"""`hotpath dispatch [--write FILE]`: measure this machine's dispatch row.

Times each method of hp_csum() (even and odd addresses) and hp_crc32c()
beside the row in use (hotpath.dispatch says how the row is chosen),
prints the row this machine's figures ask for and, per length, the gain
over the row in use, predicted from the methods and then measured by
running that row (the text: hotpath.render.dispatch). `--write FILE`
saves the row; HOTPATH_DISPATCH=FILE then makes the library (libhotpath,
libhpsum) use it, no recompiling.
"""

import argparse
import dataclasses
import sys
import tempfile
from pathlib import Path

from hotpath import dispatch, measure, measured_rows
from hotpath.destination import check_folder, write_file
from hotpath.errors import HotpathError, RunnerError, UsageError
from hotpath.inputs import check_rounds, path
from hotpath.protocol import DispatchFacts, Listing, ParsedRow, Steps, parse_row
from hotpath.render import dispatch as shown
from hotpath.results import RunResult
from hotpath.runner import Runner, invoke, runner_facts

MODES = ("latency", "throughput")


def _parse(runner: Runner, text: str) -> ParsedRow:
    """A row as the library reads it (`hotpath-bench row`: the one parser)."""
    return parse_row(invoke(runner, ["row", text]))


def _key(facts: DispatchFacts, primitive: str, align: int) -> str:
    """The row's key for a primitive at an address parity."""
    keys = facts.of(primitive).keys
    return keys[align % len(keys)]


def add_parser(subparsers: "argparse._SubParsersAction[argparse.ArgumentParser]") -> None:
    parser = subparsers.add_parser(
        "dispatch",
        description="Times hp_csum()'s and hp_crc32c()'s methods at each length (latency and "
        "throughput) beside the dispatch row in use, and prints the row this machine's "
        "figures ask for with the gain over the one in use; then runs that row (HOTPATH_DISPATCH) "
        "beside the one in use and prints the gain measured through the dispatch ('run'); where "
        "it ran slower, the row in use's method takes the length back (the repaired row, run "
        "and written instead). "
        "About 10 s on a Zen 5; a contended core takes longer. --try FILE runs a row of "
        "your own beside the one in use instead. "
        "HOTPATH_CPU_HIDE=avx512f,avx512bw (feature names as `hotpath list` prints them) "
        "measures as on a CPU without those features.",
    )
    parser.add_argument("--rounds", type=int, default=60, help="samples per figure (default 60)")
    parser.add_argument(
        "--write", type=path, default=None, metavar="FILE",
        help="save the measured row; use it with HOTPATH_DISPATCH=FILE",
    )  # fmt: skip
    parser.add_argument(
        "--try", dest="try_row", type=path, default=None, metavar="FILE",
        help="no method figures: run the row in FILE beside the row in use (hp_csum() and "
        "hp_crc32c() through each, alternating pairs of runs) and print the gain per length",
    )  # fmt: skip
    parser.add_argument(
        "--save", action="store_true",
        help="keep the row where the library looks for this CPU's measured row (the user's "
        "cache; the set-up runs this): libhotpath and libhpsum then use it when they load",
    )  # fmt: skip
    parser.add_argument(
        "--system", action="store_true",
        help="as --save, for every user of an installed libhpsum (root only; --show names "
        "the folder)",
    )  # fmt: skip
    parser.add_argument(
        "--tax", action="store_true",
        help="measure no row: time hp_csum() and hp_crc32c() with the row in use beside the "
        "method that row runs at each length, called alone (latency and throughput), and "
        "print what the dispatch costs per length (the tax; the bar is 0.5 cycle)",
    )  # fmt: skip
    parser.add_argument(
        "--show", action="store_true",
        help="measure nothing: which row is in use, from where, when and on what it was "
        "measured, and where this CPU's measured row would be kept",
    )  # fmt: skip
    parser.set_defaults(handler=run)


def _request(primitive: str, variants: list[str], sizes: tuple[int, ...], aligns: tuple[int, ...],
             rounds: int) -> measure.Request:  # fmt: skip
    return measure.Request(primitive, sizes, aligns, MODES, rounds, variants=tuple(variants))


RUN_PAIRS = 3  # measured row, row in use; alternated this many times


def _run_row(
    runner: Runner,
    facts: DispatchFacts,
    rows: dict[str, tuple[str, str]],
    primitives: set[str],
    rounds: int,
) -> dict[tuple[str, int, int], list[float]]:
    """hotpath's own variants run with a row ("new": measured, repaired or
    tried) and with the row in use ("use"), alternately, each read from a
    file through HOTPATH_DISPATCH: per (primitive, size, align) the
    use/new ratio of every pair. One
    pair is not enough: on a Zen 5 two runs of the same row differed by up
    to 14% at some lengths (csum 96 bytes, crc32c 16), run to run."""
    own = [
        _request(p, [facts.of(p).own], *dispatch.PLAN[p], rounds)
        for p in dispatch.PLAN
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
            for key, ratio in dispatch.run_gains(facts, results["new"], results["use"]).items():
                ratios.setdefault(key, []).append(ratio)
    return ratios


def _attach(
    ratios: dict[tuple[str, int, int], list[float]],
    by_primitive: tuple[tuple[str, list[dispatch.Point]], ...],
) -> None:
    """Each point's ratios from _run_row()."""
    for primitive, points in by_primitive:
        for p in points:
            p.run_ratios = tuple(ratios.get((primitive, p.size, p.align), ()))


def _row(
    runner: Runner,
    facts: DispatchFacts,
    name: str,
    csum: dict[int, list[dispatch.Point]],
    crc: list[dispatch.Point],
) -> ParsedRow:
    """The row the points ask for, as the library reads it (the runner's
    parser): its steps and its text."""
    cs = facts.of("csum_partial")
    first = next(iter(cs.methods))
    steps: Steps = {
        _key(facts, "csum_partial", align): dispatch.steps(points, facts.steps_max, first)
        for align, points in sorted(csum.items())
    }
    steps[_key(facts, "crc32c", 0)] = dispatch.steps(crc, facts.steps_max)
    row = _parse(runner, dispatch.row_text(name, steps))
    if not row.ok:
        raise RunnerError(f"the measured row is one the library refuses: {row.error}")
    return row


def _repair(
    runner: Runner,
    facts: DispatchFacts,
    name: str,
    csum: dict[int, list[dispatch.Point]],
    crc: list[dispatch.Point],
    use_row: tuple[str, str],
    use: Steps,
    rounds: int,
) -> tuple[str, list[str]]:
    """The measured row with the row in use's method wherever it ran slower
    in every pair, run the same way: its text and what to print."""
    fixed_csum = {a: dispatch.repaired(csum[a], use[_key(facts, "csum_partial", a)]) for a in csum}
    fixed_crc = dispatch.repaired(crc, use[_key(facts, "crc32c", 0)])
    row = _row(runner, facts, name, fixed_csum, fixed_crc)
    text = row.text
    runs = dispatch.changed(facts, row.steps, use)
    by_primitive = (("csum_partial", fixed_csum[0] + fixed_csum[1]), ("crc32c", fixed_crc))
    if runs:
        _attach(_run_row(runner, facts, {"new": (name, text), "use": use_row}, runs, rounds),
                by_primitive)  # fmt: skip
    every = [p for _, points in by_primitive for p in points]
    return text, shown.repaired(text, every, bool(runs), RUN_PAIRS)


def _read_try(runner: Runner, path: Path) -> tuple[str, ParsedRow]:
    """`--try FILE`'s text and row, read as the library reads a row file
    (`hotpath-bench row --file`: no FIFO, folder or device, nothing too
    large), refused (exit 2) before anything runs."""
    row = parse_row(invoke(runner, ["row", "--file", str(path)]))
    if row.file is not None and not row.ok:
        # the runner refuses to run under it as it always has (exit 2, the
        # library's reason, "not taken")
        measure.listing(dataclasses.replace(runner, env=(("HOTPATH_DISPATCH", str(path)),)))
    if row.file is None or not row.ok:
        raise UsageError(f"--try '{path}': {row.error}; allowed: a row file "
                         "(`hotpath dispatch --write FILE` makes one)")  # fmt: skip
    return row.file, row


def _try_row(
    runner: Runner,
    facts: DispatchFacts,
    path: Path,
    text: str,
    row: ParsedRow,
    use_row: tuple[str, str],
    used: Steps,
    rounds: int,
) -> list[str]:
    """`--try FILE`: the row in FILE (its text) run beside the row in use, per length."""
    tried = row.steps
    runs = dispatch.changed(facts, tried, used)
    if not runs:
        return shown.tried(path, text, None, RUN_PAIRS)
    ratios = _run_row(runner, facts, {"new": (row.name, text), "use": use_row}, runs, rounds)
    rows = []
    for primitive, (sizes, aligns) in dispatch.PLAN.items():
        for align in aligns:
            key = _key(facts, primitive, align)
            for size in sizes:
                method = dispatch.method_at(tried[key], size)
                measured = tuple(ratios.get((primitive, size, align), ()))
                p = dispatch.Point(size, align, method, 0.0, None, run_ratios=measured)
                rows.append((primitive, dispatch.method_at(used[key], size), p))
    return shown.tried(path, text, rows, RUN_PAIRS)


def _contended(result: RunResult) -> float:
    """The largest share of width probes that saw a neighbour in the run."""
    widths = [c.get("width") for c in result.clocks.values() if isinstance(c, dict)]
    return max((float(w.get("contended_fraction", 0)) for w in widths if w), default=0.0)


def _check_options(args: argparse.Namespace) -> int:
    """The options that go together and a --write file that can be written,
    refused (exit 2) before the runner starts: the rounds."""
    rounds = check_rounds(args.rounds)
    keeps = [o for o, on in (("--write", args.write is not None), ("--save", args.save),
                             ("--system", args.system)) if on]  # fmt: skip
    if args.show and (keeps or args.try_row is not None):
        raise UsageError(f"--show with {(keeps or ['--try'])[0]}: --show measures nothing; "
                         "allowed: --show alone")  # fmt: skip
    if args.tax and (keeps or args.try_row is not None or args.show):
        other = (keeps or (["--try"] if args.try_row is not None else ["--show"]))[0]
        raise UsageError(f"--tax with {other}: --tax measures the row in use, it keeps and "
                         "tries none; allowed: --tax alone (with --rounds)")  # fmt: skip
    if args.try_row is not None and keeps:
        raise UsageError(f"--try and {keeps[0]}: one or the other; allowed: --write FILE, "
                         "--save or --system to keep the row measured here, --try FILE to run "
                         "a row of your own")  # fmt: skip
    if args.write is not None:
        if args.write.is_dir():
            raise UsageError(f"--write '{args.write}': a folder; allowed: a file to write")
        if not args.write.parent.is_dir():
            raise UsageError(
                f"--write '{args.write}': no folder '{args.write.parent}'; allowed: a file in "
                "an existing folder"
            )
        check_folder(args.write.parent, "--write")
    return rounds


def _check_keep(args: argparse.Namespace, where: "measured_rows.Places | None") -> None:
    """--save and --system: the folder the row goes to can be made or written
    into, refused (exit 2) before anything is measured."""
    if where is None:
        return
    for wanted, folder, label in (
        (args.save, where.user.parent if where.user is not None else None, "--save"),
        (args.system, where.system.parent, "--system"),
    ):
        if not wanted:
            continue
        if folder is None:
            raise UsageError("--save: no HOME to keep the row in; allowed: --write FILE")
        check_folder(folder, label, " (XDG_CACHE_HOME)" if label == "--save" else "")


def _measure(
    runner: Runner, known: Listing, facts: DispatchFacts, rounds: int, command_line: str,
    sizes: dict[str, tuple[int, ...]] | None = None,
) -> RunResult:  # fmt: skip
    """Every method of each primitive in the plan, and hotpath's own variant,
    timed in one run (at `sizes` per primitive where given, else the plan's)."""
    requests = []
    for primitive, (plan_sizes, aligns) in dispatch.PLAN.items():
        if sizes is not None and not sizes.get(primitive):
            continue
        prim = known.primitive(primitive)
        if prim is None:
            raise UsageError(f"the runner has no primitive '{primitive}'")
        names = {v.name for v in prim.variants}
        spec = facts.of(primitive)
        wanted = [v for v in (*spec.methods.values(), spec.own) if v in names]
        at = sizes[primitive] if sizes is not None else plan_sizes
        requests.append(_request(primitive, wanted, at, aligns, rounds))
    groups = measure.run_requests(runner, requests, [], show_progress=sys.stderr.isatty())
    return measure.new_run("dispatch", groups, 0.05, command_line)


REMEASURE = 2  # the lengths a neighbour spoiled are measured again this many times at most


def _measure_until_decided(runner: Runner, known: Listing, facts: DispatchFacts, rounds: int,
                           command_line: str) -> RunResult:  # fmt: skip
    """_measure(), then the lengths where a method's figure was spoiled
    measured again (all its methods, both parities), the new figures in
    place of the old: a neighbour comes and goes, and a length left to the
    step before may keep a method from where it wins (AVX-512 hidden on the
    Emerald Rapids: the fused fold from 3072 instead of 1536)."""
    result = _measure(runner, known, facts, rounds, command_line)
    for _ in range(REMEASURE):
        again = {
            p: tuple(sorted({size for a in aligns
                             for size in dispatch.undecided(result, facts.of(p), a,
                                                            _short(facts, p))}))
            for p, (_, aligns) in dispatch.PLAN.items()
        }  # fmt: skip
        if not any(again.values()):
            break
        fresh = _measure(runner, known, facts, rounds, command_line, again)
        redone = {(f.primitive, f.size) for f in fresh.figures}
        result.figures[:] = [
            *(f for f in result.figures if (f.primitive, f.size) not in redone),
            *fresh.figures,
        ]
    return result


def _short(facts: DispatchFacts, primitive: str) -> int:
    """Below this length only the primitive's first method may win."""
    return facts.csum_short if primitive == "csum_partial" else 0


def _choose(
    result: RunResult, facts: DispatchFacts, used: Steps
) -> tuple[dict[int, list[dispatch.Point]], list[dispatch.Point], list[str], list[str]]:
    """Per length the method the figures ask for (hp_csum() per address
    parity, hp_crc32c()), the lengths left undecided (a method's figure
    spoiled there), and the primitives with no length decided at all: those
    keep the row in use's steps (`used`). With none decided anywhere, or no
    row in use to keep, the command ends (exit 1)."""
    aligns = {p: dispatch.PLAN[p][1] for p in dispatch.PLAN}
    points = {
        p: {a: dispatch.choose(result, facts.of(p), a, _short(facts, p)) for a in aligns[p]}
        for p in dispatch.PLAN
    }
    undecided = {
        p: [(a, size) for a in aligns[p]
            for size in dispatch.undecided(result, facts.of(p), a, _short(facts, p))]
        for p in dispatch.PLAN
    }  # fmt: skip
    timed = {f.primitive for f in result.figures if f.timed}
    # no timed figure, or every length a method's figure was spoiled at
    empty = [p for p in dispatch.PLAN
             if p not in timed or (undecided[p] and not any(points[p].values()))]  # fmt: skip
    keys = {p: {a: _key(facts, p, a) for a in aligns[p]} for p in dispatch.PLAN}
    kept = [p for p in empty if all(k in used for k in keys[p].values())]
    if empty and (kept != empty or len(kept) == len(dispatch.PLAN)):
        # Not the input's fault (exit 1): nothing to decide a row from.
        spoiled = [f for f in result.figures if f.status == "n/a" and f.samples_taken]
        why = spoiled[0].reason if spoiled else "no figure"
        raise HotpathError(f"no length of {', '.join(empty)} had every method timed ({why}); "
                           "no row measured, nothing written or kept")  # fmt: skip
    for p in kept:
        points[p] = {a: dispatch.from_steps(used[k], a) for a, k in keys[p].items()}
    left = [f"{p} {size}{' odd' if a else ''}"
            for p in dispatch.PLAN if p not in kept for a, size in undecided[p]]  # fmt: skip
    return points["csum_partial"], points["crc32c"][0], left, kept


def _keep(
    args: argparse.Namespace,
    where: measured_rows.Places | None,
    result: RunResult,
    rounds: int,
    chosen: str,
    which: str,
    hidden: str,
) -> None:
    """--write, --save and --system: the chosen row with its header (the
    machine, the rounds, the neighbour's share, the features the runner hid)."""
    contended = _contended(result)
    header = measured_rows.header(result.machine.one_line(), rounds, contended,
                                  hidden)  # fmt: skip
    if contended > measured_rows.NEIGHBOUR_LIMIT:
        print(f"warning: {contended:.0%} of the width probes saw a neighbour on the core: "
              "the crossovers may be off (the kept row says so)", file=sys.stderr)  # fmt: skip
    if args.write is not None:
        write_file(args.write, header + chosen)
        print(f"{which} written to {args.write}; use it with HOTPATH_DISPATCH={args.write}")
    for system in (False, True):
        if where is not None and (args.system if system else args.save):
            path = measured_rows.save(where, header + chosen, system)
            print(f"{which} kept as {path}: libhotpath and libhpsum take it when they load "
                  f"on this CPU ({where.key})")  # fmt: skip


def _tax_run(runner: Runner, known: Listing, facts: DispatchFacts, runs: Steps, rounds: int,
             command_line: str) -> RunResult:  # fmt: skip
    """`--tax`: hotpath's own variants and the methods the row in use runs
    (after the CPU's fallbacks), at the plan's lengths, in one run."""
    requests = []
    for primitive, (sizes, aligns) in dispatch.PLAN.items():
        prim = known.primitive(primitive)
        if prim is None:
            raise UsageError(f"the runner has no primitive '{primitive}'")
        names = {v.name for v in prim.variants}
        spec = facts.of(primitive)
        methods = {m for key in spec.keys if key in runs for m, _ in runs[key]}
        wanted = [spec.methods[m] for m in spec.methods if m in methods] + [spec.own]
        requests.append(_request(primitive, [v for v in wanted if v in names], sizes, aligns,
                                 rounds))  # fmt: skip
    groups = measure.run_requests(runner, requests, [], show_progress=sys.stderr.isatty())
    return measure.new_run("dispatch", groups, 0.05, command_line)


def run(args: argparse.Namespace) -> int:
    rounds = _check_options(args)
    runner = measure.get_runner()
    known = measure.listing(runner)
    in_use = known.dispatch or {}
    if args.show:
        print("\n".join(shown.show(in_use)))
        return 0
    facts = runner_facts().dispatch  # the methods, their variants, the row's limits
    tried = _read_try(runner, args.try_row) if args.try_row is not None else None
    where = measured_rows.places(in_use)
    if (args.save or args.system) and where is None:
        raise RunnerError("the runner does not say where this CPU's measured row is kept")
    _check_keep(args, where)
    use_row = (in_use.get("name", ""), in_use.get("text", ""))
    used: Steps = known.dispatch_steps or {}
    head = [
        f"row in use: {in_use.get('name', 'unknown')} ({in_use.get('source', 'unknown')})",
        *shown.indented(use_row[1]),
    ]
    row_runs = known.dispatch_runs
    if args.tax:
        if not row_runs:
            raise RunnerError("the runner does not say which methods its row runs: "
                              "no tax to measure")  # fmt: skip
        result = _tax_run(runner, known, facts, row_runs, rounds, args.command_line)
        print("\n".join([f"machine: {result.machine.one_line()}", *head, "",
                         *shown.tax_table(f"row in use: {use_row[0]}",
                                          dispatch.taxes(result, facts, row_runs))]))  # fmt: skip
        return 0
    if tried is not None:
        if not use_row[1]:
            raise RunnerError("the runner does not say which row it uses: nothing to run beside")
        print("\n".join([*head, *_try_row(runner, facts, args.try_row, *tried, use_row, used,
                                          rounds)]))  # fmt: skip
        return 0
    result = _measure_until_decided(runner, known, facts, rounds, args.command_line)
    csum, crc, left, kept = _choose(result, facts, used)
    machine = result.machine
    name = f"measured-{machine.vendor.lower()}-f{machine.family}m{machine.model}"
    measured = _row(runner, facts, name, csum, crc)
    text = measured.text
    by_primitive = (("csum_partial", csum[0] + csum[1]), ("crc32c", crc))
    every = [p for _, points in by_primitive for p in points]
    taxed = dispatch.taxes(result, facts, row_runs) if row_runs else []
    # no row from the runner: nothing to run the measured row against
    runs = dispatch.changed(facts, measured.steps, used) if use_row[1] and used else set()
    if runs:
        _attach(_run_row(runner, facts, {"new": (name, text), "use": use_row}, runs, rounds),
                by_primitive)  # fmt: skip
    lines = [
        *shown.table(result.machine.one_line(), head, rounds, by_primitive, runs),
        *shown.split_lines(by_primitive),
        *shown.notes(every, left, kept, runs, use_row, len(dispatch.PLAN), RUN_PAIRS),
        "",
        *([*shown.tax_table(f"row in use: {use_row[0]}", taxed), ""] if taxed else []),
        "measured row:",
        *shown.indented(text),
    ]
    chosen = text
    if any(p.run_worse for p in every):
        chosen, repair = _repair(runner, facts, name, csum, crc, use_row, used, rounds)
        lines += repair
    print("\n".join(lines))
    which = "the repaired row" if chosen != text else "the measured row"
    _keep(args, where, result, rounds, chosen, which, ",".join(known.cpu.hidden))
    return 0
