# SPDX-License-Identifier: GPL-2.0-only
"""report.html: one self-contained page, tables and inline SVG plots.

No external CSS, scripts or images: the file can be mailed or attached to a
bug and still shows everything.
"""

import html
import re
from pathlib import Path

from hotpath.calibration import Calibration
from hotpath.render.blocks import FOOTNOTE_NOISY, FOOTNOTE_ORDER, Block, build_blocks
from hotpath.render.context import context_lines
from hotpath.results import RunResult

STYLE = """
body { font-family: sans-serif; max-width: 70em; margin: 2em auto; color: #222; }
table { border-collapse: collapse; margin: 0.5em 0 1em; }
th, td { padding: 0.2em 0.8em; border-bottom: 1px solid #ddd; }
td.num, th.num { text-align: right; font-family: monospace; }
td.note { color: #a00; }
p.warn { color: #a60; }
pre { background: #f6f6f6; padding: 0.5em; }
figure { margin: 1em 0; }
"""


def _block_table(block: Block) -> str:
    esc = html.escape
    head = "".join(f'<th class="num">{esc(label)}</th>' for label in block.column_labels)
    rows = []
    for row in block.rows:
        if row.note is not None:
            span = max(1, len(block.column_labels))
            rows.append(
                f'<tr><td>{esc(row.variant)}</td><td class="note" colspan="{span}">'
                f"{esc(row.note)}</td></tr>"
            )
        else:
            cells = "".join(f'<td class="num">{esc(c.text)}</td>' for c in row.cells)
            rows.append(f"<tr><td>{esc(row.variant)}</td>{cells}</tr>")
    notes = [f"[{i}] {note}" for i, note in enumerate(block.notes, 1)]
    orders = "".join(f"<li>{esc(line)}</li>" for line in [*notes, *block.orders])
    return (
        f"<h3>{esc(block.title)}</h3>\n<table><tr><th>variant</th>{head}</tr>\n"
        + "\n".join(rows)
        + f"</table>\n<ul>{orders}</ul>\n"
    )


def _inline_svg(path: Path) -> str:
    text = path.read_text(encoding="utf-8")
    # Drop the XML prolog and DOCTYPE: they are not allowed inside HTML.
    text = re.sub(r"^<\?xml[^>]*>\s*", "", text)
    return re.sub(r"<!DOCTYPE[^>]*>\s*", "", text)


def render_page(
    run: RunResult, svgs: list[Path], calibration: Calibration | None, calib_text: list[str]
) -> str:
    esc = html.escape
    parts = [
        "<!DOCTYPE html>\n<html><head><meta charset='utf-8'>",
        f"<title>hotpath report {esc(run.started)}</title><style>{STYLE}</style></head><body>",
        f"<h1>hotpath report</h1><p>{esc(run.started)} &middot; hotpath {esc(run.version)}"
        f" &middot; <code>{esc(run.command_line)}</code></p>",
    ]
    for line in context_lines(run):
        cls = ' class="warn"' if line.startswith("warning:") else ""
        parts.append(f"<p{cls}>{esc(line)}</p>")
    if calibration is not None:
        parts.append("<h2>Calibration</h2><pre>" + esc("\n".join(calib_text)) + "</pre>")
    blocks = build_blocks(run)
    for lab in run.labs:
        lab_blocks = [b for b in blocks if b.lab == lab]
        if not lab_blocks:
            continue
        parts.append(f"<h2>Lab {esc(lab)}</h2>")
        parts.extend(_block_table(b) for b in lab_blocks)
        for svg in svgs:
            if svg.name.startswith(f"{lab}-"):
                parts.append(f"<figure>{_inline_svg(svg)}</figure>")
    parts.append(f"<p>{esc(FOOTNOTE_NOISY)}<br>{esc(FOOTNOTE_ORDER)}</p></body></html>")
    return "\n".join(parts) + "\n"
