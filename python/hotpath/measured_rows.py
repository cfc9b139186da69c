# SPDX-License-Identifier: GPL-2.0-only
"""Where this machine's measured dispatch row is kept, and what it says.

The library finds the row by this CPU's key (c/dispatch/measured.c says
what the key holds and why): `hotpath dispatch --save` writes the user's
row, `--system` (root) the row every user's programs take. The runner
names both places (`hotpath-bench list`), so the key is computed in one
place, the C that reads it. A row file says in its comments when, how and
on what it was measured, and whether a neighbour shared the core then.
"""

import datetime
import os
import stat
from dataclasses import dataclass
from pathlib import Path

from hotpath.destination import write_file
from hotpath.errors import UsageError
from hotpath.safetext import escaped

# The share of width probes that saw a neighbour beyond which a kept row
# carries a flag the user sees (--show, list): its crossovers may be off.
NEIGHBOUR_LIMIT = 0.2


@dataclass(frozen=True)
class Places:
    key: str
    user: Path | None  # None: no HOME to keep it in
    system: Path


def refused(dispatch: dict[str, str]) -> dict[str, str]:
    """The measured row files the library found and refused: path -> why
    (mode, folder, content, not a regular file), as the runner says."""
    out = {}
    for kind in ("user", "system"):
        path, why = dispatch.get(f"{kind}_row"), dispatch.get(f"{kind}_refused")
        if path and why:
            out[path] = why
    return out


def places(dispatch: dict[str, str]) -> Places | None:
    """The places the runner names (None: a runner that does not say)."""
    if not dispatch.get("key") or not dispatch.get("system_row"):
        return None
    user = dispatch.get("user_row") or ""
    return Places(dispatch["key"], Path(user) if user else None, Path(dispatch["system_row"]))


def header(machine_line: str, rounds: int, contended: float, hidden: str) -> str:
    """The comments a measured row starts with (the library skips them)."""
    when = datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
    lines = [
        f"# hotpath dispatch row, measured on {machine_line}",
        f"# measured: {when} by hotpath dispatch --rounds {rounds}",
        f"# neighbour: {contended:.0%} of the width probes saw one"
        + (f" (over {NEIGHBOUR_LIMIT:.0%}: the crossovers may be off; measure again on an "
           "idle machine)" if contended > NEIGHBOUR_LIMIT else ""),
    ]  # fmt: skip
    if hidden:
        lines.append(f"# features hidden: {hidden} (kept under that CPU's key, not the whole's)")
    return "\n".join(lines) + "\n"


def _check_folder(folder: Path, system: bool) -> None:
    """The folder a row goes into, made if missing (0755), refused when the
    library would not take a row from it."""
    folder.mkdir(mode=0o755, parents=True, exist_ok=True)
    st = folder.stat()
    owner_ok = st.st_uid == 0 if system else st.st_uid in (0, os.geteuid())
    if not owner_ok or st.st_mode & (stat.S_IWGRP | stat.S_IWOTH):
        raise UsageError(
            f"'{folder}': owned by another user or writable by others, so the library would "
            "not take a row from it; allowed: a folder only its owner (you or root) can write"
        )


def save(where: Places, text: str, system: bool) -> Path:
    """Write the row where the library looks for it (mode 0644)."""
    path = where.system if system else where.user
    if path is None:
        raise UsageError("--save: no HOME or XDG_CACHE_HOME to keep the row in; allowed: "
                         "--write FILE and HOTPATH_DISPATCH=FILE")  # fmt: skip
    if system and os.geteuid() != 0:
        raise UsageError(f"--system writes {path.parent}, which only root may write; "
                         "allowed: --save for your own programs")  # fmt: skip
    _check_folder(path.parent, system)
    write_file(path, text)
    path.chmod(0o644)
    return path


def comments(source: str) -> list[str]:
    """A row file's comment lines (when and on what it was measured)."""
    try:
        text = Path(source).read_text(encoding="utf-8", errors="replace")
    except OSError:
        return []
    return [line for line in text.splitlines() if line.startswith("#")]


def in_use_lines(dispatch: dict[str, str]) -> list[str]:
    """What `dispatch --show`, `list` and the report say of the row in use."""
    source = dispatch.get("source", "unknown")
    lines = [f"dispatch row in use: {dispatch.get('name', 'unknown')} ({source})"]
    if source not in ("built-in", "unknown"):
        lines += [f"  {line.lstrip('# ')}" for line in comments(source)]
    where = places(dispatch)
    not_taken = refused(dispatch)
    for path, why in not_taken.items():
        lines.append(f"  measured row {escaped(path)} refused: {escaped(why)}; not used")
    if where is not None and source == "built-in":
        lines.append(
            "  `hotpath dispatch --save` measures and keeps a new one"
            if not_taken
            else f"  no row measured for this CPU's key ({where.key}): "
            "`hotpath dispatch --save` measures one"
        )
    return lines
