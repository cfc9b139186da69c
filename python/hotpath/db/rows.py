# SPDX-License-Identifier: GPL-2.0-only
"""A run as the history's rows hold it, and back: the runs row, each
figure's row (samples as zlib-compressed little-endian float64), and what
a run keeps beside its figures (bound models, graphs, lab sections). Rows
are read by column name, so a history of an older schema, read as it is,
gives its figures with the newer fields at their defaults. The store
(hotpath.store) moves these rows; this module only translates them."""

import json
import uuid
import zlib
from typing import Any

import numpy as np

from hotpath.machine import Fingerprint
from hotpath.protocol import parse_variant
from hotpath.results import Bound, BoundModel, FigureResult, Graph, RunResult, VariantResult


def pack_samples(samples: np.ndarray) -> bytes:
    return zlib.compress(np.asarray(samples, dtype="<f8").tobytes())


def unpack_samples(blob: bytes | None) -> np.ndarray:
    if not blob:
        return np.empty(0, dtype=np.float64)
    return np.frombuffer(zlib.decompress(blob), dtype="<f8").astype(np.float64)


def run_values(run: RunResult) -> dict[str, Any]:
    return {
        "started": run.started,
        "hotpath_version": run.version,
        "command": run.command,
        "command_line": run.command_line,
        "machine_json": json.dumps(run.machine.to_json()),
        "machine_key": run.machine.key(),
        "clock_json": json.dumps(run.clocks),
        "labs_json": json.dumps(run.labs),
        "settings_json": json.dumps(run.settings),
        "variants_json": json.dumps([v.to_json() for v in run.variants]),
        "calibration_json": json.dumps(run.calibration) if run.calibration is not None else None,
        "extras_json": json.dumps(_extras(run)) if run.extras_kept else None,
        "uid": uuid.uuid4().hex,
    }


def run_from_row(row: Any, run_id: int) -> RunResult:
    """A run from its row (its figures apart), by column name: a history of
    an older schema lacks the newer columns."""
    run = RunResult(
        command=row["command"],
        started=row["started"],
        machine=Fingerprint.from_json(json.loads(row["machine_json"])),
        labs=json.loads(row["labs_json"]),
        clocks=json.loads(row["clock_json"]),
        settings=json.loads(row["settings_json"]),
        calibration=json.loads(row["calibration_json"]) if row["calibration_json"] else None,
        run_id=run_id,
        version=row["hotpath_version"],
        command_line=row["command_line"],
    )
    run.variants = [_variant_from_json(v) for v in json.loads(row["variants_json"])]
    if row.get("extras_json") is None:  # stored before version 3
        run.extras_kept = False
    else:
        _load_extras(run, json.loads(row["extras_json"]))
    return run


def _extras(run: RunResult) -> dict[str, Any]:
    """What a run holds beside its figures and variants: bound models,
    graphs and each lab's section."""
    return {
        "bound_models": {p: m.to_json() for p, m in run.bound_models.items()},
        "graphs": [g.to_json() for g in run.graphs],
        "sections": run.sections,
    }


def _load_extras(run: RunResult, doc: dict[str, Any]) -> None:
    run.bound_models = {
        p: BoundModel.from_json(p, m) for p, m in doc.get("bound_models", {}).items()
    }
    run.graphs = [Graph.from_json(g) for g in doc.get("graphs", [])]
    run.sections = doc.get("sections", {})


def figure_row(run_id: int, seq: int, f: FigureResult) -> dict[str, Any]:
    return {
        "run_id": run_id, "lab": f.lab, "primitive": f.primitive, "variant": f.variant,
        "size": f.size, "align": f.align, "mode": f.mode, "unit": f.unit, "status": f.status,
        "reason": f.reason, "n": f.n, "median": f.median, "min": f.min, "p10": f.p10,
        "p90": f.p90, "ci_lo": f.ci_lo, "ci_hi": f.ci_hi, "noisy": int(f.noisy),
        "calls_per_sample": f.calls_per_sample,
        "samples": pack_samples(f.samples) if f.samples.size else None,
        "samples_taken": f.samples_taken, "kept_fraction": f.kept_fraction,
        "min_share": f.min_share, "short": int(f.short),
        "replica_medians": json.dumps(f.replica_medians), "better": f.better,
        "bound_json": json.dumps(f.bound.to_json()) if f.bound is not None else None,
        "seq": seq,
    }  # fmt: skip


def figure_from_row(row: Any) -> FigureResult:
    """A figure from its row, by column name: a history of an older schema
    lacks the newer columns, which then take their defaults."""
    get = row.get
    return FigureResult(
        lab=row["lab"], primitive=row["primitive"], variant=row["variant"], size=row["size"],
        align=row["align"], mode=row["mode"], unit=row["unit"], status=row["status"],
        reason=row["reason"], n=row["n"], median=row["median"], min=row["min"],
        p10=row["p10"], p90=row["p90"], ci_lo=row["ci_lo"], ci_hi=row["ci_hi"],
        noisy=bool(row["noisy"]), calls_per_sample=row["calls_per_sample"],
        samples=unpack_samples(row["samples"]),
        samples_taken=get("samples_taken") or 0,
        kept_fraction=get("kept_fraction"),
        min_share=get("min_share"),
        short=bool(get("short")),
        replica_medians=json.loads(get("replica_medians")) if get("replica_medians") else [],
        better=get("better") or "lower",
        bound=Bound.from_json(json.loads(get("bound_json"))) if get("bound_json") else None,
    )  # fmt: skip


def _variant_from_json(data: dict[str, Any]) -> VariantResult:
    return VariantResult(lab=data["lab"], primitive=data["primitive"], info=parse_variant(data))
