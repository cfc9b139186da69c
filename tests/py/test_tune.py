# SPDX-License-Identifier: GPL-2.0-only
"""hotpath tune on a fake kernel tree (tune_tree): apply/verify/revert, a kill -9
between writes, a write failing half-way, refused restores, and keys this
kernel lacks. Refusals, profiles and export: test_tune_profiles.py.
"""

import fcntl
import json
import os
import signal
import struct
import subprocess
import sys
from pathlib import Path

import pytest

from hotpath.labs.tune.apply import KILL_ENV, STATE_ENV, default_state_dir
from tune_tree import BASIC, REPO, apply_args, make_root, normal, profile, reprint, setting, tree


@pytest.fixture
def root(tmp_path):
    return make_root(tmp_path)


# ---------------------------------------------------------------- apply/verify/revert


def test_apply_verify_revert_round_trip(cli, tmp_path, root):
    prof = profile(tmp_path, BASIC)
    before = tree(root)
    assert cli("tune", "verify", str(prof), "--root", str(root)).status == 1

    res = cli(*apply_args(root, prof))
    assert res.status == 0, res.err
    assert "7 knob(s) changed" in res.out
    after = tree(root)
    assert after["proc/sys/kernel/sched_autogroup_enabled"] == "0\n"
    assert after["proc/sys/vm/swappiness"] == "10\n"
    assert after["sys/kernel/debug/sched/migration_cost_ns"] == "1000000\n"  # 1ms, in ns
    assert after["sys/kernel/debug/sched/features"] == "NEXT_BUDDY\n"
    assert after["sys/devices/virtual/block/vda/queue/scheduler"] == "none\n"
    snapshot = root / "var/lib/hotpath/tune/snapshot.json"
    assert oct(snapshot.stat().st_mode & 0o777) == "0o600"

    # The kernel's own formatting must verify as equal: tabs, brackets, features.
    (root / "proc/sys/net/ipv4/tcp_rmem").write_text("4096\t87380\t6291456\n")
    (root / "sys/devices/virtual/block/vda/queue/scheduler").write_text(
        "[none] mq-deadline kyber\n"
    )
    (root / "sys/kernel/debug/sched/features").write_text("GENTLE_FAIR_SLEEPERS NEXT_BUDDY\n")
    res = cli("tune", "verify", str(prof), "--root", str(root))
    assert res.status == 0, res.out
    assert "7 of 7 knob(s) as the profile says" in res.out

    res = cli("tune", "revert", "--root", str(root))
    assert res.status == 0, res.out
    assert "snapshot removed" in res.out
    restored = tree(root)
    for key, text in before.items():
        if key == "sys/kernel/debug/sched/features":
            assert "NO_NEXT_BUDDY" in restored[key]
        elif key.endswith("scheduler"):
            assert restored[key] == "mq-deadline\n"  # the choice the kernel would bracket
        else:
            assert normal(restored[key]) == normal(text), key
    assert not snapshot.exists()


def test_dry_run_writes_nothing(cli, tmp_path, root):
    prof = profile(tmp_path, BASIC)
    before = tree(root)
    res = cli(*apply_args(root, prof, "--dry-run"))
    assert res.status == 0
    assert "would write vm.swappiness" in res.out and "60 -> 10" in res.out
    assert tree(root) == before
    assert not (root / "var").exists()


def test_second_apply_refused_until_revert(cli, tmp_path, root):
    prof = profile(tmp_path, BASIC)
    assert cli(*apply_args(root, prof)).status == 0
    res = cli(*apply_args(root, prof))
    assert res.status == 2
    assert "run 'hotpath tune revert' first" in res.err


def test_state_dir_option_and_env(cli, tmp_path, root, monkeypatch):
    prof = profile(tmp_path, BASIC)
    state = tmp_path / "state-a"
    assert cli(*apply_args(root, prof, "--state-dir", str(state))).status == 0
    assert (state / "snapshot.json").exists()
    assert cli("tune", "revert", "--root", str(root), "--state-dir", str(state)).status == 0
    reprint(root)
    monkeypatch.setenv(STATE_ENV, str(tmp_path / "state-b"))
    assert cli(*apply_args(root, prof)).status == 0
    assert (tmp_path / "state-b/snapshot.json").exists()


