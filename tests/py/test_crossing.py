# SPDX-License-Identifier: GPL-2.0-only
"""The crossing lab without a guest kernel: options, parsing, ratios, verdict,
the missing-headers message, the guest script's steps read back, and one
real run of the user-space program on a tiny file (well under a second)."""

import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from hotpath.errors import RunnerError
from hotpath.labs.crossing import Workload, report
from hotpath.labs.crossing import run as crossing_run
from hotpath.labs.crossing import stored as crossing_stored
from hotpath.labs.crossing import vm as crossing_vm
from hotpath.labs.crossing.results import parse_module_results, parse_user_run
from hotpath.machine import fingerprint
from hotpath.render import crossing as shown
from hotpath.results import RunResult
from hotpath.store import Store

ROOT = Path(__file__).resolve().parents[2]
PROGRAM = ROOT / os.environ.get("HOTPATH_BUILD", "build") / "hotpath-crossing-static"

MODULE_TEXT = (
    "# hotpath_crossing 1 file=/tmp/x/f chunk=1024 count=4 iterations=3 bytes_per_iteration=4096\n"
    "0 1500\n1 1400\n2 1600\n"
)


def path_doc(
    name: str, ns: list[int], ticks: list[int], status: str = "ok", reason: str | None = None
) -> dict:
    """One path of the crossing program's document."""
    return {"name": name, "desc": "", "status": status, "reason": reason, "ns": ns, "ticks": ticks}


def user_doc(**over) -> dict:
    doc = {
        "schema": "hotpath.crossing/1",
        "kernel": "6.1.0-56-amd64",
        "dir": "/tmp/x",
        "fs_type": "tmpfs",
        "chunk": 1024,
        "count": 4,
        "iterations": 3,
        "writev_batch": 1024,
        "uring_depth": 64,
        "tsc_hz": 2.4e9,
        "paths": [
            path_doc("write", [2000, 2100, 1900], [4800, 5040, 4560]),
            path_doc("writev", [1000, 1050, 950], [2400, 2520, 2280]),
            path_doc("io_uring", [], [], "wrong", "file has 3 bytes, expected 4096"),
        ],
        "syscall": {
            "name": "getppid",
            "calls_per_block": 1000,
            "ticks_per_cycle": [0.75, 0.77],
            "ns": [190000, 200000],
            "ticks": [456000, 480000],
        },
        "vulnerabilities": {"meltdown": "Not affected"},
    }
    doc.update(over)
    return doc


# ---- options: exit 2, the value named, nothing run ------------------------

BAD = [
    (["--chunk", "0"], "--chunk '0'"),
    (["--chunk", "abc"], "--chunk 'abc'"),
    (["--chunk", str((64 << 20) + 1)], str((64 << 20) + 1)),
    (["--count", "-5"], "--count '-5'"),
    (["--count", "1.5"], "--count '1.5'"),
    (["--iterations", "0"], "--iterations '0'"),
    (["--chunk", str(64 << 20), "--count", "4096"], "64 GiB"),
    (["--dir", "/no/such/folder"], "--dir '/no/such/folder'"),
    (["--dir", ""], "--dir ''"),  # not the current folder
    (["--paths", ""], "--paths ''"),  # not all of them
    (["--paths", "write,splice"], "splice"),
    (["--paths", "kernel_write"], "needs --kernel"),
    (["--kernel", "vm", "--chunk", str(2 << 20), "--count", "4"], "the module's limit"),
    (["--kernel", "vm", "--iterations", "5000"], "--iterations '5000'"),
    (["--kernel", "vm", "--dir", "/tmp"], "--dir '/tmp'"),
    (["--time-limit", "10"], "--time-limit '10'"),
    (["--kernel", "vm", "--time-limit", "0"], "--time-limit '0'"),
    (["--sizes", "40"], "--sizes"),
    (["--rounds", "9"], "--rounds '9'"),
]


