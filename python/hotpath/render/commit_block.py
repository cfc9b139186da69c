# SPDX-License-Identifier: GPL-2.0-only
"""A comparison of two variants as a commit message carries it: plain
text within 72 columns (git's convention for a message body), or a
Markdown table. `hotpath compare --markdown` and `hotpath patch` print
them; one figure a row (function, size, mode), before, after, change
and compare's verdict, each with its unit."""

from dataclasses import dataclass

from hotpath.compare import Comparison, FigureComparison
from hotpath.labs import lab_for
from hotpath.results import FigureResult, unit_name
from hotpath.verdicts import BELOW, NO_EVIDENCE, SAME, WITHIN_UNIT

WIDTH = 72

SHORT = {BELOW: "below threshold", NO_EVIDENCE: "no evidence", WITHIN_UNIT: "within 1 unit",
         SAME: "same"}  # fmt: skip


@dataclass(frozen=True)
class Row:
    group: str  # the function (and the variant, comparing whole runs)
    size: str  # 64 B, 1500 B +1 (an odd alignment)
    mode: str
    before: str
    after: str
    change: str
    verdict: str


def _number(value: float | None) -> str:
    if value is None:
        return "-"
    return f"{value:.1f}" if abs(value) < 1e5 else f"{value:.3g}"


def _size(f: FigureResult) -> str:
    lab = lab_for(f.lab)
    align = f" +{f.align}" if f.align and (lab is None or lab.show_align) else ""
    return f"{f.size} {lab.size_unit if lab is not None else 'B'}{align}"


def verdict_word(row: FigureComparison) -> str:
    return SHORT.get(row.verdict, row.verdict)


def rows(cmp: Comparison) -> list[Row]:
    """The comparison's figures in the order measured, a row each."""
    found = []
    for row in cmp.rows:
        f = row.a
        group = f.primitive if cmp.variant_a is not None else f"{f.primitive} {f.variant}"
        change = (row.ratio - 1.0) * 100.0
        found.append(
            Row(group, _size(f), f.mode, _number(f.median), _number(row.b.median),
                f"{change:+.1f}%", verdict_word(row))
        )  # fmt: skip
    return found


def units(cmp: Comparison) -> str:
    names = sorted({unit_name(r.a.unit) for r in cmp.rows})
    return ", ".join(names) or "core cycles"


HEAD = ("size", "mode", "before", "after", "change", "verdict")


def plain(cmp: Comparison) -> list[str]:
    """The table as plain text, a heading per function; within WIDTH columns."""
    found = rows(cmp)
    cells = [HEAD, *((r.size, r.mode, r.before, r.after, r.change, r.verdict) for r in found)]
    widths = [max(len(c[i]) for c in cells) for i in range(len(HEAD))]
    right = (False, False, True, True, True, False)

    def line(row: tuple[str, ...]) -> str:
        parts = [
            c.rjust(w) if r else c.ljust(w) for c, w, r in zip(row, widths, right, strict=True)
        ]
        return _cut(("  " + "  ".join(parts)).rstrip())

    if not found:
        return []
    lines = [line(HEAD)]
    group = None
    for r, row in zip(found, cells[1:], strict=True):
        if r.group != group:
            group = r.group
            lines.append(_cut(group))
        lines.append(line(row))
    return lines


def markdown(cmp: Comparison) -> list[str]:
    lines = ["| function | " + " | ".join(HEAD) + " |", "|---|---|---|---:|---:|---:|---|"]
    for r in rows(cmp):
        lines.append(
            f"| {r.group} | {r.size} | {r.mode} | {r.before} | {r.after} | {r.change} "
            f"| {r.verdict} |"
        )
    return lines


def command_lines(command: str) -> list[str]:
    """A shell command over lines of at most WIDTH columns, joined by `\\`
    (a word longer than a line, a path, stays whole on its own)."""
    lines: list[str] = []
    line = ""
    for word in command.split(" "):
        candidate = f"{line} {word}" if line else f"  {word}"
        if len(candidate) + 2 > WIDTH and line:
            lines.append(line + " \\")
            candidate = f"    {word}"
        line = candidate
    return [*lines, line]


def wrap(text: str, indent: str = "") -> list[str]:
    """Words onto lines of at most WIDTH columns, the later ones indented."""
    lines: list[str] = []
    line = ""
    for word in text.split():
        candidate = f"{line} {word}" if line else (f"{indent}{word}" if lines else word)
        if len(candidate) > WIDTH and line:
            lines.append(line)
            candidate = f"{indent}{word}"
        line = candidate
    if line:
        lines.append(line)
    return [_cut(x) for x in lines]


def _cut(line: str) -> str:
    """A line within WIDTH: a word longer than the line (a path) is cut with '…'."""
    return line if len(line) <= WIDTH else line[: WIDTH - 1] + "…"


def compare_markdown(cmp: Comparison) -> str:
    """`hotpath compare --markdown`: the machine, the sides, the table."""
    a = f"{cmp.variant_a} of run {cmp.run_a}" if cmp.variant_a else f"run {cmp.run_a}"
    b = f"{cmp.variant_b} of run {cmp.run_b}" if cmp.variant_b else f"run {cmp.run_b}"
    machine = cmp.machine_a.one_line()
    if not cmp.same_machine:
        machine = f"DIFFERENT MACHINES: A {machine}; B {cmp.machine_b.one_line()}"
    head = [
        f"Before: {a}; after: {b}. {units(cmp).capitalize()} per call, medians; verdicts "
        f"at a {cmp.threshold:.0%} threshold (hotpath compare).",
        "",
        f"Machine: {machine}.",
        "",
    ]
    return "\n".join([*head, *markdown(cmp)]) + "\n"
