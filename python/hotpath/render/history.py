# SPDX-License-Identifier: GPL-2.0-only
"""The history's runs (`hotpath history`) and machines (`hotpath machines`)
as text and as their JSON documents (hotpath.history/1, hotpath.machines/1),
from the store's RunRows and hotpath.machine_keys' Machines."""

from typing import TYPE_CHECKING, Any

from hotpath.machine import KEY_PARTS, PART_WORDS, Fingerprint

if TYPE_CHECKING:
    from hotpath.db.location import DbLocation
    from hotpath.machine_keys import Machine
    from hotpath.store import RunRow

HISTORY_SCHEMA = "hotpath.history/1"
MACHINES_SCHEMA = "hotpath.machines/1"


def runs_json(rows: "list[RunRow]") -> dict[str, Any]:
    return {"schema": HISTORY_SCHEMA, "runs": [row.__dict__ for row in rows]}


def runs_table(rows: "list[RunRow]") -> str:
    """One line per run; the key's first 8 characters (its hash) tell
    machines apart, and --machine takes them."""
    lines = [
        f"{'id':>5}  {'started (UTC)':<25}  {'labs':<18}  {'figures':>7}  {'key':<8}  "
        f"{'machine':<28}  command"
    ]
    for row in rows:
        lines.append(
            f"{row.run_id:>5}  {row.started:<25}  {','.join(row.labs)[:18]:<18}  "
            f"{row.figures:>7}  {row.machine_key[:8]:<8}  {row.machine[:28]:<28}  "
            f"{row.command_line}"
        )
    return "\n".join(lines) + "\n"


def machines_json(found: "list[Machine]") -> dict[str, Any]:
    return {"schema": MACHINES_SCHEMA, "machines": [m.to_json() for m in found]}


def describe(fp: Fingerprint) -> str:
    """The key's parts in words, on one line."""
    parts = fp.key_parts()
    return "; ".join(f"{PART_WORDS[name]} {parts[name]}" for name in KEY_PARTS)


def machines_text(found: "list[Machine]", path: "DbLocation") -> str:
    """Each machine, the one with the newest run first: key, name, runs, parts."""
    if not found:
        return f"no runs recorded yet in {path}\n"
    lines = [f"{len(found)} machine(s) in {path}, the one with the newest run first:"]
    for one in found:
        lines += [
            "",
            f"{one.key}  {one.fingerprint.short_name()}",
            f"  runs: {one.runs}, first {one.first}, last {one.last}",
            f"  {describe(one.fingerprint)}",
        ]
    return "\n".join(lines) + "\n"
