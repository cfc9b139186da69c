# SPDX-License-Identifier: GPL-2.0-only
"""`hotpath compare`'s text and JSON (hotpath.compare/2): the verdicts of
hotpath.compare, laid out; compare_html.py draws the same as a page."""

from hotpath.compare import MIN_REPLICAS, Comparison
from hotpath.results import unit_name, unit_of
from hotpath.verdicts import (
    MIN_ABS_DIFFERENCE,
    NO_EVIDENCE,
)


def rule_lines(cmp: Comparison) -> list[str]:
    methods = {row.method for row in cmp.rows}
    lines = [
        "B/A ratio of medians with its 95% interval. Where the evidence shows a difference: "
        f"'faster'/'slower' beyond the threshold of {cmp.threshold:.1%} (--threshold), "
        "'below the threshold' with the change and its interval within it; "
        f"'within one unit' where the medians are {MIN_ABS_DIFFERENCE:g} "
        f"{'unit' if MIN_ABS_DIFFERENCE == 1 else 'units'} or less apart (below what the "
        f"engine tells apart); '{NO_EVIDENCE}' where it shows none."
    ]
    if methods & {"replicas", "paired replicas"}:
        lines.append(
            f"replicas ({MIN_REPLICAS}+ processes each side): interval from Student's t on "
            "the replicas' log medians (paired when both are from one run); the evidence "
            "shows a difference when it excludes 1."
        )
    if "single runs" in methods:
        floors = sorted({(row.floor, row.floor_source) for row in cmp.rows if row.floor})
        said = "; ".join(f"{f:.1%} ({src})" for f, src in floors[:3] if f is not None)
        lines.append(
            "single runs: samples inside one process say nothing about another, so no "
            "p-value is given; the evidence shows a difference only when the whole interval "
            "lies beyond this machine's A/A floor (the largest difference it has shown "
            f"between identical runs). Floor: {said or 'n/a'}. Run both sides with --repeat 3 "
            "for more power."
        )
    if "exact" in methods:
        lines.append(
            "exact: a deterministic model's statistic (no samples): the same inputs give the "
            "same value, so any difference is the code's or the inputs'."
        )
    if "intervals" in methods:
        lines.append(
            "intervals: figures derived from others with a 95% interval each (no samples "
            "kept): the evidence shows a difference when the two intervals do not overlap."
        )
    units = sorted({unit_name(row.a.unit) for row in cmp.rows})
    if units:
        lines.append(f"units: {', '.join(units)}, each row in its figure's own.")
    return lines


def _number(value: float | None) -> str:
    """A median as the table shows it: one decimal, or 4 digits where large or small."""
    value = value or 0.0
    return f"{value:.1f}" if 1.0 <= abs(value) < 1e5 else f"{value:.4g}"


def render(cmp: Comparison) -> str:
    lines = []
    if not cmp.same_machine:
        # The first line says it: a reader who sees one line, or a script
        # that reads one, must not take the rows for one machine's.
        found = cmp.machine_a.key_differences(cmp.machine_b)
        more = f"; {len(found) - 3} more part(s) of the key" if len(found) > 3 else ""
        differ = "; ".join(found[:3]) + more
        lines += [
            f"DIFFERENT MACHINES: A (run {cmp.run_a}) and B (run {cmp.run_b}) come from two "
            f"machines{f' ({differ})' if differ else ''}; every difference below mixes the "
            "machines' effects with the code's.",
            f"  A (run {cmp.run_a}) [{cmp.machine_a.key()}]: {cmp.machine_a.one_line()}",
            f"  B (run {cmp.run_b}) [{cmp.machine_b.key()}]: {cmp.machine_b.one_line()}",
        ]
    else:
        lines.append(f"machine: {cmp.machine_a.one_line()}")
        diffs = cmp.machine_a.differences(cmp.machine_b)
        if diffs:
            lines.append("same machine, but: " + "; ".join(diffs))
    if cmp.variant_a is not None:
        lines.append(
            f"A: variant {cmp.variant_a} of run {cmp.run_a}; "
            f"B: variant {cmp.variant_b} of run {cmp.run_b}"
        )
    lines += rule_lines(cmp)
    lines.append("")
    # Columns as wide as their longest entry: a workload ("latency, 4096 slots",
    # "102400 writes") is longer than an engine mode.
    wp, wm, wv = (
        max([len(word), *(len(str(getattr(r.a, word))) for r in cmp.rows)])
        for word in ("primitive", "mode", "variant")
    )
    header = (
        f"{'primitive':<{wp}} {'mode':<{wm}} {'variant':<{wv}} {'size':>7} {'align':>5} "
        f"{'A median':>14} {'B median':>14} {'B/A':>6} {'95% CI':>13} {'evidence':>14}  verdict"
    )
    lines += [header, "-" * len(header)]
    counts: dict[str, int] = {}
    for row in cmp.rows:
        f = row.a
        unit = unit_of(f.unit).short
        counts[row.verdict] = counts.get(row.verdict, 0) + 1
        if row.p_value is not None:
            sides = f"{len(row.a.replica_medians)}v{len(row.b.replica_medians)}"
            evidence = f"{sides} p={row.p_value:.2g}"
        elif row.floor is not None:
            evidence = f"floor {row.floor:.1%}"
        else:
            evidence = row.method
        lines.append(
            f"{f.primitive:<{wp}} {f.mode:<{wm}} {f.variant:<{wv}} {f.size:>7} {f.align:>5} "
            f"{_number(row.a.median):>9} {unit:<4} {_number(row.b.median):>9} {unit:<4} "
            f"{row.ratio:>6.3f} {row.ratio_ci[0]:>6.3f}-{row.ratio_ci[1]:<6.3f} "
            f"{evidence:>14}  {row.verdict_text}"
        )
    if not cmp.rows:
        lines.append("(no figure is present in both runs)")
    else:
        tally = ", ".join(f"{n} {v}" for v, n in sorted(counts.items()))
        lines.append(f"summary: {tally} of {len(cmp.rows)}")
    if cmp.only_a or cmp.only_b:
        lines.append(f"figures only in A: {cmp.only_a}, only in B: {cmp.only_b}")
    return "\n".join(lines) + "\n"


def to_json(cmp: Comparison) -> dict[str, object]:
    return {
        "schema": "hotpath.compare/2",
        "run_a": cmp.run_a,
        "run_b": cmp.run_b,
        "variant_a": cmp.variant_a,
        "variant_b": cmp.variant_b,
        "same_machine": cmp.same_machine,
        "machine_a": cmp.machine_a.short_name(),
        "machine_b": cmp.machine_b.short_name(),
        "threshold": cmp.threshold,
        "figures": [
            {
                **{
                    k: v
                    for k, v in r.a.to_json().items()
                    if k in ("lab", "primitive", "variant", "size", "align", "mode", "unit")
                },
                "variant_b": r.b.variant,
                "median_a": r.a.median,
                "median_b": r.b.median,
                "replicas_a": len(r.a.replica_medians),
                "replicas_b": len(r.b.replica_medians),
                "ratio": r.ratio,
                "ratio_ci": list(r.ratio_ci),
                "method": r.method,
                "p_value": r.p_value,
                "floor": r.floor,
                "floor_source": r.floor_source,
                "verdict": r.verdict,
                "verdict_text": r.verdict_text,
            }
            for r in cmp.rows
        ],
    }
