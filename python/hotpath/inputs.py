# SPDX-License-Identifier: GPL-2.0-only
"""Checks every value the user typed before anything runs or is written.

Each parser raises UsageError with a message that names the offending value
and says what is allowed, so that bad input always ends with exit status 2
and an untouched system (docs: PRODUCT.md, "Quality bar"). The runner's
limits (sizes, alignments, rounds, a call's time limit) are the runner's
own, read from its facts (hotpath.runner.runner_facts), never copied here.
"""

import argparse
import dataclasses
import re
import shlex
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

from hotpath.errors import UsageError
from hotpath.runner import runner_facts

MODES: tuple[str, ...] = ("latency", "throughput", "fenced")
UNITS: tuple[str, ...] = ("cycles", "ticks")
# --noisy-threshold: a figure whose 95% CI is wider than this share of its
# median is "noisy" (hotpath.stats).
DEFAULT_NOISY_FRACTION = 0.05

# Numbers in ASCII digits only: int() and float() also take fullwidth
# digits (U+FF10..), Arabic-Indic ones, "1_000" and " 40 ", and float()
# "nan" and "inf"; none is what anyone means on a command line.
INTEGER = re.compile(r"-?[0-9]+")
DECIMAL = re.compile(r"-?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][-+]?[0-9]+)?")
SHOWN_MAX = 60  # characters of a value a message quotes


def shown(text: str) -> str:
    """`text` as a message quotes it: a long one cut, with its size (a
    100 KB name would otherwise be the whole message)."""
    if len(text) <= SHOWN_MAX:
        return text
    size = len(text.encode("utf-8", "surrogateescape"))
    return f"{text[:SHOWN_MAX]}\u2026({size} bytes)"


def ascii_int(text: str) -> int | None:
    """`text` as an integer in ASCII digits ("-1", "40"); None if it is not
    one. Past 30 digits it stands as +-10^30, outside every range (and int()
    refuses a string of more than 4300 digits)."""
    if not INTEGER.fullmatch(text):
        return None
    digits = text.lstrip("-").lstrip("0")
    return (-1 if text.startswith("-") else 1) * (
        10**30 if len(digits) > 30 else int(digits or "0")
    )


def integer(text: str) -> int:
    """argparse's type for an integer option (cli.ascii_numbers puts it in
    place of int everywhere)."""
    value = ascii_int(text)
    if value is None:
        raise argparse.ArgumentTypeError(
            f"'{shown(text)}': allowed: an integer in ASCII digits (0-9)"
        )
    return value


def path(text: str) -> Path:
    """argparse's type for a file or folder option: an empty value is not
    the current folder (`--out ''` once wrote the report there)."""
    if not text:
        raise argparse.ArgumentTypeError("'': allowed: a path (an empty one names nothing)")
    return Path(text)


def decimal(text: str) -> float:
    """argparse's type for a number option, in place of float."""
    if not DECIMAL.fullmatch(text):
        raise argparse.ArgumentTypeError(
            f"'{shown(text)}': allowed: a number in ASCII digits, such as 0.05"
        )
    return float(text)


def parse_int_list(text: str, what: str, low: int, high: int) -> tuple[int, ...]:
    """Parse "40,1500" into integers within [low, high], keeping order, no duplicates."""
    items = [part.strip() for part in text.split(",")]
    if not text.strip() or any(not part for part in items):
        raise UsageError(
            f"{what} '{shown(text)}': expected a comma-separated list of integers {low}..{high}"
        )
    values: list[int] = []
    for part in items:
        value = ascii_int(part)
        if value is None:
            raise UsageError(
                f"{what} '{shown(part)}': not an integer in ASCII digits; allowed: integers "
                f"{low}..{high}"
            )
        if not low <= value <= high:
            raise UsageError(f"{what} '{shown(part)}': out of range; allowed: {low}..{high}")
        if value not in values:
            values.append(value)
    return tuple(values)


MAX_SWEEP_POINTS = 200


