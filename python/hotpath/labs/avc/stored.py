# SPDX-License-Identifier: GPL-2.0-only
"""`hotpath avc --stats` as a run of the history, and back.

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
so render() gives the same table from the stored run.
"""

from typing import Any

from hotpath.machine import Fingerprint
from hotpath.results import FigureKey, FigureResult, RunResult

LAB = "avc"
PRIMITIVE = "model"
COMMAND = "avc --stats"
SCHEMA = "hotpath.avc-stats/1"
RANDOM = "random"  # the variant of the random hash's figures


class Stat:
    """One statistic of the model's result: its field, figure mode, unit, scale."""

    def __init__(self, field: str, mode: str, unit: str, scale: float = 1.0) -> None:
        self.field = field
        self.mode = mode
        self.unit = unit
        self.scale = scale  # figure = field x scale (a fraction as percent)

    def figure(self, variant: str, size: int, value: float) -> FigureResult:
        key = FigureKey(LAB, PRIMITIVE, variant, size, 0, self.mode)
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
    rows: list[dict[str, Any]] = []
    random: dict[int, dict[str, float]] = {}
    for a in doc["analyses"]:
        variant, size, result = str(a["variant"]), int(a["size"]), a.get("result")
        row: dict[str, Any] = {"variant": variant, "size": size}
        rows.append(row)
        if not isinstance(result, dict):
            row["result"] = None
            for stat in STATS:
                key = FigureKey(LAB, PRIMITIVE, variant, size, 0, stat.mode)
                missing = "the model gave no result"
                run.figures.append(
                    FigureResult(*key, stat.unit, "n/a", reason=missing, better="none")
                )
            continue
        kept = dict(result)
        for stat in STATS:
            if isinstance(result.get(stat.field), int | float):
                run.figures.append(stat.figure(variant, size, result[stat.field]))
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
                run.figures.append(stat.figure(RANDOM, size, values[stat.field]))
    run.sections[LAB] = {"schema": SCHEMA, "settings": dict(settings), "analyses": rows}
    return run


def from_run(run: RunResult) -> dict[str, Any]:
    """The `--stats` document back from a stored run: {"slots", "analyses"}."""
    section = run.sections.get(LAB)
    if not isinstance(section, dict) or section.get("schema") != SCHEMA:
        raise ValueError(f"run {run.run_id} holds no `avc --stats` section")
    figures = {
        (f.variant, f.size, f.mode): f for f in run.figures if f.primitive == PRIMITIVE and f.timed
    }
    analyses = []
    for row in section["analyses"]:
        variant, size = row["variant"], row["size"]
        kept = row.get("result")
        if kept is None:
            analyses.append({"variant": variant, "size": size, "result": None})
            continue
        result = dict(kept)
        for stat in STATS:
            fig = figures.get((variant, size, stat.mode))
            if fig is not None:
                result[stat.field] = stat.value(fig)
        for stat in RANDOM_STATS:
            fig = figures.get((RANDOM, size, stat.mode))
            if fig is not None and stat.field not in result:
                result[stat.field] = stat.value(fig)
        analyses.append({"variant": variant, "size": size, "result": result})
    return {"slots": section["settings"].get("slots"), "analyses": analyses}
