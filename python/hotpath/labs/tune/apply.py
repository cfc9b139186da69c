# SPDX-License-Identifier: GPL-2.0-only
"""Snapshot, apply, roll back, revert: every change can be undone, even after kill -9.

The state folder holds at most one snapshot (a second apply is refused until
`revert`), and a journal beside it:

- journal.jsonl: first a "begin" line naming every knob the apply may
  write, then one line before each write ("writing" and the value) and one
  after ("written"), each fsynced. After a kill the journal says how far it
  got; revert does not need that (it compares every knob with the snapshot
  and writes back those that differ) but reports it.
- snapshot.json: every knob the profile writes, with its value before the
  first write. Written before anything changes, after the journal's begin
  line: a temporary file (mode 0600), fsync, rename over the name, fsync of
  the folder.

Revert writes, as root, what it reads back from that folder, so it trusts
it only as far as it can check it: the folder and both files must belong to
the user running it (the effective uid) and be writable by no one else
(files opened without following links); the snapshot must name exactly the
knobs the journal's begin line recorded; every knob is found again from its
name, as apply found it (never from a path in the file); and every value
must be one apply could have read (printable, one space between words, the
shape the kernel prints now). Anything else is refused before a single
write, exit status 2. None of this is a signature: a process running as the
same user can rewrite both files; the ownership and mode checks are what
keep everyone else out.

The whole of apply, revert and evaluate holds an exclusive flock(2) on the
state folder, so two of them on one folder cannot both take a snapshot (the
second is refused at once, nothing written); the lock goes with the
process, even after a kill -9, and leaves no file behind.

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
import fcntl
import json
import os
import signal
import stat
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

from hotpath.destination import reason
from hotpath.errors import HotpathError, UsageError
from hotpath.labs.tune.keys import Knob, UnsafeKeyError, inside, read_text, reopen_knob, write_text
from hotpath.labs.tune.plan import Item
from hotpath.labs.tune.values import ValueFormError, check_stored, current_value, write_form
from hotpath.safetext import escaped, unsafe

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
        folder = root / "var/lib/hotpath/tune"
        real = os.path.realpath(folder)
        if not inside(real, os.path.realpath(root)):
            raise UsageError(
                f"--root '{root}': its var/lib/hotpath/tune resolves to {escaped(real)}, "
                "outside the root; allowed: a root whose state stays inside it, or --state-dir"
            )
        return folder
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


def _check_trusted(st: os.stat_result, path: Path) -> None:
    """UsageError unless `path` (already opened: `st` is its fstat) is this user's
    and nobody else's to write: anyone who could change it could choose what
    revert writes as root."""
    problem = None
    if st.st_uid != os.geteuid():
        problem = f"owned by uid {st.st_uid}, not by you (uid {os.geteuid()})"
    elif st.st_mode & (stat.S_IWGRP | stat.S_IWOTH):
        problem = f"mode {stat.S_IMODE(st.st_mode):04o}, writable by others"
    if problem is not None:
        raise UsageError(
            f"'{escaped(str(path))}' is {problem}; nothing written; allowed: the state "
            "folder and its files owned by you and writable by no one else (if you did not "
            "make them so, read them and remove them by hand)"
        )


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

    @contextmanager
    def locked(self, create: bool) -> Iterator[None]:
        """Hold the state folder (made first when `create`) for one apply, revert or
        evaluate; UsageError at once if another process holds it."""
        if create:
            self.prepare()
        fd = os.open(self.folder, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
        try:
            _check_trusted(os.fstat(fd), self.folder)
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError as err:
                raise UsageError(
                    f"another 'hotpath tune' apply, revert or evaluate is using {self.folder} "
                    "now; nothing written; allowed: one at a time (run this once it has ended)"
                ) from err
            yield
        finally:
            os.close(fd)  # releases the lock

    def _read_trusted(self, path: Path) -> bytes:
        """A state file's bytes, after the same ownership checks on it and its folder."""
        _check_trusted(self.folder.stat(), self.folder)
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC)
        try:
            st = os.fstat(fd)
            if not stat.S_ISREG(st.st_mode):
                raise UsageError(f"'{path}' is not a regular file; nothing written")
            _check_trusted(st, path)
            with os.fdopen(fd, "rb", closefd=False) as fh:
                return fh.read()
        finally:
            os.close(fd)

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
            data = json.loads(self._read_trusted(self.snapshot_path))
            if data.get("format") != SNAPSHOT_FORMAT:
                raise ValueError(f"format {data.get('format')!r}")
            entries = [Entry(**e) for e in data["entries"]]
            snap = Snapshot(data["profile"], data["root"], data["created"], entries)
            _check_snapshot_types(snap)
            return snap
        except (OSError, ValueError, KeyError, TypeError) as err:
            # Input, like a corrupt history database: exit status 2.
            raise UsageError(
                f"snapshot '{self.snapshot_path}' cannot be read ({escaped(str(err))}); "
                "nothing written, it is kept as it is; allowed: the snapshot apply wrote"
            ) from err

    def journal(self, **event: object) -> None:
        new = not self.journal_path.exists()
        fd = os.open(
            self.journal_path,
            os.O_WRONLY | os.O_CREAT | os.O_APPEND | os.O_NOFOLLOW | os.O_CLOEXEC,
            0o600,
        )
        try:
            os.write(fd, (json.dumps(event) + "\n").encode())
            os.fsync(fd)
        finally:
            os.close(fd)
        if new:
            _fsync_dir(self.folder)

    def journal_events(self) -> list[dict[str, object]]:
        try:
            lines = self._read_trusted(self.journal_path).splitlines()
        except FileNotFoundError:
            return []
        events = []
        for line in lines:
            try:
                event = json.loads(line)
            except ValueError:
                break  # a line cut by the crash: the ones before it stand
            if not isinstance(event, dict):
                break
            events.append(event)
        return events

    def recorded_keys(self) -> list[str] | None:
        """The knobs the journal's begin line says the apply may write (None: no such line)."""
        events = self.journal_events()
        keys = events[0].get("keys") if events and events[0].get("event") == "begin" else None
        if not isinstance(keys, list) or not all(isinstance(k, str) for k in keys):
            return None
        return keys

    def clear(self) -> None:
        self.journal_path.unlink(missing_ok=True)
        self.snapshot_path.unlink(missing_ok=True)
        _fsync_dir(self.folder)


