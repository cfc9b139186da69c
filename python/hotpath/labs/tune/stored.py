# SPDX-License-Identifier: GPL-2.0-only
"""`hotpath tune evaluate` in the history: one run of the result model.

Figures (lab "tune", primitive the profile's name, mode the workload):

- per configuration (variant "A", "B", "A+setting", "B-setting") and
  workload: the workload's figures in its own unit (s, GB/s, cycles), with
  their samples, the better side the workload's;
- per comparison (variant "OTHER/BASE", "B/A" first): the ratio of medians,
  unit "ratio", its bootstrap 95% interval, the verdict as its reason, no
  samples (compare judges it by "intervals").

sections["tune"] keeps what the figures do not: the profile, rounds,
alpha, threshold, each configuration's knob values, each workload's
description, and each comparison's p and verdict; from_run() rebuilds the
Evaluation evaluate printed (hotpath.render.tune_evaluate) from a stored run.

The numpy-free part of tune never loads this module: evaluate imports it
when it runs (the model, the store and the statistics need numpy).
"""

import argparse
import math
from typing import TYPE_CHECKING, Any

from hotpath.errors import HotpathError, StoreError
from hotpath.labs.tune.comparison import Config, Evaluation, Verdict
from hotpath.labs.tune.workloads import Workload

if TYPE_CHECKING:
    from hotpath.db.location import DbLocation
    from hotpath.findings import LabSummary
    from hotpath.machine import Fingerprint
    from hotpath.results import RunResult

LAB = "tune"
COMMAND = "tune evaluate"


def db_of(args: argparse.Namespace) -> "DbLocation | None":
    """The history evaluate stores into (--db, else $HOTPATH_DB, else the
    default file), checked before anything is measured or changed
    (StoreError, status 2, when it cannot hold a run); None with --no-store."""
    if getattr(args, "no_store", False):
        return None
    from hotpath.db.access import check_db_path, db_path

    path = db_path(args)
    check_db_path(path)
    return path


def ratio_variant(base: str, other: str) -> str:
    return f"{other}/{base}"


def build_run(
    name: str,
    args: argparse.Namespace,
    alpha: float,
    machine: "Fingerprint",
    started: str,
    cfgs: list[Config],
    samples: dict[tuple[str, str], list[float]],
    verdicts: list[Verdict],
) -> "RunResult":
    """The evaluation as a RunResult: figures per configuration and workload,
    a ratio figure per comparison, and the lab's section."""
    from hotpath.results import FigureKey, FigureResult, RunResult

    workloads = list({v.workload.name: v.workload for v in verdicts}.values())
    run = RunResult(
        command=COMMAND,
        started=started,
        machine=machine,
        labs=[LAB],
        command_line=getattr(args, "command_line", ""),
    )
    for cfg in cfgs:
        for w in workloads:
            run.figures.append(
                FigureResult.from_samples(
                    FigureKey(LAB, name, cfg.label, 0, 0, w.name),
                    w.unit,
                    samples[(cfg.label, w.name)],
                    _better(w),
                )
            )
    for v in verdicts:
        where = FigureKey(LAB, name, ratio_variant(v.base, v.other), 0, 0, v.workload.name)
        n = min(len(samples[(v.base, v.workload.name)]), len(samples[(v.other, v.workload.name)]))
        if all(math.isfinite(x) for x in (v.ratio, *v.ci)):
            fig = FigureResult(
                *where, unit="ratio", status="ok", reason=v.verdict, n=n, median=v.ratio,
                ci_lo=v.ci[0], ci_hi=v.ci[1], better=_better(v.workload),
            )  # fmt: skip
        else:  # a base median of 0: no ratio to keep
            fig = FigureResult(
                *where, unit="ratio", status="n/a", reason=f"no ratio: {v.verdict}", n=n,
                better=_better(v.workload),
            )  # fmt: skip
        run.figures.append(fig)
    run.settings[name] = {"rounds": args.rounds, "warmup": args.warmup}
    run.sections[LAB] = {
        "profile": name,
        "rounds": args.rounds,
        "warmup": args.warmup,
        "per_setting": args.per_setting,
        "alpha": alpha,
        "threshold": args.threshold,
        "configs": [{"label": c.label, "setting": c.setting, "values": c.values} for c in cfgs],
        "workloads": [
            {
                "name": w.name,
                "unit": w.unit,
                "figure": w.figure,
                "lower_is_better": w.lower_is_better,
            }
            for w in workloads
        ],
        "comparisons": [v.to_json() for v in verdicts],
    }
    return run


