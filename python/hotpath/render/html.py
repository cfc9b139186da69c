# SPDX-License-Identifier: GPL-2.0-only
"""report.html: one self-contained page, the verdicts first, then the evidence.

The page opens with the run's summary (hotpath.summary: one row per lab,
then each lab's findings), never folded. Below it, per lab, each table as
a heat table: every cell the ratio to the fastest figure of its column,
coloured on one scale for the whole page, with the median and its 95% CI
beside it and on hover; wide tables scroll inside their own box. Order
lines, notes, the calibration and the dependency-chain graphs are folded
(<details>). No external CSS, scripts or images: the file can be mailed or
attached to a bug and still shows everything. A lab's dependency-chain
graphs (the csum lab's 40-byte paths, RunResult.graphs) come drawn by the
caller (hotpath.graphviz.drawings, `dot -Tsvg`) and are inlined, one
<details> per variant and alignment; where one could not be drawn the page
says why in its place and shows its source.
"""

import html
import math
import re
from collections.abc import Mapping
from pathlib import Path

from hotpath.calibration import Calibration
from hotpath.findings import HEADLINE, RunSummary
from hotpath.render.blocks import BOUND, FOOTNOTE_NOISY, FOOTNOTE_ORDER, Block, build_blocks
from hotpath.results import Graph, RunResult, unit_name

# The heat scale: a cell's time over its column's fastest, green at 1x to
# red at HEAT_MAX and beyond, on a log scale (2x is half way).
HEAT_MAX = 4.0

STYLE = """
body { font-family: sans-serif; max-width: 76em; margin: 1em auto; padding: 0 1em; color: #222; }
h1 { margin: 0.2em 0; } p.meta { margin: 0 0 0.8em; color: #555; overflow-wrap: anywhere; }
table { border-collapse: collapse; margin: 0.5em 0 1em; }
th, td { padding: 0.2em 0.6em; border-bottom: 1px solid #ddd; vertical-align: top; }
td.num, th.num { text-align: right; font-family: monospace; white-space: nowrap; }
td.note { color: #a00; }
.warn { color: #a60; }
pre { background: #f6f6f6; padding: 0.5em; overflow-x: auto; }
figure { margin: 1em 0; } figure svg { max-width: 100%; height: auto; }
td.bound, th.bound { color: #555; font-style: italic; }
p.legend { font-size: 90%; color: #444; }
details { margin: 0.3em 0; } details svg { max-width: 100%; height: auto; }
div.scroll { overflow-x: auto; max-width: 100%; }
#summary { border: 2px solid #468; border-radius: 6px; padding: 0.3em 1em 0.8em; }
#summary ul.state { padding-left: 1.2em; font-size: 90%; color: #333; overflow-wrap: anywhere; }
table.verdicts { width: 100%; table-layout: fixed; font-size: 92%; }
table.verdicts th { text-align: left; background: #eef2f7; }
table.verdicts td, ul.findings li { overflow-wrap: anywhere; }
table.verdicts th.lab { width: 4em; } table.verdicts th.fastest { width: 30%; }
table.verdicts td div.sub { padding-left: 1em; }
ul.findings { padding-left: 1.2em; } ul.findings ul { font-size: 92%; color: #333; }
li.good::marker { color: #2a2; } li.bad::marker { color: #c22; }
li.good > span.tone { color: #161; } li.bad > span.tone { color: #a11; }
tr > td:first-child { white-space: nowrap; }
td.heat { text-align: right; font-family: monospace; white-space: nowrap; }
td.heat span.raw { color: #555; font-size: 85%; margin-left: 0.5em; }
"""


def heat_colour(ratio: float) -> str:
    """A cell's background for its time over the column's fastest (>= 1)."""
    share = min(1.0, max(0.0, math.log(max(ratio, 1.0)) / math.log(HEAT_MAX)))
    return f"hsl({120.0 * (1.0 - share):.0f}, 65%, 82%)"


def _column_best(block: Block, index: int) -> float | None:
    figures = [row.cells[index].figure for row in block.rows if row.cells]
    found = [f.median for f in figures if f is not None and f.median and f.median > 0]
    return min(found) if found else None


