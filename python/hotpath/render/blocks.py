# SPDX-License-Identifier: GPL-2.0-only
"""The table model shared by every output format.

One Block per (lab, primitive, mode): rows are variants, columns are
(size, alignment), each cell the median and 95% CI half-width in the
block's unit. Variants that were not timed get a row with the reason
(WRONG with its first failing case, skipped, unavailable). Below each block
an order line per column ranks the variants, fastest first, claiming "<"
only between neighbours whose confidence intervals do not overlap.
"""

import itertools
from dataclasses import dataclass, field

from hotpath.labs import lab_for
from hotpath.results import FigureResult, RunResult, VariantResult, unit_name
from hotpath.stats import intervals_overlap

NOISY_MARK = "~"
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
        spread = f"median ±95% CI half-width over {self.samples} samples"
        return f"{self.primitive}, {words}: {unit_name(self.unit)} per call ({spread})"


def decimals_for(value: float) -> int:
    return 1 if abs(value) < 1000 else 0


def format_value(figure: FigureResult) -> str:
    assert figure.median is not None and figure.ci_lo is not None and figure.ci_hi is not None
    places = decimals_for(figure.median)
    half = (figure.ci_hi - figure.ci_lo) / 2.0
    mark = NOISY_MARK if figure.noisy else ""
    return f"{mark}{figure.median:.{places}f} ±{half:.{places}f}"


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
        text += f" {'≈' if tie else '<'} {name}"
    return f"{label}: {text}"


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
        for mode in modes or ["latency"]:
            by_key = {(f.variant, f.size, f.align): f for f in figures if f.mode == mode}
            unit = next((f.unit for f in by_key.values()), "cycles")
            labels = [lab.column_label(s, a) if lab else f"{s} +{a}" for s, a in columns]
            block = Block(
                lab=lab_name,
                primitive=primitive,
                mode=mode,
                unit=unit,
                samples=max((f.n for f in by_key.values()), default=0),
                columns=columns,
                column_labels=labels,
            )
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
                block.rows.append(Row(name, cells))
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
    "'≈' where they overlap (too noisy to rank)"
)
