# SPDX-License-Identifier: GPL-2.0-only
"""A seed's published table, redone here: its figures beside ours, its claims checked.

Seeds print tables (seed 000's csum_partial ladder, seed 002's sk_buff
CRC32C comparison) and draw directions from them ("skb_crc32c is faster",
"dead code removed beats the baseline"). A SeedTable declares, as data in
a lab's modules, which of our figures fill each cell, the seed's own
figures beside them and the directions to check. This module evaluates
that declaration against a run: each cell from the run's median and 95% CI,
each direction decided from our CIs ("holds", "does not hold", "not
distinguishable") with what the seed's own figures say beside it. Nothing
here is hard-coded about a result: change the data and the lines follow.
hotpath.render.seedtable lays the evaluated tables out. Where the run has
a bound model for the table's primitive (csum_partial's dependency-chain
bound) and the table is in its mode, a bound column per column of ours
follows the seed's columns, and the seed's own hand-drawn chains
(TableSpec.published_bounds) are set beside it in a note.
"""

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from hotpath.results import Bound, BoundModel, FigureResult, RunResult, VariantResult, unit_name
from hotpath.seedtable_spec import Axis, Claim, Coord, Published, SeedTable, TableSpec

HOLDS = "holds"
DOES_NOT_HOLD = "does not hold"
NOT_DISTINGUISHABLE = "not distinguishable"
NOT_COMPARABLE = "not comparable"
# The intervals say it holds, by less than the user's --threshold.
HOLDS_BELOW = "holds, by less than the threshold"
# Worst first: one point that contradicts the claim decides it, then one
# that cannot be compared, then one inside the noise, then one too small.
OUTCOME_ORDER = (DOES_NOT_HOLD, NOT_COMPARABLE, NOT_DISTINGUISHABLE, HOLDS_BELOW, HOLDS)
OTHER_MODE_MARK = "*"
NOISY_MARK = "~"
OURS, SEED, BOUND = "ours", "seed", "bound"  # the kinds of a table's columns
# Below one unit (fenced figures near the subtracted empty call) a ratio says nothing.
RATIO_FLOOR = 1.0


# --- deciding a direction -------------------------------------------------


def decide_point(
    cheaper: tuple[float, float] | None,
    dearer: tuple[float, float] | None,
    factor: float = 1.0,
    threshold: float = 0.0,
) -> str:
    """One point of a claim from two 95% CIs (lo, hi): is `cheaper` x factor
    below `dearer`? By less than `threshold` (of the intervals' middles) it
    holds, but so narrowly that the user asked to hear it said."""
    if cheaper is None or dearer is None:
        return NOT_COMPARABLE
    if cheaper[1] * factor < dearer[0]:
        ratio = sum(dearer) / (sum(cheaper) * factor)
        return HOLDS if ratio - 1.0 > threshold else HOLDS_BELOW
    if cheaper[0] * factor > dearer[1]:
        return DOES_NOT_HOLD
    return NOT_DISTINGUISHABLE


def combine(outcomes: list[str]) -> str:
    """A claim over several points: the worst point decides (see OUTCOME_ORDER)."""
    if not outcomes:
        return NOT_COMPARABLE
    return min(outcomes, key=OUTCOME_ORDER.index)


def decide_published(cheaper: float | None, dearer: float | None, factor: float) -> str | None:
    """The seed's own figures have no spread: a plain comparison, None where missing."""
    if cheaper is None or dearer is None:
        return None
    return HOLDS if cheaper * factor < dearer else DOES_NOT_HOLD


# --- evaluated tables -----------------------------------------------------


