# SPDX-License-Identifier: GPL-2.0-only
"""What a run found, said before its tables: the verdicts per lab.

A reader opens a report to learn who is fastest where, how hotpath's own
implementation does, whether the kernel's newest code beats its
predecessors and which of the seed's claims hold on this machine; the
tables are the evidence below. Everything here is derived from the run's
figures (median and 95% CI); nothing is a stored sentence:

- fastest per size band: the columns (alignment, then size) where the same
  variant has the lowest median, and its margin over the next variant
  ("tied" where their intervals overlap);
- hotpath's own (the variant its registry flags "own", labs.Roles): in
  how many columns it is fastest or within OWN_NEAR of the fastest, in how
  many more it is behind by one unit or less (below what the engine can
  tell apart, as in `compare`), and its worst column;
- the kernel's newest version against each older one (Lab.kernel_variants):
  the geometric mean of the time ratios over shared columns, and in how
  many columns the intervals say faster or slower;
- the seed's claims (Lab.seed_tables, evaluated by hotpath.seedtables)
  that this run measured;
- variants not timed (WRONG, unavailable, skipped) with their reason, and
  the share of noisy figures.

Every format (terminal, Markdown, HTML) renders the same RunSummary.
"""

import math
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass

from hotpath import seedtables
from hotpath.findings import (
    BAD,
    GOOD,
    NEUTRAL,
    Finding,
    LabSummary,
    RunSummary,
)
from hotpath.labs import Lab, Roles, lab_for
from hotpath.protocol import Variant
from hotpath.results import FigureResult, RunResult, unit_name
from hotpath.runstate import state_lines
from hotpath.stats import intervals_overlap
from hotpath.verdicts import MIN_ABS_DIFFERENCE, percent

PLURAL = {seedtables.HOLDS: "hold", seedtables.DOES_NOT_HOLD: "do not hold"}
OWN_NEAR = 0.03  # "within 3% of the fastest": the issue 10 target


@dataclass(frozen=True)
class Column:
    """One (alignment, size) of a primitive in one mode, its timed figures fastest first."""

    size: int
    align: int
    ranked: list[FigureResult]

    @property
    def best(self) -> FigureResult:
        return self.ranked[0]

    def ratio(self, figure: FigureResult) -> float:
        return _median(figure) / _median(self.best)


def _median(figure: FigureResult) -> float:
    assert figure.median is not None
    return max(figure.median, 1e-9)


def _ci(figure: FigureResult) -> tuple[float, float]:
    assert figure.ci_lo is not None and figure.ci_hi is not None
    return figure.ci_lo, figure.ci_hi


def columns(run: RunResult, primitive: str, mode: str) -> list[Column]:
    """The primitive's columns in `mode`, ordered by alignment then size.

    A column whose fastest figure is below one unit (a fenced figure next to
    the subtracted empty call) has no meaningful ratio and is left out."""
    by_column: dict[tuple[int, int], list[FigureResult]] = {}
    for f in run.figures:
        if f.primitive == primitive and f.mode == mode and f.timed and f.median is not None:
            by_column.setdefault((f.align, f.size), []).append(f)
    ranked = [
        Column(size, align, sorted(figs, key=_median))
        for (align, size), figs in sorted(by_column.items())
    ]
    return [c for c in ranked if (c.best.median or 0.0) >= seedtables.RATIO_FLOOR]


def _label(lab: Lab | None, size: int, align: int) -> str:
    return lab.column_label(size, align) if lab else f"{size} +{align}"


def _band_label(lab: Lab | None, first: Column, last: Column) -> str:
    if first.size == last.size:
        return _label(lab, first.size, first.align)
    unit = lab.size_unit if lab else "B"
    sizes = f"{first.size}-{last.size} {unit}".rstrip()
    if lab is not None and lab.show_align:
        return f"{sizes} {lab.align_label(first.align)}"
    return sizes


def _tied(column: Column) -> bool:
    """The fastest and the next cannot be told apart (their 95% CIs overlap)."""
    return len(column.ranked) > 1 and intervals_overlap(
        _ci(column.ranked[0]), _ci(column.ranked[1])
    )


