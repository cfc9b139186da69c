# SPDX-License-Identifier: GPL-2.0-only
"""`hotpath trend`: one figure's medians over the stored runs, its change
points and outlying runs (hotpath.trend), as a table, JSON or an HTML page.

`--all` lists every figure of the machine key with a change point, the
largest first. The history is only read (opened read-only); --html DIR is
written whole or not at all (destination.write_folder).
"""

import argparse
import html
import io
import itertools
import json
import math
import sys
from pathlib import Path
from typing import Any

from hotpath.commands.common import add_db_option, db_path
from hotpath.db.access import check_db_path
from hotpath.destination import check_folder, write_folder
from hotpath.errors import UsageError
from hotpath.inputs import path
from hotpath.results import unit_name
from hotpath.trend import (
    DEFAULT_MAX_PVALUE,
    DEFAULT_MIN_MAGNITUDE,
    DEFAULT_MIN_SEGMENT,
    ORDERS,
    OUTLIER_PVALUE,
    TREND_SCHEMA,
    History,
    Selection,
    Settings,
    Trend,
    check_selection,
    figure_keys,
    read_history,
    trend,
)

PAGE = "trend.html"
# Candidates named in the message when a selection matches several figures.
NAMED = 12


def add_parser(subparsers: "argparse._SubParsersAction[argparse.ArgumentParser]") -> None:
    parser = subparsers.add_parser(
        "trend",
        description="The series of one figure's medians over the runs of one machine key, "
        "ordered by time or kernel release, with its change points (E-Divisive means and a "
        "t-test, apache-otava; each with its magnitude, 95%% interval, p-value and the first "
        "run after it) and its outlying runs (generalized ESD). --all: every figure with a "
        "change point, largest first.",
    )
    add_db_option(parser)
    parser.add_argument("--lab", default=None, help="the lab (csum, crc32c, ...)")
    parser.add_argument("--primitive", default=None, help="the lab's primitive")
    parser.add_argument("--variant", default=None, help="the variant")
    parser.add_argument("--size", type=int, default=None, metavar="BYTES", help="the size")
    parser.add_argument("--align", type=int, default=None, metavar="OFFSET", help="the offset")
    parser.add_argument("--mode", default=None, help="latency, throughput, fenced, ...")
    parser.add_argument(
        "--machine",
        default=None,
        metavar="KEY",
        help="the machine: its key (`hotpath history --json`: machine_key), or a unique start "
        "of one (default: the newest run's); the series takes its runs on every kernel release "
        "(keys that differ in the kernel only)",
    )
    parser.add_argument(
        "--exact-key",
        action="store_true",
        help="only the runs of that exact key (one kernel release)",
    )
    parser.add_argument(
        "--by",
        choices=ORDERS,
        default="time",
        help="order the runs by start time or kernel release",
    )
    parser.add_argument(
        "--min-segment",
        type=int,
        default=DEFAULT_MIN_SEGMENT,
        metavar="N",
        help=f"fewest runs on each side of a change point (default {DEFAULT_MIN_SEGMENT}); a "
        "shorter excursion is an outlier, not a change",
    )
    parser.add_argument(
        "--min-magnitude",
        type=float,
        default=DEFAULT_MIN_MAGNITUDE,
        metavar="F",
        help=f"smallest change called, a fraction (default {DEFAULT_MIN_MAGNITUDE}: 2%%)",
    )
    parser.add_argument(
        "--max-pvalue",
        type=float,
        default=DEFAULT_MAX_PVALUE,
        metavar="P",
        help=f"largest p-value of a change point or an outlier (default {DEFAULT_MAX_PVALUE})",
    )
    parser.add_argument(
        "--all", action="store_true", help="every figure with a change point, largest first"
    )
    parser.add_argument("--json", action="store_true", help=f"print {TREND_SCHEMA} JSON")
    parser.add_argument(
        "--html", type=path, default=None, metavar="DIR", help=f"write {PAGE} (plots) into DIR"
    )
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    settings = Settings(args.min_segment, args.min_magnitude, args.max_pvalue)
    settings.check()
    for name in ("size", "align"):
        value = getattr(args, name)
        if value is not None and value < 0:
            raise UsageError(f"--{name} '{value}': allowed: a whole number, 0 or more")
    if args.html is not None:
        check_folder(args.html, "--html")
    path = db_path(args)
    check_db_path(path, write=False)
    if not path.exists():
        raise UsageError(f"database '{path}' does not exist: no runs recorded there yet")
    selection = Selection(args.lab, args.primitive, args.variant, args.size, args.align, args.mode)
    history = read_history(path, args.machine, exact=args.exact_key)
    check_selection(history, selection)
    keys = figure_keys(history, selection)
    outlying: list[Trend] = []
    if args.all:
        every = [trend(history, key, args.by, settings) for key in keys]
        trends = sorted((t for t in every if t.changes), key=lambda t: -t.largest())
        outlying = [t for t in every if t.outliers and not t.changes]
    else:
        if len(keys) != 1:
            raise UsageError(_ambiguous(selection, keys, history))
        trends = [trend(history, keys[0], args.by, settings)]
    if args.html is not None:
        folder: Path = args.html
        write_folder(folder, lambda into: _write_page(into / PAGE, history, trends, settings))
    if args.json:
        doc: dict[str, Any] = {
            "schema": TREND_SCHEMA,
            "db": str(path),
            "machine_key": history.machine_key,
            "machine": history.machine,
            "machine_keys": history.keys,
            "by": args.by,
            "all": bool(args.all),
            "method": settings.to_json(),
            "figures": [t.to_json() for t in trends],
        }
        if args.all:
            doc["outlying"] = [t.to_json() for t in outlying]  # outliers, no change point
        sys.stdout.write(json.dumps(doc, indent=2) + "\n")
    elif args.all:
        _print_all(history, trends, outlying, settings, args.by)
    else:
        _print_one(history, trends[0], settings)
    if args.html is not None:
        print(args.html / PAGE, file=sys.stderr if args.json else sys.stdout)
    return 0


