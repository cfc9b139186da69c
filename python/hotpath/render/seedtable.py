# SPDX-License-Identifier: GPL-2.0-only
"""A seed's table laid out the seed's way, our figures and the seed's side by side.

The layout is seed 002's commit-message table: a title line, then columns
right-aligned, four spaces apart, each header underlined with '=' as wide
as its column. Above each table: our mode, unit, sample count and machine,
and what the seed's figures are; below it: notes (untimed cells, figures
from another mode, which variant fills which column) and one line per
direction the seed draws, as hotpath.seedtables decided it from the run.
"""

import textwrap

from hotpath.render.blocks import FOOTNOTE_NOISY, MODE_WORDS
from hotpath.render.context import context_lines
from hotpath.results import RunResult, unit_name
from hotpath.seedtables import SeedTableResult, TableResult

INDENT = "    "
GAP = "    "
WIDTH = 100
UNIT_WORDS = {"cycles": "cycles", "ticks": "ticks"}


def _wrapped(text: str, first: str) -> list[str]:
    return textwrap.wrap(
        text,
        width=WIDTH,
        initial_indent=INDENT + first,
        subsequent_indent=INDENT + " " * (len(first) + 2),
        break_on_hyphens=False,
        break_long_words=False,
    )


def grid(header: list[str], body: list[list[str]], left_first: bool) -> list[str]:
    """Seed 002's table: right-aligned columns, headers underlined with '='."""
    widths = [max(len(row[i]) for row in [header, *body]) for i in range(len(header))]

    def line(cells: list[str]) -> str:
        out = []
        for i, cell in enumerate(cells):
            out.append(cell.ljust(widths[i]) if i == 0 and left_first else cell.rjust(widths[i]))
        return (INDENT + INDENT + GAP.join(out)).rstrip()

    return [line(header), line(["=" * w for w in widths]), *(line(row) for row in body)]


def table_lines(table: TableResult, machine: str) -> list[str]:
    spec = table.spec
    words = MODE_WORDS.get(table.mode, f"{table.mode} mode")
    lines = [INDENT + spec.title, ""]
    lines += _wrapped(
        f"ours: {spec.primitive}, {words}: {unit_name(table.unit)} per call, median of "
        f"{table.samples} samples; machine: {machine}",
        "",
    )
    if table.published is not None:
        lines += _wrapped(table.published.source, "")
    else:
        lines += _wrapped(f"the seed printed no figures for {table.mode} mode", "")
    lines.append("")
    body = table.body()
    left = not all(row[0].isdigit() for row in body)
    lines += grid(table.header(UNIT_WORDS.get(table.unit, table.unit)), body, left)
    if table.notes or table.verdicts:
        lines.append("")
    for note in table.notes:
        lines += _wrapped(note, "note: ")
    seed_decimals = table.published.decimals if table.published else 0
    for verdict in table.verdicts:
        lines += _wrapped(verdict.line(spec.decimals, seed_decimals), "direction: ")
    return lines


def render_tables(result: SeedTableResult, run: RunResult) -> list[str]:
    machine = run.machine.one_line()
    lines = _wrapped(result.seed.seed, "")
    for text in result.seed.header:
        lines += _wrapped(text, "note: ")
    for table in result.tables:
        lines.append("")
        lines += table_lines(table, machine)
    noisy = any(
        cell.figure is not None and cell.figure.noisy and cell.status == "ok"
        for table in result.tables
        for cell in table.cells.values()
    )
    if noisy:
        lines += ["", *_wrapped(FOOTNOTE_NOISY, "")]
    return lines


def render_markdown(result: SeedTableResult, run: RunResult) -> str:
    """The tables alone, ready to paste into a commit message."""
    return "\n".join(render_tables(result, run)) + "\n"


def render_text(result: SeedTableResult, run: RunResult) -> str:
    """The terminal form: machine and clock lines first, then the tables."""
    lines = [*context_lines(run), "", *render_tables(result, run)]
    return "\n".join(lines) + "\n"
