# SPDX-License-Identifier: GPL-2.0-only
"""The table model shared by every output format.

One Block per (lab, primitive, mode): rows are variants, columns are
(size, alignment), each cell the median and 95% CI half-width in the
block's unit. Variants that were not timed get a row with the reason
(WRONG with its first failing case, skipped, unavailable). Below each block
an order line per column ranks the variants, fastest first, claiming "<"
only between neighbours whose confidence intervals do not overlap.

Where the run has a bound model for the primitive (csum_partial's
dependency-chain bound, RunResult.bound_models), each column it applies to
is followed by a bound column ("bound": the figure's Bound, or "n/a" with
its reason as a numbered note), and the block's legend says what the bound
is, from which tools and model, and where it does not apply.
"""

import itertools
from dataclasses import dataclass, field

from hotpath.labs import Lab, Roles, lab_for
from hotpath.render.symbols import APPROX, PLUS_MINUS
from hotpath.results import Bound, BoundModel, FigureResult, RunResult, VariantResult, unit_name
from hotpath.stats import intervals_overlap

NOISY_MARK = "~"
FIGURE = "figure"
BOUND = "bound"
SHORT_REASON = 12  # longer n/a reasons become numbered notes under the block
MODE_WORDS = {
    "latency": "latency mode (each call's result feeds the next call)",
    "throughput": "throughput mode (calls independent)",
    "fenced": "fenced mode (lfence around each call, empty call subtracted)",
}


@dataclass
class Cell:
    text: str
    figure: FigureResult | None = None
    reason: str | None = None  # set for an untimed figure: "n/a: why"
    bound: Bound | None = None  # set in a bound column


@dataclass
class Row:
    variant: str
    cells: list[Cell]
    # Set for a variant that was not timed: WRONG/skipped/unavailable text.
    note: str | None = None
    status: str = "ok"


@dataclass
class Block:
    lab: str
    primitive: str
    mode: str
    unit: str
    samples: int
    columns: list[tuple[int, int]]
    column_labels: list[str]
    rows: list[Row] = field(default_factory=list)
    orders: list[str] = field(default_factory=list)
    # Reasons too long for a cell, numbered: cells say "n/a [1]".
    notes: list[str] = field(default_factory=list)
    noisy: bool = False
    # One per label: FIGURE (a measured column) or BOUND (the bound beside it).
    column_kinds: list[str] = field(default_factory=list)
    # Lines under the table saying what the bound columns are (or why there are none).
    legend: list[str] = field(default_factory=list)

    def note_cell(self, status: str, reason: str) -> str:
        """A cell for an untimed figure: "n/a: why" if short, else "n/a [k]"."""
        if len(reason) <= SHORT_REASON:
            return f"{status}: {reason}"
        text = f"{status}: {reason}"
        if text not in self.notes:
            self.notes.append(text)
        return f"{status} [{self.notes.index(text) + 1}]"

    @property
    def title(self) -> str:
        words = MODE_WORDS.get(self.mode, f"{self.mode} mode")
        spread = f"median {PLUS_MINUS}95% CI half-width over {self.samples} samples"
        return f"{self.primitive}, {words}: {unit_name(self.unit)} per call ({spread})"


def decimals_for(value: float) -> int:
    return 1 if abs(value) < 1000 else 0


def format_value(figure: FigureResult) -> str:
    assert figure.median is not None and figure.ci_lo is not None and figure.ci_hi is not None
    places = decimals_for(figure.median)
    half = (figure.ci_hi - figure.ci_lo) / 2.0
    mark = NOISY_MARK if figure.noisy else ""
    return f"{mark}{figure.median:.{places}f} {PLUS_MINUS}{half:.{places}f}"


def _variant_note(variant: VariantResult) -> str | None:
    info = variant.info
    if info.status == "ok":
        return None
    if info.status == "wrong":
        detail = info.failure.describe() if info.failure else (info.reason or "no case given")
        return f"WRONG: {detail}"
    return f"{info.status}: {info.reason or 'no reason given'}"


def _order_line(label: str, rows: list[Row], column: int) -> str | None:
    timed = [
        (row.variant, row.cells[column].figure)
        for row in rows
        if row.cells and row.cells[column].figure is not None
    ]
    ranked = sorted(
        ((name, fig) for name, fig in timed if fig is not None and fig.timed),
        key=lambda item: item[1].median or 0.0,
    )
    if len(ranked) < 2:
        return None
    text = ranked[0][0]
    for (_, before), (name, after) in itertools.pairwise(ranked):
        assert before.ci_lo is not None and before.ci_hi is not None
        assert after.ci_lo is not None and after.ci_hi is not None
        tie = intervals_overlap((before.ci_lo, before.ci_hi), (after.ci_lo, after.ci_hi))
        text += f" {APPROX if tie else '<'} {name}"
    return f"{label}: {text}"


def _bound_cell(block: Block, figure: FigureResult | None) -> Cell:
    bound = figure.bound if figure is not None else None
    if bound is None:
        return Cell("-")
    if bound.status == "ok" and bound.cycles is not None:
        return Cell(bound.text(), bound=bound)
    reason = bound.reason or "no reason given"
    return Cell(
        block.note_cell(bound.status, reason), reason=f"{bound.status}: {reason}", bound=bound
    )