@pytest.mark.parametrize(("args", "named"), BAD)
def test_bad_input(cli, args, named, monkeypatch):
    monkeypatch.setenv("HOTPATH_CROSSING", "/bin/false")  # never reached
    before = set(Path("/dev/shm").glob("hotpath-crossing-*"))
    res = cli("crossing", *args)
    assert res.status == 2, res.err
    assert named in res.err and "allowed" in res.err, res.err
    assert res.out == ""
    assert set(Path("/dev/shm").glob("hotpath-crossing-*")) == before


def test_dir_that_is_a_file_and_one_too_small(cli, tmp_path):
    afile = tmp_path / "f"
    afile.write_text("x")
    res = cli("crossing", "--dir", str(afile))
    assert res.status == 2 and f"--dir '{afile}'" in res.err
    free = os.statvfs(tmp_path).f_bavail * os.statvfs(tmp_path).f_frsize
    chunk = 64 << 20
    count = free // chunk + 1
    if chunk * count <= 64 << 30:
        res = cli("crossing", "--dir", str(tmp_path), "--chunk", str(chunk), "--count", str(count))
        assert res.status == 2 and "bytes free" in res.err


# ---- the missing headers ---------------------------------------------------


def test_missing_headers_message(tmp_path, monkeypatch):
    text = crossing_run.host_kernel_problem("6.18.44-fc-v769", tmp_path, 0)
    assert text is not None
    assert str(tmp_path / "6.18.44-fc-v769" / "build") in text
    assert "linux-headers-6.18.44-fc-v769" in text and "--kernel vm" in text
    build = tmp_path / "6.18.44-fc-v769" / "build"
    build.mkdir(parents=True)
    (build / "Makefile").write_text("all:\n")
    assert "needs root" in (
        crossing_run.host_kernel_problem("6.18.44-fc-v769", tmp_path, 1000) or ""
    )
    monkeypatch.setattr(crossing_run.shutil, "which", lambda tool: None)
    no_kmod = crossing_run.host_kernel_problem("6.18.44-fc-v769", tmp_path, 0) or ""
    assert "insmod and rmmod not found" in no_kmod and "kmod" in no_kmod
    monkeypatch.setattr(crossing_run.shutil, "which", lambda tool: f"/usr/sbin/{tool}")
    assert crossing_run.host_kernel_problem("6.18.44-fc-v769", tmp_path, 0) is None


def test_kernel_host_without_headers_exits_2(cli, tmp_path, monkeypatch):
    monkeypatch.setenv(crossing_run.MODULES_ROOT_ENV, str(tmp_path))
    monkeypatch.setenv("HOTPATH_CROSSING", "/bin/false")  # nothing may run
    res = cli("crossing", "--kernel", "host", "--count", "4", "--iterations", "2")
    assert res.status == 2
    assert "no build tree for the running kernel" in res.err and "--kernel vm" in res.err
    assert res.out == ""


# ---- parsing -----------------------------------------------------------------


def test_parse_module_results():
    run = parse_module_results(MODULE_TEXT)
    assert (run.chunk, run.count, run.iterations, run.bytes_per_iteration) == (1024, 4, 3, 4096)
    assert run.ns == (1500.0, 1400.0, 1600.0) and run.file == "/tmp/x/f"
    from_one = MODULE_TEXT.replace("\n0 ", "\n1 ").replace("\n1 1400", "\n2 1400")
    assert parse_module_results(from_one.replace("\n2 1600", "\n3 1600")).ns[2] == 1600.0


@pytest.mark.parametrize(
    ("text", "says"),
    [
        ("", "empty"),
        ("# hotpath_crossing 1 none\n", "no run"),
        ("# something else\n0 1\n", "header"),
        (MODULE_TEXT.replace("crossing 1", "crossing 2"), "version 2"),
        (MODULE_TEXT.replace(" count=4", ""), "lacks count"),
        (MODULE_TEXT.replace("chunk=1024", "chunk=1k"), "chunk='1k'"),
        (MODULE_TEXT.replace("2 1600\n", ""), "2 iterations listed"),
        (MODULE_TEXT.replace("1 1400", "5 1400"), "index 5"),
        (MODULE_TEXT.replace("1 1400", "1 fast"), "1 fast"),
    ],
)
def test_parse_module_results_refuses(text, says):
    with pytest.raises(RunnerError, match=says):
        parse_module_results(text)


