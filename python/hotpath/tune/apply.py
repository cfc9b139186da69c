# SPDX-License-Identifier: GPL-2.0-only
"""Snapshot, apply, roll back, revert: every change can be undone, even after kill -9.

The state folder holds at most one snapshot (a second apply is refused until
`revert`), and a journal beside it:

- snapshot.json: every knob the profile writes, with its value before the
  first write. Written before anything changes: a temporary file (mode
  0600), fsync, rename over the name, fsync of the folder.
- journal.jsonl: one line before each write ("writing" and the value) and
  one after ("written"), each fsynced. After a kill the journal says how
  far it got; revert does not need it (it compares every knob with the
  snapshot and writes back those that differ) but reports it.

A write the kernel refuses ends apply: the knobs already written are set
back (in reverse order) and the command names the key and the kernel's
error. Revert writes only knobs whose value differs from the snapshot's,
so it never writes a value to a knob that already has it (tuned's restores
of vm.dirty_bytes=0 after vm.dirty_ratio was set are refused with EINVAL
for that reason), and reports each refusal; the snapshot stays until every
knob is back.

HOTPATH_TUNE_TEST_KILL_AFTER=N (tests only) sends SIGKILL to this process
right after its N-th write: the crash the snapshot is for, for real.
"""

import datetime
import json
import os
import signal
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

from hotpath.destination import reason
from hotpath.errors import HotpathError, UsageError
from hotpath.tune.keys import Knob, UnsafeKeyError, read_text, reopen_knob, write_text
from hotpath.tune.plan import Item
from hotpath.tune.values import current_value, write_form

STATE_ENV = "HOTPATH_TUNE_STATE_DIR"
KILL_ENV = "HOTPATH_TUNE_TEST_KILL_AFTER"
SNAPSHOT_FORMAT = "hotpath.tune-snapshot/1"
SYSTEM_STATE_DIR = Path("/var/lib/hotpath/tune")


def default_state_dir(root: Path) -> Path:
    """$HOTPATH_TUNE_STATE_DIR; else for a --root copy, ROOT/var/lib/hotpath/tune
    (the state lives with the tree it belongs to); else /var/lib/hotpath/tune as
    root, $XDG_STATE_HOME/hotpath/tune (~/.local/state) for anyone else."""
    env = os.environ.get(STATE_ENV)
    if env:
        return Path(env)
    if root.resolve() != Path("/"):
        return root / "var/lib/hotpath/tune"
    if os.geteuid() == 0:
        return SYSTEM_STATE_DIR
    xdg = os.environ.get("XDG_STATE_HOME") or ""
    base = Path(xdg) if Path(xdg).is_absolute() else Path.home() / ".local/state"
    return base / "hotpath/tune"


@dataclass(frozen=True)
class Entry:
    name: str
    kind: str
    relative: str
    feature: str | None
    value: str  # normal form, before the first write


@dataclass(frozen=True)
class Snapshot:
    profile: str
    root: str
    created: str
    entries: list[Entry]


