# SPDX-License-Identifier: GPL-2.0-only
"""Typed view of the runner's JSON (schema hotpath.bench/1).

docs/runner-protocol.md is the contract; this module is its only reader.
Anything that does not follow it raises RunnerError naming the field, so a
protocol drift on the C side is reported, not silently mis-read.
"""

from dataclasses import dataclass, field
from typing import Any

from hotpath.errors import RunnerError

BENCH_SCHEMA = "hotpath.bench/1"


def _get(obj: Any, key: str, kind: type | tuple[type, ...], where: str) -> Any:
    if not isinstance(obj, dict) or key not in obj:
        raise RunnerError(f"runner output breaks {BENCH_SCHEMA}: {where}.{key} missing")
    value = obj[key]
    if kind is float and isinstance(value, int) and not isinstance(value, bool):
        return float(value)
    if not isinstance(value, kind) or (isinstance(value, bool) and kind is not bool):
        raise RunnerError(
            f"runner output breaks {BENCH_SCHEMA}: {where}.{key} is {type(value).__name__}"
        )
    return value


def _opt(obj: dict[str, Any], key: str, kind: type, where: str) -> Any:
    if obj.get(key) is None:
        return None
    return _get(obj, key, kind, where)


def _floats(values: Any, where: str) -> list[float]:
    # types compared as a set, in C: a sweep's figures hold millions of
    # samples, and a per-item isinstance() took seconds (bool is not int here)
    if not isinstance(values, list) or not set(map(type, values)) <= {int, float}:
        raise RunnerError(f"runner output breaks {BENCH_SCHEMA}: {where} is not a list of numbers")
    return list(map(float, values))


@dataclass(frozen=True)
class PerfCycles:
    available: bool
    reason: str | None


@dataclass(frozen=True)
class Clock:
    source: str
    unit: str  # "cycles" or "ticks"
    unit_long: str
    tsc_hz: float
    ticks_per_cycle: list[float]
    timer_overhead_ticks: float | None
    fenced_empty_ticks: float | None
    perf_cycles: PerfCycles
    # The width probe: full width, shares seen, rounds taken (engine.md).
    width: dict[str, Any] | None = None

    def to_json(self) -> dict[str, Any]:
        return {
            "width": self.width,
            "source": self.source,
            "unit": self.unit,
            "unit_long": self.unit_long,
            "tsc_hz": self.tsc_hz,
            "ticks_per_cycle": self.ticks_per_cycle,
            "timer_overhead_ticks": self.timer_overhead_ticks,
            "fenced_empty_ticks": self.fenced_empty_ticks,
            "perf_cycles": {
                "available": self.perf_cycles.available,
                "reason": self.perf_cycles.reason,
            },
        }


@dataclass(frozen=True)
class Cpu:
    vendor: str
    family: int
    model: int
    stepping: int
    brand: str
    features: list[str]  # what the runner may run: cpuid, less XCR0's, less hidden
    pinned_cpu: int | None
    core_hz_estimate: float | None
    # What HOTPATH_CPU_HIDE hides (the runner's reading of it); empty from a
    # runner that does not say.
    hidden: list[str] = field(default_factory=list)
    # cpuid's hypervisor bit; None from a runner that does not say.
    hypervisor: bool | None = None


@dataclass(frozen=True)
class Failure:
    """The first case on which a variant disagreed with the reference."""

    length: int
    align: int
    seed: int
    expected: int | str
    got: int | str
    what: str

    def describe(self) -> str:
        def show(value: int | str) -> str:
            return f"0x{value:x}" if isinstance(value, int) else value

        where = f"{self.what} at len {self.length}, align {self.align}, seed {show(self.seed)}"
        if not self.what.startswith("mismatch"):  # a fault or a hang has no values
            return where
        return f"{where}: expected {show(self.expected)}, got {show(self.got)}"


@dataclass(frozen=True)
class Variant:
    name: str
    desc: str
    origin: str
    needs: list[str]
    flags: list[str]
    status: str  # ok, wrong, skipped, unavailable
    reason: str | None
    checked_cases: int | None
    failure: Failure | None
    promise: str | None = None
    # What the gate saw beside correctness (a dirty AVX upper state).
    warnings: list[str] = field(default_factory=list)
    # The sizes it takes (the runner's "domain"; max_len None: no bound).
    min_len: int = 0
    max_len: int | None = None