def _margin(lab: Lab | None, band: list[Column], roles: Roles) -> str:
    """The band's winner's lead over the next variant, and where it is tied."""
    if all(len(c.ranked) < 2 for c in band):
        return "the only variant timed"
    ahead = [c for c in band if len(c.ranked) > 1 and not _tied(c)]
    ties = [c for c in band if _tied(c)]
    parts = []
    if ahead:
        ratios = [c.ratio(c.ranked[1]) for c in ahead]
        nexts = ", ".join(dict.fromkeys(roles.label(c.ranked[1].variant) for c in ahead))
        low, high = _times(min(ratios)), _times(max(ratios))
        span = low if low == high else f"{low[:-1]}-{high}"
        parts.append(f"{span} ahead of {nexts}")
    if ties:
        names = ", ".join(dict.fromkeys(roles.label(c.ranked[1].variant) for c in ties))
        where = (
            ""
            if len(ties) == len(band)
            else " at " + ", ".join(_label(lab, c.size, c.align) for c in ties)
        )
        parts.append(f"tied with {names}{where}")
    return "; ".join(parts)


def fastest_bands(lab: Lab | None, cols: list[Column], roles: Roles) -> list[str]:
    """'40-256 B even: hp-csum (1.05-1.20x ahead of kernel-2024; tied with dpdk at 64 B even)'."""
    bands: list[list[Column]] = []
    for col in cols:
        last = bands[-1][-1] if bands else None
        if last is not None and last.align == col.align and last.best.variant == col.best.variant:
            bands[-1].append(col)
        else:
            bands.append([col])
    return [
        f"{_band_label(lab, band[0], band[-1])}: {roles.label(band[0].best.variant)} "
        f"({_margin(lab, band, roles)})"
        for band in bands
    ]


def _times(ratio: float) -> str:
    """A ratio as "1.23x"; three places near 1, where two would print 1.00x for a real gap."""
    return f"{ratio:.3f}x" if abs(ratio - 1.0) < 0.01 else f"{ratio:.2f}x"


def own_counts(own: str, cols: list[Column]) -> tuple[int, int, int]:
    """(columns timed, fastest in, within OWN_NEAR of the fastest in) for `own`."""
    timed = [(c, f) for c in cols for f in c.ranked if f.variant == own]
    first = sum(c.best.variant == own for c, _ in timed)
    near = sum(c.ratio(f) <= 1.0 + OWN_NEAR for c, f in timed)
    return len(timed), first, near


def own_within_unit(own: str, cols: list[Column]) -> int:
    """Columns where `own` is not within OWN_NEAR but at most MIN_ABS_DIFFERENCE
    units behind the fastest: a gap the engine does not call a difference."""
    return sum(
        c.ratio(f) > 1.0 + OWN_NEAR and _median(f) - _median(c.best) <= MIN_ABS_DIFFERENCE
        for c in cols
        for f in c.ranked
        if f.variant == own
    )


def _unit_more(own: str, cols: list[Column]) -> str:
    """', 1 core cycle or less behind in 12 more', or nothing."""
    more = own_within_unit(own, cols)
    if not more:
        return ""
    unit = unit_name(cols[0].best.unit)
    if MIN_ABS_DIFFERENCE == 1:
        unit = unit.removesuffix("s")
    return f", {MIN_ABS_DIFFERENCE:g} {unit} or less behind in {more} more"


def own_line(lab: Lab | None, own: str, cols: list[Column]) -> tuple[str, str]:
    """(text, tone) for hotpath's own variant over one mode's columns."""
    count, first, near = own_counts(own, cols)
    if not count:
        return "not timed in this mode", BAD
    text = f"fastest in {first} of {count} columns, within {OWN_NEAR:.0%} of the fastest in {near}"
    text += _unit_more(own, cols)
    timed = [(c, f) for c in cols for f in c.ranked if f.variant == own]
    worst_col, worst = max(timed, key=lambda cf: cf[0].ratio(cf[1]))
    if worst_col.best.variant != own:
        text += (
            f"; furthest behind at {_label(lab, worst_col.size, worst_col.align)}: "
            f"{_times(worst_col.ratio(worst))} the time of {worst_col.best.variant}"
        )
    return text, GOOD if near == count else BAD


