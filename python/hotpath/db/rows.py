# SPDX-License-Identifier: GPL-2.0-only
"""A run as the history's rows hold it, and back: the runs row, each
figure's row (samples as zlib-compressed little-endian float64), and what
a run keeps beside its figures (bound models, graphs, lab sections). Rows
are read by column name, so a history of an older schema, read as it is,
gives its figures with the newer fields at their defaults. The store
(hotpath.store) moves these rows; this module only translates them.

A row is anyone's text (a shared store takes runs from every machine that
pushes): reading it back, a row that does not translate is a CorruptRunError
naming the run and the column, which readers skip; its text comes back
escaped for a terminal (hotpath.safetext.escaped, as a profile's text)
and a command line without its passwords. run_problems() is the same
reading as a check, for push, store and `db check`."""

import json
import uuid
import zlib
from numbers import Integral, Real
from typing import Any

import numpy as np

from hotpath.db import schema
from hotpath.db.location import masked
from hotpath.errors import StoreError
from hotpath.machine import Fingerprint
from hotpath.protocol import parse_variant
from hotpath.results import Bound, BoundModel, FigureResult, Graph, RunResult, VariantResult
from hotpath.safetext import escaped

# The runs table's JSON columns: the words a message names each by, and
# the JSON type it holds.
JSON_COLUMNS: dict[str, tuple[str, type]] = {
    "machine_json": ("machine record", dict),
    "clock_json": ("clock record", dict),
    "labs_json": ("lab list", list),
    "settings_json": ("settings", dict),
    "variants_json": ("variant list", list),
    "calibration_json": ("calibration", dict),
    "extras_json": ("bounds, graphs and lab sections", dict),
}
JSON_TYPES: dict[type, str] = {dict: "a JSON object", list: "a JSON list"}
# Multi-line text that goes to files and HTML only, never to a terminal.
UNESCAPED_KEYS = frozenset({"dot"})


class CorruptRunError(StoreError):
    """A stored run that cannot be read back: "run 7: machine record
    (machine_json) is not valid JSON". Readers that list runs skip it."""

    def __init__(self, run_id: object, why: str) -> None:
        super().__init__(escaped(f"run {run_id}: {why}"))  # `why` may quote the row
        self.run_id = run_id


def escaped_json(value: Any) -> Any:
    """Every string in `value` (a JSON document) escaped for a terminal; a
    value may have lines (a lab's section: the kernel's hash_stats), a key not."""
    if isinstance(value, str):
        return escaped(value, lines=True)
    if isinstance(value, list):
        return [escaped_json(v) for v in value]
    if isinstance(value, dict):
        return {escaped(k): v if k in UNESCAPED_KEYS else escaped_json(v) for k, v in value.items()}
    return value


def command_text(line: str) -> str:
    """A stored command line as it may be shown: passwords masked, escaped."""
    return escaped(masked(line))


def json_column(row: Any, name: str, run_id: object) -> Any:
    """A JSON column of a runs row, decoded (None where it is NULL), its
    text escaped; CorruptRunError unless it is JSON of the column's type."""
    words, kind = JSON_COLUMNS[name]
    value = row.get(name)
    if value is None:
        return None
    try:
        doc = json.loads(value)
    except (TypeError, ValueError) as err:
        raise CorruptRunError(run_id, f"{words} ({name}) is not valid JSON ({err})") from err
    if not isinstance(doc, kind):
        raise CorruptRunError(run_id, f"{words} ({name}) is not {JSON_TYPES[kind]}")
    return escaped_json(doc)


def pack_samples(samples: np.ndarray) -> bytes:
    return zlib.compress(np.asarray(samples, dtype="<f8").tobytes())


def unpack_samples(blob: bytes | None) -> np.ndarray:
    """The samples of a blob; zlib.error or ValueError if it is not
    compressed float64s."""
    if not blob:
        return np.empty(0, dtype=np.float64)
    raw = zlib.decompress(blob)
    if len(raw) % 8:
        raise ValueError(f"{len(raw)} bytes are not float64s")
    return np.frombuffer(raw, dtype="<f8").astype(np.float64)