def _ambiguous(
    selection: Selection, keys: list[tuple[str, str, str, int, int, str, str]], history: History
) -> str:
    """Why one figure could not be chosen, and the options that would."""
    chosen = selection.options()
    if not keys:
        return f"{chosen}: no timed figure of machine {history.machine_key} matches"
    named = [
        f"--lab {k[0]} --primitive {k[1]} --variant {k[2]} --size {k[3]} --align {k[4]} "
        f"--mode {k[5]}"
        for k in keys[:NAMED]
    ]
    more = f"\n  ... and {len(keys) - NAMED} more" if len(keys) > NAMED else ""
    return (
        f"{chosen}: {len(keys)} figures match; allowed: options that pick one of them "
        "(or --all for every figure with a change point):\n  " + "\n  ".join(named) + more
    )


def _other_keys(history: History) -> None:
    others = [k for k in history.keys if k != history.machine_key]
    if others:
        print(f"  with the runs of the same machine on other kernels: {', '.join(others)}")


def _method_line(settings: Settings) -> str:
    return (
        f"method: E-Divisive means + t-test (apache-otava), p <= {settings.max_pvalue:g}, "
        f"at least {settings.min_magnitude:.1%} and {settings.min_segment} run(s) each side; "
        f"outliers: generalized ESD, p <= {OUTLIER_PVALUE}"
    )


def _pct(value: float | None) -> str:
    return "n/a" if value is None or not math.isfinite(value) else f"{value * 100:+.1f}%"


def _change_text(t: Trend, index: int) -> str:
    c = t.changes[index]
    p = t.points[c.index]
    interval = (
        "[n/a: a segment of one run]" if c.low is None else f"[{_pct(c.low)}, {_pct(c.high)}]"
    )
    return (
        f"{_pct(c.magnitude)} {t.direction(c.magnitude)} {interval}, p = {c.pvalue:.1g}, "
        f"{c.before:.4g} -> {c.after:.4g} {unit_name(t.unit)} ({c.runs_before} runs before, "
        f"{c.runs_after} after); first run after: {p.run_id} ({p.started})"
    )


