# SPDX-License-Identifier: GPL-2.0-only
"""Tables to paste into a kernel commit message, in the style of seed 002.

Right-aligned columns, the header underlined with '=', indented by four
spaces; the unit, mode and machine on the lines above each table, so a
pasted table never loses them. Untimed variants show a short word in every
cell and the reason as a note below the table.
"""

from hotpath.render.blocks import FOOTNOTE_NOISY, FOOTNOTE_ORDER, Block, build_blocks
from hotpath.results import RunResult

INDENT = "    "
GAP = "    "


def _short(row_status: str) -> str:
    return {"wrong": "WRONG", "skipped": "skipped", "unavailable": "n/a"}.get(row_status, "n/a")


def render_block(block: Block, machine: str) -> list[str]:
    header = ["variant", *block.column_labels]
    body: list[list[str]] = []
    notes: list[str] = []
    for row in block.rows:
        if row.note is not None:
            body.append([row.variant, *[_short(row.status)] * len(block.column_labels)])
            notes.append(f"{row.variant}: {row.note}")
        else:
            body.append([row.variant, *(cell.text for cell in row.cells)])
    widths = [max(len(r[i]) for r in [header, *body]) for i in range(len(header))]
    lines = [f"{INDENT}{block.title}", f"{INDENT}machine: {machine}", ""]
    lines.append(INDENT + GAP.join(h.rjust(widths[i]) for i, h in enumerate(header)))
    lines.append(INDENT + GAP.join("=" * w for w in widths))
    lines.extend(INDENT + GAP.join(c.rjust(widths[i]) for i, c in enumerate(r)) for r in body)
    notes.extend(block.legend)
    notes.extend(f"[{i}] {note}" for i, note in enumerate(block.notes, 1))
    if notes:
        lines.append("")
        lines.extend(f"{INDENT}{note}" for note in dict.fromkeys(notes))
    return lines


def render_run(run: RunResult) -> str:
    machine = run.machine.one_line()
    blocks = build_blocks(run)
    lines: list[str] = []
    for block in blocks:
        if lines:
            lines.append("")
        lines.extend(render_block(block, machine))
    if any(block.noisy for block in blocks):
        lines.extend(["", INDENT + FOOTNOTE_NOISY])
    orders = [f"{INDENT}{b.primitive} {b.mode}: {o}" for b in blocks for o in b.orders]
    if orders:
        lines.extend(["", INDENT + FOOTNOTE_ORDER, *orders])
    return "\n".join(lines) + "\n"
