# SPDX-License-Identifier: GPL-2.0-only
"""`hotpath compare A B --html DIR`: the comparison as one page.

Verdicts first (how many figures B is faster, slower, or not shown to
differ, and the largest of each), then both machines side by side with
their differences marked, then per primitive and mode a ratio heat table:
each cell B's median over A's, green where B is faster, red where slower,
grey where the evidence does not say (hotpath.compare decides, with the
replicas' t interval or this machine's A/A floor). Hover gives both
medians, the interval and the method. Self-contained like report.html.
"""

import html
import math

from hotpath.compare import Comparison, FigureComparison
from hotpath.labs import lab_for
from hotpath.render.compare_text import rule_lines
from hotpath.render.html import STYLE
from hotpath.results import RunResult, unit_name
from hotpath.verdicts import BELOW, HIGHER, IMPROVED, LOWER, REGRESSED

# Ratio at which the colour is full: 2x slower (or twice as fast).
RATIO_FULL = 2.0
MACHINE_FIELDS = (
    "model_name", "vendor", "family", "model", "stepping", "microcode", "logical_cpus",
    "tsc_hz", "core_hz_estimate", "kernel", "hypervisor", "governor", "boost", "smt",
)  # fmt: skip


def ratio_colour(row: FigureComparison) -> str:
    """Green faster, red slower; a pale tint where the difference is below
    the threshold; grey where the evidence shows none (or within one unit)."""
    if row.verdict not in (*IMPROVED, *REGRESSED, BELOW, HIGHER, LOWER):
        return "#eeeeee"
    share = min(1.0, abs(math.log(row.ratio)) / math.log(RATIO_FULL))
    if row.verdict in (HIGHER, LOWER):  # a statistic that moved: neither good nor bad
        return f"hsl(220, 50%, {92 - 22 * share:.0f}%)"
    better_lower = row.a.better != "higher"
    hue = 120 if (row.ratio < 1.0) == better_lower else 0
    if row.verdict == BELOW:
        return f"hsl({hue}, 40%, 94%)"
    return f"hsl({hue}, 60%, {92 - 22 * share:.0f}%)"


def _label(row: FigureComparison) -> str:
    lab = lab_for(row.a.lab)
    return lab.column_label(row.a.size, row.a.align) if lab else f"{row.a.size} +{row.a.align}"


def verdict_lines(cmp: Comparison) -> list[str]:
    """The answer: counts, and the largest change each way."""
    rows = cmp.rows
    if not rows:
        return ["no figure is present in both runs"]
    faster = [r for r in rows if r.verdict in IMPROVED]
    slower = [r for r in rows if r.verdict in REGRESSED]
    below = [r for r in rows if r.verdict == BELOW]
    same = len(rows) - len(faster) - len(slower) - len(below)
    lines = [
        f"B is faster (better) in {len(faster)}, slower (worse) in {len(slower)}, different "
        "by less than the "
        f"{cmp.threshold:.1%} threshold in {len(below)} and not shown to differ in {same} of "
        f"{len(rows)} figures present in both runs"
    ]

    def gain(r: FigureComparison) -> float:  # below 1: B is better
        return r.ratio if r.a.better != "higher" else 1.0 / r.ratio

    for word, chosen, pick in (("faster", faster, min), ("slower", slower, max)):
        if chosen:
            row = pick(chosen, key=gain)
            lines.append(
                f"largest {word}: {row.a.primitive} {row.a.variant} {_label(row)} {row.a.mode}: "
                f"B/A {row.ratio:.3f} (95% interval {row.ratio_ci[0]:.3f}-{row.ratio_ci[1]:.3f})"
            )
    if not cmp.same_machine:
        lines.append("DIFFERENT MACHINES: every difference mixes the machines' with the code's")
    if cmp.only_a or cmp.only_b:
        lines.append(f"figures only in A: {cmp.only_a}, only in B: {cmp.only_b}")
    return lines


