# SPDX-License-Identifier: GPL-2.0-only
"""The avc lab's runs in the history, and back: `--stats`, and the timing
runs of `--seed-table` and `--recommend`.

The model is deterministic: each statistic is an exact figure (no samples,
no interval, no better side), keyed ("avc", "model", hash, nodes, 0,
statistic) so that `hotpath compare` matches the same hash at the same node
count and the same statistic, whatever the slots, checks, seeds or workload
(those are the inputs a comparison is about; the run's "avc" section says
which they were). The random hash run through the same model is the
variant "random", once per node count.

What the figures do not hold (the formula's limits, the memory, the
hash_stats and cache_stats text, the chain histogram, the settings) is the
run's "avc" section; from_run() rebuilds the runner's document from both,
so hotpath.render.avc_stats gives the same table from the stored run.

`--seed-table` and `--recommend` take the model and the engine's timing at
several slot counts in one run: each of their figures has the slot count in
its mode (in_slots: "latency, 512 slots", "occupied, 512 slots"), so one
hash at one node count in other buckets stays a figure of its own.
slot_run() makes their run: merge_timings() puts the engine's runs, one per
slot count, into one, beside the model's figures; the model's rows and
inputs are the section named after the command ("avc-seed-table",
"avc-recommend"), which slot_model() reads back.
"""

import re
from dataclasses import replace
from typing import Any

from hotpath.machine import Fingerprint
from hotpath.results import FigureKey, FigureResult, RunResult, VariantResult

LAB = "avc"
PRIMITIVE = "model"
COMMAND = "avc --stats"
SCHEMA = "hotpath.avc-stats/1"
RANDOM = "random"  # the variant of the random hash's figures


def in_slots(mode: str, slots: int) -> str:
    """A figure's mode with the slot count it was taken at: "latency, 512 slots"."""
    return f"{mode}, {slots} slots"


_IN_SLOTS = re.compile(r"(.*), (\d+) slots")


def slots_of(mode: str) -> tuple[str, int | None]:
    """in_slots() undone: ("latency", 512); (mode, None) without a slot count."""
    found = _IN_SLOTS.fullmatch(mode)
    return (found.group(1), int(found.group(2))) if found else (mode, None)


class Stat:
    """One statistic of the model's result: its field, figure mode, unit, scale."""

    def __init__(self, field: str, mode: str, unit: str, scale: float = 1.0) -> None:
        self.field = field
        self.mode = mode
        self.unit = unit
        self.scale = scale  # figure = field x scale (a fraction as percent)

    def key(self, variant: str, size: int, slots: int | None = None) -> FigureKey:
        mode = self.mode if slots is None else in_slots(self.mode, slots)
        return FigureKey(LAB, PRIMITIVE, variant, size, 0, mode)

    def figure(
        self, variant: str, size: int, value: float, slots: int | None = None
    ) -> FigureResult:
        key = self.key(variant, size, slots)
        return FigureResult.exact(key, self.unit, round(float(value) * self.scale, 9))

    def value(self, figure: FigureResult) -> float:
        assert figure.median is not None
        return round(figure.median / self.scale, 12) if self.scale != 1 else figure.median


# Per hash and node count; the modes short enough for compare's column.
STATS = (
    Stat("mean_entries", "entries", "count"),  # hash_stats' entries, mean
    Stat("mean_utilisation", "occupied", "percent", 100.0),  # buckets used, mean
    Stat("mean_longest_chain", "max chain", "count"),  # longest chain, mean
    Stat("hit_rate", "hit rate", "percent", 100.0),
    Stat("timed_walk", "chain walk", "count"),  # nodes compared per lookup (timed keys)
)
# The random hash through the same model, once per node count.
RANDOM_STATS = (
    Stat("random_utilisation", "occupied", "percent", 100.0),
    Stat("random_longest_chain", "max chain", "count"),
)