def test_default_state_dir(monkeypatch, tmp_path, private_home):
    monkeypatch.delenv(STATE_ENV, raising=False)
    assert default_state_dir(tmp_path) == tmp_path / "var/lib/hotpath/tune"  # a copy: inside it
    monkeypatch.setattr(os, "geteuid", lambda: 0)
    assert default_state_dir(Path("/")) == Path("/var/lib/hotpath/tune")
    monkeypatch.setattr(os, "geteuid", lambda: 1000)
    assert default_state_dir(Path("/")) == private_home / "state/hotpath/tune"  # XDG_STATE_HOME
    monkeypatch.setenv(STATE_ENV, str(tmp_path / "s"))
    assert default_state_dir(Path("/")) == tmp_path / "s"


def run_hotpath(args: list[str], env_extra: dict[str, str]) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ, **env_extra)
    return subprocess.run(
        [sys.executable, "-m", "hotpath", *args],
        capture_output=True,
        text=True,
        env=env,
        cwd=REPO,
        timeout=60,
        check=False,
    )


def run_tune(args: list[str]) -> subprocess.CompletedProcess[str]:
    """`python -m hotpath tune ARGS` (the CLI loads tune's command alone: no numpy)."""
    return subprocess.run(
        [sys.executable, "-m", "hotpath", "tune", *args],
        capture_output=True,
        text=True,
        cwd=REPO,
        timeout=60,
        check=False,
    )


@pytest.mark.parametrize("writes_before_kill", [1, 3])
def test_kill_9_between_writes_then_revert(cli, tmp_path, root, writes_before_kill):
    prof = profile(tmp_path, BASIC)
    before = tree(root)
    proc = run_hotpath(apply_args(root, prof), {KILL_ENV: str(writes_before_kill)})
    assert proc.returncode == -signal.SIGKILL, proc.stderr
    changed = [k for k, v in tree(root).items() if v != before[k]]
    assert len(changed) == writes_before_kill  # killed between two writes, for real
    journal = (root / "var/lib/hotpath/tune/journal.jsonl").read_text().splitlines()
    assert json.loads(journal[-1])["event"] == "written"

    res = cli("tune", "revert", "--root", str(root))
    assert res.status == 0, res.out
    assert "did not finish" in res.out
    assert f"{writes_before_kill} restored" in res.out
    assert {k: normal(v) for k, v in tree(root).items()} == {
        k: normal(v) for k, v in before.items()
    }


FS_IOC_GETFLAGS, FS_IOC_SETFLAGS, FS_IMMUTABLE_FL = 0x80086601, 0x40086602, 0x10


def set_immutable(path: Path, on: bool) -> None:
    """chattr +i / -i: even root's write is then refused by the kernel (EPERM)."""
    fd = os.open(path, os.O_RDONLY)
    try:
        flags = struct.unpack("l", fcntl.ioctl(fd, FS_IOC_GETFLAGS, struct.pack("l", 0)))[0]
        flags = flags | FS_IMMUTABLE_FL if on else flags & ~FS_IMMUTABLE_FL
        fcntl.ioctl(fd, FS_IOC_SETFLAGS, struct.pack("l", flags))
    finally:
        os.close(fd)


@pytest.fixture
def immutable(root):
    """The 4th knob BASIC writes, made immutable: its write fails half-way through."""
    if os.geteuid() != 0:
        pytest.skip("chattr +i needs root (CAP_LINUX_IMMUTABLE); the suite runs as root here")
    path = root / "sys/kernel/debug/sched/migration_cost_ns"
    try:
        set_immutable(path, True)
    except OSError as err:
        pytest.fail(f"the test file system refuses chattr +i ({err}); run the tests on ext4/tmpfs")
    yield path
    set_immutable(path, False)


def test_write_failing_half_way_rolls_everything_back(cli, tmp_path, root, immutable):
    prof = profile(tmp_path, BASIC)
    before = tree(root)
    res = cli(*apply_args(root, prof))
    assert res.status == 1
    assert "writing debugfs:sched/migration_cost_ns = 1000000 failed" in res.err
    assert "Operation not permitted" in res.err
    assert (
        "rolled back: net.ipv4.tcp_rmem, vm.swappiness, kernel.sched_autogroup_enabled" in res.err
    )
    assert {k: normal(v) for k, v in tree(root).items()} == {
        k: normal(v) for k, v in before.items()
    }
    assert not (root / "var/lib/hotpath/tune/snapshot.json").exists()


