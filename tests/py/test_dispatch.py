# SPDX-License-Identifier: GPL-2.0-only
"""`hotpath dispatch`: winners per length, the row's steps, and the command's output."""

import itertools
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

from hotpath import dispatch
from hotpath.commands.dispatch import _parse
from hotpath.machine import Fingerprint
from hotpath.protocol import parse_facts
from hotpath.render import dispatch as render
from hotpath.results import FigureResult, RunResult
from hotpath.runner import locate_runner, runner_facts

# The runner's dispatch facts as `make record-facts` recorded them.
FACTS_FILE = Path(__file__).parent / "fixtures" / "runner-facts.json"
FACTS = parse_facts(json.loads(FACTS_FILE.read_text())).dispatch
CSUM, CRC = FACTS.of("csum_partial"), FACTS.of("crc32c")


def fig(variant, size, median, mode="latency", align=0, primitive="csum_partial"):
    return FigureResult(
        lab="csum", primitive=primitive, variant=variant, size=size, align=align, mode=mode,
        unit="cycles", status="ok", n=40, median=median, ci_lo=median, ci_hi=median,
    )  # fmt: skip


def run_of(*figures):
    run = RunResult(command="dispatch", started="now", machine=Fingerprint())
    run.figures.extend(figures)
    return run


def test_winner_per_length_sticks_within_two_percent():
    run = run_of(
        fig("hp-csum-scalar", 128, 10.0), fig("hp-csum-avx2", 128, 12.0), fig("hp-csum", 128, 10),
        # avx2 wins by 1%: scalar keeps its place (no flapping on noise)
        fig("hp-csum-scalar", 256, 20.2), fig("hp-csum-avx2", 256, 20.0),
        fig("hp-csum-scalar", 512, 40.0), fig("hp-csum-avx2", 512, 25.0), fig("hp-csum", 512, 40),
    )  # fmt: skip
    points = dispatch.choose(run, CSUM, 0, FACTS.csum_short)
    assert [(p.size, p.method) for p in points] == [(128, "scalar"), (256, "scalar"),
                                                     (512, "avx2")]  # fmt: skip
    assert points[2].gain == pytest.approx(40 / 25)
    assert points[1].gain is None  # no in-use figure at 256
    assert dispatch.steps(points, FACTS.steps_max, "scalar") == [("scalar", 0), ("avx2", 512)]


def test_both_modes_count():
    crc = {"primitive": "crc32c"}
    run = run_of(
        fig("sse42-1stream", 64, 20.0, **crc), fig("sse42-3way", 64, 22.0, **crc),
        fig("sse42-1stream", 64, 20.0, "throughput", **crc),
        fig("sse42-3way", 64, 14.0, "throughput", **crc),
    )  # fmt: skip
    points = dispatch.choose(run, CRC, 0)
    assert points[0].method == "sse42-3way"  # 1.1x in latency, 0.7x in throughput
    # one stream is 10% faster in latency: no one method serves both modes here
    (split,) = points[0].split
    assert (split.mode, split.rival, split.ratio) == ("latency", "sse42", pytest.approx(1.1))
    # both methods' figures in both modes, for the output's statement of the trade
    assert split.chosen_by_mode == (("latency", 22.0), ("throughput", 14.0))
    assert split.rival_by_mode == (("latency", 20.0), ("throughput", 20.0))
    lines = render.split_lines((("crc32c", points),))
    assert lines[1].startswith("latency and throughput split at 1 length(s) on this CPU")
    assert lines[2] == (
        "  crc32c 64: latency wants sse42 (20.0 latency, 20.0 throughput), "
        "the row runs sse42-3way (22.0 latency, 14.0 throughput)"
    )
    assert render.split_lines((("crc32c", points[:0]),)) == []