@dataclass(frozen=True)
class RawFigure:
    variant: str
    size: int
    align: int
    mode: str
    status: str  # ok, n/a, not timed
    reason: str | None
    calls_per_sample: int | None
    values: list[float]
    ticks: list[float]
    # Per sample: the lower width share of the probes around it, and
    # whether it was clean (full width, steady clock). Old output: empty.
    share: list[float] = field(default_factory=list)
    clean: list[bool] = field(default_factory=list)


@dataclass(frozen=True)
class BenchRun:
    """One `hotpath-bench run` (or `verify`: clock None, no figures)."""

    command: str
    primitive: str
    lab: str
    seed_name: str
    clock: Clock | None
    cpu: Cpu
    settings: dict[str, Any]
    variants: list[Variant]
    figures: list[RawFigure] = field(default_factory=list)


@dataclass(frozen=True)
class PrimitiveListing:
    name: str
    lab: str
    seed_name: str
    default_sizes: list[int]
    variants: list[Variant]


# A dispatch row's steps per key (csum.even, csum.odd, crc32c): (method, from).
Steps = dict[str, list[tuple[str, int]]]


@dataclass(frozen=True)
class DispatchedPrimitive:
    """One primitive a dispatch row steers, as the runner states it."""

    primitive: str  # csum_partial, crc32c
    keys: list[str]  # its keys in a row (csum.even, csum.odd)
    own: str  # hotpath's own variant: runs the row in use
    methods: dict[str, str]  # a row's method name -> the variant that runs it alone


@dataclass(frozen=True)
class DispatchFacts:
    """What a dispatch row may say (c/include/hotpath/dispatch.h, exported
    by the runner's `facts`): Python copies none of it."""

    steps_max: int  # HP_STEPS_MAX
    csum_short: int  # HP_CSUM_SHORT: no checksum vector method below it
    row_file_max: int  # HP_ROW_FILE_MAX: a row file holds fewer bytes
    primitives: list[DispatchedPrimitive]

    def of(self, primitive: str) -> DispatchedPrimitive:
        found = next((p for p in self.primitives if p.primitive == primitive), None)
        if found is None:
            raise RunnerError(f"the runner's dispatch facts have no primitive '{primitive}'")
        return found

    def primitive_of_key(self, key: str) -> str | None:
        return next((p.primitive for p in self.primitives if key in p.keys), None)


@dataclass(frozen=True)
class Limits:
    """What the runner takes (c/bench/runner.h): hotpath refuses the rest
    before it runs anything."""

    size_max: int  # bytes of a buffer
    align_max: int  # an offset from a page boundary
    rounds_max: int
    time_limit_max: int  # seconds a variant call may run


@dataclass(frozen=True)
class RunnerFacts:
    """`hotpath-bench facts`: what a build takes and tells apart, the same on
    every machine (its runner-facts.json). Python copies none of it."""

    limits: Limits
    cpu_features: list[str]  # every CPU feature name, in the runner's bit order
    row_primitives: list[str]  # whose hotpath variants run the dispatch row
    dispatch: DispatchFacts


@dataclass(frozen=True)
class ParsedRow:
    """`hotpath-bench row TEXT` (or `row --file PATH`): the row as the
    library reads it."""

    ok: bool
    error: str | None  # why the library would refuse it
    name: str
    steps: Steps
    text: str  # as the library writes it back
    # `--file`: the file's text as the library read it; None when it would
    # not read it as a row file (a FIFO, a folder, too large, absent...)
    file: str | None = None


@dataclass(frozen=True)
class Listing:
    cpu: Cpu
    primitives: list[PrimitiveListing]
    # The dispatch row hp_csum()/hp_crc32c() use (name, source, text); None
    # from a runner that does not say (hotpath.dispatch).
    dispatch: dict[str, str] | None = None
    # That row's steps (None: a runner that does not say).
    dispatch_steps: Steps | None = None
    # The same steps as this CPU runs them: each method after its fallback
    # (None: a runner that does not say).
    dispatch_runs: Steps | None = None

    def primitive(self, name: str) -> PrimitiveListing | None:
        return next((p for p in self.primitives if p.name == name), None)

    def lab_members(self, lab: str) -> list[str]:
        """The primitives the runner files under `lab`, in its order: the one
        source of a lab's membership."""
        return [p.name for p in self.primitives if p.lab == lab]