def model_figures(
    analyses: list[dict[str, Any]], slots: int | None = None
) -> tuple[list[FigureResult], list[dict[str, Any]]]:
    """The analyser's rows as exact figures (with `slots` in their mode where
    given), and the rows with what the figures do not hold."""
    figures: list[FigureResult] = []
    rows: list[dict[str, Any]] = []
    random: dict[int, dict[str, float]] = {}
    for a in analyses:
        variant, size, result = str(a["variant"]), int(a["size"]), a.get("result")
        row: dict[str, Any] = {"variant": variant, "size": size}
        rows.append(row)
        if not isinstance(result, dict):
            row["result"] = None
            for stat in STATS:
                missing = "the model gave no result"
                figures.append(FigureResult(*stat.key(variant, size, slots), stat.unit, "n/a",
                                            reason=missing, better="none"))  # fmt: skip
            continue
        kept = dict(result)
        for stat in STATS:
            if isinstance(result.get(stat.field), int | float):
                figures.append(stat.figure(variant, size, result[stat.field], slots))
                del kept[stat.field]
        seen = random.setdefault(size, {})
        for stat in RANDOM_STATS:
            value = result.get(stat.field)
            if not isinstance(value, int | float):
                continue
            if stat.field not in seen:
                seen[stat.field] = value
            if seen[stat.field] == value:  # else kept in the row: it differs
                del kept[stat.field]
        row["result"] = kept
    for size, values in random.items():
        for stat in RANDOM_STATS:
            if stat.field in values:
                figures.append(stat.figure(RANDOM, size, values[stat.field], slots))
    return figures, rows


def model_results(
    figures: list[FigureResult], rows: list[dict[str, Any]], slots: int | None = None
) -> list[dict[str, Any]]:
    """model_figures() undone: the analyser's rows, each with its result."""
    by = {(f.variant, f.size, f.mode): f for f in figures if f.primitive == PRIMITIVE and f.timed}
    analyses = []
    for row in rows:
        variant, size = row["variant"], row["size"]
        kept = row.get("result")
        if kept is None:
            analyses.append({"variant": variant, "size": size, "result": None})
            continue
        result = dict(kept)
        for stat in STATS:
            fig = by.get((variant, size, stat.key(variant, size, slots).mode))
            if fig is not None:
                result[stat.field] = stat.value(fig)
        for stat in RANDOM_STATS:
            fig = by.get((RANDOM, size, stat.key(RANDOM, size, slots).mode))
            if fig is not None and stat.field not in result:
                result[stat.field] = stat.value(fig)
        analyses.append({"variant": variant, "size": size, "result": result})
    return analyses


def to_run(
    doc: dict[str, Any],
    settings: dict[str, Any],
    command_line: str,
    machine: Fingerprint,
    started: str,
) -> RunResult:
    """The run of one `--stats` document (the runner's `analyze` output)."""
    run = RunResult(
        command=COMMAND, started=started, machine=machine, labs=[LAB], command_line=command_line
    )
    run.settings[PRIMITIVE] = dict(settings)
    run.figures, rows = model_figures(doc["analyses"])
    run.sections[LAB] = {"schema": SCHEMA, "settings": dict(settings), "analyses": rows}
    return run


def from_run(run: RunResult) -> dict[str, Any]:
    """The `--stats` document back from a stored run: {"slots", "analyses"}."""
    section = run.sections.get(LAB)
    if not isinstance(section, dict) or section.get("schema") != SCHEMA:
        raise ValueError(f"run {run.run_id} holds no `avc --stats` section")
    analyses = model_results(run.figures, section["analyses"])
    return {"slots": section["settings"].get("slots"), "analyses": analyses}


def merge_timings(run: RunResult, timings: dict[int, RunResult]) -> None:
    """The engine's runs of one primitive, one per slot count, into `run`.

    Each figure keeps its samples, replicas and unit, with the slot count
    added to its mode (in_slots). A variant is kept once, with the cases
    its gate checked at every slot count, and its first status other than
    ok (a wrong lookup at one slot count is said). Per primitive, the clock is
    the first run's with every run's ticks-per-cycle batches and the core
    width probe's counts pooled, and each run's own clock under "slots"
    ({"512": clock, ...}: the ns of a figure are at its own run's clock);
    the settings are the first run's with every run's params and the slot
    counts, and each run's own under "per_slots".
    """
    kept: dict[tuple[str, str], int] = {}  # (primitive, variant): its index in run.variants
    for slots, part in timings.items():
        for lab in part.labs:
            if lab not in run.labs:
                run.labs.append(lab)
        for fig in part.figures:
            fig.mode = in_slots(fig.mode, slots)
            run.figures.append(fig)
        for variant in part.variants:
            where = (variant.primitive, variant.info.name)
            if where not in kept:
                kept[where] = len(run.variants)
                run.variants.append(variant)
                continue
            run.variants[kept[where]] = _pool_variant(run.variants[kept[where]], variant, slots)
        for primitive, clock in part.clocks.items():
            merged = run.clocks.setdefault(primitive, {**clock, "slots": {}})
            merged["slots"][str(slots)] = clock
            if len(merged["slots"]) > 1:
                _pool_clock(merged, clock)
        for primitive, settings in part.settings.items():
            merged = run.settings.setdefault(
                primitive, {**settings, "params": [], "slots": [], "per_slots": {}}
            )
            merged["params"] += [p for p in settings.get("params", []) if p not in merged["params"]]
            merged["slots"].append(slots)
            merged["per_slots"][str(slots)] = settings