def test_a_length_with_a_spoiled_method_is_left_to_the_step_before():
    # avx2 lost its only figure at 256 to a neighbour: scalar "winning" there
    # alone is no evidence, so 256 is undecided and avx2 starts at 512
    spoiled = fig("hp-csum-avx2", 256, 0.0)
    spoiled.status, spoiled.median, spoiled.samples_taken = "n/a", None, 145
    run = run_of(
        fig("hp-csum-scalar", 128, 10.0), fig("hp-csum-avx2", 128, 12.0),
        fig("hp-csum-scalar", 256, 30.0), spoiled,
        fig("hp-csum-scalar", 512, 40.0), fig("hp-csum-avx2", 512, 25.0),
    )  # fmt: skip
    points = dispatch.choose(run, CSUM, 0, FACTS.csum_short)
    assert [(p.size, p.method) for p in points] == [(128, "scalar"), (512, "avx2")]
    assert dispatch.undecided(run, CSUM, 0, FACTS.csum_short) == [256]
    # a method the CPU lacks (not timed), or a mode it has no figure in (n/a
    # with nothing sampled), is no gap in the evidence
    spoiled.samples_taken = 0
    assert dispatch.undecided(run, CSUM, 0, FACTS.csum_short) == []
    spoiled.status = "not timed"
    assert [p.size for p in dispatch.choose(run, CSUM, 0, FACTS.csum_short)] == [128, 256, 512]
    assert dispatch.undecided(run, CSUM, 0, FACTS.csum_short) == []


def test_no_split_where_the_chosen_method_is_within_three_percent_everywhere():
    run = run_of(
        fig("hp-csum-scalar", 512, 41.0), fig("hp-csum-avx2", 512, 40.0),
        fig("hp-csum-scalar", 512, 30.0, "throughput"),
        fig("hp-csum-avx2", 512, 30.5, "throughput"),
    )  # fmt: skip
    points = dispatch.choose(run, CSUM, 0, FACTS.csum_short)
    assert points[0].split == ()


def test_steps_merge_the_shortest_run_beyond_eight():
    points = [
        dispatch.Point(size, 0, method, 1.0, None)
        for size, method in zip(
            range(64, 64 * 12, 64),
            ["avx2", "avx512", "avx2", "avx512", "avx2", "avx512", "avx2", "avx512", "avx2",
             "avx512", "avx2"],
            strict=True,
        )
    ]  # fmt: skip
    row = dispatch.steps(points, FACTS.steps_max, "scalar")
    assert len(row) <= FACTS.steps_max and row[0] == ("scalar", 0)
    assert all(a[1] < b[1] and a[0] != b[0] for a, b in itertools.pairwise(row))


@pytest.mark.usefixtures("fake_runner")
def test_command_measures_a_spoiled_length_again(cli, monkeypatch, tmp_path: Path):
    # the neighbour left: the length measured again is decided
    monkeypatch.setenv("FAKE_RUNNER_SPOIL", "sse42-1stream:64")
    monkeypatch.setenv("FAKE_RUNNER_SPOIL_ONCE", str(tmp_path / "spoiled-once"))
    res = cli("dispatch", "--rounds", "5")
    assert res.status == 0, res.err
    assert (tmp_path / "spoiled-once").exists() and "left to the step before" not in res.out
    assert any(line.startswith("crc32c ") and line.split()[1] == "64"
               for line in res.out.splitlines())  # fmt: skip


