# SPDX-License-Identifier: GPL-2.0-only
"""The report folder `hotpath run` writes.

report.md (commit-message tables per lab, calibration, machine),
report.html (one self-contained page with inline SVG plots and the
dependency-chain graphs), results.json (schema hotpath.result/2), the plots
as PNG and SVG, and each chain graph's Graphviz source in chains/.
"""

import json
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path

from hotpath import destination, graphviz, summary
from hotpath.calibration import from_json as calibration_from_json
from hotpath.labs import lab_for
from hotpath.plots import plot_run
from hotpath.render import html as html_format
from hotpath.render import markdown
from hotpath.render import summary as summary_text
from hotpath.render.calibration import render as render_calibration
from hotpath.results import Graph, RunResult


def default_folder(now: datetime | None = None) -> Path:
    stamp = (now or datetime.now(UTC)).strftime("%Y%m%d-%H%M%S")
    return Path(f"hotpath-report-{stamp}")


def check_folder(folder: Path, label: str = "--out", hint: str = "") -> None:
    """The report folder may be new or an existing folder, in a place we can
    write to (destination.check_folder); nothing else. Writes nothing."""
    destination.check_folder(folder, label, hint)


def write_pages(
    run: RunResult,
    folder: Path,
    found: summary.RunSummary,
    own_files: Callable[[RunResult, Path], list[Path]],
) -> list[Path]:
    """The report without results.json: report.md, report.html, plots/,
    chains/, and the labs' own files (`own_files`: commands/labs.py's).

    Made from the run alone (its calibration included) and its summary
    `found`, so a run just measured and one loaded from the history
    (`hotpath report RUN`) give the same pages."""
    folder.mkdir(parents=True, exist_ok=True)
    plots = plot_run(run, folder / "plots")
    calibration = calibration_from_json(run.calibration) if run.calibration else None
    calib_text = render_calibration(calibration) if calibration else []
    md = ["# hotpath report", "", f"{run.started}, hotpath {run.version}: `{run.command_line}`", ""]
    md.extend(summary_text.render_markdown(found))
    warnings = [*run.machine.warnings(), *run.variant_warnings()]
    md.extend(["", *(f"- warning: {w}" for w in warnings)] if warnings else [])
    old = not run.extras_kept  # stored before the history kept bounds and graphs
    if old:
        md.extend(["", f"- {STORED_NOTE}"])
    if calibration is not None:
        md.extend(["", "## Calibration", "", "```", *calib_text, "```"])
    tables = markdown.render_run(run).rstrip("\n")
    if tables:  # a run of a lab with tables of its own (crossing.md) has none
        md.extend(["", "## Results", "", "```", tables, "```"])
    pngs = [p for p in plots if p.suffix == ".png"]
    if pngs:
        md.extend(["", "## Plots", "", *(f"![{p.stem}](plots/{p.name})" for p in pngs)])
    graphs = write_graphs(run, folder / "chains")
    if graphs:
        md.extend(["", "## Dependency chains (Graphviz; drawn in report.html)", ""])
        md.extend(f"- [{g.title}](chains/{path.name})" for g, path in graphs)
    files = [folder / "report.md", folder / "report.html"]
    files[0].write_text("\n".join(md) + "\n", encoding="utf-8")
    svgs = [p for p in plots if p.suffix == ".svg"]
    files[1].write_text(
        html_format.render_page(
            run,
            svgs,
            calibration,
            calib_text,
            found,
            [STORED_NOTE] if old else [],
            drawn=graphviz.drawings([g.dot for g in run.graphs]),
        ),
        encoding="utf-8",
    )
    return files + plots + [path for _, path in graphs] + own_files(run, folder)


# A run stored before the history kept bounds and chain graphs (schema 3).
STORED_NOTE = (
    "bounds and dependency-chain graphs are made when a run is measured; this run was "
    "stored before the history kept them, so this page has none"
)


def write_results(run: RunResult, folder: Path) -> Path:
    """results.json (with the run's id in the history, or null), replaced whole."""
    path = folder / "results.json"
    destination.write_file(path, json.dumps(run.to_json(), indent=2) + "\n")
    return path


def write_graphs(run: RunResult, folder: Path) -> list[tuple[Graph, Path]]:
    """Each graph's .dot source, named <variant>-<size>-<alignment>.dot."""
    written = []
    for graph in run.graphs:
        lab = lab_for(graph.lab)
        align = lab.align_label(graph.align) if lab else f"+{graph.align}"
        path = folder / f"{graph.variant}-{graph.size}-{align.lstrip('+')}.dot"
        folder.mkdir(parents=True, exist_ok=True)
        path.write_text(graph.dot, encoding="utf-8")
        written.append((graph, path))
    return written