def test_parse_user_run():
    run = parse_user_run(json.dumps(user_doc()))
    assert [p.name for p in run.paths] == ["write", "writev", "io_uring"]
    assert run.paths[2].status == "wrong" and "4096" in (run.paths[2].reason or "")
    assert run.syscall.per_call_ns() == [190.0, 200.0]
    assert run.vulnerabilities == {"meltdown": "Not affected"}


@pytest.mark.parametrize(
    ("doc", "says"),
    [
        ("not json", "not JSON"),
        (json.dumps(user_doc(schema="other")), "hotpath.crossing/1"),
        (json.dumps(user_doc(chunk="1024")), "'chunk'"),
        (
            json.dumps(
                user_doc(paths=[{"name": "write", "status": "fast", "ns": [], "ticks": []}])
            ),
            "status 'fast'",
        ),
        (
            json.dumps(user_doc(paths=[{"name": "write", "status": "ok", "ns": [], "ticks": []}])),
            "iterations missing",
        ),
        (
            json.dumps(
                user_doc(paths=[{"name": "w", "status": "ok", "ns": [1, "x"], "ticks": [1, 2]}])
            ),
            "non-number",
        ),
    ],
)
def test_parse_user_run_refuses(doc, says):
    with pytest.raises(RunnerError, match=says):
        parse_user_run(doc)


# ---- ratios and the verdict ----------------------------------------------------


def test_ratio_to_write_on_fixed_samples():
    r = report.ratio_to_write((2000.0,) * 9, (1000.0,) * 9)
    assert (r.point, r.lo, r.hi) == (2.0, 2.0, 2.0)
    spread = report.ratio_to_write((1900.0, 2000.0, 2100.0) * 5, (950.0, 1000.0, 1050.0) * 5)
    assert spread.point == 2.0 and spread.lo < 2.0 < spread.hi


def fig(name: str, point: float, lo: float, hi: float) -> report.PathFigure:
    return report.PathFigure(name, "", "ok", None, speedup=report.Ratio(point, lo, hi))


@pytest.mark.parametrize(
    ("batched", "kernel", "start"),
    [
        ((3.0, 2.8, 3.2), (1.2, 1.1, 1.3), "Yes: batching in user space beats"),
        ((1.25, 1.15, 1.35), (1.2, 1.1, 1.3), "About: batching in user space reaches"),
        ((1.05, 1.0, 1.09), (1.2, 1.1, 1.3), "No: batching in user space falls short"),
    ],
)
def test_verdict(batched, kernel, start):
    paths = [fig("write", 1, 1, 1), fig("writev", *batched), fig("kernel_write", *kernel)]
    text = report.verdict(paths)
    assert text.startswith(start), text
    assert f"writev {batched[0]:.2f}x" in text and f"kernel_write {kernel[0]:.2f}x" in text
    assert report.verdict(paths, emulated=True).endswith("(emulated: not a performance figure)")


def test_verdict_takes_the_best_batched_path_and_says_what_is_missing():
    paths = [fig("writev", 3.0, 2.9, 3.1), fig("io_uring", 0.5, 0.4, 0.6)]
    text = report.verdict(paths)
    assert "not measured" in text and "writev 3.00x" in text and "--kernel vm" in text
    failed = report.PathFigure("kernel_write", "", "failed", "insmod: Operation not permitted")
    assert "insmod: Operation not permitted" in report.verdict([*paths, failed])
    assert "No batched" in report.verdict([fig("pwrite", 1.1, 1.0, 1.2)])