def _better(w: Workload) -> str:
    return "lower" if w.lower_is_better else "higher"


def save(run: "RunResult", path: "DbLocation") -> None:
    """Store the run (run.run_id set); StoreError (run_id None) if it cannot be."""
    from hotpath.store import Store

    store = Store.open(path)
    try:
        store.save(run)
    finally:
        store.close()


def store_or_say(run: "RunResult", path: "DbLocation | None") -> str | None:
    """Save the run into `path` (None: --no-store); what went wrong, in words, or None."""
    if path is None:
        return None
    try:
        save(run, path)
    except StoreError as err:
        return f"the run was not stored: {err}"
    return None


def not_stored(problem: str) -> HotpathError:
    return HotpathError(f"{problem}; the results are printed above")


def from_run(run: "RunResult") -> Evaluation:
    """What `hotpath tune evaluate` printed, rebuilt from a stored run."""
    section: dict[str, Any] = run.sections[LAB]
    name = section["profile"]
    workloads = {w["name"]: _workload(w) for w in section["workloads"]}
    labels = {c["label"] for c in section["configs"]}
    samples = {
        (f.variant, f.mode): [float(x) for x in f.samples]
        for f in run.figures
        if f.lab == LAB and f.variant in labels
    }
    verdicts = [_verdict(c, workloads) for c in section["comparisons"]]
    return Evaluation(
        name,
        section["rounds"],
        section.get("per_setting"),
        section["alpha"],
        section["threshold"],
        run.machine.one_line(),
        samples,
        verdicts,
        run.machine.to_json(),
    )


def _workload(doc: dict[str, Any]) -> Workload:
    """A stored workload's description (what render shows; nothing to run)."""
    return Workload(
        name=doc["name"], argv=(), unit=doc["unit"], lower_is_better=doc["lower_is_better"],
        parse=None, program="", package="", figure=doc["figure"],
    )  # fmt: skip


def _verdict(doc: dict[str, Any], workloads: dict[str, Workload]) -> Verdict:
    return Verdict(
        workloads[doc["workload"]], doc["base"], doc["other"], doc["ratio"],
        (doc["ci"][0], doc["ci"][1]), doc["p"], doc["verdict"], doc["setting"],
    )  # fmt: skip


def lab_summary(run: "RunResult") -> "LabSummary":
    """The lab's lines in a run's summary (LabHooks.summarize): each comparison's verdict."""
    from hotpath.findings import BAD, GOOD, NEUTRAL, Finding, LabSummary

    section: dict[str, Any] = run.sections.get(LAB, {})
    summary = LabSummary(LAB, f"tune evaluate '{section.get('profile', '?')}'")
    tones = {"better": GOOD, "worse": BAD}
    for c in section.get("comparisons", []):
        lo, hi = c["ci"]
        text = (
            f"{c['workload']}: {c['other']} against {c['base']}: {c['verdict']} (ratio "
            f"{c['ratio']:.3f} [{lo:.3f}, {hi:.3f}], p = {c['p']:.2g})"
        )
        summary.findings.append(Finding("verdict", text, tones.get(c["verdict"], NEUTRAL)))
        if c["setting"] is None:
            summary.headline["claims"].append(f"{c['workload']}: {c['verdict']}")
    return summary
