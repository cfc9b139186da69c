# SPDX-License-Identifier: GPL-2.0-only
"""hotpath tune on a fake kernel tree (tune_tree): what is refused before anything
is written (traversal, links out, bad values, bad input), profiles (include,
the built-in ones and their reasons) and export to sysctl.d and tuned.
"""

import errno
import os
from pathlib import Path

import pytest

from hotpath.labs.tune import profile as profile_mod
from tune_tree import apply_args, evaluate_args, make_root, profile, setting, tree


@pytest.fixture
def root(tmp_path):
    return make_root(tmp_path)


# ---------------------------------------------------------------- refusals: nothing written


@pytest.mark.parametrize(
    "key",
    [
        '"../../etc/passwd"',
        '"/etc/passwd"',
        '"kernel/../../../etc/passwd"',
        '"kernel..sched"',
        '"debugfs:../../../etc/passwd"',
        '"debugfs:/etc/passwd"',
        '"block:../..:read_ahead_kb"',
        '"block:vda:../scheduler"',
        '"sched_feature:NO_NEXT_BUDDY"',
        '"nosuchprefix:x"',
        '"kernel.a b"',
    ],
)
def test_traversal_refused(cli, tmp_path, root, key):
    before = tree(root)
    res = cli(*apply_args(root, profile(tmp_path, setting(key, "1"))))
    assert res.status == 2, res.err
    assert "allowed" in res.err
    assert tree(root) == before


def test_symlinks_out_of_the_root_refused(cli, tmp_path, root):
    outside = tmp_path / "outside"
    outside.mkdir()
    secret = outside / "secret"
    secret.write_text("42\n")
    (root / "proc/sys/kernel/evil").symlink_to(secret)
    (root / "proc/sys/escape").symlink_to(outside)
    (root / "sys/block/sdz").symlink_to(outside)
    (outside / "queue").mkdir()
    (outside / "queue/read_ahead_kb").write_text("128\n")
    for key in ('"kernel.evil"', '"escape.secret"', '"block:sd*:read_ahead_kb"'):
        body = setting('"vm.swappiness"', "5") + setting(key, "7")
        res = cli(*apply_args(root, profile(tmp_path, body)))
        assert res.status == 2, (key, res.err)
        assert "outside" in res.err and "refused" in res.err
        assert "nothing written" in res.err
    assert secret.read_text() == "42\n"
    assert (outside / "queue/read_ahead_kb").read_text() == "128\n"
    assert (root / "proc/sys/vm/swappiness").read_text() == "60\n"


def test_directory_in_place_of_a_knob_refused(cli, tmp_path, root):
    (root / "proc/sys/kernel/adir").mkdir()
    body = setting('"vm.swappiness"', "5") + setting('"kernel.adir"', "1")
    res = cli(*apply_args(root, profile(tmp_path, body)))
    assert res.status == 2
    assert "kernel.adir" in res.err and "not a regular file" in res.err
    assert (root / "proc/sys/vm/swappiness").read_text() == "60\n"


@pytest.mark.parametrize(
    ("key", "value", "message"),
    [
        ('"net.ipv4.tcp_rmem"', "4096", "has 1 word(s); allowed: 3"),
        ('"vm.swappiness"', '"lots"', "is not an integer"),
        ('"block:vda:scheduler"', '"bfq"', "allowed on this device: none, mq-deadline, kyber"),
        ('"sched_feature:NEXT_BUDDY"', "1", "allowed: true (on) or false (off)"),
        ('"vm.swappiness"', '"10ms"', "unit in '10ms' not allowed"),
        ('"debugfs:sched/migration_cost_ns"', '"1.5ns"', "not a whole number of ns"),
        ('"vm.swappiness"', '"1\\n2"', "has 2 word(s)"),
        ('"vm.swappiness"', "{ a = 1 }", "allowed: a string, an integer"),
    ],
)
def test_value_form_checked_before_writing(cli, tmp_path, root, key, value, message):
    before = tree(root)
    body = setting('"kernel.timer_migration"', "0") + setting(key, value)
    res = cli(*apply_args(root, profile(tmp_path, body)))
    assert res.status == 2
    assert message in res.err
    assert tree(root) == before


