# SPDX-License-Identifier: GPL-2.0-only
"""What a lab declares about a seed's table: rows, columns, published figures, claims.

Pure data, written in a lab's modules (labs/csum_seed_table.py,
labs/crc32c_skb_table.py); hotpath.seedtables evaluates it against a run.
"""

from collections.abc import Mapping
from dataclasses import dataclass


@dataclass(frozen=True)
class Axis:
    """A row or a column: what it pins of a cell's (variant, size, alignment).

    A cell takes each coordinate from its row, else its column, else the
    table. `short` names it inside a direction line ("even", "64 B").
    `published_as`: a row whose own seed figures are missing but whose code
    the seed measured under another row (the fixed baseline) is compared,
    for the seed's side of a direction, with that row's figures.
    `stand_in`: a row whose variant a run may lack (a real kernel's code,
    hotpath.kernelsrc) has the seed's directions checked on this other row
    (its re-implementation) where it is missing.
    """

    key: str
    label: str
    variant: str | None = None
    size: int | None = None
    align: int | None = None
    short: str | None = None
    published_as: str | None = None
    stand_in: str | None = None

    @property
    def name(self) -> str:
        return self.short or self.label


@dataclass(frozen=True)
class Published:
    """The seed's own figures for one of our modes (mode None: the seed does not say)."""

    mode: str | None
    source: str  # what they are: machine, unit as printed, how measured
    columns: Mapping[str, str]  # our column key -> header of the seed's column beside it
    values: Mapping[str, Mapping[str, float]]  # row key -> column key -> figure
    decimals: int = 0

    def value(self, row: str, column: str) -> float | None:
        return self.values.get(row, {}).get(column)


@dataclass(frozen=True)
class PublishedBound:
    """A chain length the seed worked out by hand, set beside the model's bound.

    Printed as a note under the table in the mode where the run has bounds
    (csum: the dependency-chain bound, latency mode).
    """

    row: str
    cycles: float
    source: str  # who drew it and how


@dataclass(frozen=True)
class OtherMode:
    """A row whose seed figure, in `mode`'s table, was really measured as `measured_as`."""

    row: str
    mode: str
    measured_as: str
    why: str


@dataclass(frozen=True)
class Claim:
    """A direction the seed draws: row/column `cheaper` costs less than `dearer`.

    Both keys name rows, or both columns; the claim is checked at each key
    of the other axis in `at` (empty: all of them). factor > 1 asks for
    "cheaper by at least factor times".
    """

    text: str
    cheaper: str
    dearer: str
    at: tuple[str, ...] = ()
    factor: float = 1.0


@dataclass(frozen=True)
class Coord:
    primitive: str
    variant: str
    size: int
    align: int


@dataclass(frozen=True)
class TableSpec:
    """One of the seed's tables: rows x columns of our figures, the seed's beside them."""

    title: str
    primitive: str
    row_header: str
    rows: tuple[Axis, ...]
    columns: tuple[Axis, ...]
    variant: str | None = None
    size: int | None = None
    align: int = 0
    decimals: int = 0
    published: tuple[Published, ...] = ()
    claims: tuple[Claim, ...] = ()
    other_modes: tuple[OtherMode, ...] = ()
    notes: tuple[str, ...] = ()
    published_bounds: tuple[PublishedBound, ...] = ()

    def __post_init__(self) -> None:
        keys = [a.key for a in (*self.rows, *self.columns)]
        if len(set(keys)) != len(keys):
            raise ValueError(f"seed table '{self.title}': row and column keys must be unique")
        row_keys = {r.key for r in self.rows}
        unknown = [b.row for b in self.published_bounds if b.row not in row_keys]
        if unknown:
            raise ValueError(
                f"seed table '{self.title}': published bounds of unknown rows {unknown}"
            )
        for row in self.rows:
            for column in self.columns:
                self.coord(row, column)  # raises if a coordinate is missing
        for claim in self.claims:
            self.claim_axes(claim)

    def coord(self, row: Axis, column: Axis) -> Coord:
        variant = row.variant or column.variant or self.variant
        size = _first(row.size, column.size, self.size)
        align = _first(row.align, column.align, self.align)
        if variant is None or size is None or align is None:
            raise ValueError(
                f"seed table '{self.title}': cell ({row.key}, {column.key}) has no variant or size"
            )
        return Coord(self.primitive, variant, size, align)

    def claim_axes(self, claim: Claim) -> tuple[bool, list[Axis]]:
        """(True if the claim compares rows, the keys of the other axis it is checked at)."""
        rows = {a.key: a for a in self.rows}
        columns = {a.key: a for a in self.columns}
        if claim.cheaper in rows and claim.dearer in rows:
            by_rows, others = True, columns
        elif claim.cheaper in columns and claim.dearer in columns:
            by_rows, others = False, rows
        else:
            raise ValueError(f"claim '{claim.text}': both keys must be rows or both columns")
        unknown = [k for k in claim.at if k not in others]
        if unknown:
            raise ValueError(f"claim '{claim.text}': unknown keys {unknown}")
        return by_rows, [others[k] for k in (claim.at or tuple(others))]

    def published_for(self, mode: str) -> Published | None:
        exact = [p for p in self.published if p.mode == mode]
        if exact:
            return exact[0]
        return next((p for p in self.published if p.mode is None), None)


@dataclass(frozen=True)
class Want:
    """What one runner invocation must measure for a seed table."""

    primitive: str
    variants: tuple[str, ...]
    sizes: tuple[int, ...]
    aligns: tuple[int, ...]


@dataclass(frozen=True)
class SeedTable:
    """A seed's tables, behind one flag of the lab's subcommand.

    Every lab declares its seed tables here, and `hotpath <lab> --FLAG`
    finds them the same way (commands/lab/seedtable.py). Most are cells
    of the engine, measured and their claims evaluated by hotpath.seedtables;
    one that is not (`own`: avc's, a cache model beside timed lookups and
    a fitted cost) is measured and printed by its lab's seed_table hook
    (hotpath.labs.hooks.LabHooks), and has no tables here.
    """

    flag: str  # "skb-table": the option is --skb-table
    help: str
    seed: str  # which seed and what it is
    tables: tuple[TableSpec, ...]
    modes: tuple[str, ...]  # default; --modes chooses
    header: tuple[str, ...] = ()  # lines printed once above the tables
    own: bool = False  # measured by the lab's seed_table hook, not from engine cells

    @property
    def dest(self) -> str:
        """Its flag's attribute in the parsed arguments."""
        return "seed_table_" + self.flag.replace("-", "_")

    def wants(self) -> list[Want]:
        by_primitive: dict[str, list[Coord]] = {}
        for table in self.tables:
            for row in table.rows:
                for column in table.columns:
                    coord = table.coord(row, column)
                    by_primitive.setdefault(coord.primitive, []).append(coord)
        return [
            Want(
                primitive=primitive,
                variants=tuple(dict.fromkeys(c.variant for c in coords)),
                sizes=tuple(dict.fromkeys(c.size for c in coords)),
                aligns=tuple(dict.fromkeys(c.align for c in coords)),
            )
            for primitive, coords in by_primitive.items()
        ]


def _first(*values: int | None) -> int | None:
    return next((v for v in values if v is not None), None)
