# SPDX-License-Identifier: GPL-2.0-only
"""`hotpath dispatch`'s output: the table of methods per length
(hotpath.dispatch.Point), the notes under it, the rows measured, repaired
or tried, and `--show`'s lines. Takes the points and rows, returns lines."""

from collections.abc import Iterable
from pathlib import Path

from hotpath import measured_rows
from hotpath.dispatch import RUN_WORSE, TAX_BAR, Point, Tax


def tax_table(which: str, rows: list[Tax]) -> list[str]:
    """The dispatch's cost per length: hotpath's own variant (the row
    `which` names, through hp_csum()/hp_crc32c()) against the method that
    row runs there, called alone, per mode; '>' past TAX_BAR, and a line
    naming every such length."""
    if not rows:
        return [f"dispatch tax ({which}): no length had both hotpath's own variant and the "
                "row's method timed"]  # fmt: skip
    modes = sorted({m.mode for t in rows for m in t.modes})
    unit = "core cycles" if rows[0].unit == "cycles" else rows[0].unit
    lines = [
        f"dispatch tax ({which}): hp_csum() and hp_crc32c() through the row against the "
        f"method the row runs at that length, called alone; {unit} per call, median "
        f"(±95% CI half-width); tax = own - alone, '>' past {TAX_BAR:g} and past the two "
        "half-widths together:",
        f"{'primitive':<13} {'size':>8} {'addr':>4} {'method':<19} "
        + " ".join(f"{mode + ': own':>17} {'alone':>11} {'tax':>6} " for mode in modes),
    ]
    for t in rows:
        by_mode = {m.mode: m for m in t.modes}
        cells = []
        for mode in modes:
            m = by_mode.get(mode)
            if m is None:
                cells.append(f"{'-':>17} {'-':>11} {'-':>6} ")
                continue
            flag = ">" if m.over else " "
            own = f"{m.own:.1f}±{m.own_ci:.1f}"
            alone = f"{m.alone:.1f}±{m.alone_ci:.1f}"
            cells.append(f"{own:>17} {alone:>11} {m.tax:+6.1f}{flag}")
        addr = "odd" if t.align % 2 else "even"
        lines.append(f"{t.primitive:<13} {t.size:>8} {addr:>4} {t.method:<19} " + " ".join(cells))
    over = [t for t in rows if t.over]
    lines.append(
        f"within {TAX_BAR:g} {unit} (or the figures' intervals) of the method alone in every "
        "mode: "
        f"{len(rows) - len(over)} of {len(rows)} lengths"
        + (
            "; past it: "
            + ", ".join(
                f"{t.primitive} {t.size}{' odd' if t.align % 2 else ''} ("
                + ", ".join(f"{m.mode} {m.tax:+.1f}" for m in t.modes if m.over)
                + ")"
                for t in over
            )
            if over
            else ""
        )
    )
    return lines


def indented(text: str) -> list[str]:
    """A row's lines as the output shows them."""
    return [f"    {line}" for line in text.splitlines()]


def run_cell(p: Point, untimed: str) -> str:
    """The 'run' column: the gain through the dispatch, '!' where it ran
    slower in every pair, else `untimed`."""
    return f"{p.run_gain:5.2f}x" + ("!" if p.run_worse else " ") if p.run_gain else untimed


def run_summary(which: str, points: list[Point], pairs: int) -> str:
    ran = [p.run_gain for p in points if p.run_gain]
    worse = [p for p in points if p.run_worse]
    if not ran:
        return f"run: no length in the table above was timed with the {which} row"
    return (
        f"run: hp_csum() and hp_crc32c() timed with the {which} row and with the row in use "
        f"(HOTPATH_DISPATCH, {pairs} alternating pairs of runs): {max(ran):.2f}x at best, "
        f"{min(ran):.2f}x at worst; "
        + (f"{len(worse)} length(s) ran more than {RUN_WORSE:.0%} slower with it in "
           "every pair (" + ", ".join(f"{p.size}{' odd' if p.align else ''}" for p in worse)
           + ")" if worse else "no length ran slower in every pair")
    )  # fmt: skip


def table(
    machine: str,
    head: list[str],
    rounds: int,
    by_primitive: tuple[tuple[str, list[Point]], ...],
    runs: set[str],
) -> list[str]:
    """The machine, the row in use and one line per length: the chosen
    method, its cycles, the row in use's, the predicted gain and the run's."""
    lines = [
        f"machine: {machine}",
        *head,
        "",
        "core cycles per call, geometric mean of the latency and throughput medians "
        f"({rounds} samples each):",
        f"{'primitive':<13} {'size':>8} {'addr':>4} {'method':<19} {'cycles':>9} "
        f"{'in use':>9} {'gain':>6} {'run':>7}",
    ]
    for primitive, points in by_primitive:
        for p in filter(lambda p: p.measured, points):
            addr = "odd" if p.align % 2 else "even"
            in_use_text = f"{p.in_use:9.1f}" if p.in_use else f"{'-':>9}"
            gain = f"{p.gain:5.2f}x" if p.gain else f"{'-':>6}"
            run_text = run_cell(p, "same" if runs and primitive not in runs else "-")
            split = "; ".join(f"{x.mode}: {x.rival} {x.ratio:.2f}x faster" for x in p.split)
            lines.append(
                f"{primitive:<13} {p.size:>8} {addr:>4} {p.method:<19} {p.chosen:9.1f} "
                f"{in_use_text} {gain} {run_text:>7}" + (f"  ({split})" if split else "")
            )
    return lines