def kernel_line(newest: str, older: str, cols: list[Column], threshold: float = 0.0) -> str | None:
    """The newest kernel version against an older one over their shared
    columns: faster or slower where the intervals are apart and the change
    is beyond `threshold`, below the threshold where they are apart but the
    change is not (said only with a threshold), within noise elsewhere."""
    ratios = []
    faster = slower = below = 0
    for col in cols:
        figs = {f.variant: f for f in col.ranked}
        if newest not in figs or older not in figs:
            continue
        new, old = figs[newest], figs[older]
        ratio = _median(new) / _median(old)
        ratios.append(ratio)
        if not intervals_overlap(_ci(new), _ci(old)):
            if abs(ratio - 1.0) <= threshold:
                below += 1
            else:
                faster += ratio < 1.0
                slower += ratio > 1.0
    if not ratios:
        return None
    mean = math.exp(sum(math.log(r) for r in ratios) / len(ratios))
    same = len(ratios) - faster - slower - below
    small = f", below the {percent(threshold)} threshold in {below}" if threshold else ""
    return (
        f"{_times(mean)} the time of {older} (geometric mean over {len(ratios)} columns): "
        f"faster in {faster}, slower in {slower}{small}, within noise in {same}"
    )


def _claims(lab: Lab, run: RunResult, threshold: float) -> tuple[list[Finding], Counter[str]]:
    """One finding per seed claim (its outcome per mode), and the outcomes counted."""
    modes = tuple(dict.fromkeys(f.mode for f in run.figures if f.lab == lab.name))
    findings = []
    counted: Counter[str] = Counter()
    for seed in lab.seed_tables:
        wanted = tuple(m for m in seed.modes if m in modes)
        if seed.own or not wanted:  # a lab's own seed table has no claims here
            continue
        per_claim: dict[str, list[tuple[str, seedtables.Verdict]]] = {}
        for table in seedtables.evaluate(seed, run, wanted, threshold).tables:
            for verdict in table.verdicts:
                factor = f" (by {verdict.claim.factor:g}x)" if verdict.claim.factor != 1 else ""
                per_claim.setdefault(verdict.claim.text + factor, []).append((table.mode, verdict))
        unmeasured = 0
        for text, verdicts in per_claim.items():
            measured = [(m, v) for m, v in verdicts if v.outcome != seedtables.NOT_COMPARABLE]
            if not measured:
                unmeasured += 1
                continue
            outcomes = {v.outcome for _, v in measured}
            counted[seedtables.combine(list(outcomes))] += 1
            worst = seedtables.combine(list(outcomes))
            tone = {seedtables.HOLDS: GOOD, seedtables.DOES_NOT_HOLD: BAD}.get(worst, NEUTRAL)
            said = "; ".join(
                f"{v.outcome} in {m}" + (f" (seed: {v.seed_outcome})" if v.seed_outcome else "")
                for m, v in measured
            )
            findings.append(Finding("claim", f"{text}: {said}", tone))
        if unmeasured:
            findings.append(
                Finding(
                    "claim",
                    f"{unmeasured} claim(s) of {seed.seed} need figures this run did not "
                    f"take: `hotpath {lab.name} --{seed.flag}`",
                )
            )
    return findings, counted


def _not_timed(run: RunResult, lab_name: str) -> list[Finding]:
    findings = []
    for v in run.variants:
        if v.lab != lab_name or v.info.status == "ok":
            continue
        if v.info.status == "wrong":
            why = v.info.failure.describe() if v.info.failure else (v.info.reason or "no case")
            findings.append(
                Finding("not timed", f"{v.info.name} ({v.primitive}) WRONG: {why}", BAD)
            )
        else:
            why = v.info.reason or "no reason given"
            findings.append(
                Finding("not timed", f"{v.info.name} ({v.primitive}) {v.info.status}: {why}")
            )
    return findings