def _legend(model: BoundModel, block: Block, with_bound: list[bool]) -> list[str]:
    """What the bound columns are; where there are none, why."""
    if not any(with_bound):
        return [f"{model.label}: none in this table: {model.scope}"]
    lines = [model.legend]
    missing: list[str] = []
    for (size, align), bound in zip(block.columns, with_bound, strict=True):
        if bound:
            continue
        lab = lab_for(block.lab)
        whole = all(not b for (s, _), b in zip(block.columns, with_bound, strict=True) if s == size)
        label = f"{size} {lab.size_unit if lab else 'B'}" if whole else None
        label = label or (lab.column_label(size, align) if lab else f"{size} +{align}")
        if label not in missing:
            missing.append(label)
    if missing:
        lines.append(f"{model.label}: none beside {', '.join(missing)}: {model.scope}")
    return lines


def _reimplemented(lab: Lab, primitive: str, variants: list[VariantResult]) -> list[str]:
    """A line naming the table's re-implementations of the kernel's code
    (and, where the run has it, each one's real counterpart)."""
    names = [v.info.name for v in variants]
    reimplemented = Roles.of([v.info for v in variants]).reimplemented
    mine = [n for n in names if n in reimplemented]
    if not mine:
        return []
    real = lab.counterparts.get(primitive, {})
    said = [f"{n} (the real code: {real[n]})" if real.get(n) in names else n for n in mine]
    return [f"re-implemented from the kernel's commits, not its code: {', '.join(said)}"]


def build_blocks(run: RunResult) -> list[Block]:
    blocks = []
    for primitive in run.primitives():
        variants = [v for v in run.variants if v.primitive == primitive]
        figures = [f for f in run.figures if f.primitive == primitive]
        if not variants:
            continue
        lab_name = variants[0].lab
        lab = lab_for(lab_name)
        columns = list(dict.fromkeys((f.size, f.align) for f in figures))
        columns.sort()
        modes = list(dict.fromkeys(f.mode for f in figures))
        model = run.bound_models.get(primitive)
        for mode in modes or ["latency"]:
            by_key = {(f.variant, f.size, f.align): f for f in figures if f.mode == mode}
            unit = next((f.unit for f in by_key.values()), "cycles")
            with_bound = [model is not None and model.applies(mode, s, a) for s, a in columns]
            labels: list[str] = []
            kinds: list[str] = []
            for (size, align), bound in zip(columns, with_bound, strict=True):
                labels.append(lab.column_label(size, align) if lab else f"{size} +{align}")
                kinds.append(FIGURE)
                if bound and model is not None:
                    labels.append(model.label)
                    kinds.append(BOUND)
            block = Block(
                lab=lab_name,
                primitive=primitive,
                mode=mode,
                unit=unit,
                samples=max((f.n for f in by_key.values()), default=0),
                columns=columns,
                column_labels=labels,
                column_kinds=kinds,
            )
            if model is not None:
                block.legend.extend(_legend(model, block, with_bound))
            if lab is not None:
                block.legend.extend(_reimplemented(lab, primitive, variants))
            for variant in variants:
                note = _variant_note(variant)
                name = variant.info.name
                if note is not None:
                    block.rows.append(Row(name, [], note=note, status=variant.info.status))
                    continue
                cells = []
                for size, align in columns:
                    fig = by_key.get((name, size, align))
                    if fig is None:
                        cells.append(Cell("-"))
                    elif fig.timed:
                        cells.append(Cell(format_value(fig), fig))
                        block.noisy = block.noisy or fig.noisy
                    else:
                        reason = f"{fig.status}: {fig.reason or 'no reason given'}"
                        cells.append(Cell(reason, reason=reason))
                reasons = {c.reason for c in cells}
                if cells and len(reasons) == 1 and cells[0].reason is not None:
                    block.rows.append(Row(name, [], note=cells[0].reason, status="n/a"))
                    continue
                for cell in cells:
                    if cell.reason is not None:
                        status, _, why = cell.reason.partition(": ")
                        cell.text = block.note_cell(status, why)
                row_cells = []
                for (size, align), cell, bound in zip(columns, cells, with_bound, strict=True):
                    row_cells.append(cell)
                    if bound:
                        row_cells.append(_bound_cell(block, by_key.get((name, size, align))))
                block.rows.append(Row(name, row_cells))
            for index, label in enumerate(labels):
                line = _order_line(label, block.rows, index)
                if line:
                    block.orders.append(line)
            blocks.append(block)
    return blocks


FOOTNOTE_NOISY = (
    f"{NOISY_MARK} noisy: the 95% CI is wider than the noisy threshold of the median; "
    "rerun, or raise --rounds"
)
FOOTNOTE_ORDER = (
    "order lines: fastest first; '<' where the 95% CIs are disjoint, "
    f"'{APPROX}' where they overlap (too noisy to rank)"
)