@pytest.mark.usefixtures("fake_runner")
def test_command_leaves_a_spoiled_length_to_the_step_before(cli, monkeypatch, tmp_path: Path):
    # the neighbour stayed through every measurement of 64 bytes
    row = tmp_path / "row.txt"
    monkeypatch.setenv("FAKE_RUNNER_SPOIL", "sse42-1stream:64")
    res = cli("dispatch", "--rounds", "5")
    assert res.status == 0, res.err
    assert "1 length(s) left to the step before" in res.out and "crc32c 64" in res.out
    assert not any(line.startswith("crc32c ") and line.split()[1] == "64"
                   for line in res.out.splitlines())  # fmt: skip
    # spoiled at every length: the CRC keeps the row in use's steps, said
    monkeypatch.setenv("FAKE_RUNNER_SPOIL", "sse42-1stream:*")
    res = cli("dispatch", "--rounds", "5", "--write", str(row))
    assert res.status == 0, res.err
    assert "crc32c: no length had every method timed" in res.out and "crc32c 64" not in res.out
    assert not any(line.startswith("crc32c ") for line in res.out.splitlines())
    assert row.read_text().splitlines()[-1] == "crc32c = sse42 0, fold4 64"  # the fake's row
    # and nothing decided for either primitive: no row, said, exit 1
    monkeypatch.setenv("FAKE_RUNNER_SPOIL", "sse42-1stream:*,hp-csum:*,rfc1071-ref:*")
    row.unlink()
    res = cli("dispatch", "--rounds", "5", "--write", str(row))
    assert res.status == 1 and "had every method timed" in res.err and not row.exists()
    assert "no clean sample" in res.err


@pytest.mark.usefixtures("fake_runner")
def test_command_refuses_a_folder_to_write(cli, tmp_path: Path):
    res = cli("dispatch", "--write", str(tmp_path))
    assert res.status == 2 and "a folder" in res.err
    res = cli("dispatch", "--rounds", "0")
    assert res.status == 2 and "rounds '0'" in res.err


def test_changed_names_the_primitives_whose_steps_differ():
    use = {"csum.even": [("scalar", 0), ("avx2", 512)], "csum.odd": [("scalar", 0)],
           "crc32c": [("sse42", 0)]}  # fmt: skip
    assert dispatch.changed(FACTS, use, dict(use)) == set()
    assert dispatch.changed(FACTS, use, {**use, "csum.odd": [("scalar", 0), ("avx2", 256)]}) == {
        "csum_partial"
    }
    assert dispatch.changed(FACTS, use, {**use, "crc32c": [("sse42", 0), ("fold4", 64)]}) == {
        "crc32c"
    }
    assert dispatch.changed(FACTS, use, {}) == {"csum_partial", "crc32c"}


@pytest.mark.usefixtures("real_runner")
def test_the_recorded_facts_are_the_runners_and_its_parser_reads_rows():
    # the stand-in runner's facts were recorded from the build's
    # (`make record-facts`): a change on the C side shows here
    runner = locate_runner()
    assert runner_facts().dispatch == FACTS
    assert CSUM.methods["avx2"] == "hp-csum-avx2" and CRC.methods["sse42"] == "sse42-1stream"
    use = "name = a\ncsum.even = scalar 0, avx2  512\ncsum.odd = scalar 0\ncrc32c = sse42 0 # c\n"
    row = _parse(runner, use)
    assert row.ok and row.name == "a" and row.steps["csum.even"] == [("scalar", 0), ("avx2", 512)]
    assert row.text == use.replace("  512", " 512").replace(" # c", "")
    bad = _parse(runner, use.replace("avx2  512", "avx2 64"))
    assert not bad.ok and bad.error == "line 2: csum.even: no vector method below 96 bytes"


def test_run_gains_are_in_use_over_measured_per_length():
    measured = run_of(fig("hotpath", 64, 12.0, primitive="crc32c"),
                      fig("hotpath", 64, 6.0, "throughput", primitive="crc32c"),
                      fig("sse42-1stream", 64, 1.0, primitive="crc32c"))  # fmt: skip
    in_use = run_of(fig("hotpath", 64, 10.0, primitive="crc32c"),
                    fig("hotpath", 64, 5.0, "throughput", primitive="crc32c"))  # fmt: skip
    gains = dispatch.run_gains(FACTS, measured, in_use)
    assert gains == {("crc32c", 64, 0): pytest.approx(10 / 12)}
    slower = dispatch.Point(64, 0, "sse42", 1.0, None, run_ratios=(0.8, 0.9))
    assert slower.run_worse and slower.run_gain == pytest.approx((0.8 * 0.9) ** 0.5)
    # slower in one pair only: run-to-run noise, not flagged
    assert not dispatch.Point(64, 0, "sse42", 1.0, None, run_ratios=(0.8, 1.01)).run_worse
    assert not dispatch.Point(64, 0, "sse42", 1.0, None, run_ratios=(0.98, 0.98)).run_worse
    assert dispatch.Point(64, 0, "sse42", 1.0, None).run_gain is None