# ---------------------------------------------------------------- profiles


def test_include_and_override(cli, tmp_path, root):
    profile(tmp_path, setting('"vm.swappiness"', "10") + setting('"vm.page-cluster"', "0"), "base")
    child = tmp_path / "child.toml"
    child.write_text(
        '[profile]\nsummary = "child"\ninclude = ["base"]\n\n' + setting('"vm.swappiness"', "33")
    )
    prof = profile_mod.load(str(child))
    assert [(s.name, s.value, s.origin) for s in prof.settings] == [
        ("vm.swappiness", 33, "child"),
        ("vm.page-cluster", 0, "base"),
    ]
    res = cli("tune", "show", str(child))
    assert "vm.page-cluster = 0  [from base]" in res.out


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("[profile]\nsummary = 'x'\n", "no settings"),
        ("not toml [", "not valid TOML"),
        ("[profile]\nsummary = 'x'\ncolour = 1\n", "fields allowed"),
        (
            "[profile]\nsummary = 'x'\n[[setting]]\nkey = 'vm.swappiness'\nvalue = 1\n"
            "source = 's'\n",
            "'reason' must be a non-empty string",
        ),
        (
            "[profile]\nsummary = 'x'\n[[setting]]\nkey = 'vm.swappiness'\nreason = 'r'\n"
            "source = 's'\n",
            "'value' is missing",
        ),
        ("[profile]\nsummary = 'x'\ninclude = ['bad']\n", "include cycle"),
    ],
)
def test_bad_profiles_exit_2(cli, tmp_path, text, message):
    path = tmp_path / "bad.toml"
    path.write_text(text)
    res = cli("tune", "show", str(path))
    assert res.status == 2
    assert message in res.err


@pytest.mark.parametrize(
    "args",
    [
        ["tune", "show", "no-such-profile"],
        ["tune", "show", "../etc/passwd"],
        ["tune", "apply", "ktweak", "--root", "/nonexistent-root"],
        ["tune", "revert", "--root", "{root}"],
        ["tune", "export", "ktweak", "--sysctl-d", "--priority", "5"],
        ["tune", "export", "ktweak"],
        ["tune", "evaluate", "ktweak", "--root", "{root}", "--rounds", "1"],
        ["tune", "evaluate", "ktweak", "--root", "{root}", "--workloads", "nope"],
        ["tune", "evaluate", "ktweak", "--root", "{root}", "--command", "no name"],
        ["tune", "evaluate", "ktweak", "--root", "{root}", "--per-setting", "sometimes"],
    ],
)
def test_bad_input_exit_2_nothing_changed(cli, root, args):
    before = tree(root)
    res = cli(*[a.replace("{root}", str(root)) for a in args])
    assert res.status == 2, res.err
    assert "allowed" in res.err or "invalid choice" in res.err or "required" in res.err
    assert tree(root) == before
    assert not (root / "var").exists()


def test_builtin_profiles_load_with_reasons():
    names = profile_mod.builtin_names()
    assert {"ktweak", "low-latency-server", "throughput-server"} <= set(names)
    for name in names:
        for s in profile_mod.load(name).settings:
            assert len(s.reason) > 20 and s.source, (name, s.name)