def run_values(run: RunResult) -> dict[str, Any]:
    return {
        "started": run.started,
        "hotpath_version": run.version,
        "command": run.command,
        "command_line": masked(run.command_line),
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


def machine_from_row(row: Any, run_id: object) -> Fingerprint:
    """The machine a runs row names, its text escaped; CorruptRunError if none."""
    try:
        return Fingerprint.from_json(json_column(row, "machine_json", run_id))
    except TypeError as err:
        raise CorruptRunError(
            run_id, f"machine record (machine_json) is not a machine's ({err})"
        ) from err


def run_from_row(row: Any, run_id: Any) -> RunResult:
    """A run from its row (its figures apart), by column name: a history of
    an older schema lacks the newer columns. CorruptRunError if it does not
    translate."""
    wrong = column_problems("runs", row)
    if wrong:
        raise CorruptRunError(run_id, wrong[0])
    doc = {name: json_column(row, name, run_id) for name in JSON_COLUMNS}
    try:
        run = RunResult(
            command=escaped(row["command"]),
            started=escaped(row["started"]),
            machine=machine_from_row(row, run_id),
            labs=doc["labs_json"],
            clocks=doc["clock_json"],
            settings=doc["settings_json"],
            calibration=doc["calibration_json"] or None,
            run_id=run_id,
            version=escaped(row["hotpath_version"]),
            command_line=command_text(row["command_line"]),
        )
        run.variants = [_variant_from_json(v) for v in doc["variants_json"]]
        if doc["extras_json"] is None:  # stored before version 3
            run.extras_kept = False
        else:
            _load_extras(run, doc["extras_json"])
    except Exception as err:  # any field of the wrong shape: the row is not a run's
        why = f"its row does not hold a run ({type(err).__name__}: {err})"
        raise CorruptRunError(run_id, why) from err
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


def figure_from_row(row: Any, run_id: object = None) -> FigureResult:
    """A figure from its row, by column name: a history of an older schema
    lacks the newer columns, which then take their defaults. CorruptRunError
    (naming its run, `run_id` or the row's, and place) if it does not translate."""
    get = row.get
    run_id = get("run_id") if run_id is None else run_id
    where = f"figure {get('seq', '?')}"
    wrong = column_problems("figures", row)
    if wrong:
        raise CorruptRunError(run_id, f"{where}: {wrong[0]}")
    try:
        samples = unpack_samples(row["samples"])
    except (zlib.error, ValueError, TypeError) as err:
        raise CorruptRunError(run_id, f"{where}: samples do not decompress ({err})") from err
    try:
        return FigureResult(
            lab=escaped(row["lab"]), primitive=escaped(row["primitive"]),
            variant=escaped(row["variant"]), size=row["size"], align=row["align"],
            mode=escaped(row["mode"]), unit=escaped(row["unit"]), status=escaped(row["status"]),
            reason=escaped_json(row["reason"]), n=row["n"], median=row["median"], min=row["min"],
            p10=row["p10"], p90=row["p90"], ci_lo=row["ci_lo"], ci_hi=row["ci_hi"],
            noisy=bool(row["noisy"]), calls_per_sample=row["calls_per_sample"],
            samples=samples,
            samples_taken=get("samples_taken") or 0,
            kept_fraction=get("kept_fraction"),
            min_share=get("min_share"),
            short=bool(get("short")),
            replica_medians=json.loads(get("replica_medians")) if get("replica_medians") else [],
            better=get("better") or "lower",
            bound=Bound.from_json(json.loads(get("bound_json"))) if get("bound_json") else None,
        )  # fmt: skip
    except Exception as err:  # any field of the wrong shape: the row is not a figure's
        why = f"{where}: its row does not hold a figure ({type(err).__name__}: {err})"
        raise CorruptRunError(run_id, why) from err


def run_problems(
    run_id: object, run_row: dict[str, Any], figure_rows: list[dict[str, Any]]
) -> list[str]:
    """What is wrong with a run as rows (push, store and `db check` ask):
    the run and each figure read back as a reader would, named as run
    `run_id`. [] when nothing."""
    problems = []
    try:
        run_from_row(run_row, run_id)
    except CorruptRunError as err:
        problems.append(str(err))
    for figure in figure_rows:
        try:
            figure_from_row(figure, run_id)
        except CorruptRunError as err:
            problems.append(str(err))
    return problems


def column_problems(table: str, row: Any) -> list[str]:
    """Columns whose value is not of the table's declared type (SQLite keeps
    whatever it is given: a median of 'abc')."""
    problems = []
    for column in schema.metadata.tables[table].c:
        value = row.get(column.name)
        if value is None:
            if column.name in row and not column.nullable and column.server_default is None:
                problems.append(f"{column.name} is missing")
            continue
        kind = column.type.python_type
        if kind is bytes:
            ok = isinstance(value, bytes | memoryview)
        elif kind is str:
            ok = isinstance(value, str)
        else:  # numpy's integers and floats are numbers too; a bool is not one
            ok = isinstance(value, Integral if kind is int else Real)
            ok = ok and not isinstance(value, bool)
        if not ok:
            problems.append(f"{column.name} {str(value)[:40]!r} is not {kind.__name__}")
    return problems


def _variant_from_json(data: dict[str, Any]) -> VariantResult:
    return VariantResult(lab=data["lab"], primitive=data["primitive"], info=parse_variant(data))