def size_sweep(low: int, high: int) -> tuple[int, ...]:
    """The lengths of a sweep from low to high: every power of two and the
    point halfway between two of them (3 x 2^k), so that a log-scale plot
    gets two points per octave, plus low and high themselves."""
    points = {low, high}
    power = 1
    while power <= high:
        for value in (power, power + power // 2):
            if low <= value <= high:
                points.add(value)
        power *= 2
    return tuple(sorted(points))


def parse_sizes(text: str) -> tuple[int, ...]:
    """Buffer lengths in bytes, 0..the runner's largest (1 GiB): "40,1500",
    or a sweep "1..65536" (see size_sweep()), or both ("40,1..4096")."""
    size_max = runner_facts().limits.size_max
    values: list[int] = []
    plain: list[str] = []
    parts = [item.strip() for item in text.split(",")]
    for part in parts:
        if ".." not in part:
            plain.append(part)
            continue
        ends = part.split("..")
        low, high = (ascii_int(ends[0]), ascii_int(ends[1])) if len(ends) == 2 else (None, None)
        if low is None or high is None:
            raise UsageError(
                f"size '{shown(part)}': a sweep is LOW..HIGH with integers 0..{size_max} "
                "in ASCII digits"
            )
        if not 0 <= low < high <= size_max:
            raise UsageError(f"size '{shown(part)}': a sweep needs 0 <= LOW < HIGH <= {size_max}")
        values.extend(size_sweep(low, high))
    if plain:
        values.extend(parse_int_list(",".join(plain), "size", 0, size_max))
    if len(plain) < len(parts):  # a sweep: in order of size, once each
        values = sorted(set(values))
    if len(values) > MAX_SWEEP_POINTS:
        raise UsageError(
            f"sizes '{shown(text)}': {len(values)} lengths; allowed: at most {MAX_SWEEP_POINTS}"
        )
    return tuple(values)


def parse_aligns(text: str) -> tuple[int, ...]:
    """Offsets from a 4096-byte boundary, 0..4095 (the runner's)."""
    return parse_int_list(text, "alignment", 0, runner_facts().limits.align_max)


def parse_modes(text: str) -> tuple[str, ...]:
    """Timing modes, a subset of latency, throughput, fenced."""
    names = [part.strip() for part in text.split(",")]
    modes: list[str] = []
    for name in names:
        if name not in MODES:
            raise UsageError(f"mode '{shown(name)}': unknown; allowed: {', '.join(MODES)}")
        if name not in modes:
            modes.append(name)
    return tuple(modes)


def parse_names(text: str) -> tuple[str, ...]:
    """A comma-separated list of names ("a,b"); checked against a registry later."""
    names = [part.strip() for part in text.split(",")]
    if any(not name for name in names):
        raise UsageError(
            f"variants '{shown(text)}': expected a comma-separated list of variant names"
        )
    return tuple(dict.fromkeys(names))


def check_rounds(rounds: int) -> int:
    """Timed samples per figure: at least 1, at most the runner's."""
    most = runner_facts().limits.rounds_max
    if not 1 <= rounds <= most:
        raise UsageError(f"rounds '{rounds}': allowed: 1..{most}")
    return rounds


MAX_REPEAT = 100


def check_time_limit(seconds: int | None) -> int | None:
    """Seconds a variant call may run: 0 (no limit) .. the runner's most (a
    day); None: the runner's default."""
    if seconds is None:
        return None
    most = runner_facts().limits.time_limit_max
    if not 0 <= seconds <= most:
        raise UsageError(f"--time-limit '{seconds}': allowed: 0..{most} seconds")
    return seconds


def check_repeat(repeat: int) -> int:
    """Runner processes per primitive: 1..MAX_REPEAT."""
    if not 1 <= repeat <= MAX_REPEAT:
        raise UsageError(f"--repeat '{repeat}': allowed: 1..{MAX_REPEAT}")
    return repeat


def check_cpu(cpu: int | None) -> int | None:
    """CPU to pin to: -1 (do not pin) or a CPU number."""
    if cpu is not None and cpu < -1:
        raise UsageError(f"cpu '{cpu}': allowed: -1 (do not pin) or a CPU number >= 0")
    return cpu


def check_known(names: Iterable[str], known: Sequence[str], what: str) -> None:
    """Every name must be one of `known`; the message lists them."""
    for name in names:
        if name not in known:
            allowed = ", ".join(known) if known else "(none)"
            raise UsageError(f"{what} '{shown(name)}': unknown; known: {allowed}")


# `// hotpath: KEY=VALUE` lines in a --with file: what the variant needs.
DIRECTIVE = re.compile(r"^\s*//\s*hotpath:\s*(\w+)\s*=\s*(.*?)\s*$")
DIRECTIVES = ("cflags", "needs")


@dataclass(frozen=True)
class UserVariantSpec:
    """One --with FILE.c:FUNCTION argument, checked to exist.

    cflags and needs come from the file's `// hotpath: cflags=...` and
    `// hotpath: needs=avx2,bmi2` lines (and --with-cflags); name is the
    variant's name in the run, FUNCTION unless that clashes (then
    FILE:FUNCTION, see unique_names).
    """

    source: Path
    function: str
    cflags: tuple[str, ...] = ()
    needs: tuple[str, ...] = ()
    name: str = ""

    @property
    def variant(self) -> str:
        return self.name or self.function


def _directives(source: Path, text: str) -> dict[str, list[str]]:
    found: dict[str, list[str]] = {key: [] for key in DIRECTIVES}
    try:
        lines = source.read_text(encoding="utf-8", errors="replace").splitlines()
    except OSError as err:
        raise UsageError(f"--with '{text}': cannot read '{source}': {err.strerror}") from err
    for number, line in enumerate(lines, 1):
        match = DIRECTIVE.match(line)
        if not match:
            continue
        key, value = match.groups()
        if key not in found:
            raise UsageError(
                f"--with '{text}': {source}:{number}: '// hotpath: {key}=' is not known; "
                f"allowed: {', '.join(DIRECTIVES)}"
            )
        try:
            words = shlex.split(value) if key == "cflags" else value.replace(",", " ").split()
        except ValueError as err:
            raise UsageError(f"--with '{text}': {source}:{number}: {err}") from err
        found[key] += words
    return found


def parse_with(text: str, extra_cflags: str = "") -> UserVariantSpec:
    """Parse FILE.c:FUNCTION; the file must exist, the function be a C identifier."""
    path_text, sep, function = text.rpartition(":")
    if not sep or not path_text or not function:
        raise UsageError(f"--with '{text}': expected FILE.c:FUNCTION")
    if not (function[0].isalpha() or function[0] == "_") or not all(
        ch.isalnum() or ch == "_" for ch in function
    ):
        raise UsageError(f"--with '{text}': '{function}' is not a C function name")
    source = Path(path_text)
    if not source.is_file():
        raise UsageError(f"--with '{text}': file '{source}' does not exist or is not a file")
    found = _directives(source, text)
    try:
        extra = shlex.split(extra_cflags)
    except ValueError as err:
        raise UsageError(f"--with-cflags '{extra_cflags}': {err}") from err
    return UserVariantSpec(
        source=source,
        function=function,
        cflags=(*found["cflags"], *extra),
        needs=tuple(found["needs"]),
    )


def unique_names(specs: list[UserVariantSpec], builtins: set[str]) -> list[UserVariantSpec]:
    """Each brought variant under a name of its own in the run.

    A function named like a built-in variant, or like another --with
    function, is shown as FILE:FUNCTION; the same FILE:FUNCTION twice is
    refused.
    """
    named: list[UserVariantSpec] = []
    taken = set(builtins)
    functions = [spec.function for spec in specs]
    for spec in specs:
        name = spec.function
        if name in taken or functions.count(name) > 1:
            name = f"{spec.source.name}:{spec.function}"
        if name in taken:
            raise UsageError(
                f"--with '{spec.source}:{spec.function}': given twice; allowed: each "
                "FILE.c:FUNCTION once"
            )
        taken.add(name)
        named.append(dataclasses.replace(spec, name=name))
    return named
