# SPDX-License-Identifier: GPL-2.0-only
"""The path every measuring command shares: runner, primitives, results.

Validation happens before this (hotpath.inputs); here the runner is made,
asked what it knows, the user's variants compiled, the runner started once
per primitive, and the samples summarized into a RunResult.
"""

import tempfile
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path

from hotpath.errors import RunnerError
from hotpath.inputs import UserVariantSpec, check_known
from hotpath.labs import lab_for
from hotpath.machine import fingerprint
from hotpath.progress import ProgressBar
from hotpath.protocol import BenchRun, Listing, parse_listing, parse_run
from hotpath.results import RunResult
from hotpath.runner import Runner, invoke, locate_runner
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

    def arguments(self, with_args: list[str]) -> list[str]:
        args = ["run", "--primitive", self.primitive]
        args += ["--sizes", ",".join(map(str, self.sizes))]
        args += ["--aligns", ",".join(map(str, self.aligns))]
        args += ["--modes", ",".join(self.modes), "--rounds", str(self.rounds)]
        args += ["--unit", self.unit]
        if self.variants:
            args += ["--variants", ",".join(self.variants)]
        if self.cpu is not None:
            args += ["--cpu", str(self.cpu)]
        for value in with_args:
            args += ["--with", value]
        return args + self.extra


def now_utc() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")


def listing(runner: Runner) -> Listing:
    return parse_listing(invoke(runner, ["list"]))


def check_variants(known: Listing, primitives: tuple[str, ...], wanted: tuple[str, ...]) -> None:
    names: list[str] = []
    for name in primitives:
        prim = known.primitive(name)
        if prim is not None:
            names.extend(v.name for v in prim.variants)
    check_known(wanted, names, "variant")


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
) -> list[BenchRun]:
    """Run each request; the user's --with variants go with the first one."""
    results = []
    with tempfile.TemporaryDirectory(prefix="hotpath-with-") as tmp:
        with_args = compile_user_variants(user_specs, runner.user_cflags(), Path(tmp))
        for number, request in enumerate(requests):
            label = f"{request.primitive} ({number + 1}/{len(requests)})"
            progress = ProgressBar(label) if show_progress else None
            doc = invoke(runner, request.arguments(with_args if number == 0 else []), progress)
            results.append(parse_run(doc))
    return results


def new_run(
    command: str, benches: list[BenchRun], noisy_fraction: float, command_line: str
) -> RunResult:
    first = benches[0] if benches else None
    tsc_hz = first.clock.tsc_hz if first and first.clock else None
    run = RunResult(
        command=command,
        started=now_utc(),
        machine=fingerprint(cpu=first.cpu if first else None, tsc_hz=tsc_hz),
        command_line=command_line,
    )
    for bench in benches:
        run.add_bench(bench, noisy_fraction)
    for name in run.labs:
        lab = lab_for(name)
        if lab is not None and lab.attach_bounds is not None:
            lab.attach_bounds(run)
    return run


def get_runner() -> Runner:
    return locate_runner()


def require_primitives(
    known: Listing, lab_name: str, primitives: tuple[str, ...]
) -> tuple[str, ...]:
    present = tuple(p for p in primitives if known.primitive(p) is not None)
    if not present:
        raise RunnerError(
            f"lab '{lab_name}': the runner has none of its primitives ({', '.join(primitives)})"
        )
    return present
