# SPDX-License-Identifier: GPL-2.0-only
"""The machines a history has seen, by today's key rule.

The key of a run is its fingerprint's key by today's rule
(Fingerprint.key, docs/machines.md). A run stored under the first rule
(its machine_key column holds 16 hex digits) is keyed again from the
fingerprint it was stored with; `hotpath machines`, `history --machine` and
compare's A/A floor go by the same keys (keyed_rows).
"""

import dataclasses
from dataclasses import dataclass, field
from typing import Any

from hotpath.db.location import DbLocation
from hotpath.errors import UsageError
from hotpath.inputs import shown
from hotpath.machine import Fingerprint, is_key
from hotpath.store import RunRow, Store


@dataclass
class Machine:
    """One key of a history and its runs."""

    key: str
    fingerprint: Fingerprint  # its newest run's
    runs: int = 0
    first: str = ""  # the oldest run's start (UTC, ISO 8601)
    last: str = ""
    stored_keys: list[str] = field(default_factory=list)  # as the history's column holds them

    def to_json(self) -> dict[str, Any]:
        return {
            "key": self.key,
            "machine": self.fingerprint.short_name(),
            "parts": self.fingerprint.key_parts(),
            "runs": self.runs,
            "first": self.first,
            "last": self.last,
            "stored_keys": self.stored_keys,
        }


def keyed_rows(store: Store, rows: list[RunRow]) -> list[RunRow]:
    """`rows` with machine_key by today's rule: a row stored under the first
    rule is keyed again from the fingerprint stored with its run."""
    keyed = []
    for row in rows:
        if is_key(row.machine_key):
            keyed.append(row)
        elif (run := store.loaded(row.run_id)) is not None:  # else corrupt: said, skipped
            keyed.append(dataclasses.replace(row, machine_key=run.machine.key()))
    return keyed


def machines(store: Store) -> list[Machine]:
    """Every machine of the history, the one with the newest run first; a
    run that cannot be read back is said and left out."""
    found: dict[str, Machine] = {}
    for row in store.runs():  # newest first
        run = store.loaded(row.run_id)
        if run is None:
            continue
        key = row.machine_key if is_key(row.machine_key) else run.machine.key()
        one = found.get(key)
        if one is None:
            one = found[key] = Machine(key, run.machine, last=row.started)
        one.runs += 1
        one.first = row.started
        if row.machine_key not in one.stored_keys:
            one.stored_keys.append(row.machine_key)
    return list(found.values())


def resolve_key(
    value: str, keys: dict[str, str], path: DbLocation, option: str = "--machine"
) -> str:
    """The key `value` names: a key of `keys` (key: short name) or a unique
    start of one; UsageError naming the value and the keys allowed."""
    text = value.strip()
    if text in keys:
        return text
    matching = [k for k in keys if k.startswith(text)] if text else []
    if len(matching) == 1:
        return matching[0]
    why = "several machine keys start with it" if matching else "no machine key starts with it"
    allowed = "; ".join(f"{k} ({name})" for k, name in keys.items()) or "none (no runs)"
    raise UsageError(
        f"{option} '{shown(value)}': {why}; allowed: a key of '{path}' or a unique start "
        f"of one (hotpath machines): {allowed}"
    )