def test_revert_reports_refusals_and_keeps_snapshot(cli, tmp_path, root):
    prof = profile(tmp_path, BASIC)
    assert cli(*apply_args(root, prof)).status == 0
    path = root / "sys/kernel/debug/sched/migration_cost_ns"
    if os.geteuid() != 0:
        pytest.skip("chattr +i needs root; the suite runs as root here")
    set_immutable(path, True)
    try:
        res = cli("tune", "revert", "--root", str(root))
    finally:
        set_immutable(path, False)
    assert res.status == 1
    assert "REFUSED debugfs:sched/migration_cost_ns = 500000: Operation not permitted" in res.out
    assert "INCOMPLETE" in res.out
    assert (root / "var/lib/hotpath/tune/snapshot.json").exists()
    res = cli("tune", "revert", "--root", str(root))  # once the kernel lets it
    assert res.status == 0
    assert normal(path.read_text()) == "500000"


def test_revert_forget_drops_the_snapshot_writing_nothing(cli, tmp_path, root):
    prof = profile(tmp_path, BASIC)
    assert cli(*apply_args(root, prof)).status == 0
    applied = tree(root)
    res = cli("tune", "revert", "--root", str(root), "--forget")
    assert res.status == 0
    assert "snapshot value vm.swappiness = 60" in res.out
    assert tree(root) == applied
    assert not (root / "var/lib/hotpath/tune/snapshot.json").exists()


# ---------------------------------------------------------------- keys the kernel lacks


def test_unknown_keys_skipped_with_warning_alternative_used(cli, tmp_path, root):
    body = (
        setting('"kernel.no_such_knob"', "1")
        + setting('["kernel.sched_migration_cost_ns", "debugfs:sched/migration_cost_ns"]', "2000")
        + setting('"sched_feature:MISSING_FEATURE"', "false")
        + setting('"block:nvme*:read_ahead_kb"', "0")
        + setting('"vm.reap_mem_on_sigkill"', "1", "android_only = true")
        + setting('"vm.swappiness"', "5")
    )
    res = cli(*apply_args(root, profile(tmp_path, body)))
    assert res.status == 0, res.err
    assert "skipped kernel.no_such_knob: not on this kernel: tried kernel.no_such_knob" in res.err
    assert "sched_feature:MISSING_FEATURE: not on this kernel" in res.err
    assert "block:nvme*:read_ahead_kb: not on this kernel" in res.err
    assert "vm.reap_mem_on_sigkill: not on this kernel (Android kernels only)" in res.err
    assert (root / "sys/kernel/debug/sched/migration_cost_ns").read_text() == "2000\n"
    assert (root / "proc/sys/vm/swappiness").read_text() == "5\n"


def test_read_only_key_skipped(cli, tmp_path, root):
    body = setting('"kernel.osrelease"', '"9.9"') + setting('"vm.swappiness"', "5")
    res = cli(*apply_args(root, profile(tmp_path, body)))
    assert res.status == 0
    assert "kernel.osrelease is read-only here (now 6.1.0-fake)" in res.err
    assert (root / "proc/sys/kernel/osrelease").read_text() == "6.1.0-fake\n"


# ---------------------------------------------------------------- issue 28: state and root


def snapshot_of(root: Path) -> Path:
    return root / "var/lib/hotpath/tune/snapshot.json"


def forge(root: Path, edit) -> None:
    """Rewrite the snapshot apply left, as a tamperer would (mode kept)."""
    path = snapshot_of(root)
    data = json.loads(path.read_text())
    edit(data)
    path.write_text(json.dumps(data))


def test_revert_refuses_a_snapshot_others_can_write(cli, tmp_path, root):
    prof = profile(tmp_path, setting('"vm.swappiness"', "10"))
    assert cli(*apply_args(root, prof)).status == 0
    snapshot = snapshot_of(root)
    for target, mode, what in (
        (snapshot, 0o666, "writable by others"),
        (snapshot.parent, 0o777, "writable by others"),
    ):
        target.chmod(mode)
        res = cli("tune", "revert", "--root", str(root))
        assert res.status == 2, res.out
        assert str(target) in res.err and what in res.err and "nothing written" in res.err
        assert (root / "proc/sys/vm/swappiness").read_text() == "10\n"
        target.chmod(0o700 if target.is_dir() else 0o600)
    os.chown(snapshot, 12345, -1)  # another user's file: refused however tight its mode
    res = cli("tune", "revert", "--root", str(root))
    assert res.status == 2 and "owned by uid 12345" in res.err
    os.chown(snapshot, os.geteuid(), -1)
    assert cli("tune", "revert", "--root", str(root)).status == 0
    assert (root / "proc/sys/vm/swappiness").read_text() == "60\n"


