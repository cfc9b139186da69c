# SPDX-License-Identifier: GPL-2.0-only
"""`hotpath tune evaluate`'s output: the table of comparisons and its JSON
(hotpath.tune-evaluate/1), from an Evaluation (hotpath.labs.tune.comparison),
fresh or rebuilt from a stored run (hotpath.labs.tune.stored.from_run). No
numpy at import: the tuning lab's commands other than evaluate run without it."""

from typing import TYPE_CHECKING

from hotpath.labs.tune import NO_EVIDENCE

if TYPE_CHECKING:
    from hotpath.labs.tune.comparison import Evaluation, Verdict
    from hotpath.labs.tune.workloads import Workload


def _summary_text(values: list[float], unit: str) -> str:
    from hotpath.stats import summarize

    s = summarize(values)
    return f"{s.median:.4g} {unit} [{s.p10:.4g}..{s.p90:.4g}]"


def render(ev: "Evaluation") -> str:
    alpha, samples, verdicts = ev.alpha, ev.samples, ev.verdicts
    lines = [
        f"evaluate '{ev.profile}': {ev.rounds} rounds, configurations interleaved in each round "
        "(A: the settings at the start, B: the profile)",
        f"machine: {ev.machine}",
        "figures: median of one figure per process run [p10..p90]; ratio = other/base median "
        "with its bootstrap 95% CI; p: Mann-Whitney two-sided; "
        f"better/worse only when p < {alpha:.2g} (0.05 Bonferroni), CI excludes 1, "
        f"|ratio - 1| > {ev.threshold} (--threshold); with |ratio - 1| within it, "
        "the change and its CI, below the threshold",
        "",
        f"{'workload':<16} {'base':<32} {'other':<32} {'base figure':<32} "
        f"{'other figure':<32} {'ratio':>6} {'95% CI':>15} {'p':>8}  verdict",
    ]
    legend = {v.workload.name: v.workload for v in verdicts}
    for w in legend.values():
        better = "lower" if w.lower_is_better else "higher"
        lines.insert(-2, f"  {w.name}: {w.figure}, in {w.unit}, {better} is better")
    for v in verdicts:
        w = v.workload
        direction = "lower" if w.lower_is_better else "higher"
        lines.append(
            f"{w.name:<16} {v.base[:32]:<32} {v.other[:32]:<32} "
            f"{_summary_text(samples[(v.base, w.name)], w.unit):<32} "
            f"{_summary_text(samples[(v.other, w.name)], w.unit):<32} "
            f"{v.ratio:>6.3f} {f'[{v.ci[0]:.3f}, {v.ci[1]:.3f}]':>15} {v.p:>8.2g}  "
            f"{v.verdict} ({direction} is better)"
        )
    main = [v for v in verdicts if v.setting is None]
    parts = [v for v in verdicts if v.setting is not None]
    if parts:
        lines.append("")
        for m in main:
            carriers = [
                v.setting for v in parts if v.workload is m.workload and v.verdict != NO_EVIDENCE
            ]
            effect = m.verdict if m.verdict != NO_EVIDENCE else "no evidence for the profile"
            who = ", ".join(f"{s} ({_verdict_of(parts, m.workload, s)})" for s in carriers if s)
            lines.append(
                f"{m.workload.name}: {effect}; settings with an effect of their own: "
                + (who or "none found")
            )
    return "\n".join(lines)


def _verdict_of(parts: "list[Verdict]", w: "Workload", setting: str) -> str:
    return next(v.verdict for v in parts if v.workload is w and v.setting == setting)


def to_json(ev: "Evaluation", run_id: int | None) -> dict[str, object]:
    return {
        "schema": "hotpath.tune-evaluate/1",
        "profile": ev.profile,
        "rounds": ev.rounds,
        "per_setting": ev.per_setting,
        "alpha": ev.alpha,
        "threshold": ev.threshold,
        "machine": ev.machine_json,
        "samples": [{"config": c, "workload": w, "values": v} for (c, w), v in ev.samples.items()],
        "comparisons": [
            {
                **v.to_json(),
                "unit": v.workload.unit,
                "lower_is_better": v.workload.lower_is_better,
            }
            for v in ev.verdicts
        ],
        "run_id": run_id,
    }