@dataclass
class Cell:
    coord: Coord
    status: str  # ok, n/a, wrong, skipped, unavailable, missing
    figure: FigureResult | None = None
    reason: str | None = None

    @property
    def bound(self) -> Bound | None:
        return self.figure.bound if self.figure is not None else None

    def bound_text(self) -> str:
        """The bound beside this cell: cycles, "n/a", or "-" beside a variant not timed."""
        bound = self.bound
        if bound is None or self.status not in ("ok", "n/a"):
            return "-"
        return bound.text()

    def interval(self) -> tuple[float, float] | None:
        f = self.figure
        if self.status != "ok" or f is None or f.ci_lo is None or f.ci_hi is None:
            return None
        return f.ci_lo, f.ci_hi

    def text(self, decimals: int) -> str:
        if self.status == "ok" and self.figure is not None and self.figure.median is not None:
            mark = NOISY_MARK if self.figure.noisy else ""
            return f"{mark}{self.figure.median:.{decimals}f}"
        return {"wrong": "WRONG", "missing": "-"}.get(self.status, self.status)

    def to_json(self) -> dict[str, Any]:
        f = self.figure
        return {
            "variant": self.coord.variant,
            "size": self.coord.size,
            "align": self.coord.align,
            "status": self.status,
            "reason": self.reason,
            "median": f.median if f and self.status == "ok" else None,
            "ci_lo": f.ci_lo if f and self.status == "ok" else None,
            "ci_hi": f.ci_hi if f and self.status == "ok" else None,
            "n": f.n if f else 0,
            "noisy": bool(f.noisy) if f else False,
            "bound": f.bound.to_json() if f and f.bound else None,
        }


@dataclass
class Point:
    at: str  # the other axis's short name
    cheaper: Cell
    dearer: Cell
    outcome: str
    seed_outcome: str | None
    seed_values: tuple[float | None, float | None]


@dataclass
class Verdict:
    claim: Claim
    outcome: str
    points: list[Point]
    seed_outcome: str | None  # None: the seed printed no figures for it here

    def line(self, decimals: int, seed_decimals: int) -> str:
        details = []
        for p in self.points:
            a, b = p.cheaper.text(decimals), p.dearer.text(decimals)
            text = f"{p.at} {a} vs {b}"
            lo, hi = p.cheaper.interval(), p.dearer.interval()
            if lo is not None and hi is not None and p.cheaper.figure and p.dearer.figure:
                cheap, dear = p.cheaper.figure.median or 0.0, p.dearer.figure.median or 0.0
                if cheap >= RATIO_FLOOR and dear >= RATIO_FLOOR:
                    text += f" ({dear / cheap:.1f}x)"
            elif p.outcome == NOT_COMPARABLE:
                text += " (not timed)"
            details.append(text)
        factor = f", by at least {self.claim.factor:g}x" if self.claim.factor != 1.0 else ""
        seed = self.seed_outcome or "no figures here"
        if self.seed_outcome is not None:
            shown = [
                f"{p.at} {_fmt(p.seed_values[0], seed_decimals)} vs "
                f"{_fmt(p.seed_values[1], seed_decimals)}"
                for p in self.points
                if p.seed_outcome is not None
            ]
            seed += f" ({'; '.join(shown)})"
        return (
            f"{self.claim.text}{factor}: {self.outcome} here "
            f"({'; '.join(details)}); the seed's figures: {seed}"
        )

    def to_json(self) -> dict[str, Any]:
        return {
            "claim": self.claim.text,
            "cheaper": self.claim.cheaper,
            "dearer": self.claim.dearer,
            "factor": self.claim.factor,
            "outcome": self.outcome,
            "seed_outcome": self.seed_outcome,
            "points": [
                {
                    "at": p.at,
                    "outcome": p.outcome,
                    "cheaper": p.cheaper.to_json(),
                    "dearer": p.dearer.to_json(),
                    "seed_outcome": p.seed_outcome,
                    "seed_cheaper": p.seed_values[0],
                    "seed_dearer": p.seed_values[1],
                }
                for p in self.points
            ],
        }


def _fmt(value: float | None, decimals: int) -> str:
    return "-" if value is None else f"{value:.{decimals}f}"