def _heat_cell(
    block: Block, text: str, figure_median: float | None, best: float | None, title: str
) -> str:
    esc = html.escape
    if figure_median is None or best is None or best < 1.0:
        # Below one unit (fenced, next to the subtracted empty call) no ratio is said.
        return f'<td class="num" title="{esc(title)}">{esc(text)}</td>'
    ratio = figure_median / best
    return (
        f'<td class="heat" style="background:{heat_colour(ratio)}" title="{esc(title)}">'
        f'{ratio:.2f}&times;<span class="raw">{esc(text)}</span></td>'
    )


def _block_table(block: Block) -> str:
    esc = html.escape
    kinds = block.column_kinds or ["figure"] * len(block.column_labels)
    classes = ["num bound" if kind == BOUND else "num" for kind in kinds]
    head = "".join(
        f'<th class="{cls}">{esc(label)}</th>'
        for cls, label in zip(classes, block.column_labels, strict=True)
    )
    best = [_column_best(block, i) if k != BOUND else None for i, k in enumerate(kinds)]
    unit = unit_name(block.unit)
    rows = []
    for row in block.rows:
        if row.note is not None:
            span = max(1, len(block.column_labels))
            rows.append(
                f'<tr><td>{esc(row.variant)}</td><td class="note" colspan="{span}">'
                f"{esc(row.note)}</td></tr>"
            )
            continue
        cells = []
        for index, (cls, cell) in enumerate(zip(classes, row.cells, strict=True)):
            fig = cell.figure
            if kinds[index] == BOUND or fig is None or fig.median is None:
                cells.append(f'<td class="{cls}">{esc(cell.text)}</td>')
                continue
            title = (
                f"{row.variant}, {block.column_labels[index]}: median {fig.median:.2f} {unit}, "
                f"95% CI {fig.ci_lo or 0:.2f}-{fig.ci_hi or 0:.2f}, {fig.n} samples"
            )
            cells.append(_heat_cell(block, cell.text, fig.median, best[index], title))
        rows.append(f"<tr><td>{esc(row.variant)}</td>{''.join(cells)}</tr>")
    notes = [f"[{i}] {note}" for i, note in enumerate(block.notes, 1)]
    lines = "".join(f"<li>{esc(line)}</li>" for line in [*notes, *block.orders])
    legend = "".join(f'<p class="legend">{esc(line)}</p>' for line in block.legend)
    folded = (
        f"<details><summary>order lines and notes</summary><ul>{lines}</ul></details>\n"
        if lines
        else ""
    )
    return (
        f'<h3>{esc(block.title)}</h3>\n<div class="scroll"><table><tr><th>variant</th>'
        f"{head}</tr>\n" + "\n".join(rows) + f"</table></div>\n{legend}{folded}"
    )


HEAT_LEGEND = (
    "Each cell: its time over the fastest in its column (1.00&times; is the fastest), "
    "coloured from green (1&times;) to red ({max:g}&times; or more) on a log scale; "
    "beside it the median &plusmn;95% CI half-width; hover for the interval."
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


def _graphs(run: RunResult, lab: str, drawn: Mapping[str, str | Exception]) -> list[str]:
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
            f"<details><summary>{esc(graph.title)}</summary>\n{_graph_body(graph, number, drawn)}"
            "\n</details>"
        )
    return parts


def _graph_body(graph: Graph, number: int, drawn: Mapping[str, str | Exception]) -> str:
    drawing = drawn.get(graph.dot, "not drawn")
    if not isinstance(drawing, Exception) and "<svg" in drawing:
        return _svg_markup(drawing, prefix=f"chain{number}")
    return (
        f'<p class="warn">graph not drawn: {html.escape(str(drawing))}; '
        "its Graphviz source:</p>"
        f"<pre>{html.escape(graph.dot)}</pre>"
    )


def _inline_svg(path: Path) -> str:
    # The XML prolog and DOCTYPE are not allowed inside HTML.
    return _svg_markup(path.read_text(encoding="utf-8"))