def test_revert_refuses_an_entry_the_apply_did_not_record(cli, tmp_path, root):
    prof = profile(tmp_path, setting('"vm.swappiness"', "10"))
    assert cli(*apply_args(root, prof)).status == 0
    (root / "proc/sys/kernel/core_pattern").write_text("core\n")
    entry = {
        "name": "kernel.core_pattern",
        "kind": "sysctl",
        "relative": "proc/sys/kernel/core_pattern",
        "feature": None,
        "value": "|/tmp/evil %p",
    }
    forge(root, lambda data: data["entries"].append(entry))
    res = cli("tune", "revert", "--root", str(root))
    assert res.status == 2, res.out
    assert "kernel.core_pattern" in res.err and "not recorded" in res.err
    assert "nothing written" in res.err
    assert (root / "proc/sys/kernel/core_pattern").read_text() == "core\n"
    assert (root / "proc/sys/vm/swappiness").read_text() == "10\n"


def test_revert_refuses_an_entry_whose_path_is_not_its_key(cli, tmp_path, root):
    prof = profile(tmp_path, setting('"vm.swappiness"', "10"))
    assert cli(*apply_args(root, prof)).status == 0
    forge(root, lambda d: d["entries"][0].update(relative="proc/sys/kernel/timer_migration"))
    res = cli("tune", "revert", "--root", str(root))
    assert res.status == 2, res.out
    assert "proc/sys/kernel/timer_migration" in res.err and "nothing written" in res.err
    assert (root / "proc/sys/kernel/timer_migration").read_text() == "1\n"


@pytest.mark.parametrize("value", ["1\nvm.x=2", "1\n", "6\x1b[2J0", "60 60", "sixty", "6\u20280"])
def test_revert_validates_snapshot_values(cli, tmp_path, root, value):
    prof = profile(tmp_path, setting('"vm.swappiness"', "10"))
    assert cli(*apply_args(root, prof)).status == 0
    forge(root, lambda d: d["entries"][0].update(value=value))
    res = cli("tune", "revert", "--root", str(root))
    assert res.status == 2, res.out
    assert "vm.swappiness" in res.err and "allowed" in res.err and "nothing written" in res.err
    assert "\x1b" not in res.err and "\u2028" not in res.err  # named escaped, never echoed raw
    assert (root / "proc/sys/vm/swappiness").read_text() == "10\n"


def test_root_whose_proc_sys_links_out_refused(cli, tmp_path):
    root = tmp_path / "linked"
    (root / "proc").mkdir(parents=True)
    prof = profile(tmp_path, setting('"vm.swappiness"', "10"))
    # The host's real settings: only read-only commands are run against them.
    (root / "proc/sys").symlink_to("/proc/sys")
    for args in (
        apply_args(root, prof, "--dry-run"),
        ["tune", "diff", str(prof), "--root", str(root)],
    ):
        res = cli(*args)
        assert res.status == 2, res.out
        assert "outside" in res.err and "refused" in res.err
        assert "would write" not in res.out and "->" not in res.out
    # Another tree standing in for the host's, so that a real apply can be tried.
    host = make_root(tmp_path / "host")
    (root / "proc/sys").unlink()
    (root / "proc/sys").symlink_to(host / "proc/sys")
    res = cli(*apply_args(root, prof))
    assert res.status == 2, res.out
    assert "outside" in res.err and "nothing written" in res.err
    assert (host / "proc/sys/vm/swappiness").read_text() == "60\n"
    assert not (root / "var").exists()


def test_root_that_resolves_to_slash_refused(cli, tmp_path):
    # A link to / would read (and, applied, write) the host's settings while
    # saying "under ROOT": refused unless / is given as such. Only read-only
    # commands are tried, so that even before the refusal nothing is written.
    link = tmp_path / "slash"
    link.symlink_to("/")
    prof = profile(tmp_path, setting('"vm.swappiness"', "10"))
    for args in (
        ["tune", "diff", str(prof), "--root", str(link)],
        ["tune", "verify", str(prof), "--root", str(link)],
        apply_args(link, prof, "--dry-run"),
    ):
        res = cli(*args)
        assert res.status == 2, (args, res.out, res.err)
        assert f"--root '{link}'" in res.err and "resolves to /" in res.err, res.err
        assert "allowed" in res.err
        assert "vm.swappiness" not in res.out and "under" not in res.out