def _medians(by_mode: tuple[tuple[str, float], ...]) -> str:
    return ", ".join(f"{median:.1f} {mode}" for mode, median in by_mode)


def split_lines(by_primitive: tuple[tuple[str, list[Point]], ...]) -> list[str]:
    """The lengths where latency and throughput want different methods,
    with both methods' figures in every mode: the CPU's trade, which no
    row can avoid (the row takes the better geometric mean of the two)."""
    split = [(prim, p) for prim, points in by_primitive for p in points if p.split]
    if not split:
        return []
    lines = [
        "(in brackets: a mode whose own best method is more than 3% faster than the "
        "chosen one; no one method is within 3% in every mode at that length)",
        f"latency and throughput split at {len(split)} length(s) on this CPU (core cycles; "
        "the row runs the method with the better geometric mean of the modes):",
    ]
    for primitive, p in split:
        addr = " odd" if p.align % 2 else ""
        for x in p.split:
            lines.append(
                f"  {primitive} {p.size}{addr}: {x.mode} wants {x.rival} "
                f"({_medians(x.rival_by_mode)}), the row runs {p.method} "
                f"({_medians(x.chosen_by_mode)})"
            )
    return lines


def notes(
    every: list[Point],
    left: list[str],
    kept: list[str],
    runs: set[str],
    use_row: tuple[str, str],
    primitives: int,
    pairs: int,
) -> list[str]:
    """Under the table (after split_lines()): the untimed figures, the predicted
    gain, the measured gain (or why the row was not run); `primitives`: how
    many the plan has."""
    lines = []
    for primitive in kept:
        lines.append(f"{primitive}: no length had every method timed (a neighbour): its "
                     "steps in the measured row are the row in use's; measure again when the "
                     "machine is quieter")  # fmt: skip
    if left:
        lines.append(f"{len(left)} length(s) left to the step before, a method's figure "
                     f"spoiled there (no clean sample: a neighbour or a changing clock): "
                     f"{', '.join(left)}")  # fmt: skip
    gains = [p.gain for p in every if p.gain]
    if gains:
        lines.append(
            f"the measured row is {max(gains):.2f}x faster than the row in use at best, "
            f"{min(gains):.2f}x at worst (below 1: the row in use's own method won there)"
        )
    if runs:
        lines.append(run_summary("measured", every, pairs))
    if runs and len(runs) < primitives:
        lines.append("same: the measured row's steps for that primitive are the row in use's")
    elif not use_row[1]:
        lines.append("the runner does not say which row it uses: the measured row was not run")
    elif not runs:
        lines.append("the measured row names the row in use's steps: nothing to run")
    return lines


def repaired(text: str, points: list[Point], ran: bool, pairs: int) -> list[str]:
    """The repaired row and how it ran (`ran`: it differs from the row in use)."""
    return [
        "",
        "repaired row (the row in use's method where the measured row ran slower in every "
        "pair; the methods timed alone do not see the cost of the row's structure):",
        *indented(text),
        run_summary("repaired", points, pairs)
        if ran
        else "the repaired row names the row in use's steps: keep the row in use",
    ]


TRY_HEAD = f"{'primitive':<13} {'size':>8} {'addr':>4} {'in use':<19} {'tried':<19} {'run':>7}"


def tried(
    path: Path, text: str, rows: Iterable[tuple[str, str, Point]] | None, pairs: int
) -> list[str]:
    """`--try FILE`: the row tried, then per length (primitive, the row in
    use's method, the point run) the gain; rows None: it names the row in
    use's steps, nothing was run."""
    lines = [f"row tried: {path}", *indented(text), ""]
    if rows is None:
        return [*lines, "it names the row in use's steps: nothing to run"]
    lines.append(TRY_HEAD)
    points = []
    for primitive, in_use, p in rows:
        points.append(p)
        lines.append(
            f"{primitive:<13} {p.size:>8} {'odd' if p.align else 'even':>4} "
            f"{in_use:<19} {p.method:<19} {run_cell(p, 'same'):>7}"
        )
    return [*lines, run_summary("tried", points, pairs)]


def row_state(path: Path | None, not_taken: dict[str, str]) -> str:
    if path is None:
        return "none"
    if str(path) in not_taken:
        return f"{path} (refused)"
    return f"{path}" if path.exists() else f"{path} (none)"


def show(in_use: dict[str, str]) -> list[str]:
    """`--show`: the row in use, where it came from, and where this CPU's
    measured row is (or would be) kept."""
    lines = [*measured_rows.in_use_lines(in_use), *indented(in_use.get("text", ""))]
    where = measured_rows.places(in_use)
    if where is not None:
        lines.append(f"this CPU's key: {where.key}")
        not_taken = measured_rows.refused(in_use)
        for label, path in (("user", where.user), ("system", where.system)):
            lines.append(f"  {label} row: {row_state(path, not_taken)}")
    return lines