@pytest.mark.usefixtures("fake_runner")
@pytest.mark.parametrize("scale", ["1.25", "1"])
def test_command_runs_the_row_it_measured(cli, tmp_path: Path, monkeypatch, scale):
    # The gain column is a prediction from methods timed alone; the run
    # column times hp_csum()/hp_crc32c() under the measured row itself.
    monkeypatch.setenv("FAKE_RUNNER_MEASURED_ROW_SCALE", scale)
    row = tmp_path / "row.txt"
    res = cli("dispatch", "--rounds", "5", "--write", str(row))
    assert res.status == 0, res.err
    assert "row in use: fake (built-in)" in res.out
    header = next(line for line in res.out.splitlines() if line.startswith("primitive"))
    assert header.split()[-2:] == ["gain", "run"]
    summary = next(line for line in res.out.splitlines() if line.startswith("run: "))
    # the methods' table, not the tax table under it
    methods = res.out.partition("\ndispatch tax (")[0]
    crc = [line for line in methods.splitlines() if line.startswith("crc32c ")]
    assert "dispatch tax (row in use: fake)" in res.out
    written = row.read_text().splitlines()
    rows = [line for line in written if not line.startswith("#")]
    assert written[0].startswith("# hotpath dispatch row, measured on ")
    assert any(line.startswith("# measured: ") for line in written)
    assert rows[0].startswith("name = measured-")
    if scale == "1":
        assert "no length ran slower" in summary and not any("!" in line for line in crc)
        assert "repaired row" not in res.out and "the measured row written" in res.out
        assert written[-1] == "crc32c = sse42 0"
    else:
        assert "0.80x at worst" in summary and "ran more than 3% slower" in summary
        assert crc and all(line.rstrip().endswith("0.80x!") for line in crc)
        # every length takes the row in use's method back: sse42 below 64, fold4 from it
        assert "repaired row (the row in use's method" in res.out
        assert "the repaired row written" in res.out
        assert written[-1] == "crc32c = sse42 0, fold4 64"


