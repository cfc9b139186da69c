# SPDX-License-Identifier: GPL-2.0-only
"""The path every measuring command shares: runner, primitives, results.

Validation happens before this (hotpath.inputs); here the runner is made,
asked what it knows, the user's variants compiled, the runner started once
per primitive, and the samples summarized into a RunResult.
"""

from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path

import numpy as np

from hotpath import calibration, tempdirs
from hotpath.db.location import DbLocation
from hotpath.errors import RunnerError, StoreError, UsageError
from hotpath.inputs import UserVariantSpec, check_known
from hotpath.machine import fingerprint
from hotpath.progress import ProgressBar
from hotpath.protocol import (
    BenchRun,
    Listing,
    Timeline,
    parse_listing,
    parse_run,
    parse_timeline,
)
from hotpath.results import RunResult
from hotpath.runner import Runner, invoke, locate_runner
from hotpath.store import Store
from hotpath.usercode import compile_user_variants


@dataclass
class Request:
    """One primitive to run, with everything the runner needs."""

    primitive: str
    sizes: tuple[int, ...]
    aligns: tuple[int, ...]
    modes: tuple[str, ...]
    rounds: int
    variants: tuple[str, ...] | None = None
    cpu: int | None = None
    unit: str = "cycles"
    extra: list[str] = field(default_factory=list)
    time_limit: int | None = None  # seconds a variant call may run (runner default: 30)
    # runner arguments of variants brought to this primitive alone (the
    # real kernels' code, hotpath.kernelsrc: --with ... --with-kernel)
    brought: list[str] = field(default_factory=list)

    def arguments(self, with_args: list[str], width_ref: float | None = None) -> list[str]:
        args = ["run", "--primitive", self.primitive]
        args += ["--sizes", ",".join(map(str, self.sizes))]
        args += ["--aligns", ",".join(map(str, self.aligns))]
        args += ["--modes", ",".join(self.modes), "--rounds", str(self.rounds)]
        args += ["--unit", self.unit]
        if self.variants:
            args += ["--variants", ",".join(self.variants)]
        if self.cpu is not None:
            args += ["--cpu", str(self.cpu)]
        args += with_args + self.brought
        if width_ref is not None:
            args += ["--width-ref", f"{width_ref:.6g}"]
        if self.time_limit is not None:
            args += ["--time-limit", str(self.time_limit)]
        return args + self.extra


def calibration_request(rounds: int, cpu: int | None = None) -> Request:
    """The calibration's run (hotpath.calibration): `hotpath calibrate`'s, and
    the first of `hotpath run`'s."""
    return Request(
        primitive=calibration.PRIMITIVE,
        sizes=calibration.SIZES,
        aligns=(0,),
        modes=calibration.MODES,
        rounds=rounds,
        cpu=cpu,
    )


def now_utc() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")


def timeline(
    runner: Runner,
    seconds: int,
    interval_ms: int,
    cpu: int | None,
    width_ref: float | None = None,
) -> Timeline:
    """The width probe and the clock over `seconds`, one point per interval."""
    args = ["probe", "--seconds", str(seconds), "--interval-ms", str(interval_ms)]
    if cpu is not None:
        args += ["--cpu", str(cpu)]
    if width_ref is not None:
        args += ["--width-ref", f"{width_ref:.6g}"]
    return parse_timeline(invoke(runner, args))


def listing(runner: Runner) -> Listing:
    return parse_listing(invoke(runner, ["list"]))


def check_variants(
    known: Listing,
    primitives: tuple[str, ...],
    wanted: tuple[str, ...],
    extra: list[str] | None = None,
) -> None:
    """Every wanted name a variant of the primitives (or of `extra`: brought ones)."""
    names: list[str] = list(extra or [])
    for name in primitives:
        prim = known.primitive(name)
        if prim is not None:
            names.extend(v.name for v in prim.variants)
    check_known(wanted, names, "variant")


def own_sizes(known: Listing, primitive: str) -> tuple[int, ...]:
    """The sizes the runner times a primitive at when none are named."""
    prim = known.primitive(primitive)
    return tuple(prim.default_sizes) if prim else ()


