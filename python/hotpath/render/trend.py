# SPDX-License-Identifier: GPL-2.0-only
"""`hotpath trend`'s answer (hotpath.trend: the History, each figure's Trend,
the Settings) as text, as JSON (hotpath.trend/1) and as an HTML page with
each series in SVG. Takes the results and returns text."""

import html
import io
import itertools
import math
from typing import Any

from hotpath.results import unit_name
from hotpath.trend import OUTLIER_PVALUE, TREND_SCHEMA, History, Settings, Trend


def to_json(
    history: History,
    trends: list[Trend],
    outlying: list[Trend] | None,
    settings: Settings,
    by: str,
) -> dict[str, Any]:
    """The --json document; `outlying` (--all only): figures with outliers and
    no change point."""
    doc: dict[str, Any] = {
        "schema": TREND_SCHEMA,
        "db": str(history.path),
        "machine_key": history.machine_key,
        "machine": history.machine,
        "machine_keys": history.keys,
        "by": by,
        "all": outlying is not None,
        "method": settings.to_json(),
        "figures": [t.to_json() for t in trends],
    }
    if outlying is not None:
        doc["outlying"] = [t.to_json() for t in outlying]  # outliers, no change point
    return doc


def _other_keys(history: History) -> list[str]:
    others = [k for k in history.keys if k != history.machine_key]
    if others:
        return [f"  with the runs of the same machine on other kernels: {', '.join(others)}"]
    return []


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


def text_one(history: History, t: Trend, settings: Settings) -> str:
    """One figure's series as a table, its change points and outliers."""
    out: list[str] = []
    out.append(f"{t.label()}: {unit_name(t.unit)}, each run's median")
    out.append(
        f"machine: {t.machine} [key {t.machine_key}], {len(t.points)} runs ordered by {t.by}"
    )
    out += _other_keys(history)
    out.append(_method_line(settings))
    out.append("")
    starts = {c.index: n for n, c in enumerate(t.changes)}
    outliers = {o.index: o for o in t.outliers}
    out.append(f"{'#':>4}  {'run':>5}  {'started (UTC)':<25}  {'kernel':<20}  {'median':>10}  note")
    for i, p in enumerate(t.points):
        if i in starts:
            out.append(
                f"{'':>4}  {'':->5}  change point: {_pct(t.changes[starts[i]].magnitude)} "
                f"{t.direction(t.changes[starts[i]].magnitude)}"
            )
        note = ""
        if i in outliers:
            o = outliers[i]
            note = f"outlier: {_pct(o.deviation)} {t.direction(o.deviation)} than its segment"
        out.append(
            f"{i + 1:>4}  {p.run_id:>5}  {p.started:<25}  {p.kernel[:20]:<20}  "
            f"{p.median:>10.4g}  {note}".rstrip()
        )
    out.append("")
    if len(t.points) < 2 * settings.min_segment:
        out.append(
            f"too few runs for a change point: {len(t.points)}, at least "
            f"{2 * settings.min_segment} with --min-segment {settings.min_segment}"
        )
    if not t.changes:
        out.append("change points: none")
    else:
        out.append("change points (after/before, 95% interval, p-value, means, first run after):")
        for n in range(len(t.changes)):
            out.append(f"  {_change_text(t, n)}")
    if t.outliers:
        out.append("outliers (runs off their segment, not changes):")
        for o in t.outliers:
            p = t.points[o.index]
            out.append(
                f"  run {p.run_id} ({p.started}): {p.median:.4g} {unit_name(t.unit)}, "
                f"{_pct(o.deviation)} {t.direction(o.deviation)} than its segment's median"
            )
    return "\n".join(out) + "\n"


def text_all(
    history: History, trends: list[Trend], outlying: list[Trend], settings: Settings, by: str
) -> str:
    """Every figure with a change point, largest first; those with outliers only."""
    out: list[str] = []
    runs = len(history.runs)
    out.append(
        f"machine: {history.machine} [key {history.machine_key}], {runs} runs ordered by {by}"
    )
    out += _other_keys(history)
    out.append(_method_line(settings))
    if not trends:
        out.append("no figure has a change point")
    else:
        out.append(f"{len(trends)} figure(s) with a change point, largest first:")
        out.append("")
    for t in trends:
        out.append(f"{t.label()} ({unit_name(t.unit)}, {len(t.points)} runs)")
        for n in sorted(range(len(t.changes)), key=lambda n: -abs(t.changes[n].magnitude)):
            out.append(f"  {_change_text(t, n)}")
    if outlying:
        out.append("")
        out.append(f"{len(outlying)} figure(s) without a change point but with outlying runs:")
        for t in outlying:
            runs_text = ", ".join(
                f"run {t.points[o.index].run_id} {_pct(o.deviation)}" for o in t.outliers
            )
            out.append(f"  {t.label()}: {runs_text}")
    return "\n".join(out) + "\n"


# ---------------------------------------------------------------- HTML


def svg(t: Trend) -> str:
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


def page(history: History, trends: list[Trend], settings: Settings) -> str:
    """trend.html: each series as SVG, its change points and its runs."""
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
        parts.append(svg(t))
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
    return "\n".join(parts) + "\n"