def _print_one(history: History, t: Trend, settings: Settings) -> None:
    print(f"{t.label()}: {unit_name(t.unit)}, each run's median")
    print(f"machine: {t.machine} [key {t.machine_key}], {len(t.points)} runs ordered by {t.by}")
    _other_keys(history)
    print(_method_line(settings))
    print()
    starts = {c.index: n for n, c in enumerate(t.changes)}
    outliers = {o.index: o for o in t.outliers}
    print(f"{'#':>4}  {'run':>5}  {'started (UTC)':<25}  {'kernel':<20}  {'median':>10}  note")
    for i, p in enumerate(t.points):
        if i in starts:
            print(
                f"{'':>4}  {'':->5}  change point: {_pct(t.changes[starts[i]].magnitude)} "
                f"{t.direction(t.changes[starts[i]].magnitude)}"
            )
        note = ""
        if i in outliers:
            o = outliers[i]
            note = f"outlier: {_pct(o.deviation)} {t.direction(o.deviation)} than its segment"
        print(
            f"{i + 1:>4}  {p.run_id:>5}  {p.started:<25}  {p.kernel[:20]:<20}  "
            f"{p.median:>10.4g}  {note}".rstrip()
        )
    print()
    if len(t.points) < 2 * settings.min_segment:
        print(
            f"too few runs for a change point: {len(t.points)}, at least "
            f"{2 * settings.min_segment} with --min-segment {settings.min_segment}"
        )
    if not t.changes:
        print("change points: none")
    else:
        print("change points (after/before, 95% interval, p-value, means, first run after):")
        for n in range(len(t.changes)):
            print(f"  {_change_text(t, n)}")
    if t.outliers:
        print("outliers (runs off their segment, not changes):")
        for o in t.outliers:
            p = t.points[o.index]
            print(
                f"  run {p.run_id} ({p.started}): {p.median:.4g} {unit_name(t.unit)}, "
                f"{_pct(o.deviation)} {t.direction(o.deviation)} than its segment's median"
            )


def _print_all(
    history: History, trends: list[Trend], outlying: list[Trend], settings: Settings, by: str
) -> None:
    runs = len(history.runs)
    print(f"machine: {history.machine} [key {history.machine_key}], {runs} runs ordered by {by}")
    _other_keys(history)
    print(_method_line(settings))
    if not trends:
        print("no figure has a change point")
    else:
        print(f"{len(trends)} figure(s) with a change point, largest first:")
        print()
    for t in trends:
        print(f"{t.label()} ({unit_name(t.unit)}, {len(t.points)} runs)")
        for n in sorted(range(len(t.changes)), key=lambda n: -abs(t.changes[n].magnitude)):
            print(f"  {_change_text(t, n)}")
    if outlying:
        print()
        print(f"{len(outlying)} figure(s) without a change point but with outlying runs:")
        for t in outlying:
            runs_text = ", ".join(
                f"run {t.points[o.index].run_id} {_pct(o.deviation)}" for o in t.outliers
            )
            print(f"  {t.label()}: {runs_text}")


# ---------------------------------------------------------------- HTML