def variants_for(
    known: Listing, primitive: str, wanted: tuple[str, ...] | None
) -> tuple[str, ...] | None:
    """The subset of wanted variants this primitive has (None: all)."""
    if wanted is None:
        return None
    prim = known.primitive(primitive)
    own = {v.name for v in prim.variants} if prim else set()
    return tuple(name for name in wanted if name in own)


def run_requests(
    runner: Runner,
    requests: list[Request],
    user_specs: list[UserVariantSpec],
    show_progress: bool,
    repeat: int = 1,
    width_history: list[float] | None = None,
) -> list[list[BenchRun]]:
    """Run each request in `repeat` fresh runner processes: its replicas.

    The replicas go round the requests (all first replicas, then all
    second ones), so a spell of the machine's lands on several primitives
    rather than on every replica of one. The user's --with variants go
    with the first request. Each process is told the full width that the
    machine's earlier runs and this one's earlier processes learnt
    (`width_history`, see width_reference).
    """
    learnt = list(width_history or [])
    groups: list[list[BenchRun]] = [[] for _ in requests]
    with tempdirs.fresh("hotpath-with-") as tmp:  # a kill -9's: removed by the next run
        # A runner that loads a kernel tree's objects runs as nobody when
        # hotpath is root (kernelsrc/contain.py): it reads the compiled files.
        tmp.chmod(0o755)
        # A file whose needs= this CPU lacks is not even compiled.
        needs = any(spec.needs for spec in user_specs)
        features = listing(runner).cpu.features if needs else []
        with_args = compile_user_variants(user_specs, runner.user_cflags(), Path(tmp), features)
        for replica in range(repeat):
            for number, request in enumerate(requests):
                label = f"{request.primitive} ({number + 1}/{len(requests)})"
                if repeat > 1:
                    label += f" replica {replica + 1}/{repeat}"
                progress = ProgressBar(label) if show_progress else None
                args = request.arguments(with_args if number == 0 else [], width_reference(learnt))
                bench = parse_run(invoke(runner, args, progress))
                groups[number].append(bench)
                own = (
                    (bench.clock.width or {}).get("learnt_cycles_per_iteration")
                    if bench.clock
                    else None
                )
                if isinstance(own, int | float) and own > 0:
                    learnt.append(float(own))
    return groups


def width_reference(learnt: list[float]) -> float | None:
    """Full width for the next process: the median of what runs learnt.

    The median, not the best: one run's own floor can be off by a few
    percent (code placement) and a bogus one must not rule every run after.
    A run whose neighbour never left learns a slower width than the rest,
    and the median outvotes it.
    """
    return float(np.median(learnt)) if learnt else None


def width_history(db: DbLocation | None, known: Listing) -> list[float]:
    """What earlier runs of this machine in the history at `db` learnt."""
    if db is None or not db.is_file():
        return []
    key = fingerprint(cpu=known.cpu).key()
    try:
        store = Store.open(db, create=False)
    except (StoreError, UsageError):
        return []
    try:
        return store.width_references(key)
    finally:
        store.close()


def new_run(
    command: str, groups: list[list[BenchRun]], noisy_fraction: float, command_line: str
) -> RunResult:
    """One stored run from each primitive's replicas; what a lab adds to its
    figures (csum's bounds) is hotpath.commands.labs.enrich's, a layer above."""
    first = groups[0][0] if groups and groups[0] else None
    tsc_hz = first.clock.tsc_hz if first and first.clock else None
    run = RunResult(
        command=command,
        started=now_utc(),
        machine=fingerprint(cpu=first.cpu if first else None, tsc_hz=tsc_hz),
        command_line=command_line,
    )
    for replicas in groups:
        run.add_replicas(replicas, noisy_fraction)
    return run


def get_runner() -> Runner:
    return locate_runner()


def require_primitives(lab_name: str, primitives: tuple[str, ...]) -> tuple[str, ...]:
    """`primitives` (Lab.chosen's), unless the runner has none for the lab."""
    if not primitives:
        raise RunnerError(f"lab '{lab_name}': the runner lists no primitive of this lab")
    return primitives