def _check_schema(doc: Any, command: str) -> dict[str, Any]:
    if not isinstance(doc, dict) or doc.get("schema") != BENCH_SCHEMA:
        got = doc.get("schema") if isinstance(doc, dict) else type(doc).__name__
        raise RunnerError(f"runner output has schema {got!r}, expected {BENCH_SCHEMA!r}")
    if doc.get("command") != command:
        raise RunnerError(f"runner answered command {doc.get('command')!r}, expected {command!r}")
    return doc


def parse_cpu(obj: Any) -> Cpu:
    where = "cpu"
    return Cpu(
        vendor=_get(obj, "vendor", str, where),
        family=_get(obj, "family", int, where),
        model=_get(obj, "model", int, where),
        stepping=_get(obj, "stepping", int, where),
        brand=_get(obj, "brand", str, where),
        features=[str(f) for f in _get(obj, "features", list, where)],
        pinned_cpu=_opt(obj, "pinned_cpu", int, where),
        core_hz_estimate=_opt(obj, "core_hz_estimate", float, where),
        hidden=[str(f) for f in obj.get("hidden") or []],
        hypervisor=_opt(obj, "hypervisor", bool, where),
    )


def parse_cpu_answer(doc: Any) -> Cpu:
    """Read the object printed by `cpu`."""
    return parse_cpu(_get(_check_schema(doc, "cpu"), "cpu", dict, "cpu"))


def parse_clock(obj: Any) -> Clock:
    where = "clock"
    perf = _get(obj, "perf_cycles", dict, where)
    return Clock(
        source=_get(obj, "source", str, where),
        unit=_get(obj, "unit", str, where),
        unit_long=str(obj.get("unit_long") or obj["unit"]),
        tsc_hz=_get(obj, "tsc_hz", float, where),
        ticks_per_cycle=_floats(_get(obj, "ticks_per_cycle", list, where), "clock.ticks_per_cycle"),
        timer_overhead_ticks=_opt(obj, "timer_overhead_ticks", float, where),
        fenced_empty_ticks=_opt(obj, "fenced_empty_ticks", float, where),
        perf_cycles=PerfCycles(
            available=_get(perf, "available", bool, "clock.perf_cycles"),
            reason=_opt(perf, "reason", str, "clock.perf_cycles"),
        ),
        width=_opt(obj, "width", dict, where),
    )


def _as_int(value: int | str) -> int:
    if isinstance(value, str):
        raise RunnerError(f"runner output breaks {BENCH_SCHEMA}: failure.seed {value!r}")
    return value


def _parse_failure(obj: Any) -> Failure | None:
    if obj is None:
        return None
    where = "variants[].failure"

    def number(key: str) -> int | str:
        value = _get(obj, key, (int, str), where)
        if isinstance(value, str):
            try:
                return int(value, 0)
            except ValueError:
                return value
        return int(value)

    return Failure(
        length=_get(obj, "len", int, where),
        align=_get(obj, "align", int, where),
        seed=_as_int(number("seed")),
        expected=number("expected"),
        got=number("got"),
        what=str(obj.get("what") or "mismatch"),
    )


def parse_variant(obj: Any) -> Variant:
    where = f"variants[{obj.get('name') if isinstance(obj, dict) else '?'}]"
    domain = obj.get("domain") if isinstance(obj, dict) else None
    domain = domain if isinstance(domain, dict) else {}
    return Variant(
        name=_get(obj, "name", str, where),
        desc=str(obj.get("desc") or ""),
        origin=str(obj.get("origin") or ""),
        needs=[str(n) for n in obj.get("needs") or []],
        flags=[str(f) for f in obj.get("flags") or []],
        status=_get(obj, "status", str, where),
        reason=_opt(obj, "reason", str, where),
        checked_cases=_opt(obj, "checked_cases", int, where),
        failure=_parse_failure(obj.get("failure")),
        promise=_opt(obj, "promise", str, where),
        warnings=[str(w) for w in obj.get("warnings") or []],
        min_len=_opt(domain, "min_len", int, where) or 0,
        max_len=_opt(domain, "max_len", int, where),
    )