def test_lab_summary_for_hotpath_run():
    user = parse_user_run(json.dumps(user_doc()))
    work = Workload(1024, 4, 3, ("write", "writev"), kernel_path=True)
    module = crossing_run.module_result(parse_module_results(MODULE_TEXT), work)
    result = crossing_run.build_report("vm", user, module, [], machine="test box")
    result.emulated = True
    lab = report.lab_summary(result)
    assert lab.lab == "crossing"
    assert lab.headline["kernel"][0].startswith("kernel_write ")
    assert "seed's 'about 1.2x'" in lab.headline["claims"][0]
    assert lab.headline["problems"] == ["1 WRONG, 0 not timed"]  # io_uring in user_doc()
    assert lab.findings[0].text == report.verdict(result.paths, emulated=True)
    assert any(f.text.startswith("io_uring wrong") for f in lab.findings)
    assert all("emulated" in f.text for f in lab.findings if f.topic == "path")


def test_report_from_parsed_runs():
    user = parse_user_run(json.dumps(user_doc()))
    work = Workload(1024, 4, 3, ("write", "writev"), kernel_path=True)
    module = crossing_run.module_result(parse_module_results(MODULE_TEXT), work)
    result = crossing_run.build_report("vm", user, module, ["a note"], machine="test box")
    result.emulated = True
    by = {p.name: p for p in result.paths}
    assert by["writev"].speedup is not None and by["writev"].speedup.point == 2.0
    assert by["kernel_write"].summary is not None and by["kernel_write"].summary.median == 1500
    assert by["io_uring"].summary is None and by["io_uring"].status == "wrong"
    text = shown.render_text(result)
    assert "WRONG: file has 3 bytes" in text and "baseline" in text
    # Every figure of an emulated guest says so.
    for line in text.splitlines():
        if line.startswith(("writev", "kernel_write", "one system call")):
            assert "emulated: not a performance figure" in line
    assert "seed 001 reported 'about a 1.2x speedup'" in text and "kernel_write is 1.33x" in text
    doc = json.loads(shown.to_json(result))
    assert doc["unit"] == "ns per iteration, wall clock" and doc["emulated"] is True
    assert doc["syscall"]["cycles_per_call"] == pytest.approx(468 / 0.76)
    wrong = crossing_run.module_result(
        parse_module_results(MODULE_TEXT), Workload(1024, 8, 3, (), True)
    )
    assert wrong.status == "wrong" and "asked" in (wrong.reason or "")


# ---- the guest script and its steps read back ----------------------------------


def test_guest_script_steps():
    work = Workload(512, 8, 2, ("write", "writev"), kernel_path=True)
    script = crossing_vm.guest_script(work)
    assert f"insmod {crossing_vm.GUEST_MODULE} dir={crossing_vm.GUEST_DIR}" in script
    assert "file=hotpath-crossing.kdata chunk=512 count=8 iterations=1" in script
    assert "iterations=2'" in script and "--verify" in script and "--bytes 4096" in script
    assert "--paths write,writev" in script and "rmmod hotpath_crossing" in script
    user_only = crossing_vm.guest_script(Workload(512, 8, 2, ("write",), kernel_path=False))
    assert "insmod" not in user_only


def outputs(**steps: int) -> dict[str, str]:
    return {"steps": "".join(f"{k} {v}\n" for k, v in steps.items())}