@dataclass
class TableResult:
    spec: TableSpec
    mode: str
    unit: str
    samples: int
    cells: dict[tuple[str, str], Cell]
    published: Published | None
    verdicts: list[Verdict] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    # (row key, column key) of seed figures measured in another mode
    marked: set[tuple[str, str]] = field(default_factory=set)
    # The run's bound model, when it applies to this table's mode: bound columns shown.
    bound_model: BoundModel | None = None

    def published_columns(self) -> list[tuple[str, str]]:
        """(our column key, header) of the seed's columns, in our columns' order."""
        if self.published is None:
            return []
        keys = [c.key for c in self.spec.columns]
        return [(k, self.published.columns[k]) for k in keys if k in self.published.columns]

    def bound_columns(self) -> list[str]:
        """Our column keys that get a bound column (the model applies at their cell)."""
        model = self.bound_model
        if model is None:
            return []
        keys = []
        for column in self.spec.columns:
            cells = [self.cells[(row.key, column.key)] for row in self.spec.rows]
            if any(model.applies(self.mode, c.coord.size, c.coord.align) for c in cells):
                keys.append(column.key)
        return keys

    def layout(self) -> list[tuple[str, str]]:
        """(kind, column key) left to right: ours, the seed's right after the ours they
        mirror, our columns the seed has no counterpart for (hotpath's own), then the
        bounds beside ours."""
        seed = self.published_columns()
        mirrored = {k for k, _ in seed}
        ours = [c.key for c in self.spec.columns]
        first = [k for k in ours if k in mirrored] if seed else ours
        rest = [k for k in ours if k not in first]
        return [
            *((OURS, k) for k in first),
            *((SEED, k) for k, _ in seed),
            *((OURS, k) for k in rest),
            *((BOUND, k) for k in self.bound_columns()),
        ]

    def header(self, unit_word: str) -> list[str]:
        columns = {c.key: c for c in self.spec.columns}
        seed = dict(self.published_columns())
        label = self.bound_model.label if self.bound_model else BOUND
        out = [self.spec.row_header]
        for kind, key in self.layout():
            if kind == SEED:
                out.append(seed[key])
            elif kind == BOUND:
                out.append(f"{label} {columns[key].name}")
            else:
                out.append(f"{columns[key].label} {unit_word}".strip())
        return out

    def body(self) -> list[list[str]]:
        rows = []
        for row in self.spec.rows:
            cells = [row.label]
            for kind, key in self.layout():
                if kind == OURS:
                    cells.append(self.cells[(row.key, key)].text(self.spec.decimals))
                    continue
                if kind == BOUND:
                    cells.append(self.cells[(row.key, key)].bound_text())
                    continue
                assert self.published is not None
                text = _fmt(self.published.value(row.key, key), self.published.decimals)
                if (row.key, key) in self.marked:
                    text += OTHER_MODE_MARK
                cells.append(text)
            rows.append(cells)
        return rows

    def to_json(self) -> dict[str, Any]:
        seed_columns = self.published_columns()
        return {
            "title": self.spec.title,
            "primitive": self.spec.primitive,
            "mode": self.mode,
            "unit": self.unit,
            "samples": self.samples,
            "columns": [{"key": c.key, "label": c.label} for c in self.spec.columns],
            "published": None
            if self.published is None
            else {
                "source": self.published.source,
                "columns": [{"of": k, "label": label} for k, label in seed_columns],
            },
            "rows": [
                {
                    "key": row.key,
                    "label": row.label,
                    "cells": [
                        {"column": c.key, **self.cells[(row.key, c.key)].to_json()}
                        for c in self.spec.columns
                    ],
                    "published": {k: self.published.value(row.key, k) for k, _ in seed_columns}
                    if self.published is not None
                    else {},
                    "published_other_mode": sorted(k for r, k in self.marked if r == row.key),
                }
                for row in self.spec.rows
            ],
            "notes": self.notes,
            "verdicts": [v.to_json() for v in self.verdicts],
            "bound_columns": self.bound_columns(),
            "published_bounds": [
                {"row": b.row, "cycles": b.cycles, "source": b.source}
                for b in self.spec.published_bounds
            ],
        }


