# SPDX-License-Identifier: GPL-2.0-only
"""Terminal tables in the shape of seed 000: one block per mode.

Rows are variants, columns (size, alignment), cells "11.1 ±0.1", each
followed by a "bound" column where the lab has a bound model for it. A
variant that was not timed gets one line saying why, in place of its cells.
"""

from hotpath.render.blocks import FOOTNOTE_NOISY, FOOTNOTE_ORDER, Block, build_blocks
from hotpath.render.context import context_lines
from hotpath.results import RunResult

GAP = "   "


def render_block(block: Block) -> list[str]:
    names = [row.variant for row in block.rows]
    name_width = max([len("variant"), *(len(n) for n in names)])
    widths = [len(label) for label in block.column_labels]
    for row in block.rows:
        for index, cell in enumerate(row.cells):
            widths[index] = max(widths[index], len(cell.text))
    header = "variant".ljust(name_width) + "".join(
        GAP + label.rjust(widths[i]) for i, label in enumerate(block.column_labels)
    )
    lines = [block.title, header, "-" * len(header)]
    for row in block.rows:
        if row.note is not None:
            lines.append(f"{row.variant.ljust(name_width)}{GAP}{row.note}")
        else:
            lines.append(
                row.variant.ljust(name_width)
                + "".join(GAP + cell.text.rjust(widths[i]) for i, cell in enumerate(row.cells))
            )
    lines.extend(f"  {line}" for line in block.legend)
    lines.extend(f"  [{i}] {note}" for i, note in enumerate(block.notes, 1))
    lines.extend(f"  order {line}" for line in block.orders)
    return lines


def render_run(run: RunResult) -> str:
    lines = context_lines(run)
    blocks = build_blocks(run)
    for block in blocks:
        lines.append("")
        lines.extend(render_block(block))
    if blocks:
        lines.append("")
        if any(block.noisy for block in blocks):
            lines.append(FOOTNOTE_NOISY)
        if any(block.orders for block in blocks):
            lines.append(FOOTNOTE_ORDER)
    wrong = run.wrong_variants()
    if wrong:
        names = ", ".join(v.info.name for v in wrong)
        lines.append(f"WRONG variants (not timed): {names}")
    return "\n".join(lines) + "\n"