def _noise(run: RunResult, lab_name: str) -> Finding | None:
    figs = [f for f in run.figures if f.lab == lab_name]
    if not figs:
        return None
    timed = [f for f in figs if f.timed]
    noisy = sum(f.noisy for f in timed)
    short = sum(f.short for f in timed)
    untimed = len(figs) - len(timed)
    text = f"{noisy} of {len(timed)} timed figures noisy, {short} short of clean samples"
    if untimed:
        text += f", {untimed} n/a (the tables say why)"
    return Finding("noise", text, BAD if noisy else GOOD)


def _primary(
    lab: Lab | None,
    primitive: str,
    per_mode: dict[str, list[Column]],
    variants: list[Variant],
    threshold: float,
) -> list[Finding]:
    """Bands, hotpath's own and the kernel for one of the lab's main primitives."""
    names = [v.name for v in variants]
    roles = Roles.of(variants)
    unit = unit_name(next(iter(per_mode.values()))[0].best.unit)
    fastest = Finding("fastest", f"{primitive}: the fastest correct variant per size band ({unit})")
    for mode, cols in per_mode.items():
        fastest.details.extend(f"{mode}, {line}" for line in fastest_bands(lab, cols, roles))
    found = [fastest]
    own = roles.own
    if own is not None:
        lines = {mode: own_line(lab, own, cols) for mode, cols in per_mode.items()}
        tone = BAD if any(t == BAD for _, t in lines.values()) else GOOD
        finding = Finding("own", f"{primitive}: hotpath's own, {own}", tone)
        finding.details.extend(f"{mode}: {text}" for mode, (text, _) in lines.items())
        found.append(finding)
    if lab is None:
        return found
    kernels = lab.kernel_variants(primitive, variants)
    label = roles.label
    if len(kernels) > 1:
        finding = Finding(
            "kernel", f"{primitive}: the kernel's newest, {label(kernels[-1])}, takes"
        )
        for mode, cols in per_mode.items():
            for older in reversed(kernels[:-1]):
                line = kernel_line(kernels[-1], older, cols, threshold)
                if line:
                    finding.details.append(f"{mode}: {line.replace(older, label(older), 1)}")
        found.append(finding)
        if finding.details:  # the first mode, against the version just before
            mode, line = finding.details[0].split(": ", 1)
            finding.headline = f"{label(kernels[-1])}: {line.split(' (', 1)[0]} ({mode})"
    elif kernels:
        finding = Finding("kernel", f"{primitive}: the kernel's, {label(kernels[0])}")
        for mode, cols in per_mode.items():
            text, _ = own_line(lab, kernels[0], cols)
            finding.details.append(f"{mode}: {text}")
        mode, cols = next(iter(per_mode.items()))
        count, first, near = own_counts(kernels[0], cols)
        finding.headline = (
            f"{label(kernels[0])}: fastest in {first}, within {OWN_NEAR:.0%} in {near} of "
            f"{count} ({primitive}, {mode})"
        )
        found.append(finding)
    found.extend(_fidelity(lab, primitive, per_mode, roles, names, threshold))
    return found


def _fidelity(
    lab: Lab,
    primitive: str,
    per_mode: dict[str, list[Column]],
    roles: Roles,
    names: list[str],
    threshold: float,
) -> list[Finding]:
    """Each re-implementation beside the real kernel whose code it re-implements."""
    found = []
    for reimpl, real in lab.counterparts.get(primitive, {}).items():
        if reimpl not in names or real not in names:
            continue
        finding = Finding(
            "fidelity", f"{primitive}: {roles.label(reimpl)} against {real}, the real code"
        )
        for mode, cols in per_mode.items():
            line = kernel_line(reimpl, real, cols, threshold)
            if line:
                finding.details.append(f"{mode}: {line}")
        found.append(finding)
    return found