def test_root_whose_state_folder_links_out_refused(cli, tmp_path, root):
    outside = tmp_path / "outside-var"
    outside.mkdir()
    (root / "var").symlink_to(outside)
    res = cli(*apply_args(root, profile(tmp_path, setting('"vm.swappiness"', "10"))))
    assert res.status == 2, res.out
    assert "outside" in res.err and "--state-dir" in res.err
    assert list(outside.iterdir()) == []
    assert (root / "proc/sys/vm/swappiness").read_text() == "60\n"


def test_apply_refused_while_another_holds_the_state(cli, tmp_path, root):
    from hotpath.labs.tune.apply import State

    prof = profile(tmp_path, setting('"vm.swappiness"', "10"))
    state = State(root / "var/lib/hotpath/tune")
    with state.locked(create=True):  # this process is the other apply, mid-way
        proc = run_tune(["apply", str(prof), "--root", str(root)])
        assert proc.returncode == 2, proc.stderr
        assert "another" in proc.stderr and "one at a time" in proc.stderr
        assert (root / "proc/sys/vm/swappiness").read_text() == "60\n"
        assert not snapshot_of(root).exists()
    assert cli(*apply_args(root, prof)).status == 0
    with state.locked(create=False):  # and the other revert
        proc = run_tune(["revert", "--root", str(root)])
        assert proc.returncode == 2, proc.stderr
        assert "one at a time" in proc.stderr
        assert (root / "proc/sys/vm/swappiness").read_text() == "10\n"
    assert cli("tune", "revert", "--root", str(root)).status == 0  # free again


def test_two_applies_at_once_lose_no_original_value(tmp_path, root):
    """Two processes, two profiles, one root: at most one applies, and its revert
    restores every original value. The race is real, so it is tried a few times."""
    a = profile(tmp_path, setting('"vm.swappiness"', "10"), "a")
    b = profile(tmp_path, setting('"kernel.timer_migration"', "0"), "b")
    before = tree(root)
    tune = [sys.executable, "-m", "hotpath", "tune"]
    for _ in range(4):
        procs = [
            subprocess.Popen(
                [*tune, "apply", str(p), "--root", str(root)],
                cwd=REPO,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                text=True,
            )
            for p in (a, b)
        ]
        outs = []
        for proc in procs:
            out, err = proc.communicate(timeout=60)
            outs.append((proc.returncode, out, err))
        assert sorted(rc for rc, _, _ in outs) == [0, 2], outs
        loser = next(err for rc, _, err in outs if rc == 2)
        assert "one at a time" in loser, loser
        res = run_tune(["revert", "--root", str(root)])
        assert res.returncode == 0, res.stderr
        assert tree(root) == before


def test_verify_with_nothing_to_verify_fails(cli, tmp_path, root):
    prof = profile(tmp_path, setting('"kernel.no_such_knob"', "1"))
    res = cli("tune", "verify", str(prof), "--root", str(root))
    assert res.status == 1, res.out
    assert "nothing verified" in res.out


def test_diff_errors_go_to_stderr(cli, tmp_path, root):
    (root / "proc/sys/kernel/evil").symlink_to(tmp_path)
    prof = profile(tmp_path, setting('"vm.swappiness"', "5") + setting('"kernel.evil"', "1"))
    res = cli("tune", "diff", str(prof), "--root", str(root))
    assert res.status == 2
    assert "error: key 'kernel.evil'" in res.err
    assert "error:" not in res.out


def test_revert_after_a_partial_revert_does_not_say_the_apply_stopped(cli, tmp_path, root):
    if os.geteuid() != 0:
        pytest.skip("chattr +i needs root; the suite runs as root here")
    prof = profile(tmp_path, BASIC)
    assert cli(*apply_args(root, prof)).status == 0
    path = root / "sys/kernel/debug/sched/migration_cost_ns"
    set_immutable(path, True)
    try:
        assert cli("tune", "revert", "--root", str(root)).status == 1
    finally:
        set_immutable(path, False)
    res = cli("tune", "revert", "--root", str(root))
    assert res.status == 0, res.out
    assert "did not finish" not in res.out


def test_revert_refuses_a_snapshot_whose_names_hold_control_characters(cli, tmp_path, root):
    prof = profile(tmp_path, setting('"vm.swappiness"', "10"))
    assert cli(*apply_args(root, prof)).status == 0
    forge(root, lambda d: d.update(profile="x\x1b]0;owned\x07"))
    res = cli("tune", "revert", "--root", str(root))
    assert res.status == 2, res.out
    assert "\x1b" not in res.err and "\\x1b" in res.err and "nothing written" in res.err
    assert (root / "proc/sys/vm/swappiness").read_text() == "10\n"