# Every tunable seed 003 lists under "The Tweaks" (the governor, CPU boost and
# ZRAM ones are not single kernel files: the profile's header says so).
SEED_KEYS = [
    "kernel.perf_cpu_time_max_percent",
    "kernel.randomize_va_space",
    "kernel.sched_autogroup_enabled",
    "kernel.sched_enable_thread_grouping",
    "kernel.sched_child_runs_first",
    "kernel.sched_downmigrate",
    "kernel.sched_upmigrate",
    "kernel.sched_group_downmigrate",
    "kernel.sched_group_upmigrate",
    "kernel.sched_tunable_scaling",
    "kernel.sched_latency_ns",
    "kernel.sched_min_granularity_ns",
    "kernel.sched_migration_cost_ns",
    "kernel.sched_min_task_util_for_boost",
    "kernel.sched_min_task_util_for_colocation",
    "kernel.sched_nr_migrate",
    "kernel.sched_rt_runtime_us",
    "kernel.sched_schedstats",
    "kernel.sched_wakeup_granularity_ns",
    "kernel.timer_migration",
    "net.ipv4.tcp_ecn",
    "net.ipv4.tcp_fastopen",
    "net.ipv4.tcp_slow_start_after_idle",
    "net.ipv4.tcp_syncookies",
    "net.ipv4.tcp_timestamps",
    "vm.compact_unevictable_allowed",
    "vm.dirty_background_ratio",
    "vm.dirty_ratio",
    "vm.dirty_expire_centisecs",
    "vm.dirty_writeback_centisecs",
    "vm.extfrag_threshold",
    "vm.oom_dump_tasks",
    "vm.page-cluster",
    "vm.reap_mem_on_sigkill",
    "vm.stat_interval",
    "vm.swappiness",
    "vm.vfs_cache_pressure",
    "vm.watermark_scale_factor",
    "sched_feature:GENTLE_FAIR_SLEEPERS",
    "sched_feature:NEXT_BUDDY",
    "sched_feature:STRICT_SKIP_BUDDY",
    "sched_feature:NONTASK_CAPACITY",
    "sched_feature:TTWU_QUEUE",
    "block:*:iostats",
    "block:*:read_ahead_kb",
    "block:*:nr_requests",
    "block:*:scheduler",
]
ANDROID = [
    "kernel.sched_enable_thread_grouping",
    "kernel.sched_downmigrate",
    "kernel.sched_upmigrate",
    "kernel.sched_group_downmigrate",
    "kernel.sched_group_upmigrate",
    "kernel.sched_min_task_util_for_boost",
    "kernel.sched_min_task_util_for_colocation",
    "vm.reap_mem_on_sigkill",
]


def test_ktweak_profile_has_every_seed_setting():
    prof = profile_mod.load("ktweak")
    by_name = {s.name: s for s in prof.settings}
    assert sorted(by_name) == sorted(SEED_KEYS)
    assert sorted(n for n, s in by_name.items() if s.android_only) == sorted(ANDROID)
    assert by_name["kernel.sched_latency_ns"].keys[1].text == "debugfs:sched/latency_ns"


# ---------------------------------------------------------------- export


def test_export_sysctl_d(cli, tmp_path):
    res = cli("tune", "export", "ktweak", "--sysctl-d", "--output", str(tmp_path / "out"))
    assert res.status == 0, res.err
    text = (tmp_path / "out/60-hotpath-ktweak.conf").read_text()
    lines = text.splitlines()
    assert "vm.swappiness = 80" in lines
    assert "-kernel.sched_latency_ns = 10000000" in lines  # has a debugfs alternative
    assert "-kernel.sched_upmigrate = 60 60" in lines  # Android only
    assert "# not a sysctl, sysctl.d cannot set it: block:*:read_ahead_kb = 0" in lines
    i = lines.index("vm.swappiness = 80")
    assert lines[i - 1].startswith("# Source:") and lines[i - 2].startswith("#")
    for line in lines:
        assert line == "" or line.startswith("#") or " = " in line


def test_export_tuned(cli):
    res = cli("tune", "export", "ktweak", "--tuned")
    assert res.status == 0
    text = res.out
    assert "[main]\nsummary=" in text
    sysctl, sysfs = text.split("\n[sysctl]\n")[1].split("\n[sysfs]\n")
    assert "\nvm.swappiness=80\n" in sysctl
    assert "\n/sys/block/*/queue/read_ahead_kb=0\n" in sysfs
    assert "\n#   echo NO_GENTLE_FAIR_SLEEPERS > /sys/kernel/debug/sched/features\n" in sysfs
    assert "/sys/kernel/debug/sched/features=" not in sysfs  # one value per file in [sysfs]
    assert "\n/sys/kernel/debug/sched/latency_ns=10000000\n" in sysfs
    assert "# Swap a little less eagerly" in sysctl