def _svg(t: Trend) -> str:
    """The series as inline SVG: medians, segment means, change points, outliers."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    xs = list(range(1, len(t.points) + 1))
    ys = [p.median for p in t.points]
    fig, ax = plt.subplots(figsize=(8, 3.2))
    try:
        ax.plot(xs, ys, marker="o", markersize=4, linewidth=1, color="#1f4e79", label="median")
        below = [p.median - p.ci_lo if p.ci_lo is not None else 0.0 for p in t.points]
        above = [p.ci_hi - p.median if p.ci_hi is not None else 0.0 for p in t.points]
        ax.errorbar(xs, ys, yerr=[below, above], linestyle="none", color="#1f4e79", alpha=0.5,
                    capsize=2, linewidth=0.8, label="95% CI of the run's median")  # fmt: skip
        bounds = [0, *[c.index for c in t.changes], len(t.points)]
        skip = {o.index for o in t.outliers}
        for lo, hi in itertools.pairwise(bounds):
            kept = [ys[i] for i in range(lo, hi) if i not in skip]
            if kept:
                mean = sum(kept) / len(kept)
                label = "segment mean" if lo == 0 else None
                ax.plot([lo + 0.6, hi + 0.4], [mean, mean], color="#888888", linewidth=2,
                        label=label)  # fmt: skip
        for c in t.changes:
            ax.axvline(c.index + 0.5, color="#c0392b", linestyle="--", linewidth=1.2)
            ax.annotate(
                f"{_pct(c.magnitude)}",
                (c.index + 0.5, max(ys)),
                color="#c0392b",
                xytext=(3, -10),
                textcoords="offset points",
                fontsize=8,
            )
        if t.outliers:
            ax.plot(
                [o.index + 1 for o in t.outliers],
                [ys[o.index] for o in t.outliers],
                linestyle="none",
                marker="o",
                markersize=9,
                markerfacecolor="none",
                markeredgecolor="#e67e22",
                label="outlier",
            )
        ax.set_xlabel(f"run, ordered by {t.by} (1 = first)")
        ax.set_ylabel(unit_name(t.unit))
        ax.set_title(t.label(), fontsize=9)
        ax.grid(alpha=0.3)
        ax.legend(fontsize=8, loc="best")
        buffer = io.StringIO()
        fig.savefig(buffer, format="svg", bbox_inches="tight")
    finally:
        plt.close(fig)
    text = buffer.getvalue()
    return text[text.find("<svg") :]


def _write_page(path: Path, history: History, trends: list[Trend], settings: Settings) -> None:
    esc = html.escape
    parts = [
        "<!DOCTYPE html>",
        '<html lang="en"><head><meta charset="utf-8"><title>hotpath trend</title>',
        "<style>body{font-family:sans-serif;max-width:60em;margin:1em auto}"
        "table{border-collapse:collapse;font-size:0.9em}td,th{padding:2px 8px;"
        "border-bottom:1px solid #ddd;text-align:right}td.l,th.l{text-align:left}"
        ".cp{color:#c0392b}.out{color:#e67e22}</style></head><body>",
        "<h1>hotpath trend</h1>",
        f"<p>machine: {esc(history.machine)} [key {esc(history.machine_key)}], "
        f"history {esc(str(history.path))}"
        + "".join(f", with key {esc(k)}" for k in history.keys if k != history.machine_key)
        + "</p>",
        f"<p>{esc(_method_line(settings))}</p>",
    ]
    if not trends:
        parts.append("<p>No figure has a change point.</p>")
    for t in trends:
        parts.append(f"<h2>{esc(t.label())}</h2>")
        parts.append(
            f"<p>{esc(unit_name(t.unit))}, each run's median, {len(t.points)} runs "
            f"ordered by {esc(t.by)}</p>"
        )
        parts.append(_svg(t))
        if t.changes:
            parts.append("<ul>")
            parts.extend(
                f'<li class="cp">{esc(_change_text(t, n))}</li>' for n in range(len(t.changes))
            )
            parts.append("</ul>")
        else:
            parts.append("<p>No change point.</p>")
        starts = {c.index for c in t.changes}
        outliers = {o.index: o for o in t.outliers}
        parts.append(
            '<table><tr><th>#</th><th>run</th><th class="l">started (UTC)</th>'
            '<th class="l">kernel</th><th>median</th><th class="l">note</th></tr>'
        )
        for i, p in enumerate(t.points):
            note = ""
            if i in starts:
                note = '<span class="cp">first run after a change point</span>'
            if i in outliers:
                note = f'<span class="out">outlier {esc(_pct(outliers[i].deviation))}</span>'
            parts.append(
                f"<tr><td>{i + 1}</td><td>{p.run_id}</td><td class=l>{esc(p.started)}"
                f"</td><td class=l>{esc(p.kernel)}</td><td>{p.median:.4g}</td>"
                f"<td class=l>{note}</td></tr>"
            )
        parts.append("</table>")
    parts.append("</body></html>")
    path.write_text("\n".join(parts) + "\n", encoding="utf-8")