def parse_figure(obj: Any) -> RawFigure:
    where = "figures[]"
    return RawFigure(
        variant=_get(obj, "variant", str, where),
        size=_get(obj, "size", int, where),
        align=_get(obj, "align", int, where),
        mode=_get(obj, "mode", str, where),
        status=_get(obj, "status", str, where),
        reason=_opt(obj, "reason", str, where),
        calls_per_sample=_opt(obj, "calls_per_sample", int, where),
        values=_floats(obj.get("values") or [], "figures[].values"),
        ticks=_floats(obj.get("ticks") or [], "figures[].ticks"),
        share=_floats(obj.get("share") or [], "figures[].share"),
        clean=[bool(c) for c in _floats(obj.get("clean") or [], "figures[].clean")],
    )


def _settings(doc: dict[str, Any]) -> dict[str, Any]:
    """The runner's settings, with the dispatch row hp_csum()/hp_crc32c()
    ran under (name and source), so a stored run keeps it."""
    settings = dict(doc.get("settings") or {})
    row = doc.get("dispatch")
    if isinstance(row, dict) and row.get("name"):
        settings["dispatch_row"] = {"name": str(row["name"]), "source": str(row.get("source"))}
    return settings


def parse_run(doc: Any, command: str = "run") -> BenchRun:
    """Read the object printed by `run` (or `verify`, without figures/clock)."""
    doc = _check_schema(doc, command)
    return BenchRun(
        command=command,
        primitive=_get(doc, "primitive", str, "run"),
        lab=_get(doc, "lab", str, "run"),
        seed_name=str(doc.get("seed_name") or ""),
        clock=parse_clock(doc["clock"]) if command == "run" else None,
        cpu=parse_cpu(_get(doc, "cpu", dict, "run")),
        settings=_settings(doc),
        variants=[parse_variant(v) for v in _get(doc, "variants", list, "run")],
        figures=[parse_figure(f) for f in doc.get("figures") or []],
    )


@dataclass(frozen=True)
class TimelinePoint:
    t_s: float
    ticks_per_cycle: float
    share_median: float
    share_min: float


@dataclass(frozen=True)
class Timeline:
    """`hotpath-bench probe`: the clock and the core's width over time."""

    cpu: Cpu | None  # None when rebuilt from a stored run (calibration.from_json)
    tsc_hz: float
    interval_ms: int
    clean_share: float
    best_cycles_per_iteration: float
    contended_fraction: float
    points: list[TimelinePoint]


def parse_timeline(doc: Any) -> Timeline:
    doc = _check_schema(doc, "probe")
    where = "probe"
    return Timeline(
        cpu=parse_cpu(_get(doc, "cpu", dict, where)),
        tsc_hz=_get(doc, "tsc_hz", float, where),
        interval_ms=_get(doc, "interval_ms", int, where),
        clean_share=_get(doc, "clean_share", float, where),
        best_cycles_per_iteration=_get(doc, "best_cycles_per_iteration", float, where),
        contended_fraction=_get(doc, "contended_fraction", float, where),
        points=[
            TimelinePoint(
                t_s=_get(p, "t_s", float, "timeline[]"),
                ticks_per_cycle=_get(p, "ticks_per_cycle", float, "timeline[]"),
                share_median=_get(p, "share_median", float, "timeline[]"),
                share_min=_get(p, "share_min", float, "timeline[]"),
            )
            for p in _get(doc, "timeline", list, where)
        ],
    )