# ---------------------------------------------------------------- issue 28: profile text, losses


INJECTED = "[sysctl]\nkernel.core_pattern=|/tmp/evil %p"
INJECTED_TOML = '"[sysctl]\\nkernel.core_pattern=|/tmp/evil %p"'  # the same, as TOML says it


@pytest.mark.parametrize(
    ("head", "row", "field"),
    [
        (f"summary = {INJECTED_TOML}", "", "summary"),
        (f"summary = 'x'\nsource = {INJECTED_TOML}", "", "source"),
        ("summary = 'x'", f"reason = {INJECTED_TOML}\nsource = 's'", "reason"),
        ("summary = 'x'", f"reason = 'r'\nsource = {INJECTED_TOML}", "source"),
        ("summary = 'x'", 'reason = "r"\nsource = "s\\u202e"', "source"),  # bidi override
        ('summary = "x\\r"', "", "summary"),
        ('summary = "x\\u2028y"', "", "summary"),
        ("summary = 'x'\ninclude = [\"a\\nb\"]", "", "include"),
    ],
)
def test_free_text_with_control_characters_refused(cli, tmp_path, head, row, field):
    row = row or "reason = 'r'\nsource = 's'"
    path = tmp_path / "bad.toml"
    path.write_text(f"[profile]\n{head}\n[[setting]]\nkey = 'vm.swappiness'\nvalue = 1\n{row}\n")
    for args in (["show"], ["export", "--tuned"], ["export", "--sysctl-d"]):
        res = cli("tune", args[0], str(path), *args[1:])
        assert res.status == 2, (args, res.out)
        assert f"'{field}'" in res.err and "allowed" in res.err
        assert res.out == ""
        assert "\n[sysctl]" not in res.err and "\u202e" not in res.err


def test_profile_file_name_with_a_newline_refused(cli, tmp_path):
    path = profile(tmp_path, setting('"vm.swappiness"', "1"), "evil\n[sysctl]")
    res = cli("tune", "export", str(path), "--tuned")
    assert res.status == 2
    assert "\\n" in res.err and "allowed" in res.err


def test_output_neutralises_what_slips_past_loading(monkeypatch, tmp_path):
    from hotpath.labs.tune import export

    prof = profile_mod.load(str(profile(tmp_path, setting('"vm.swappiness"', "1"))))
    prof.summary = INJECTED  # as if a check had been missed
    text = export.tuned(prof)
    assert "\n[sysctl]\nkernel.core_pattern" not in text
    assert "summary=[sysctl]\\nkernel.core_pattern=|/tmp/evil %p" in text


def test_fifo_as_profile_named_and_never_opened_blocking(cli, tmp_path):
    fifo = tmp_path / "p.toml"
    os.mkfifo(fifo)
    res = cli("tune", "show", str(fifo))  # no writer: a blocking open would hang here
    assert res.status == 2
    assert "not a regular file" in res.err and "no such file" not in res.err


def test_binary_profile_refused_in_one_line(cli, tmp_path):
    path = tmp_path / "bin.toml"
    path.write_bytes(b"\x7fELF\x02\x01\x01\x00\xff\xfe\x00summary")
    res = cli("tune", "show", str(path))
    assert res.status == 2
    assert "UTF-8" in res.err and "Traceback" not in res.err
    assert len(res.err.strip().splitlines()) == 1


LOSS = setting(
    '"vm.swappiness"',
    "10",
    'lowers_security = { name = "swap", reason = "a test loss" }',
) + setting('"kernel.timer_migration"', "0")