def test_module_outcome_from_steps():
    work = Workload(1024, 4, 3, ("write",), kernel_path=True)
    ok = outputs(insmod=0, gate=0, verify=0, run=0, results=1, refuse=1, rmmod=0)
    ok["steps"] = ok["steps"].replace("results 1", "results 0")
    ok |= {"module.txt": MODULE_TEXT, "refuse.err": "Permission denied", "tainted": "12288"}
    figure, notes = crossing_vm.module_outcome(work, ok)
    assert figure.status == "ok" and figure.samples == (1500.0, 1400.0, 1600.0)
    assert any("refused" in n for n in notes) and any("= OE: as expected" in n for n in notes)

    bad_bytes = outputs(insmod=0, gate=0, verify=1, refuse=1, rmmod=0)
    bad_bytes["verify.txt"] = "wrong: byte 7 is 0x01, expected 0"
    figure, _ = crossing_vm.module_outcome(work, bad_bytes)
    assert figure.status == "wrong" and "byte 7" in (figure.reason or "")

    escaped = outputs(insmod=0, gate=0, verify=0, run=0, results=0, refuse=0, rmmod=0)
    escaped["module.txt"] = MODULE_TEXT
    figure, notes = crossing_vm.module_outcome(work, escaped)
    assert figure.status == "wrong" and any("WRONG" in n for n in notes)

    no_load = outputs(insmod=1)
    no_load["insmod.err"] = "insmod: can't insert: Invalid module format"
    figure, _ = crossing_vm.module_outcome(work, no_load)
    assert figure.status == "failed" and "Invalid module format" in (figure.reason or "")


# ---- the real program, on a tiny file -------------------------------------------


@pytest.fixture
def program(monkeypatch):
    if not PROGRAM.is_file():
        pytest.fail(f"{PROGRAM} is not built: run make")
    monkeypatch.setenv("HOTPATH_CROSSING", str(PROGRAM))
    return PROGRAM


def test_host_user_paths(cli, program, tmp_path):
    folder = tmp_path / "files"
    folder.mkdir()
    res = cli("crossing", "--count", "16", "--iterations", "3", "--dir", str(folder), "--json")
    assert res.status == 0, res.err
    doc = res.json()
    names = [p["name"] for p in doc["paths"]]
    assert names == ["write", "pwrite", "writev", "io_uring"]
    for p in doc["paths"]:
        assert p["status"] in ("ok", "unavailable"), p
        if p["status"] == "ok":
            assert len(p["samples"]) == 3 and p["summary"]["median"] > 0
    assert doc["paths"][0]["speedup_vs_write"]["point"] == 1.0
    assert doc["syscall"]["summary"]["median"] > 0 and doc["unit"].startswith("ns per iteration")
    assert list(folder.iterdir()) == []  # the data file is gone
    text = cli("crossing", "--count", "16", "--iterations", "3", "--paths", "user").out
    assert "kernel_write (the module) not run: add --kernel vm" in text
    assert "one system call (getppid" in text and "mitigations (host kernel" in text


def test_runs_kept_and_compared_per_path_in_ns(cli, program, tmp_path):
    """Two crossing runs in the history; compare gives a verdict per path in ns,
    and the report a run holds is the one it printed."""
    db = str(tmp_path / "h.sqlite")
    args = ("crossing", "--count", "16", "--iterations", "5", "--db", db)
    first = cli(*args)
    assert first.status == 0, first.err
    assert f"stored as run 1 in {db}" in first.out
    assert cli(*args).status == 0
    assert "crossing --count 16" in cli("history", "--db", db).out
    res = cli("compare", "1", "2", "--db", db)
    assert res.status == 0, res.err
    assert "ns of wall clock" in res.out
    doc = cli("compare", "1", "2", "--db", db, "--json").json()
    rows = {(f["primitive"], f["variant"], f["unit"]): f for f in doc["figures"]}
    assert ("file_write", "write", "ns") in rows and ("syscall", "getppid", "ns") in rows
    assert all(f["mode"] == "16 writes" for f in doc["figures"] if f["primitive"] == "file_write")
    assert all(f["verdict"] for f in doc["figures"])
    ratio = [f for f in doc["figures"] if f["unit"] == "ratio"]
    assert ratio and all(f["variant"].startswith("write/") for f in ratio)
    # The stored run rebuilds the report it printed.
    store = Store.open(Path(db), create=False)
    rebuilt = crossing_stored.from_run(store.load(1))
    store.close()
    assert rebuilt is not None
    printed = first.out.split("stored as run")[0]
    assert shown.render_text(rebuilt) == printed