def parse_listing(doc: Any) -> Listing:
    """Read the object printed by `list`."""
    doc = _check_schema(doc, "list")
    primitives = []
    for prim in _get(doc, "primitives", list, "list"):
        primitives.append(
            PrimitiveListing(
                name=_get(prim, "name", str, "primitives[]"),
                lab=_get(prim, "lab", str, "primitives[]"),
                seed_name=str(prim.get("seed_name") or ""),
                default_sizes=[int(s) for s in prim.get("default_sizes") or []],
                variants=[parse_variant(v) for v in _get(prim, "variants", list, "primitives[]")],
            )
        )
    row = doc.get("dispatch")
    return Listing(
        cpu=parse_cpu(_get(doc, "cpu", dict, "list")),
        primitives=primitives,
        dispatch={
            k: "" if v is None else str(v) for k, v in row.items() if not isinstance(v, dict | list)
        }
        if isinstance(row, dict)
        else None,
        dispatch_steps=parse_steps(row["steps"], "dispatch.steps")
        if isinstance(row, dict) and row.get("steps") is not None
        else None,
        dispatch_runs=parse_steps(row["runs"], "dispatch.runs")
        if isinstance(row, dict) and row.get("runs") is not None
        else None,
    )


def parse_steps(obj: Any, where: str) -> Steps:
    """A row's steps as the runner states them: {key: [[method, from], ...]}."""
    if not isinstance(obj, dict):
        raise RunnerError(f"runner output breaks {BENCH_SCHEMA}: {where} is not an object")
    out: Steps = {}
    for key, steps in obj.items():
        if not isinstance(steps, list) or not all(
            isinstance(s, list) and len(s) == 2 and isinstance(s[0], str)
            and isinstance(s[1], int) and not isinstance(s[1], bool)
            for s in steps
        ):  # fmt: skip
            raise RunnerError(f"runner output breaks {BENCH_SCHEMA}: {where}.{key}")
        out[str(key)] = [(s[0], s[1]) for s in steps]
    return out


def parse_facts(doc: Any) -> RunnerFacts:
    """Read the object printed by `facts` (a build's runner-facts.json)."""
    doc = _check_schema(doc, "facts")
    limits = _get(doc, "limits", dict, "facts")
    return RunnerFacts(
        limits=Limits(
            size_max=_get(limits, "size_max", int, "facts.limits"),
            align_max=_get(limits, "align_max", int, "facts.limits"),
            rounds_max=_get(limits, "rounds_max", int, "facts.limits"),
            time_limit_max=_get(limits, "time_limit_max", int, "facts.limits"),
        ),
        cpu_features=[str(f) for f in _get(doc, "cpu_features", list, "facts")],
        row_primitives=[str(p) for p in _get(doc, "row_primitives", list, "facts")],
        dispatch=parse_dispatch_facts(_get(doc, "dispatch_facts", dict, "facts")),
    )


def parse_dispatch_facts(obj: Any) -> DispatchFacts:
    """The `dispatch_facts` object of `facts`."""
    where = "dispatch_facts"
    prims = []
    for prim in _get(obj, "primitives", list, where):
        at = f"{where}.primitives[]"
        methods = {}
        for m in _get(prim, "methods", list, at):
            methods[_get(m, "name", str, f"{at}.methods[]")] = _get(
                m, "variant", str, f"{at}.methods[]"
            )
        prims.append(
            DispatchedPrimitive(
                primitive=_get(prim, "primitive", str, at),
                keys=[str(k) for k in _get(prim, "keys", list, at)],
                own=_get(prim, "own", str, at),
                methods=methods,
            )
        )
    return DispatchFacts(
        steps_max=_get(obj, "steps_max", int, where),
        csum_short=_get(obj, "csum_short", int, where),
        row_file_max=_get(obj, "row_file_max", int, where),
        primitives=prims,
    )


def parse_row(doc: Any) -> ParsedRow:
    """Read the object printed by `row TEXT` or `row --file PATH`."""
    doc = _check_schema(doc, "row")
    ok = _get(doc, "ok", bool, "row")
    file = _opt(doc, "file", str, "row")
    if not ok:
        return ParsedRow(False, str(doc.get("error") or "refused"), "", {}, "", file)
    return ParsedRow(
        ok=True,
        error=None,
        name=_get(doc, "name", str, "row"),
        steps=parse_steps(_get(doc, "steps", dict, "row"), "row.steps"),
        text=_get(doc, "text", str, "row"),
        file=file,
    )
