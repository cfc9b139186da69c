# SPDX-License-Identifier: GPL-2.0-only
"""What `hotpath tune evaluate` compares and decides: the configurations,
each comparison's verdict and the evaluation they make. Shared by the
evaluation (hotpath.labs.tune.evaluate), its history
(hotpath.labs.tune.stored) and its text (hotpath.render.tune_evaluate),
none of which imports another for them."""

from dataclasses import dataclass, field

from hotpath.labs.tune.workloads import Workload


@dataclass(frozen=True)
class Config:
    label: str
    values: dict[str, str]  # knob name -> value
    setting: str | None = None  # the setting it isolates (per-setting runs)


@dataclass(frozen=True)
class Verdict:
    workload: Workload
    base: str
    other: str
    ratio: float
    ci: tuple[float, float]
    p: float
    verdict: str
    setting: str | None

    def to_json(self) -> dict[str, object]:
        """The comparison as hotpath.tune-evaluate/1 and the history's section keep it."""
        return {
            "workload": self.workload.name,
            "base": self.base,
            "other": self.other,
            "setting": self.setting,
            "ratio": self.ratio,
            "ci": list(self.ci),
            "p": self.p,
            "verdict": self.verdict,
        }


@dataclass(frozen=True)
class Evaluation:
    """An evaluation's answer, fresh or rebuilt from the history
    (hotpath.labs.tune.stored.from_run): what its text and JSON show."""

    profile: str
    rounds: int
    per_setting: str | None
    alpha: float  # per comparison (Bonferroni)
    threshold: float
    machine: str  # the fingerprint's one line
    samples: dict[tuple[str, str], list[float]]  # (configuration, workload) -> figures
    verdicts: list[Verdict]
    machine_json: dict[str, object] = field(default_factory=dict)  # the fingerprint whole