def test_no_store_and_bad_db(cli, program, tmp_path):
    db = tmp_path / "h.sqlite"
    assert cli("crossing", "--count", "8", "--iterations", "3", "--no-store",
               "--db", str(db)).status == 0  # fmt: skip
    assert not db.exists()
    res = cli("crossing", "--count", "8", "--iterations", "3", "--db", str(tmp_path))
    assert res.status == 2 and "is a directory" in res.err and res.out == ""


def test_run_suite_part(program, tmp_path):
    """`hotpath run`'s share: its figures join the run, its files come from the run."""
    part = crossing_run.suite_part(quick=True)
    assert part.result is not None and part.problem is None
    assert part.line().startswith("crossing: ")
    run = RunResult("run", "2026-01-01T00:00:00+00:00", fingerprint(), labs=["csum"])
    crossing_stored.add_to(run, part.result)
    assert run.labs == ["csum", "crossing"] and run.sections["crossing"]["count"] == 1024
    crossing_stored.write_files(run, tmp_path)
    assert json.loads((tmp_path / "crossing.json").read_text())["paths"][0]["name"] == "write"
    assert "| write |" in (tmp_path / "crossing.md").read_text()
    summary = crossing_stored.lab_summary(run)
    assert summary.lab == "crossing" and summary.findings


def test_a_fresh_folder_removes_those_whose_hotpath_is_gone(tmp_path, monkeypatch):
    monkeypatch.setattr(crossing_run, "DEFAULT_PARENT", tmp_path)
    ended = subprocess.Popen(["true"])
    ended.wait()
    stale = tmp_path / f"hotpath-crossing-{ended.pid}-x1"
    live = tmp_path / f"hotpath-crossing-{os.getpid()}-x2"
    other = tmp_path / "hotpath-crossing-kmod-x3"
    for folder in (stale, live, other):
        folder.mkdir()
        (folder / "hotpath-crossing.data").write_bytes(b"\0" * 16)
    fresh = crossing_run.fresh_folder()
    assert fresh.parent == tmp_path and fresh.name.startswith(f"hotpath-crossing-{os.getpid()}-")
    assert not stale.exists() and live.is_dir() and other.is_dir()


def running_children(parent: int) -> dict[int, list[str]]:
    """The command lines of `parent`'s children still running (no zombies)."""
    found = {}
    for proc in Path("/proc").iterdir():
        try:
            state, ppid = (proc / "stat").read_text().rsplit(")", 1)[1].split()[:2]
            argv = (proc / "cmdline").read_bytes().decode().split("\0")
        except (OSError, ValueError):  # not a process, or gone
            continue
        if int(ppid) == parent and state not in "ZX":
            found[int(proc.name)] = argv
    return found


def still_running(pid: int) -> bool:
    try:
        return (Path("/proc") / str(pid) / "stat").read_text().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


def test_killing_hotpath_stops_the_program_and_its_folder_goes_later(program):
    proc = subprocess.Popen(
        [sys.executable, "-m", "hotpath", "crossing", "--count", "1024", "--iterations", "100000"],
        env={**os.environ, "HOTPATH_CROSSING": str(program)},
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    deadline = time.monotonic() + 60
    while not (children := running_children(proc.pid)) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert children, "the program never started"
    (pid, argv), *_ = children.items()
    folder = Path(argv[argv.index("--dir") + 1])
    proc.kill()  # SIGKILL: hotpath can clean up nothing itself
    proc.wait()
    deadline = time.monotonic() + 10
    while still_running(pid) and time.monotonic() < deadline:
        time.sleep(0.1)
    left = still_running(pid)
    if left:
        os.kill(pid, signal.SIGKILL)
    assert not left, f"{program} still ran 10 s after hotpath was killed"
    assert folder.is_dir()  # left behind, and the next run's fresh folder removes it
    shutil.rmtree(crossing_run.fresh_folder())
    assert not folder.exists()
