# SPDX-License-Identifier: GPL-2.0-only
"""Values in one normal form, so that comparing them means something.

The kernel prints the same setting in several ways: "4096\t16384\t4194304"
(tabs) for a value written as "4096 16384 4194304", "none [mq-deadline] kyber"
for a block scheduler whose value is "mq-deadline", a scheduler feature as
NAME or NO_NAME among all the others. A profile may write 10ms for a knob in
nanoseconds, true for 1. Everything here turns both sides into one form:
words separated by one space; a feature "true"/"false"; a scheduler the
bracketed choice. verify compares those forms, apply checks a profile's
value against the current one's shape before anything is written.
"""

import re

from hotpath.labs.tune.keys import BLOCK, SCHED_FEATURE, Knob
from hotpath.safetext import ALLOWED, escaped, unsafe

MAX_VALUE = 1024
_INT = re.compile(r"-?\d+")
_WITH_UNIT = re.compile(r"(\d+(?:\.\d+)?)\s*([A-Za-zµ]+)")
# A knob's unit comes from its name's suffix; a profile's value may carry any
# unit of the same dimension.
_TIME_UNITS = {"ns": 1, "us": 1_000, "µs": 1_000, "ms": 1_000_000, "s": 1_000_000_000}
_SIZE_UNITS = {"B": 1, "KiB": 1024, "kB": 1024, "MiB": 1024**2, "GiB": 1024**3}
_SUFFIX_UNIT = {
    "_ns": ("ns", _TIME_UNITS),
    "_us": ("us", _TIME_UNITS),
    "_ms": ("ms", _TIME_UNITS),
    "_kb": ("KiB", _SIZE_UNITS),
}

ProfileValue = str | int | bool | list[str | int]


class ValueFormError(ValueError):
    """A value that cannot be this knob's (the message names both)."""


def is_scheduler(knob: Knob) -> bool:
    return knob.kind == BLOCK and knob.attribute == "scheduler"


def scheduler_choices(text: str) -> tuple[list[str], str | None]:
    """'none [mq-deadline] kyber' -> (['none', 'mq-deadline', 'kyber'], 'mq-deadline')."""
    choices, current = [], None
    for word in text.split():
        if word.startswith("[") and word.endswith("]"):
            word = word[1:-1]
            current = word
        choices.append(word)
    return choices, current


def feature_state(text: str, feature: str) -> str | None:
    """'true' or 'false' for NAME or NO_NAME in a features file; None if absent."""
    words = text.split()
    if feature in words:
        return "true"
    if f"NO_{feature}" in words:
        return "false"
    return None


def current_value(knob: Knob, text: str) -> str:
    """The normal form of what the kernel printed for `knob`."""
    if knob.kind == SCHED_FEATURE:
        assert knob.feature is not None
        state = feature_state(text, knob.feature)
        return state if state is not None else "?"
    if is_scheduler(knob):
        choices, current = scheduler_choices(text)
        return current if current is not None else " ".join(choices)
    return " ".join(text.split())


def _with_unit(knob: Knob, word: str) -> str:
    match = _WITH_UNIT.fullmatch(word)
    if match is None:
        return word
    number, unit = match.groups()
    for suffix, (base, units) in _SUFFIX_UNIT.items():
        if knob.attribute.endswith(suffix) and unit in units:
            scaled = float(number) * units[unit] / units[base]
            if scaled != int(scaled):
                raise ValueFormError(
                    f"{knob.name}: '{word}' is not a whole number of {base}; "
                    f"allowed: a multiple of 1 {base}"
                )
            return str(int(scaled))
    allowed = "units only on knobs named *_ns, *_us, *_ms (time) or *_kb (size)"
    raise ValueFormError(f"{knob.name}: unit in '{word}' not allowed; allowed: {allowed}")


def desired_value(knob: Knob, value: ProfileValue) -> str:
    """A profile's value in normal form (ValueFormError when it has no meaning here)."""
    if knob.kind == SCHED_FEATURE:
        if not isinstance(value, bool):
            raise ValueFormError(
                f"{knob.name}: value '{escaped(str(value))}'; allowed: true (on) or false (off)"
            )
        return "true" if value else "false"
    if isinstance(value, bool):
        words = ["1" if value else "0"]
    elif isinstance(value, int):
        words = [str(value)]
    elif isinstance(value, str):
        words = value.split()
    elif isinstance(value, list) and all(
        isinstance(v, int | str) and not isinstance(v, bool) for v in value
    ):
        words = [str(v) for v in value]
    else:
        raise ValueFormError(
            f"{knob.name}: value {value!r}; allowed: a string, an integer, a boolean "
            "or a list of integers/strings"
        )
    if not words:
        raise ValueFormError(f"{knob.name}: empty value; allowed: at least one word")
    text = " ".join(_with_unit(knob, w) for w in words)
    _check_printable(knob, text)
    return text


def _check_printable(knob: Knob, text: str) -> None:
    if len(text) > MAX_VALUE or unsafe(text) is not None:
        raise ValueFormError(
            f"{knob.name}: value '{escaped(text[:40])}'; allowed: {ALLOWED}, "
            f"up to {MAX_VALUE} characters"
        )


def check_stored(knob: Knob, value: str, current_text: str) -> None:
    """ValueFormError unless `value`, read back from a snapshot, is one apply could
    have stored for `knob`: a feature's true/false, else printable, in normal form
    (words separated by one space) and of the shape the kernel prints now."""
    if knob.kind == SCHED_FEATURE:
        if value not in ("true", "false"):
            raise ValueFormError(
                f"{knob.name}: value '{escaped(value[:40])}'; allowed: true or false"
            )
        return
    _check_printable(knob, value)
    if " ".join(value.split()) != value:
        raise ValueFormError(
            f"{knob.name}: value '{escaped(value[:40])}'; allowed: words separated by one space"
        )
    if is_scheduler(knob):
        # The schedulers a device offers change (a module unloaded): the kernel
        # judges the name, and revert reports its refusal for this knob alone.
        if " " in value:
            raise ValueFormError(f"{knob.name}: value '{value[:40]}'; allowed: one scheduler")
        return
    check_shape(knob, value, current_text)


def check_shape(knob: Knob, desired: str, current_text: str) -> None:
    """ValueFormError unless `desired` has the shape of the knob's current value.

    A scheduler must be one the device offers; otherwise as many words as
    the kernel prints, and a number wherever it prints a number.
    """
    if knob.kind == SCHED_FEATURE:
        return
    if is_scheduler(knob):
        choices, _ = scheduler_choices(current_text)
        if desired not in choices:
            raise ValueFormError(
                f"{knob.name}: scheduler '{desired}'; allowed on this device: "
                + escaped(", ".join(choices))
            )
        return
    now = current_text.split()
    want = desired.split()
    printed = escaped(" ".join(now))  # the kernel's text: a copy under --root may hold anything
    if now and len(now) != len(want):
        raise ValueFormError(
            f"{knob.name}: value '{desired}' has {len(want)} word(s); allowed: "
            f"{len(now)}, as the kernel prints '{printed}'"
        )
    for have, new in zip(now, want, strict=False):
        if _INT.fullmatch(have) and not _INT.fullmatch(new):
            raise ValueFormError(
                f"{knob.name}: '{new}' is not an integer; allowed: an integer "
                f"(the kernel prints '{printed}')"
            )


def write_form(knob: Knob, value: str) -> str:
    """What to write to set `value` (normal form)."""
    if knob.kind == SCHED_FEATURE:
        assert knob.feature is not None
        return knob.feature if value == "true" else f"NO_{knob.feature}"
    return value
