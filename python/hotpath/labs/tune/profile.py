# SPDX-License-Identifier: GPL-2.0-only
"""Tuning profiles: TOML files of settings, each with its value and its reason.

    [profile]
    summary = "one line"
    source = "where the profile as a whole comes from"
    include = ["other"]            # optional: settings inherited, in order

    [[setting]]
    key = "kernel.sched_autogroup_enabled"      # or a list: the first this kernel has wins
    value = 1
    reason = "why, in our words"
    source = "where the reason comes from"
    android_only = true                         # optional: not on a mainline kernel
    lowers_security = { name = "aslr", reason = "what is lost" }   # optional, see below

A setting that makes the system easier to attack (ASLR off, SYN cookies
off) says so in `lowers_security`: a short name for the loss and what is
lost. apply and evaluate refuse to write it unless the user names that loss
(--allow-security-loss NAME); show, diff and export list such settings
first. Free text (summary, source, reason, the loss's reason, include
names, the file's name) must hold no control characters (hotpath.safetext):
it ends up in terminals and in tuned.conf, where a newline starts a section.

A profile is named by its file's stem. A name without '/' or '.toml' is
looked up beside the including file, then in the built-in folder
(profiles/ at the top of the source tree). A setting whose key (any of its
alternatives) an earlier setting or an included profile already has
replaces that one in place. Every error names the file and the setting and
is bad input (exit status 2).
"""

import os
import re
import stat
import tomllib
from dataclasses import dataclass, field
from pathlib import Path

from hotpath.errors import UsageError
from hotpath.labs.tune.keys import KeyFormError, KeySpec, parse_key
from hotpath.labs.tune.values import ProfileValue
from hotpath.safetext import ALLOWED, escaped, unsafe
from hotpath.tree import CHECKOUT

BUILTIN_DIR = CHECKOUT / "profiles"
PROFILE_FIELDS = {"summary", "source", "include"}
SETTING_FIELDS = {"key", "value", "reason", "source", "android_only", "lowers_security"}
LOSS_FIELDS = {"name", "reason"}
LOSS_NAME = re.compile(r"[a-z0-9][a-z0-9-]{0,31}")
MAX_INCLUDE_DEPTH = 16
MAX_PROFILE_BYTES = 1 << 20


@dataclass(frozen=True)
class Loss:
    """What a setting costs in security: the name the user must say, and why."""

    name: str  # e.g. "aslr": --allow-security-loss aslr
    reason: str


@dataclass(frozen=True)
class Setting:
    keys: tuple[KeySpec, ...]  # alternatives, first existing wins
    value: ProfileValue
    reason: str
    source: str
    android_only: bool = False
    origin: str = ""  # the profile that defined it
    lowers_security: Loss | None = None

    @property
    def name(self) -> str:
        return self.keys[0].text

    def texts(self) -> set[str]:
        return {k.text for k in self.keys}


@dataclass
class Profile:
    name: str
    path: Path
    summary: str
    source: str
    includes: list[str] = field(default_factory=list)
    settings: list[Setting] = field(default_factory=list)

    def loss_names(self) -> list[str]:
        """The security losses the profile's settings name, sorted."""
        return sorted({s.lowers_security.name for s in self.settings if s.lowers_security})


def security_first(settings: list[Setting]) -> list[Setting]:
    """`settings` with those that lower security first (each group in its order)."""
    return sorted(settings, key=lambda s: s.lowers_security is None)


def builtin_names() -> list[str]:
    if not BUILTIN_DIR.is_dir():
        return []
    return sorted(p.stem for p in BUILTIN_DIR.glob("*.toml"))


def find(name: str, near: Path | None = None) -> Path:
    """The file of profile `name` (a path, or a name beside `near` or built in)."""
    if "/" in name or name.endswith(".toml"):
        path = Path(name)
        if not path.exists():
            raise UsageError(
                f"profile '{escaped(name)}': no such file; allowed: a .toml file or a name"
            )
        return path  # _load says what else is wrong with it (not a regular file...)
    if not name or not all(c.isalnum() or c in "-_" for c in name):
        raise UsageError(
            f"profile '{escaped(name)}': allowed: a name of [A-Za-z0-9_-] or a .toml path"
        )
    for folder in ([near] if near is not None else []) + [BUILTIN_DIR]:
        path = folder / f"{name}.toml"
        if path.is_file():
            return path
    known = ", ".join(builtin_names()) or "none found"
    raise UsageError(f"profile '{name}': not found; allowed: a .toml path or one of {known}")


def load(name: str) -> Profile:
    """Profile `name` with its includes merged in (UsageError on any error)."""
    return _load(find(name), ())


def _safe(value: str, field_name: str, where: str) -> str:
    bad = unsafe(value)
    if bad is not None:
        raise UsageError(f"{where}: '{field_name}' holds {bad}; allowed: {ALLOWED}")
    return value


def _text(table: dict[str, object], field_name: str, where: str, required: bool) -> str:
    value = table.get(field_name, "")
    if not isinstance(value, str) or (required and not value.strip()):
        raise UsageError(f"{where}: '{field_name}' must be a non-empty string")
    return _safe(value, field_name, where).strip()