def _check_snapshot_types(snap: Snapshot) -> None:
    """ValueError unless every field is text as apply writes it. The names are
    printed as they are, so they must be safe; the values are checked against
    their knobs by revert, which names the knob."""
    names = [snap.profile, snap.root, snap.created]
    values = []
    for entry in snap.entries:
        names += [entry.name, entry.kind, entry.relative]
        if entry.feature is not None:
            names.append(entry.feature)
        values.append(entry.value)
    for text in names + values:
        if not isinstance(text, str):
            raise ValueError(f"{text!r} is not text")
    for text in names:
        bad = unsafe(text)
        if bad is not None:
            raise ValueError(f"'{escaped(text)}' holds {bad}")


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
        """Write the snapshot of every knob's present value (before any change).

        The caller holds the state's lock. The plan was read before it: a knob
        that has changed since (another process) is refused, as its value in
        the plan would not be the one to restore."""
        if self.state.exists():
            snap = self.state.load()
            raise UsageError(
                f"a snapshot of profile '{snap.profile}' taken {snap.created} is in "
                f"{self.state.folder}: run 'hotpath tune revert' first (allowed: one at a time)"
            )
        for name, knob in self.knobs.items():
            now = read_value(knob)
            if now != self.originals[name]:
                raise HotpathError(
                    f"{name} changed from {escaped(self.originals[name])} to {escaped(now)} "
                    "while the profile was checked (another process?); nothing written"
                )
        created = datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds")
        entries = [
            Entry(k.name, k.kind, k.relative, k.feature, self.originals[k.name])
            for k in self.knobs.values()
        ]
        self.state.journal_path.unlink(missing_ok=True)
        self.state.journal(event="begin", profile=profile, keys=list(self.knobs))
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
    """Restore the snapshot in `state` under `root`; cleared only when complete.

    The caller holds the state's lock. Every entry is checked before the
    first write (the module's docstring says what revert trusts): one that
    fails refuses the whole revert (UsageError, nothing written)."""
    snap = state.load()
    if Path(snap.root) != root.resolve():
        raise UsageError(
            f"--root '{root}': the snapshot in {state.folder} was taken under "
            f"'{escaped(snap.root)}'; allowed: --root {escaped(snap.root)}"
        )
    targets, gone = _checked_entries(state, snap, root)
    report = RestoreReport(gone=gone)
    for knob, value in targets:
        _restore_one(state, knob, value, report)
    if not report.refused:
        state.clear()
    return snap, report


def _checked_entries(
    state: State, snap: Snapshot, root: Path
) -> tuple[list[tuple[Knob, str]], list[str]]:
    """The (knob, value) pairs to restore, last written first, and the names gone
    from this kernel; UsageError naming every entry that cannot be trusted."""
    errors = []
    recorded = state.recorded_keys()
    names = [e.name for e in snap.entries]
    if recorded is None:
        errors.append(f"{state.journal_path} has no begin line recording the knobs apply set")
    else:  # the names in the snapshot are known to be safe to print (load)
        listed = escaped(", ".join(recorded))
        errors += [
            f"entry '{n}' was not recorded by the apply (its journal lists {listed})"
            for n in names
            if n not in recorded
        ]
        errors += [
            f"knob '{escaped(n)}' the apply recorded has no entry"
            for n in recorded
            if n not in names
        ]
    targets, gone = [], []
    for entry in reversed(snap.entries):
        try:
            knob = reopen_knob(root, entry.name)
        except UnsafeKeyError as err:
            errors.append(str(err))
            continue
        if knob is None:
            gone.append(entry.name)
            continue
        if (knob.kind, knob.relative, knob.feature) != (entry.kind, entry.relative, entry.feature):
            errors.append(
                f"entry '{entry.name}' says {entry.relative}; its name is {knob.relative}"
            )
            continue
        try:
            check_stored(knob, entry.value, read_text(knob.path))
        except ValueFormError as err:
            errors.append(str(err))
            continue
        except OSError as err:
            errors.append(f"{entry.name}: cannot be read ({reason(err)})")
            continue
        targets.append((knob, entry.value))
    if errors:
        raise UsageError(
            f"snapshot {state.snapshot_path} refused, nothing written:\n  "
            + "\n  ".join(errors)
            + "\n(allowed: the snapshot apply wrote; 'hotpath tune revert --forget' drops it)"
        )
    return targets, gone