@dataclass
class SeedTableResult:
    seed: SeedTable
    tables: list[TableResult]

    def to_json(self) -> dict[str, Any]:
        return {
            "flag": f"--{self.seed.flag}",
            "seed": self.seed.seed,
            "header": list(self.seed.header),
            "tables": [t.to_json() for t in self.tables],
        }


def _cell(
    coord: Coord,
    figures: Mapping[tuple[str, str, int, int, str], FigureResult],
    variants: Mapping[tuple[str, str], VariantResult],
    mode: str,
) -> Cell:
    variant = variants.get((coord.primitive, coord.variant))
    if variant is None:
        return Cell(coord, "missing", reason="not in this runner build")
    info = variant.info
    if info.status == "wrong":
        detail = info.failure.describe() if info.failure else (info.reason or "no case given")
        return Cell(coord, "wrong", reason=detail)
    if info.status != "ok":
        return Cell(coord, info.status, reason=info.reason or "no reason given")
    figure = figures.get((coord.primitive, coord.variant, coord.size, coord.align, mode))
    if figure is None:
        return Cell(coord, "missing", reason="not measured in this run")
    if not figure.timed:
        return Cell(coord, "n/a", figure, reason=figure.reason or figure.status)
    return Cell(coord, "ok", figure)


def evaluate(
    seed: SeedTable, run: RunResult, modes: tuple[str, ...], threshold: float = 0.0
) -> SeedTableResult:
    """Every table of the seed in every mode, filled from the run; a claim
    that holds by less than `threshold` (--threshold) is said so."""
    figures = {(f.primitive, f.variant, f.size, f.align, f.mode): f for f in run.figures}
    variants = {(v.primitive, v.info.name): v for v in run.variants}
    tables = []
    for spec in seed.tables:
        model = run.bound_models.get(spec.primitive)
        for mode in modes:
            shown = model if model is not None and model.mode == mode else None
            tables.append(_evaluate_table(spec, mode, figures, variants, shown, threshold))
    return SeedTableResult(seed, tables)


def _evaluate_table(
    spec: TableSpec,
    mode: str,
    figures: Mapping[tuple[str, str, int, int, str], FigureResult],
    variants: Mapping[tuple[str, str], VariantResult],
    bound_model: BoundModel | None = None,
    threshold: float = 0.0,
) -> TableResult:
    cells = {
        (row.key, column.key): _cell(spec.coord(row, column), figures, variants, mode)
        for row in spec.rows
        for column in spec.columns
    }
    timed = [c.figure for c in cells.values() if c.status == "ok" and c.figure is not None]
    unit = timed[0].unit if timed else "cycles"
    result = TableResult(
        spec=spec,
        mode=mode,
        unit=unit,
        samples=max((f.n for f in timed), default=0),
        cells=cells,
        published=spec.published_for(mode),
        bound_model=bound_model,
    )
    result.notes.extend(_row_notes(spec, cells))
    result.notes.extend(_bound_notes(result))
    result.notes.extend(_other_mode_notes(spec, result, figures, variants))
    result.notes.extend(spec.notes)
    result.verdicts.extend(_verdict(spec, claim, result, threshold) for claim in spec.claims)
    return result


def _row_notes(spec: TableSpec, cells: Mapping[tuple[str, str], Cell]) -> list[str]:
    """One note per variant and reason for the cells that are not figures."""
    notes: list[str] = []
    for row in spec.rows:
        for column in spec.columns:
            cell = cells[(row.key, column.key)]
            if cell.status == "ok" or cell.reason is None:
                continue
            text = f"{cell.coord.variant}: {cell.text(spec.decimals)}: {cell.reason}"
            if text not in notes:
                notes.append(text)
    return notes