def _machines(cmp: Comparison) -> str:
    esc = html.escape
    a, b = cmp.machine_a.to_json(), cmp.machine_b.to_json()
    rows = []

    def shown(name: str, value: object) -> str:
        if name.endswith(("_hz", "hz_estimate")) and isinstance(value, int | float):
            return f"{value / 1e9:.3f} GHz"
        return str(value)

    for name in MACHINE_FIELDS:
        left, right = shown(name, a.get(name)), shown(name, b.get(name))
        mark = ' class="warn"' if left != right else ""
        rows.append(f"<tr{mark}><td>{esc(name)}</td><td>{esc(left)}</td><td>{esc(right)}</td></tr>")
    return (
        '<div class="scroll"><table><tr><th>machine</th><th>A</th><th>B</th></tr>'
        + "".join(rows)
        + "</table></div>"
    )


def _tables(cmp: Comparison) -> list[str]:
    esc = html.escape
    groups: dict[tuple[str, str], list[FigureComparison]] = {}
    for row in cmp.rows:
        groups.setdefault((row.a.primitive, row.a.mode), []).append(row)
    parts = []
    for (primitive, mode), rows in groups.items():
        columns = sorted({(r.a.align, r.a.size) for r in rows})
        labels = {(r.a.align, r.a.size): _label(r) for r in rows}
        variants = list(dict.fromkeys(r.a.variant for r in rows))
        cells = {(r.a.variant, r.a.align, r.a.size): r for r in rows}
        unit = unit_name(rows[0].a.unit)
        head = "".join(f'<th class="num">{esc(labels[c])}</th>' for c in columns)
        body = []
        for variant in variants:
            tds = []
            for align, size in columns:
                found = cells.get((variant, align, size))
                if found is None:
                    tds.append('<td class="num">-</td>')
                    continue
                row = found
                evidence = f", p={row.p_value:.2g}" if row.p_value is not None else ""
                floor = f", floor {row.floor:.1%}" if row.floor is not None else ""
                title = (
                    f"A {row.a.median or 0:.2f} {unit}, B {row.b.median or 0:.2f} {unit}; "
                    f"B/A 95% interval {row.ratio_ci[0]:.3f}-{row.ratio_ci[1]:.3f} "
                    f"({row.method}{evidence}{floor}): {row.verdict_text}"
                )
                tds.append(
                    f'<td class="heat" style="background:{ratio_colour(row)}" '
                    f'title="{esc(title)}">{row.ratio:.3f}</td>'
                )
            body.append(f"<tr><td>{esc(variant)}</td>{''.join(tds)}</tr>")
        parts.append(
            f"<h3>{esc(primitive)}, {esc(mode)}: B/A ratio of medians ({esc(unit)})</h3>"
            f'<div class="scroll"><table><tr><th>variant</th>{head}</tr>'
            + "".join(body)
            + "</table></div>"
        )
    return parts


def render_page(cmp: Comparison, run_a: RunResult, run_b: RunResult) -> str:
    esc = html.escape
    title = f"hotpath compare: run {cmp.run_a} (A) against run {cmp.run_b} (B)"
    sides = [
        f"<li>{side}: run {run.run_id}, {esc(run.started)}, <code>{esc(run.command_line)}</code>"
        + (f", variant {esc(variant)}" if variant else "")
        + f"; {esc(run.machine.one_line())}</li>"
        for side, run, variant in (("A", run_a, cmp.variant_a), ("B", run_b, cmp.variant_b))
    ]
    verdicts = "".join(f"<li>{esc(line)}</li>" for line in verdict_lines(cmp))
    rules = "".join(f"<li>{esc(line)}</li>" for line in rule_lines(cmp))
    parts = [
        "<!DOCTYPE html>\n<html lang='en'><head><meta charset='utf-8'>",
        "<meta name='viewport' content='width=device-width, initial-scale=1'>",
        f"<title>{esc(title)}</title><style>{STYLE}</style></head><body>",
        f"<h1>{esc(title)}</h1>",
        f'<section id="summary"><h2>Summary</h2><ul class="state">{"".join(sides)}</ul>',
        f'<ul class="findings">{verdicts}</ul></section>',
        "<h2>Machines</h2>",
        _machines(cmp),
        "<p class=\"legend\">Each cell: B's median over A's. Green: B faster, red: B slower "
        f"(full colour at {RATIO_FULL:g}x), grey: no evidence of a difference. Hover for "
        "both medians, the interval and how it was decided.</p>",
        *_tables(cmp),
        f"<details><summary>how the verdicts are decided</summary><ul>{rules}</ul></details>",
        "</body></html>",
    ]
    return "\n".join(parts) + "\n"