def _secondary(primitive: str, per_mode: dict[str, list[Column]], roles: Roles) -> Finding:
    """One line for a primitive beside the lab's main ones (csum_fold beside csum_partial)."""
    cols = [c for mode_cols in per_mode.values() for c in mode_cols]
    winners = Counter(c.best.variant for c in cols)
    said = ", ".join(f"{roles.label(name)} in {n}" for name, n in winners.most_common())
    text = f"{primitive}: fastest {said} of {len(cols)} columns (all modes)"
    own = roles.own
    tone = NEUTRAL
    if own is not None:
        count, _, near = own_counts(own, cols)
        text += f"; hotpath's {own} within {OWN_NEAR:.0%} of the fastest in {near} of {count}"
        tone = GOOD if near == count else BAD
    return Finding("others", text, tone)


def summarize_lab(run: RunResult, lab_name: str, threshold: float = 0.0) -> LabSummary:
    lab = lab_for(lab_name)
    summary = LabSummary(lab_name, lab.title if lab else lab_name)
    for primitive in run.primitives():
        variants = [v.info for v in run.variants if v.primitive == primitive and v.lab == lab_name]
        names = [v.name for v in variants]
        roles = Roles.of(variants)
        modes = dict.fromkeys(f.mode for f in run.figures if f.primitive == primitive)
        per_mode = {m: cols for m in modes if (cols := columns(run, primitive, m))}
        if not names or not per_mode:
            continue
        if lab is None or lab.is_default(primitive):
            primary = _primary(lab, primitive, per_mode, variants, threshold)
            summary.findings.extend(primary)
            summary.headline["kernel"].extend(f.headline for f in primary if f.headline)
            own = roles.own
            if own is not None:
                every = [c for mode_cols in per_mode.values() for c in mode_cols]
                count, _, near = own_counts(own, every)
                summary.headline["own"].append(
                    f"{own}: within {OWN_NEAR:.0%} of the fastest in {near} of {count}"
                    f"{_unit_more(own, every)} ({primitive}, all modes)"
                )
            mode, cols = next(iter(per_mode.items()))
            summary.headline["fastest"].append(f"{primitive} ({mode}):")
            summary.headline["fastest"].extend(
                f"  {band.split(' (', 1)[0]}" for band in fastest_bands(lab, cols, roles)
            )
        else:
            summary.findings.append(_secondary(primitive, per_mode, roles))
    if lab is not None:
        claims, counted = _claims(lab, run, threshold)
        summary.findings.extend(claims)
        if counted:
            summary.headline["claims"].extend(
                f"{n} {PLURAL.get(outcome, outcome) if n > 1 else outcome}"
                for outcome, n in counted.most_common()
            )
    not_timed = _not_timed(run, lab_name)
    summary.findings.extend(not_timed)
    wrong = sum(f.tone == BAD for f in not_timed)
    summary.headline["problems"].append(
        f"{wrong} WRONG, {len(not_timed) - wrong} unavailable or skipped"
    )
    noise = _noise(run, lab_name)
    if noise is not None:
        summary.findings.append(noise)
        summary.headline["problems"].append(noise.text.split(", ")[0])
    return summary


def summarize_run(
    run: RunResult, threshold: float = 0.0, own: Mapping[str, LabSummary] | None = None
) -> RunSummary:
    """Each of the run's labs: the engine labs' summary, or the lab's own
    from `own` (LabHooks.summarize: crossing's, tune's; commands/labs.py's
    own_summaries). `threshold` (--threshold): a change the intervals show
    but within it is counted "below the threshold" in the kernel's lines,
    not faster/slower."""
    labs = [lab for lab in run.labs if lab != "calibrate"]
    state = state_lines(run)
    if threshold:
        state.append(
            f"threshold {percent(threshold)} (--threshold): a difference the intervals show "
            "but within it is said as below the threshold, not faster or slower"
        )
    found = []
    for name in labs:
        mine = (own or {}).get(name)
        found.append(mine if mine is not None else summarize_lab(run, name, threshold))
    return RunSummary(state, found)