def _bound_notes(result: TableResult) -> list[str]:
    """What the bound columns are, why a bound is n/a, the seed's own chains beside ours."""
    model, spec = result.bound_model, result.spec
    keys = result.bound_columns()
    if model is None or not keys:
        return []
    notes = [model.legend]
    columns = [c for c in spec.columns if c.key in keys]
    for row in spec.rows:
        for column in columns:
            cell = result.cells[(row.key, column.key)]
            bound = cell.bound
            if bound is None or bound.status == "ok" or cell.status not in ("ok", "n/a"):
                continue
            text = f"{cell.coord.variant}: {model.label} n/a: {bound.reason or 'no reason given'}"
            if text not in notes:
                notes.append(text)
    rows = {r.key: r for r in spec.rows}
    for published in spec.published_bounds:
        row = rows[published.row]
        ours = []
        for column in columns:
            bound = result.cells[(row.key, column.key)].bound
            if bound is not None and bound.status == "ok":
                chain = bound.chain_cycles
                ours.append(f"{column.name} {model.label} {bound.text()}, chain {chain}")
            else:
                ours.append(f"{column.name} {model.label} n/a")
        notes.append(
            f"{row.label}: {published.source}: {published.cycles:g} cycles; here: "
            f"{'; '.join(ours)} (chain: the longest path anywhere in the call, as the seed drew it)"
        )
    return notes


def _other_mode_notes(
    spec: TableSpec,
    result: TableResult,
    figures: Mapping[tuple[str, str, int, int, str], FigureResult],
    variants: Mapping[tuple[str, str], VariantResult],
) -> list[str]:
    notes = []
    published = result.published
    rows = {r.key: r for r in spec.rows}
    for other in spec.other_modes:
        if other.mode != result.mode or published is None or other.row not in rows:
            continue
        row = rows[other.row]
        marked = [c for c in spec.columns if published.value(row.key, c.key) is not None]
        if not marked:
            continue
        result.marked.update((row.key, c.key) for c in marked)
        ours = []
        for column in spec.columns:
            cell = _cell(spec.coord(row, column), figures, variants, other.measured_as)
            ours.append(f"{column.name} {cell.text(spec.decimals)}")
        notes.append(
            f"{OTHER_MODE_MARK} {row.label}: {other.why}; the seed's figure here was in effect "
            f"a {other.measured_as} figure: compare it with ours in {other.measured_as} mode "
            f"({', '.join(ours)} {unit_name(result.unit)})"
        )
    return notes


def _verdict(spec: TableSpec, claim: Claim, result: TableResult, threshold: float) -> Verdict:
    by_rows, others = spec.claim_axes(claim)
    published = result.published
    rows = {r.key: r for r in spec.rows}
    points = []
    for other in others:
        if by_rows:
            keys = ((claim.cheaper, other.key), (claim.dearer, other.key))
        else:
            keys = ((other.key, claim.cheaper), (other.key, claim.dearer))
        keys = (_measured(result, rows, keys[0]), _measured(result, rows, keys[1]))
        cheap, dear = result.cells[keys[0]], result.cells[keys[1]]
        outcome = decide_point(cheap.interval(), dear.interval(), claim.factor, threshold)
        seed_values: tuple[float | None, float | None] = (None, None)
        seed_outcome = None
        if published is not None:
            seed_values = (
                _published(published, rows, *keys[0]),
                _published(published, rows, *keys[1]),
            )
            seed_outcome = decide_published(*seed_values, claim.factor)
        points.append(Point(other.name, cheap, dear, outcome, seed_outcome, seed_values))
    seed_outcomes = [p.seed_outcome for p in points if p.seed_outcome is not None]
    return Verdict(
        claim=claim,
        outcome=combine([p.outcome for p in points]),
        points=points,
        seed_outcome=combine(seed_outcomes) if seed_outcomes else None,
    )


def _measured(
    result: TableResult, rows: Mapping[str, Axis], key: tuple[str, str]
) -> tuple[str, str]:
    """The cell a claim reads: the row's stand-in where the row's variant is missing."""
    row, column = key
    stand_in = rows[row].stand_in
    if result.cells[key].status == "missing" and stand_in is not None:
        return stand_in, column
    return key


def _published(
    published: Published, rows: Mapping[str, Axis], row: str, column: str
) -> float | None:
    value = published.value(row, column)
    alias = rows[row].published_as
    if value is None and alias is not None:
        value = published.value(alias, column)
    return value