def _fsync_dir(folder: Path) -> None:
    fd = os.open(folder, os.O_RDONLY | os.O_DIRECTORY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


class State:
    """The state folder: one snapshot and its journal."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self.snapshot_path = folder / "snapshot.json"
        self.journal_path = folder / "journal.jsonl"

    def exists(self) -> bool:
        return self.snapshot_path.exists()

    def prepare(self) -> None:
        """The folder (mode 0700), or UsageError naming why it cannot be used."""
        try:
            self.folder.mkdir(mode=0o700, parents=True, exist_ok=True)
        except OSError as err:
            raise UsageError(
                f"--state-dir '{self.folder}': cannot be made ({reason(err)}); "
                "allowed: a folder you can write to"
            ) from err
        if not os.access(self.folder, os.W_OK | os.X_OK):
            raise UsageError(
                f"--state-dir '{self.folder}': not writable; allowed: a folder you can write to"
            )

    def write_snapshot(self, snap: Snapshot) -> None:
        data = {
            "format": SNAPSHOT_FORMAT,
            "profile": snap.profile,
            "root": snap.root,
            "created": snap.created,
            "entries": [e.__dict__ for e in snap.entries],
        }
        temp = self.folder / f".snapshot.{os.getpid()}.tmp"
        fd = os.open(temp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_CLOEXEC, 0o600)
        try:
            os.write(fd, (json.dumps(data, indent=1) + "\n").encode())
            os.fsync(fd)
        except BaseException:
            os.close(fd)
            temp.unlink(missing_ok=True)
            raise
        os.close(fd)
        temp.replace(self.snapshot_path)
        _fsync_dir(self.folder)

    def load(self) -> Snapshot:
        try:
            data = json.loads(self.snapshot_path.read_text())
            if data.get("format") != SNAPSHOT_FORMAT:
                raise ValueError(f"format {data.get('format')!r}")
            entries = [Entry(**e) for e in data["entries"]]
            return Snapshot(data["profile"], data["root"], data["created"], entries)
        except (OSError, ValueError, KeyError, TypeError) as err:
            raise HotpathError(
                f"snapshot '{self.snapshot_path}' cannot be read ({err}); it is kept as it is"
            ) from err

    def journal(self, **event: str) -> None:
        new = not self.journal_path.exists()
        fd = os.open(
            self.journal_path, os.O_WRONLY | os.O_CREAT | os.O_APPEND | os.O_CLOEXEC, 0o600
        )
        try:
            os.write(fd, (json.dumps(event) + "\n").encode())
            os.fsync(fd)
        finally:
            os.close(fd)
        if new:
            _fsync_dir(self.folder)

    def journal_events(self) -> list[dict[str, str]]:
        try:
            lines = self.journal_path.read_text().splitlines()
        except OSError:
            return []
        events = []
        for line in lines:
            try:
                events.append(json.loads(line))
            except ValueError:
                break  # a line cut by the crash: the ones before it stand
        return events

    def clear(self) -> None:
        self.journal_path.unlink(missing_ok=True)
        self.snapshot_path.unlink(missing_ok=True)
        _fsync_dir(self.folder)


def read_value(knob: Knob) -> str:
    return current_value(knob, read_text(knob.path))


class WriteFailedError(HotpathError):
    """The kernel refused a write; what was written before it has been set back."""


@dataclass
class RestoreReport:
    restored: list[str] = field(default_factory=list)
    unchanged: list[str] = field(default_factory=list)
    refused: list[str] = field(default_factory=list)  # "name: why"
    gone: list[str] = field(default_factory=list)

    def lines(self) -> list[str]:
        out = [f"restored {n}" for n in self.restored]
        out += [f"REFUSED {r}" for r in self.refused]
        out += [f"gone (no longer on this kernel) {n}" for n in self.gone]
        return out


class Writer:
    """Writes values to a plan's knobs, journaled, with the snapshot taken first."""

    def __init__(self, state: State, root: Path, items: list[Item]) -> None:
        self.state = state
        self.root = root
        self.knobs = {i.knob.name: i.knob for i in items}
        self.originals = {i.knob.name: i.current for i in items}
        self.writes = 0
        kill = os.environ.get(KILL_ENV, "")
        self.kill_after = int(kill) if kill.isdigit() else 0

    def begin(self, profile: str) -> None:
        """Write the snapshot of every knob's present value (before any change)."""
        if self.state.exists():
            snap = self.state.load()
            raise UsageError(
                f"a snapshot of profile '{snap.profile}' taken {snap.created} is in "
                f"{self.state.folder}: run 'hotpath tune revert' first (allowed: one at a time)"
            )
        created = datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds")
        entries = [
            Entry(k.name, k.kind, k.relative, k.feature, self.originals[k.name])
            for k in self.knobs.values()
        ]
        self.state.journal_path.unlink(missing_ok=True)
        self.state.write_snapshot(Snapshot(profile, str(self.root.resolve()), created, entries))

    def set_values(self, values: dict[str, str]) -> list[str]:
        """Set each knob to its value (those already there are not written).

        All or nothing: on a refused write those written by this call are
        set back and WriteFailedError names the key and the kernel's error.
        Returns warnings: knobs the kernel stored another value for.
        """
        done: list[tuple[Knob, str]] = []
        warnings = []
        try:
            for name, value in values.items():
                knob = self.knobs[name]
                before = read_value(knob)
                if before == value:
                    continue
                self.state.journal(event="writing", key=name, value=value, previous=before)
                try:
                    write_text(knob.path, write_form(knob, value))
                except OSError as err:
                    raise WriteFailedError(
                        f"writing {name} = {value} failed: {reason(err)}"
                        + (f" (errno {err.errno})" if err.errno else "")
                    ) from err
                done.append((knob, before))
                self.state.journal(event="written", key=name)
                self.writes += 1
                if self.kill_after and self.writes == self.kill_after:
                    os.kill(os.getpid(), signal.SIGKILL)
                after = read_value(knob)
                if after != value:
                    warnings.append(f"{name}: wrote {value}, the kernel keeps {after}")
        except BaseException as err:
            report = self._set_back(reversed(done))
            if isinstance(err, WriteFailedError):
                raise WriteFailedError(_rollback_message(str(err), report)) from err
            raise
        return warnings

    def _set_back(self, done: Iterable[tuple[Knob, str]]) -> RestoreReport:
        report = RestoreReport()
        for knob, value in done:
            _restore_one(self.state, knob, value, report)
        return report

    def restore(self) -> RestoreReport:
        """Every knob back to its snapshot value (reverse order)."""
        report = RestoreReport()
        for name in reversed(list(self.knobs)):
            _restore_one(self.state, self.knobs[name], self.originals[name], report)
        return report


def _rollback_message(failure: str, report: RestoreReport) -> str:
    text = failure
    if report.restored:
        text += f"; rolled back: {', '.join(report.restored)}"
    else:
        text += "; nothing had been written before it"
    if report.refused:
        text += (
            f"; ROLLBACK REFUSED: {'; '.join(report.refused)} "
            "(the snapshot is kept: 'hotpath tune revert')"
        )
    return text


def _restore_one(state: State, knob: Knob, value: str, report: RestoreReport) -> None:
    try:
        now = read_value(knob)
        if now == value:
            report.unchanged.append(knob.name)
            return
        state.journal(event="restoring", key=knob.name, value=value)
        write_text(knob.path, write_form(knob, value))
        after = read_value(knob)
    except OSError as err:
        report.refused.append(f"{knob.name} = {value}: {reason(err)}")
        return
    if after != value:
        report.refused.append(f"{knob.name} = {value}: the kernel keeps {after}")
    else:
        report.restored.append(knob.name)


def revert(state: State, root: Path) -> tuple[Snapshot, RestoreReport]:
    """Restore the snapshot in `state` under `root`; cleared only when complete."""
    snap = state.load()
    if Path(snap.root) != root.resolve():
        raise UsageError(
            f"--root '{root}': the snapshot in {state.folder} was taken under '{snap.root}'; "
            f"allowed: --root {snap.root}"
        )
    report = RestoreReport()
    for entry in reversed(snap.entries):
        try:
            knob = reopen_knob(root, entry.name, entry.kind, entry.relative, entry.feature)
        except UnsafeKeyError as err:
            report.refused.append(f"{entry.name} = {entry.value}: {err}")
            continue
        if knob is None:
            report.gone.append(entry.name)
            continue
        _restore_one(state, knob, entry.value, report)
    if not report.refused:
        state.clear()
    return snap, report
