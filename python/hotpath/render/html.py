# SPDX-License-Identifier: GPL-2.0-only
"""report.html: one self-contained page, tables and inline SVG plots.

No external CSS, scripts or images: the file can be mailed or attached to a
bug and still shows everything. A lab's dependency-chain graphs (the csum
lab's 40-byte paths, RunResult.graphs) are drawn with Graphviz `dot -Tsvg`
and inlined, one <details> per variant and alignment; without dot the page
says so in place of each graph and shows its source.
"""

import html
import re
from pathlib import Path

from hotpath import chainbound
from hotpath.calibration import Calibration
from hotpath.render.blocks import BOUND, FOOTNOTE_NOISY, FOOTNOTE_ORDER, Block, build_blocks
from hotpath.render.context import context_lines
from hotpath.results import Graph, RunResult

STYLE = """
body { font-family: sans-serif; max-width: 70em; margin: 2em auto; color: #222; }
table { border-collapse: collapse; margin: 0.5em 0 1em; }
th, td { padding: 0.2em 0.8em; border-bottom: 1px solid #ddd; }
td.num, th.num { text-align: right; font-family: monospace; }
td.note { color: #a00; }
p.warn { color: #a60; }
pre { background: #f6f6f6; padding: 0.5em; }
figure { margin: 1em 0; }
td.bound, th.bound { color: #555; font-style: italic; }
p.legend { font-size: 90%; color: #444; }
details { margin: 0.3em 0; }
details svg { max-width: 100%; height: auto; }
"""


def _block_table(block: Block) -> str:
    esc = html.escape
    kinds = block.column_kinds or ["figure"] * len(block.column_labels)
    classes = ["num bound" if kind == BOUND else "num" for kind in kinds]
    head = "".join(
        f'<th class="{cls}">{esc(label)}</th>'
        for cls, label in zip(classes, block.column_labels, strict=True)
    )
    rows = []
    for row in block.rows:
        if row.note is not None:
            span = max(1, len(block.column_labels))
            rows.append(
                f'<tr><td>{esc(row.variant)}</td><td class="note" colspan="{span}">'
                f"{esc(row.note)}</td></tr>"
            )
        else:
            cells = "".join(
                f'<td class="{cls}">{esc(c.text)}</td>'
                for cls, c in zip(classes, row.cells, strict=True)
            )
            rows.append(f"<tr><td>{esc(row.variant)}</td>{cells}</tr>")
    notes = [f"[{i}] {note}" for i, note in enumerate(block.notes, 1)]
    orders = "".join(f"<li>{esc(line)}</li>" for line in [*notes, *block.orders])
    legend = "".join(f'<p class="legend">{esc(line)}</p>' for line in block.legend)
    return (
        f"<h3>{esc(block.title)}</h3>\n<table><tr><th>variant</th>{head}</tr>\n"
        + "\n".join(rows)
        + f"</table>\n{legend}<ul>{orders}</ul>\n"
    )


def _svg_markup(text: str, prefix: str = "") -> str:
    """SVG text ready to inline: no XML prolog or DOCTYPE; ids prefixed when
    several drawings of one tool (dot numbers its ids from 1) share a page."""
    text = re.sub(r"^<\?xml[^>]*>\s*", "", text)
    text = re.sub(r"<!DOCTYPE[^>]*>\s*", "", text)
    text = re.sub(r"<!--.*?-->\s*", "", text, flags=re.S)
    if prefix:
        text = re.sub(r'\bid="', f'id="{prefix}-', text)
    return text.strip()


def _graphs(run: RunResult, lab: str) -> list[str]:
    """The lab's dependency-chain graphs, one <details> each."""
    graphs = [g for g in run.graphs if g.lab == lab]
    if not graphs:
        return []
    esc = html.escape
    parts = ["<h3>Dependency chains</h3>"]
    for primitive in dict.fromkeys(g.primitive for g in graphs):
        model = run.bound_models.get(primitive)
        what = f"{model.legend}. " if model is not None else ""
        parts.append(
            f'<p class="legend">{esc(primitive)}: {esc(what)}Each graph is one call: '
            "instructions with their latencies, edges the registers and flags they pass; "
            "the longest path from the input sum (seed) to the result in red.</p>"
        )
    for number, graph in enumerate(graphs, 1):
        parts.append(
            f"<details><summary>{esc(graph.title)}</summary>\n{_graph_body(graph, number)}"
            "\n</details>"
        )
    return parts


def _graph_body(graph: Graph, number: int) -> str:
    try:
        return _svg_markup(chainbound.svg(graph.dot), prefix=f"chain{number}")
    except chainbound.AnalysisError as err:
        return (
            f'<p class="warn">graph not drawn: {html.escape(str(err))}; '
            "its Graphviz source:</p>"
            f"<pre>{html.escape(graph.dot)}</pre>"
        )


def _inline_svg(path: Path) -> str:
    # The XML prolog and DOCTYPE are not allowed inside HTML.
    return _svg_markup(path.read_text(encoding="utf-8"))


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
        parts.extend(_graphs(run, lab))
        for svg in svgs:
            if svg.name.startswith(f"{lab}-"):
                parts.append(f"<figure>{_inline_svg(svg)}</figure>")
    parts.append(f"<p>{esc(FOOTNOTE_NOISY)}<br>{esc(FOOTNOTE_ORDER)}</p></body></html>")
    return "\n".join(parts) + "\n"
