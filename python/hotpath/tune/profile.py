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

A profile is named by its file's stem. A name without '/' or '.toml' is
looked up beside the including file, then in the built-in folder
(profiles/ at the top of the source tree). A setting whose key (any of its
alternatives) an earlier setting or an included profile already has
replaces that one in place. Every error names the file and the setting and
is bad input (exit status 2).
"""

import tomllib
from dataclasses import dataclass, field
from pathlib import Path

from hotpath.errors import UsageError
from hotpath.tune.keys import KeyFormError, KeySpec, parse_key
from hotpath.tune.values import ProfileValue

BUILTIN_DIR = Path(__file__).resolve().parents[3] / "profiles"
PROFILE_FIELDS = {"summary", "source", "include"}
SETTING_FIELDS = {"key", "value", "reason", "source", "android_only"}
MAX_INCLUDE_DEPTH = 16


@dataclass(frozen=True)
class Setting:
    keys: tuple[KeySpec, ...]  # alternatives, first existing wins
    value: ProfileValue
    reason: str
    source: str
    android_only: bool = False
    origin: str = ""  # the profile that defined it

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


def builtin_names() -> list[str]:
    if not BUILTIN_DIR.is_dir():
        return []
    return sorted(p.stem for p in BUILTIN_DIR.glob("*.toml"))


def find(name: str, near: Path | None = None) -> Path:
    """The file of profile `name` (a path, or a name beside `near` or built in)."""
    if "/" in name or name.endswith(".toml"):
        path = Path(name)
        if not path.is_file():
            raise UsageError(f"profile '{name}': no such file; allowed: a .toml file or a name")
        return path
    if not name or not all(c.isalnum() or c in "-_" for c in name):
        raise UsageError(f"profile '{name}': allowed: a name of [A-Za-z0-9_-] or a .toml path")
    for folder in ([near] if near is not None else []) + [BUILTIN_DIR]:
        path = folder / f"{name}.toml"
        if path.is_file():
            return path
    known = ", ".join(builtin_names()) or "none found"
    raise UsageError(f"profile '{name}': not found; allowed: a .toml path or one of {known}")


def load(name: str) -> Profile:
    """Profile `name` with its includes merged in (UsageError on any error)."""
    return _load(find(name), ())


def _text(table: dict[str, object], field_name: str, where: str, required: bool) -> str:
    value = table.get(field_name, "")
    if not isinstance(value, str) or (required and not value.strip()):
        raise UsageError(f"{where}: '{field_name}' must be a non-empty string")
    return value.strip()


def _load(path: Path, chain: tuple[Path, ...]) -> Profile:
    real = path.resolve()
    if real in chain:
        cycle = " -> ".join(p.stem for p in (*chain, real))
        raise UsageError(f"profile '{path}': include cycle {cycle}; allowed: no cycle")
    if len(chain) >= MAX_INCLUDE_DEPTH:
        raise UsageError(f"profile '{path}': includes nested deeper than {MAX_INCLUDE_DEPTH}")
    try:
        with open(path, "rb") as fh:
            data = tomllib.load(fh)
    except OSError as err:
        raise UsageError(f"profile '{path}': cannot be read ({err.strerror})") from err
    except tomllib.TOMLDecodeError as err:
        raise UsageError(f"profile '{path}': not valid TOML ({err})") from err
    unknown = set(data) - {"profile", "setting"}
    if unknown:
        raise UsageError(
            f"profile '{path}': unknown table(s) {sorted(unknown)}; allowed: [profile], [[setting]]"
        )
    head = data.get("profile", {})
    if not isinstance(head, dict) or set(head) - PROFILE_FIELDS:
        raise UsageError(
            f"profile '{path}': [profile] fields allowed: {', '.join(sorted(PROFILE_FIELDS))}"
        )
    includes = head.get("include", [])
    if not isinstance(includes, list) or not all(isinstance(i, str) for i in includes):
        raise UsageError(f"profile '{path}': include must be a list of profile names")
    profile = Profile(
        name=path.stem,
        path=path,
        summary=_text(head, "summary", f"profile '{path}'", required=True),
        source=_text(head, "source", f"profile '{path}'", required=False),
        includes=list(includes),
    )
    for included in includes:
        parent = _load(find(included, path.parent), (*chain, real))
        for setting in parent.settings:
            _merge(profile.settings, setting)
    rows = data.get("setting", [])
    if not isinstance(rows, list):
        raise UsageError(f"profile '{path}': 'setting' must be an array of tables [[setting]]")
    for index, row in enumerate(rows, start=1):
        _merge(profile.settings, _setting(row, f"profile '{path}' setting {index}", path.stem))
    if not profile.settings:
        raise UsageError(f"profile '{path}': no settings; allowed: at least one [[setting]]")
    return profile


def _setting(row: object, where: str, origin: str) -> Setting:
    if not isinstance(row, dict):
        raise UsageError(f"{where}: must be a table")
    unknown = set(row) - SETTING_FIELDS
    if unknown:
        allowed = ", ".join(sorted(SETTING_FIELDS))
        raise UsageError(f"{where}: unknown field(s) {sorted(unknown)}; allowed: {allowed}")
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
    return Setting(
        keys=keys,
        value=row["value"],
        reason=_text(row, "reason", f"{where} ({texts[0]})", required=True),
        source=_text(row, "source", f"{where} ({texts[0]})", required=True),
        android_only=android,
        origin=origin,
    )


def _merge(settings: list[Setting], new: Setting) -> None:
    """Append `new`, or put it in the place of the setting it overrides."""
    for i, old in enumerate(settings):
        if old.texts() & new.texts():
            settings[i] = new
            return
    settings.append(new)