def _pool_variant(kept: VariantResult, other: VariantResult, slots: int) -> VariantResult:
    """One variant's gate at two slot counts: its cases added up; the
    first that is not ok (wrong, ...) is kept, its reason saying where."""
    a, b = kept.info, other.info
    both = (a.checked_cases, b.checked_cases)
    cases = None if both == (None, None) else sum(c or 0 for c in both)
    info = a
    if a.status == "ok" and b.status != "ok":
        info = replace(b, reason=f"{b.reason or b.status} (in {slots} slots)")
    warnings = [*info.warnings, *(w for w in b.warnings if w not in info.warnings)]
    info = replace(info, checked_cases=cases, warnings=warnings)
    return VariantResult(kept.lab, kept.primitive, info)


def _pool_clock(merged: dict[str, Any], clock: dict[str, Any]) -> None:
    merged["ticks_per_cycle"] = [
        *(merged.get("ticks_per_cycle") or []),
        *(clock.get("ticks_per_cycle") or []),
    ]
    a, b = merged.get("width"), clock.get("width")
    if not isinstance(a, dict) or not isinstance(b, dict):
        return
    width = dict(a)
    probes_a, probes_b = int(a.get("probes") or 0), int(b.get("probes") or 0)
    if probes_a + probes_b:
        width["contended_fraction"] = (
            float(a.get("contended_fraction") or 0) * probes_a
            + float(b.get("contended_fraction") or 0) * probes_b
        ) / (probes_a + probes_b)
    width["probes"] = probes_a + probes_b
    for name, pick in (("share_min", min), ("rounds_taken", max), ("max_rounds", max)):
        if a.get(name) is not None and b.get(name) is not None:
            width[name] = pick(a[name], b[name])
    merged["width"] = width


def slot_clock(run: RunResult, primitive: str, slots: int) -> dict[str, Any]:
    """The clock of the engine's run at `slots` (merge_timings)."""
    clock = run.clocks.get(primitive) or {}
    own = (clock.get("slots") or {}).get(str(slots))
    return own if isinstance(own, dict) else clock


def slot_run(
    command: str,
    schema: str,
    docs: dict[int, dict[str, Any]],
    timings: dict[int, RunResult],
    settings: dict[str, Any],
    command_line: str,
    started: str,
) -> RunResult:
    """One run of `--seed-table` or `--recommend` (command): the engine's runs
    merged and the model's `analyze` documents as exact figures, one of each
    per slot count; the model's rows and settings in the section named
    after the command ("avc-seed-table")."""
    first = next(iter(timings.values()))
    run = RunResult(command=command, started=started, machine=first.machine, labs=[LAB],
                    command_line=command_line)  # fmt: skip
    merge_timings(run, timings)
    run.settings[PRIMITIVE] = dict(settings)
    rows = []
    for slots, doc in docs.items():
        figures, kept = model_figures(doc["analyses"], slots)
        run.figures += figures
        rows += [{"slots": slots, **row} for row in kept]
    section = {"schema": schema, "settings": dict(settings), "analyses": rows}
    run.sections[section_name(command)] = section
    return run


def section_name(command: str) -> str:
    """ "avc --seed-table" -> "avc-seed-table"."""
    return command.replace(" --", "-")


def slot_model(
    run: RunResult, command: str, schema: str
) -> tuple[dict[str, Any], dict[tuple[int, int, str], dict[str, Any]]]:
    """slot_run() undone for the model: its settings, and the result of each
    (nodes, slots, hash) the model gave one."""
    section = run.sections.get(section_name(command))
    if not isinstance(section, dict) or section.get("schema") != schema:
        raise ValueError(f"run {run.run_id} holds no `{command}` section")
    rows = section["analyses"]
    model: dict[tuple[int, int, str], dict[str, Any]] = {}
    for slots in dict.fromkeys(row["slots"] for row in rows):
        mine = [row for row in rows if row["slots"] == slots]
        for a in model_results(run.figures, mine, slots):
            if a.get("result"):
                model[(a["size"], slots, a["variant"])] = a["result"]
    return dict(section["settings"]), model
