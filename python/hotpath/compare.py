# SPDX-License-Identifier: GPL-2.0-only
"""Comparing two stored runs figure by figure, with a verdict per figure.

A figure is called "faster" or "slower" only when both hold: the
Mann-Whitney U test gives p < 0.01, and the bootstrap 95% CI of the ratio
of medians (B/A) lies entirely outside [1 - threshold, 1 + threshold].
Samples inside one run are not independent on a shared machine (they share
its drift), so the p-value alone over-claims; the practical threshold keeps
drift from being called a difference. A ratio means nothing for figures
near zero (a fenced figure of -1 against 0 cycles), so the medians must
also differ by more than MIN_ABS_DIFFERENCE in the figure's unit.
"""

import math
from dataclasses import dataclass, field

from hotpath.machine import Fingerprint
from hotpath.results import FigureResult, RunResult
from hotpath.significance import bootstrap_ratio_ci, mann_whitney_u

P_LIMIT = 0.01
DEFAULT_THRESHOLD = 0.02
NO_EVIDENCE = "no evidence of a difference"
# Below one cycle (or tick) the engine cannot tell figures apart reliably.
MIN_ABS_DIFFERENCE = 1.0


@dataclass(frozen=True)
class FigureComparison:
    a: FigureResult
    b: FigureResult
    ratio: float
    ratio_ci: tuple[float, float]
    p_value: float
    verdict: str


@dataclass
class Comparison:
    run_a: int | None
    run_b: int | None
    machine_a: Fingerprint
    machine_b: Fingerprint
    threshold: float
    rows: list[FigureComparison] = field(default_factory=list)
    only_a: int = 0
    only_b: int = 0

    @property
    def same_machine(self) -> bool:
        return self.machine_a.key() == self.machine_b.key()


def verdict(
    p_value: float, ratio_ci: tuple[float, float], threshold: float, abs_diff: float = math.inf
) -> str:
    lo, hi = ratio_ci
    if math.isnan(lo) or math.isnan(hi) or p_value >= P_LIMIT:
        return NO_EVIDENCE
    if abs_diff <= MIN_ABS_DIFFERENCE:
        return NO_EVIDENCE
    if hi < 1.0 - threshold:
        return "faster"
    if lo > 1.0 + threshold:
        return "slower"
    return NO_EVIDENCE


def compare_figures(a: FigureResult, b: FigureResult, threshold: float) -> FigureComparison:
    assert a.median is not None and b.median is not None
    ratio = b.median / a.median if a.median else math.nan
    ratio_ci = bootstrap_ratio_ci(a.samples, b.samples)
    p_value = mann_whitney_u(a.samples, b.samples).p_value
    diff = abs(b.median - a.median)
    return FigureComparison(
        a, b, ratio, ratio_ci, p_value, verdict(p_value, ratio_ci, threshold, diff)
    )


def compare_runs(a: RunResult, b: RunResult, threshold: float = DEFAULT_THRESHOLD) -> Comparison:
    result = Comparison(a.run_id, b.run_id, a.machine, b.machine, threshold)
    figures_b = {f.key: f for f in b.figures if f.timed and f.samples.size}
    keys_a = set()
    for fig_a in a.figures:
        if not (fig_a.timed and fig_a.samples.size):
            continue
        keys_a.add(fig_a.key)
        fig_b = figures_b.get(fig_a.key)
        if fig_b is None:
            result.only_a += 1
            continue
        result.rows.append(compare_figures(fig_a, fig_b, threshold))
    result.only_b = sum(1 for key in figures_b if key not in keys_a)
    return result


def render(cmp: Comparison) -> str:
    lines = []
    if not cmp.same_machine:
        lines += [
            "!" * 72,
            "!! DIFFERENT MACHINES: these runs come from two machines; differences below",
            "!! mix the machines' effects with the code's.",
            f"!!   A (run {cmp.run_a}): {cmp.machine_a.one_line()}",
            f"!!   B (run {cmp.run_b}): {cmp.machine_b.one_line()}",
            "!" * 72,
        ]
    else:
        lines.append(f"machine: {cmp.machine_a.one_line()}")
        diffs = cmp.machine_a.differences(cmp.machine_b)
        if diffs:
            lines.append("same machine, but: " + "; ".join(diffs))
    lines.append(
        f"B/A ratio of medians with bootstrap 95% CI; Mann-Whitney U p-value. Verdict "
        f"'faster'/'slower' only when p < {P_LIMIT} and the ratio CI lies outside "
        f"[{1 - cmp.threshold:.3f}, {1 + cmp.threshold:.3f}] (threshold {cmp.threshold:g}) "
        f"and the medians differ by more than {MIN_ABS_DIFFERENCE:g} of their unit: "
        "samples within one run share the machine's drift and are not independent."
    )
    lines.append("")
    header = (
        f"{'primitive':<14} {'mode':<10} {'variant':<18} {'size':>7} {'align':>5} "
        f"{'A median':>10} {'B median':>10} {'B/A':>6} {'95% CI':>13} {'p':>8}  verdict"
    )
    lines += [header, "-" * len(header)]
    for row in cmp.rows:
        f = row.a
        unit = "cyc" if f.unit == "cycles" else "tick"
        lines.append(
            f"{f.primitive:<14} {f.mode:<10} {f.variant:<18} {f.size:>7} {f.align:>5} "
            f"{row.a.median or 0:>6.1f} {unit:<3} {row.b.median or 0:>6.1f} {unit:<3} "
            f"{row.ratio:>6.3f} {row.ratio_ci[0]:>6.3f}-{row.ratio_ci[1]:<6.3f} "
            f"{row.p_value:>8.2g}  {row.verdict}"
        )
    if not cmp.rows:
        lines.append("(no figure is present in both runs)")
    if cmp.only_a or cmp.only_b:
        lines.append(f"figures only in A: {cmp.only_a}, only in B: {cmp.only_b}")
    return "\n".join(lines) + "\n"


def to_json(cmp: Comparison) -> dict[str, object]:
    return {
        "schema": "hotpath.compare/1",
        "run_a": cmp.run_a,
        "run_b": cmp.run_b,
        "same_machine": cmp.same_machine,
        "machine_a": cmp.machine_a.short_name(),
        "machine_b": cmp.machine_b.short_name(),
        "threshold": cmp.threshold,
        "p_limit": P_LIMIT,
        "figures": [
            {
                **{
                    k: v
                    for k, v in r.a.to_json().items()
                    if k in ("lab", "primitive", "variant", "size", "align", "mode", "unit")
                },
                "median_a": r.a.median,
                "median_b": r.b.median,
                "ratio": r.ratio,
                "ratio_ci": list(r.ratio_ci),
                "p_value": r.p_value,
                "verdict": r.verdict,
            }
            for r in cmp.rows
        ],
    }