def test_security_lowering_setting_refused_without_naming_the_loss(cli, tmp_path, root):
    before = tree(root)
    prof = profile(tmp_path, LOSS)
    for args in (
        apply_args(root, prof),
        apply_args(root, prof, "--dry-run"),
        evaluate_args(prof, root, 3, "x=true"),
        apply_args(root, prof, "--allow-security-loss", "aslr"),  # not this profile's loss
    ):
        res = cli(*args)
        assert res.status == 2, (args, res.err)
        assert "vm.swappiness" in res.err and "swap" in res.err and "allowed" in res.err
        assert tree(root) == before
        assert not (root / "var").exists()
    res = cli(*apply_args(root, prof, "--allow-security-loss", "swap"))
    assert res.status == 0, res.err
    assert (root / "proc/sys/vm/swappiness").read_text() == "10\n"


def test_a_loss_already_in_place_needs_no_flag(cli, tmp_path, root):
    (root / "proc/sys/vm/swappiness").write_text("10\n")
    res = cli(*apply_args(root, profile(tmp_path, LOSS)))
    assert res.status == 0, res.err


def test_security_lowering_settings_shown_first(cli, tmp_path, root):
    prof = profile(tmp_path, setting('"kernel.timer_migration"', "0") + LOSS)
    show = cli("tune", "show", str(prof)).out
    assert show.index("LOWERS SECURITY") < show.index("kernel.timer_migration")
    assert "swap: vm.swappiness = 10: a test loss" in show
    diff = cli("tune", "diff", str(prof), "--root", str(root)).out.splitlines()
    assert diff[0].startswith("vm.swappiness") and "LOWERS SECURITY (swap)" in diff[0]
    for fmt in ("--sysctl-d", "--tuned"):
        text = cli("tune", "export", str(prof), fmt).out
        first_setting = min(text.index("vm.swappiness"), text.index("kernel.timer_migration"))
        assert text.index("# LOWERS SECURITY") < first_setting
        assert "# LOWERS SECURITY (swap): vm.swappiness = 10: a test loss" in text


@pytest.mark.parametrize(
    ("field", "message"),
    [
        ('lowers_security = "aslr"', "'lowers_security' must be"),
        ('lowers_security = { name = "ASLR!", reason = "r" }', "name 'ASLR!'"),
        ('lowers_security = { name = "aslr" }', "'reason' must be a non-empty string"),
        ('lowers_security = { name = "aslr", reason = "r", x = 1 }', "allowed: name, reason"),
    ],
)
def test_bad_security_marks_refused(cli, tmp_path, field, message):
    res = cli("tune", "show", str(profile(tmp_path, setting('"vm.swappiness"', "1", field))))
    assert res.status == 2
    assert message in res.err


def test_ktweak_marks_its_security_losses():
    prof = profile_mod.load("ktweak")
    marked = {s.name: s.lowers_security.name for s in prof.settings if s.lowers_security}
    assert marked == {"kernel.randomize_va_space": "aslr", "net.ipv4.tcp_syncookies": "syncookies"}


# ---------------------------------------------------------------- issue 28: export on a full disk


@pytest.fixture
def full_disk(monkeypatch):
    """Every file written gets a few bytes out, then ENOSPC, as on a full disk."""

    def write_text(self, data, *args, **kwargs):
        with open(self, "w") as fh:
            fh.write(data[:8])
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC), str(self))

    monkeypatch.setattr(Path, "write_text", write_text)


@pytest.mark.parametrize("fmt", ["--sysctl-d", "--tuned"])
def test_export_on_a_full_disk_leaves_nothing(cli, tmp_path, full_disk, fmt):
    out = tmp_path / "out"
    out.mkdir()
    res = cli("tune", "export", "ktweak", fmt, "--output", str(out))
    assert res.status == 1, res.err
    assert "No space left on device" in res.err and str(out) in res.err
    assert len(res.err.strip().splitlines()) == 1
    assert list(out.iterdir()) == []