@pytest.mark.usefixtures("fake_runner")
def test_save_keeps_the_row_where_the_library_looks(cli, tmp_path: Path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    res = cli("dispatch", "--rounds", "5", "--save")
    assert res.status == 0, res.err
    kept = tmp_path / "cache/hotpath/dispatch/FakeVendor-1-2-3-0x1-f1-c000000000000.row"
    assert f"the measured row kept as {kept}: libhotpath and libhpsum take it" in res.out
    text = kept.read_text()
    assert "# measured: " in text and "by hotpath dispatch --rounds 5" in text
    assert "# neighbour: " in text and "\nname = measured-" in text
    assert kept.stat().st_mode & 0o777 == 0o644
    assert cli("dispatch", "--save", "--try", str(kept)).status == 2


@pytest.mark.usefixtures("fake_runner")
def test_command_says_when_the_measured_row_is_the_row_in_use(cli, tmp_path: Path, monkeypatch):
    use = tmp_path / "use.txt"
    use.write_text("name = mine\ncsum.even = scalar 0\ncsum.odd = scalar 0\ncrc32c = sse42 0\n")
    monkeypatch.setenv("HOTPATH_DISPATCH", str(use))
    res = cli("dispatch", "--rounds", "5")
    assert res.status == 0, res.err
    assert "nothing to run" in res.out and "run: " not in res.out


def test_repaired_takes_the_row_in_use_method_where_the_measured_row_ran_slower():
    use = {"crc32c": [("sse42", 0), ("sse42-4way", 96)]}
    assert dispatch.method_at(use["crc32c"], 95) == "sse42"
    assert dispatch.method_at(use["crc32c"], 96) == "sse42-4way"
    points = [
        dispatch.Point(16, 0, "sse42-3way", 1.0, None, run_ratios=(0.8, 0.9, 0.85)),
        dispatch.Point(128, 0, "sse42-seedlast", 1.0, None, run_ratios=(0.8, 1.02, 0.9)),
        dispatch.Point(256, 0, "fold8", 1.0, None, run_ratios=(0.9, 0.9, 0.9)),
    ]
    fixed = dispatch.repaired(points, use["crc32c"])
    assert [p.method for p in fixed] == ["sse42", "sse42-seedlast", "sse42-4way"]
    assert all(p.run_ratios == () for p in fixed)
    assert dispatch.steps(fixed, FACTS.steps_max) == [
        ("sse42", 0),
        ("sse42-seedlast", 128),
        ("sse42-4way", 256),
    ]


@pytest.mark.usefixtures("fake_runner")
@pytest.mark.parametrize(("name", "last"), [("mine", "1.00x"), ("measured-slow", "0.80x!")])
def test_try_runs_a_row_of_ones_own_beside_the_row_in_use(cli, tmp_path: Path, monkeypatch,
                                                          name, last):  # fmt: skip
    # the fake runner slows its own variants under a row named measured-*
    monkeypatch.setenv("FAKE_RUNNER_MEASURED_ROW_SCALE", "1.25")
    row = tmp_path / "mine.txt"
    row.write_text(f"name = {name}\ncsum.even = scalar 0, avx2 512\ncsum.odd = scalar 0, avx2 512\n"
                   "crc32c = sse42 0, sse42-4way 96\n")  # fmt: skip
    res = cli("dispatch", "--try", str(row), "--rounds", "5")
    assert res.status == 0, res.err
    lines = res.out.splitlines()
    assert f"row tried: {row}" in lines
    crc96 = next(line for line in lines if line.startswith("crc32c") and " 96 " in line)
    assert crc96.split()[3:] == ["fold4", "sse42-4way", last]
    assert all(line.endswith("same") for line in lines if line.startswith("csum_partial"))
    assert "timed with the tried row" in lines[-1]


@pytest.mark.usefixtures("fake_runner")
def test_try_refuses_what_it_cannot_run(cli, tmp_path: Path):
    res = cli("dispatch", "--try", str(tmp_path / "none.txt"))
    assert res.status == 2 and "--try" in res.err and "No such file" in res.err
    row = tmp_path / "row.txt"
    row.write_text("name = x\n")
    res = cli("dispatch", "--try", str(row), "--write", str(tmp_path / "out.txt"))
    assert res.status == 2 and "one or the other" in res.err
    assert not (tmp_path / "out.txt").exists()


def hotpath(*args: str) -> subprocess.CompletedProcess:
    """`hotpath ARGS` in a process of its own, with a deadline: a FIFO read
    blocks until a writer comes, and no writer ever does here."""
    return subprocess.run([sys.executable, "-m", "hotpath", *args], capture_output=True,
                          text=True, timeout=120, check=False)  # fmt: skip


# What a row file may be is the library's to say (`hotpath-bench row
# --file`, hp_dispatch_read_file()): these ask the real runner.
@pytest.mark.usefixtures("real_runner")
def test_try_refuses_a_fifo_a_folder_and_a_device_unread(tmp_path: Path):
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    for path, reason in ((fifo, "not a regular file"), (tmp_path, "is a directory"),
                         (Path("/dev/zero"), "not a regular file")):  # fmt: skip
        res = hotpath("dispatch", "--try", str(path), "--rounds", "3")
        assert res.returncode == 2 and res.stdout == "", res.stdout
        assert (f"--try '{path}': {reason}, expected a row file; allowed: a row file"
                in res.stderr)  # fmt: skip


@pytest.mark.usefixtures("real_runner")
def test_try_refuses_a_file_too_large_or_with_a_nul_byte(cli, tmp_path: Path):
    row = tmp_path / "row.txt"
    for data, reason in ((b"\n" * FACTS.row_file_max, "4096 bytes or more"),
                         (b"name = x\0\n", "holds a NUL byte")):  # fmt: skip
        row.write_bytes(data)
        res = cli("dispatch", "--try", str(row), "--rounds", "3")
        assert res.status == 2
        assert f"--try '{row}': {reason}, expected a row file; allowed: a row file" in res.err


@pytest.mark.usefixtures("real_runner")
def test_a_fifo_as_hotpath_dispatch_is_refused_not_waited_on(tmp_path: Path, monkeypatch):
    # The library (in the runner) opens it without blocking, says what it is
    # and takes its built-in row; the runner then refuses to run on another
    # row than the one named: exit 2, where it used to block before main.
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    monkeypatch.setenv("HOTPATH_DISPATCH", str(fifo))
    res = hotpath("list")
    assert res.returncode == 2 and res.stdout == "", res.stdout
    assert (f"HOTPATH_DISPATCH '{fifo}': not a regular file, expected a row file; using the "
            "built-in row") in res.stderr  # fmt: skip
    assert f"HOTPATH_DISPATCH '{fifo}' not taken" in res.stderr


@pytest.mark.usefixtures("fake_runner")
def test_a_run_keeps_and_reports_its_dispatch_row(cli, tmp_path: Path):
    db = str(tmp_path / "h.sqlite")
    res = cli("csum", "--sizes", "64", "--rounds", "5", "--db", db, "--json")
    assert res.status in (0, 1), res.err
    settings = res.json()["settings"]["csum_partial"]
    assert settings["dispatch_row"] == {"name": "fake", "source": "built-in"}
    report = tmp_path / "report"
    assert cli("report", "last", "--db", db, "--out", str(report)).status == 0
    page = (report / "report.html").read_text()
    assert "dispatch row (hp_csum, hp_crc32c): fake (built-in)" in page


@pytest.mark.usefixtures("fake_runner")
def test_a_destination_that_cannot_be_written_is_refused_before_measuring(
    cli, tmp_path: Path, monkeypatch
):
    """(issue 40, item 14): before, --write into a missing folder measured
    and then raised FileNotFoundError; --save into an unwritable cache,
    OSError."""
    measured = []
    monkeypatch.setattr(
        "hotpath.commands.dispatch._measure_until_decided",
        lambda *a, **k: measured.append(1) or pytest.fail("measured"),
    )
    res = cli("dispatch", "--write", str(tmp_path / "missing" / "x.row"))
    assert res.status == 2 and "no folder" in res.err and "missing" in res.err
    cache = tmp_path / "cache"
    cache.mkdir()
    monkeypatch.setenv("XDG_CACHE_HOME", str(cache))
    real_access = os.access
    monkeypatch.setattr(
        os, "access", lambda p, m, **k: False if m & os.W_OK and str(p).startswith(str(cache))
        else real_access(p, m, **k),
    )  # fmt: skip
    res = cli("dispatch", "--save")
    assert res.status == 2 and "--save" in res.err and "not writable" in res.err, res.err
    assert not measured


def test_tax_is_own_against_the_method_the_row_runs_there_per_mode():
    # the row runs avx2 from 512 (an avx512 step fallen back, as the
    # runner's "runs" says): the tax compares with avx2 there, not avx512
    runs = {"csum.even": [("scalar", 0), ("avx2", 512)], "csum.odd": [("scalar", 0)],
            "crc32c": [("sse42", 0)]}  # fmt: skip
    run = run_of(
        fig("hp-csum", 256, 20.0), fig("hp-csum-scalar", 256, 19.8),
        fig("hp-csum", 256, 21.0, "throughput"), fig("hp-csum-scalar", 256, 19.0, "throughput"),
        fig("hp-csum", 512, 30.0), fig("hp-csum-avx2", 512, 26.0),
        fig("hp-csum-avx512", 512, 20.0), fig("hp-csum", 512, 30.0, align=1),
    )  # fmt: skip
    taxes = dispatch.taxes(run, FACTS, runs)
    # 512 odd: the row runs scalar there, which was not timed: left out
    assert [(t.size, t.align, t.method) for t in taxes] == [(256, 0, "scalar"), (512, 0, "avx2")]
    at256, at512 = taxes
    assert [(m.mode, m.tax) for m in at256.modes] == [
        ("latency", pytest.approx(0.2)), ("throughput", pytest.approx(2.0))]  # fmt: skip
    assert at256.over and at512.over and not at256.modes[0].over
    # a difference inside the figures' intervals is not called a tax
    wide = dispatch.TaxMode("latency", 1001.0, 20.0, 1000.0, 20.0)
    assert wide.tax == pytest.approx(1.0) and not wide.over
    lines = render.tax_table("row in use: r", taxes)
    assert lines[0].startswith("dispatch tax (row in use: r): ")
    body = [line for line in lines if line.startswith("csum_partial")]
    assert len(body) == 2 and body[0].split()[3] == "scalar" and body[0].rstrip().endswith(">")
    assert lines[-1].startswith("within 0.5 core cycles") and "0 of 2 lengths" in lines[-1]
    assert "csum_partial 256 (throughput +2.0)" in lines[-1]


@pytest.mark.usefixtures("fake_runner")
def test_tax_times_own_and_the_rows_methods_and_keeps_nothing(cli, tmp_path: Path):
    res = cli("dispatch", "--tax", "--rounds", "5")
    assert res.status == 0, res.err
    assert "dispatch tax (row in use: fake)" in res.out and "measured row" not in res.out
    body = [line.split() for line in res.out.splitlines() if line.startswith("crc32c ")]
    # the fake row: one stream below 64, fold4 from it
    assert body and {b[3] for b in body if int(b[1]) < 64} == {"sse42"}
    assert {b[3] for b in body if int(b[1]) >= 64} <= {"fold4"}
    for other in (["--write", str(tmp_path / "r")], ["--save"], ["--show"],
                  ["--try", str(tmp_path / "r")]):  # fmt: skip
        res = cli("dispatch", "--tax", *other)
        assert res.status == 2 and "--tax with" in res.err, other


def test_the_runner_says_the_methods_its_row_runs_after_the_fallbacks():
    runner = locate_runner()
    env = {**os.environ, "HOTPATH_CPU_HIDE": "avx512f,avx512bw"}
    env.pop("HOTPATH_DISPATCH", None)
    row = ("name = t\ncsum.even = scalar 0, avx512 256\ncsum.odd = scalar 0, avx2 384, "
           "avx512 768\ncrc32c = sse42 0, avx512 256, avx512-fused 1024\n")  # fmt: skip
    with tempfile.NamedTemporaryFile("w", suffix=".row") as f:
        f.write(row)
        f.flush()
        env["HOTPATH_DISPATCH"] = f.name
        out = subprocess.run([str(runner.executable), "list"], env=env, capture_output=True,
                             text=True, check=True).stdout  # fmt: skip
    listed = json.loads(out)["dispatch"]
    assert listed["steps"]["csum.even"] == [["scalar", 0], ["avx512", 256]]
    runs = listed["runs"]
    if "avx2" not in json.loads(out)["cpu"]["features"]:
        pytest.skip("no AVX2 here")
    # avx512 falls back to avx2; the odd row's avx2 and avx512 steps merge
    assert runs["csum.even"] == [["scalar", 0], ["avx2", 256]]
    assert runs["csum.odd"] == [["scalar", 0], ["avx2", 384]]
    assert all(m not in ("avx512", "avx512-fused") for m, _ in runs["crc32c"])
