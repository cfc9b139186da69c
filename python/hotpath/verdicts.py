# SPDX-License-Identifier: GPL-2.0-only
"""What a comparison's evidence shows, in words: one rule for every verdict.

Kernel patches are argued with small numbers ("+3.3% at 512 bytes"), so a
difference the evidence shows is never called "no evidence" because it is
small. Given a ratio B/A, its 95% interval and the user's threshold:

- "faster" / "slower": the interval excludes 1 and the change is beyond
  the threshold;
- "below the threshold": the interval excludes 1 but the change is within
  the threshold, said with its size: "1.9% slower [1.9, 2.0], below the 2%
  threshold";
- "within one unit": the medians are one unit (core cycle or TSC tick) or
  less apart, below what the engine can tell apart, however tight the
  interval;
- "no evidence of a difference": the interval includes 1, or (single runs)
  the change is within the differences this machine shows between
  identical runs (its A/A floor), so that placement alone could explain it.

No numpy here: the tuning lab decides its verdicts with this too, and must
not load numpy (hotpath.labs.tune.evaluate says why).
"""

import argparse
import math
from dataclasses import dataclass

from hotpath.errors import UsageError

# The default threshold of every command that gives verdicts (--threshold).
DEFAULT_THRESHOLD = 0.02
FASTER = "faster"
SLOWER = "slower"
# Figures that are not times: a rate or a score ("better"/"worse" by the
# figure's side), or a model's statistic that only moves ("higher"/"lower").
BETTER, WORSE, HIGHER, LOWER = "better", "worse", "higher", "lower"
IMPROVED = (FASTER, BETTER)
REGRESSED = (SLOWER, WORSE)
SAME = "same value"
BELOW = "below the threshold"
WITHIN_UNIT = "within one unit"
NO_EVIDENCE = "no evidence of a difference"
# Below one cycle (or tick) the engine cannot tell figures apart reliably.
MIN_ABS_DIFFERENCE = 1.0


@dataclass(frozen=True)
class Verdict:
    kind: str  # one of the five above
    text: str  # what a table prints: the kind, with the change where it says more


def words(better: str, time: bool) -> tuple[str, str]:
    """What a ratio B/A above 1 and below 1 is called, for a figure whose
    `better` side is "lower", "higher" or "none" (results.BETTER)."""
    if better == "lower":
        return (SLOWER, FASTER) if time else (WORSE, BETTER)
    if better == "higher":
        return BETTER, WORSE
    return HIGHER, LOWER


def percent(fraction: float) -> str:
    """0.02 -> '2%', 0.005 -> '0.5%'."""
    return f"{fraction * 100:g}%"


def change(ratio: float, ci: tuple[float, float], up: str = "slower", down: str = "faster") -> str:
    """'1.9% slower [1.9, 2.0]': the change in percent and its interval
    (`up` and `down` name the directions: slower/faster for times)."""
    word = up if ratio > 1.0 else down
    sign = 1.0 if ratio > 1.0 else -1.0
    ends = sorted(sign * (end - 1.0) * 100.0 for end in ci)
    size = sign * (ratio - 1.0) * 100.0
    return f"{size:.1f}% {word} [{ends[0]:.1f}, {ends[1]:.1f}]"


def decide(
    ratio: float,
    ci: tuple[float, float],
    threshold: float,
    *,
    floor: float | None = None,
    abs_diff: float = math.inf,
    unit: str = "units",
    up: str = SLOWER,
    down: str = FASTER,
) -> Verdict:
    """The verdict for B/A = `ratio` with its 95% interval `ci`.

    With replicas (`floor` None) the interval must exclude 1; for single
    runs it must lie wholly beyond `floor`, this machine's A/A floor, and
    is then compared with the threshold as replicas' is. `up` and `down`
    name a ratio above and below 1 (words()).
    """
    lo, hi = ci
    if any(math.isnan(x) for x in (lo, hi, ratio)):
        return Verdict(NO_EVIDENCE, f"{NO_EVIDENCE} (no interval)")
    edge = floor if floor is not None else 0.0
    if lo <= 1.0 + edge and hi >= 1.0 - edge:
        if floor is not None and (lo > 1.0 or hi < 1.0):
            return Verdict(
                NO_EVIDENCE,
                f"{NO_EVIDENCE}: {change(ratio, ci, up, down)} is within this machine's A/A floor "
                f"({percent(round(floor, 4))})",
            )
        return Verdict(NO_EVIDENCE, NO_EVIDENCE)
    if abs_diff <= MIN_ABS_DIFFERENCE:
        return Verdict(
            WITHIN_UNIT,
            f"{WITHIN_UNIT}: medians {abs_diff:.2g} {unit} apart, below what the engine "
            "tells apart",
        )
    if abs(ratio - 1.0) > threshold:
        word = up if ratio > 1.0 else down
        return Verdict(word, word)
    return Verdict(BELOW, below(change(ratio, ci, up, down), threshold))


def below(changed: str, threshold: float) -> str:
    return f"{changed}, below the {percent(threshold)} threshold"


def add_threshold_option(parser: argparse.ArgumentParser, default: float, what: str) -> None:
    """--threshold for a command that gives verdicts; `what` says where."""
    parser.add_argument(
        "--threshold",
        type=float,
        default=default,
        metavar="F",
        help=f"{what}: a difference the evidence shows but smaller than F (a fraction: 0.02 "
        f"for 2%%) is said as 'below the threshold' with its size, not as faster/slower or "
        f"better/worse (default {default:g})",
    )


def check_threshold(value: float, option: str = "--threshold") -> float:
    """The user's threshold: a fraction in [0, 1)."""
    if not 0.0 <= value < 1.0:
        raise UsageError(f"{option} '{value}': allowed: a fraction in [0, 1), e.g. 0.02 for 2%")
    return value
