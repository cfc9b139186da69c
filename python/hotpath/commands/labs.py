# SPDX-License-Identifier: GPL-2.0-only
"""The one table from a lab to its hooks (hotpath.labs.hooks), for the
commands: imported by the commands that run or show labs, never by a spec,
so the imports go commands -> labs -> engine and results."""

from pathlib import Path

from hotpath import report, summary
from hotpath.findings import LabSummary, RunSummary
from hotpath.labs.avc.hooks import HOOKS as AVC
from hotpath.labs.crossing.hooks import HOOKS as CROSSING
from hotpath.labs.csum.hooks import HOOKS as CSUM
from hotpath.labs.fn.hooks import HOOKS as FN
from hotpath.labs.hooks import LabHooks
from hotpath.labs.tune.hooks import HOOKS as TUNE
from hotpath.results import RunResult

HOOKS: dict[str, LabHooks] = {
    "csum": CSUM,
    "avc": AVC,
    "crossing": CROSSING,
    "tune": TUNE,
    "fn": FN,
}
NONE = LabHooks()  # crc32c, calibrate: the engine does it all


def hooks(lab: str) -> LabHooks:
    return HOOKS.get(lab, NONE)


def enrich(run: RunResult) -> RunResult:
    """`run` (hotpath.measure.new_run's) with what each of its labs adds to
    its figures (csum: the chain bounds); returned for chaining."""
    for name in run.labs:
        attach = hooks(name).attach_bounds
        if attach is not None:
            attach(run)
    return run


def own_summaries(run: RunResult) -> dict[str, LabSummary]:
    """The summaries of the run's labs that summarize themselves (crossing,
    tune), by lab: hotpath.summary.summarize_run takes them."""
    return {
        name: summarize(run)
        for name in run.labs
        if (summarize := hooks(name).summarize) is not None
    }


def own_files(run: RunResult, folder: Path) -> list[Path]:
    """The report files the run's labs write of their own (crossing.md)."""
    return [
        path
        for name in run.labs
        if (write := hooks(name).write_files) is not None
        for path in write(run, folder)
    ]


def summarize(run: RunResult, threshold: float) -> RunSummary:
    """The run's summary, the labs that summarize themselves included."""
    return summary.summarize_run(run, threshold, own_summaries(run))


def write_pages(run: RunResult, folder: Path, threshold: float) -> list[Path]:
    """hotpath.report.write_pages with the run's summary and its labs' files."""
    return report.write_pages(run, folder, summarize(run, threshold), own_files)