def _headline_line(line: str) -> str:
    """One line of a headline cell; an indented one (a size band) set in."""
    if line.startswith("  "):
        return f'<div class="sub">{html.escape(line.strip())}</div>'
    return f"<div>{html.escape(line)}</div>"


def render_summary(summary: RunSummary, warnings: list[str]) -> str:
    """The summary box: the machine's state, one row per lab, each lab's findings."""
    esc = html.escape
    parts = ['<section id="summary"><h2>Summary</h2><ul class="state">']
    parts.extend(f"<li>{esc(line)}</li>" for line in summary.state)
    parts.extend(f'<li class="warn">warning: {esc(w)}</li>' for w in warnings)
    parts.append('</ul><table class="verdicts"><tr><th class="lab">lab</th>')
    parts.extend(f'<th class="{key}">{esc(title)}</th>' for key, title in HEADLINE)
    parts.append("</tr>")
    for lab in summary.labs:
        cells = "".join(
            "<td>" + "".join(_headline_line(x) for x in lab.headline[key]) + "</td>"
            for key, _ in HEADLINE
        )
        parts.append(f'<tr><td><a href="#lab-{esc(lab.lab)}">{esc(lab.lab)}</a></td>{cells}</tr>')
    parts.append("</table>")
    for lab in summary.labs:
        parts.append(f'<h3>{esc(lab.lab)}: {esc(lab.title)}</h3><ul class="findings">')
        for finding in lab.findings:
            sub = "".join(f"<li>{esc(d)}</li>" for d in finding.details)
            parts.append(
                f'<li class="{finding.tone}"><span class="tone">{esc(finding.text)}</span>'
                + (f"<ul>{sub}</ul>" if sub else "")
                + "</li>"
            )
        parts.append("</ul>")
    parts.append("</section>")
    return "\n".join(parts)


def render_page(
    run: RunResult,
    svgs: list[Path],
    calibration: Calibration | None,
    calib_text: list[str],
    found: RunSummary,
    notes: list[str] | None = None,
    *,
    drawn: Mapping[str, str | Exception],
) -> str:
    """The page; `found` is the run's summary (hotpath.summary.summarize_run);
    `notes` are said in the summary box beside the warnings; `drawn`: each of
    the run's graphs (by its Graphviz source) as SVG, or why it is not
    (hotpath.graphviz.drawings)."""
    esc = html.escape
    warnings = [*run.machine.warnings(), *run.variant_warnings(), *(notes or [])]
    parts = [
        "<!DOCTYPE html>\n<html lang='en'><head><meta charset='utf-8'>",
        "<meta name='viewport' content='width=device-width, initial-scale=1'>",
        f"<title>hotpath report {esc(run.started)}</title><style>{STYLE}</style></head><body>",
        f'<h1>hotpath report</h1><p class="meta">{esc(run.started)} &middot; hotpath '
        f"{esc(run.version)} &middot; <code>{esc(run.command_line)}</code>"
        + (f" &middot; run {run.run_id}" if run.run_id is not None else "")
        + "</p>",
        render_summary(found, warnings),
    ]
    if calibration is not None:
        parts.append(
            "<details><summary>Calibration: "
            + ("PASS" if calibration.passed else "FAIL")
            + "</summary><pre>"
            + esc("\n".join(calib_text))
            + "</pre></details>"
        )
    parts.append(f'<p class="legend">{HEAT_LEGEND.format(max=HEAT_MAX)}</p>')
    blocks = build_blocks(run)
    for lab in run.labs:
        lab_blocks = [b for b in blocks if b.lab == lab]
        if not lab_blocks:
            continue
        parts.append(f'<h2 id="lab-{esc(lab)}">Lab {esc(lab)}</h2>')
        parts.extend(_block_table(b) for b in lab_blocks)
        parts.extend(_graphs(run, lab, drawn))
        for svg in svgs:
            if svg.name.startswith(f"{lab}-"):
                parts.append(f"<figure>{_inline_svg(svg)}</figure>")
    parts.append(f"<p>{esc(FOOTNOTE_NOISY)}<br>{esc(FOOTNOTE_ORDER)}</p></body></html>")
    return "\n".join(parts) + "\n"