def _read(path: Path, label: str) -> dict[str, object]:
    """The TOML in `path`, a regular file; opened without blocking (a FIFO would wait
    for a writer forever) and checked on the opened file, not the name."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)
    except OSError as err:
        raise UsageError(f"{label}: cannot be read ({err.strerror})") from err
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise UsageError(f"{label}: not a regular file; allowed: a .toml file")
        with os.fdopen(fd, "rb", closefd=False) as fh:
            data = fh.read(MAX_PROFILE_BYTES + 1)
    except OSError as err:
        raise UsageError(f"{label}: cannot be read ({err.strerror})") from err
    finally:
        os.close(fd)
    if len(data) > MAX_PROFILE_BYTES:
        raise UsageError(f"{label}: larger than {MAX_PROFILE_BYTES} bytes; allowed: a profile")
    try:
        return tomllib.loads(data.decode("utf-8"))
    except UnicodeDecodeError as err:
        raise UsageError(
            f"{label}: not UTF-8 text (byte {err.start + 1}); allowed: a TOML profile"
        ) from err
    except tomllib.TOMLDecodeError as err:
        raise UsageError(f"{label}: not valid TOML ({err})") from err


def _load(path: Path, chain: tuple[Path, ...]) -> Profile:
    label = f"profile '{escaped(str(path))}'"
    real = path.resolve()
    if real in chain:
        cycle = " -> ".join(p.stem for p in (*chain, real))
        raise UsageError(f"{label}: include cycle {escaped(cycle)}; allowed: no cycle")
    if len(chain) >= MAX_INCLUDE_DEPTH:
        raise UsageError(f"{label}: includes nested deeper than {MAX_INCLUDE_DEPTH}")
    # The name goes into exported files and their names (hotpath-NAME/tuned.conf).
    _safe(path.stem, "file name", label)
    data = _read(path, label)
    unknown = set(data) - {"profile", "setting"}
    if unknown:
        raise UsageError(
            f"{label}: unknown table(s) {escaped(str(sorted(unknown)))}; "
            "allowed: [profile], [[setting]]"
        )
    head = data.get("profile", {})
    if not isinstance(head, dict) or set(head) - PROFILE_FIELDS:
        raise UsageError(f"{label}: [profile] fields allowed: {', '.join(sorted(PROFILE_FIELDS))}")
    includes = head.get("include", [])
    if not isinstance(includes, list) or not all(isinstance(i, str) for i in includes):
        raise UsageError(f"{label}: include must be a list of profile names")
    profile = Profile(
        name=path.stem,
        path=path,
        summary=_text(head, "summary", label, required=True),
        source=_text(head, "source", label, required=False),
        includes=[_safe(i, "include", label) for i in includes],
    )
    for included in includes:
        parent = _load(find(included, path.parent), (*chain, real))
        for setting in parent.settings:
            _merge(profile.settings, setting)
    rows = data.get("setting", [])
    if not isinstance(rows, list):
        raise UsageError(f"{label}: 'setting' must be an array of tables [[setting]]")
    for index, row in enumerate(rows, start=1):
        _merge(profile.settings, _setting(row, f"{label} setting {index}", path.stem))
    if not profile.settings:
        raise UsageError(f"{label}: no settings; allowed: at least one [[setting]]")
    return profile


def _setting(row: object, where: str, origin: str) -> Setting:
    if not isinstance(row, dict):
        raise UsageError(f"{where}: must be a table")
    unknown = set(row) - SETTING_FIELDS
    if unknown:
        allowed = ", ".join(sorted(SETTING_FIELDS))
        raise UsageError(
            f"{where}: unknown field(s) {escaped(str(sorted(unknown)))}; allowed: {allowed}"
        )
    raw_keys = row.get("key")
    listed = raw_keys if isinstance(raw_keys, list) else [raw_keys]
    texts = [t for t in listed if isinstance(t, str)]
    if not texts or len(texts) != len(listed):
        raise UsageError(f"{where}: 'key' must be a key or a non-empty list of keys")
    try:
        keys = tuple(parse_key(t) for t in texts)
    except KeyFormError as err:
        raise UsageError(f"{where}: {err}") from err
    if "value" not in row:
        raise UsageError(f"{where} ({texts[0]}): 'value' is missing")
    android = row.get("android_only", False)
    if not isinstance(android, bool):
        raise UsageError(f"{where}: 'android_only' must be true or false")
    where = f"{where} ({texts[0]})"
    return Setting(
        keys=keys,
        value=row["value"],
        reason=_text(row, "reason", where, required=True),
        source=_text(row, "source", where, required=True),
        android_only=android,
        origin=origin,
        lowers_security=_loss(row.get("lowers_security"), where),
    )


def _loss(table: object, where: str) -> Loss | None:
    if table is None:
        return None
    if not isinstance(table, dict) or set(table) - LOSS_FIELDS:
        raise UsageError(
            f"{where}: 'lowers_security' must be a table; allowed: name, reason "
            '(lowers_security = { name = "aslr", reason = "what is lost" })'
        )
    name = table.get("name")
    if not isinstance(name, str) or not LOSS_NAME.fullmatch(name):
        shown = escaped(str(name))[:40]
        raise UsageError(
            f"{where}: lowers_security name '{shown}'; allowed: 1 to 32 of [a-z0-9-], "
            "starting with a letter or digit (the user names it to --allow-security-loss)"
        )
    return Loss(name, _text(table, "reason", f"{where} lowers_security", required=True))


def _merge(settings: list[Setting], new: Setting) -> None:
    """Append `new`, or put it in the place of the setting it overrides."""
    for i, old in enumerate(settings):
        if old.texts() & new.texts():
            settings[i] = new
            return
    settings.append(new)
