# SPDX-License-Identifier: GPL-2.0-only
"""A brought variant that hangs, crashes, aborts, exits, forks or prints:
named, never fatal to the run, and nothing of hotpath's left behind, even
when hotpath itself is killed.

Against the real runner. Each misbehaviour starts after the correctness
gate (on the 3000th call at 40 bytes), where the sampler, not the gate,
must catch it; `nullfirst` faults at once, in the gate.
"""

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from conftest import RFC1071_C

pytestmark = [pytest.mark.runner, pytest.mark.usefixtures("real_runner")]

BAD_C = (
    RFC1071_C
    + r"""
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

static volatile int calls, forked;
#define LATER (len == 40 && ++calls > 3000)
#define F(name) uint32_t name(const void *b, int len, uint32_t s)
#define NULL_READ (*(volatile uint32_t *)0)

F(hangs) { if (LATER) for (;;) ; return ok(b, len, s); }
F(aborts) { if (LATER) abort(); return ok(b, len, s); }
F(segv) { if (LATER) return NULL_READ; return ok(b, len, s); }
F(ill) { if (LATER) __asm__ volatile("ud2"); return ok(b, len, s); }
F(exits) { if (LATER) exit(0); return ok(b, len, s); }
F(prints) { if (LATER) printf("{not json\n"); return ok(b, len, s); }
F(quits3) { if (LATER) _exit(3); return ok(b, len, s); }
F(quits0) { if (LATER) _exit(0); return ok(b, len, s); }
F(garbles) { if (LATER) { fputs("\xff\xfe not UTF-8\n", stderr); exit(0); } return ok(b, len, s); }
/* The copy of the runner that fork() leaves holds its pipes and never ends. */
F(forks) { if (LATER && !forked++ && fork() == 0) for (;;) pause(); return ok(b, len, s); }
F(forkloops) { if (!forked++) fork(); for (;;) ; }
F(nullfirst) { return NULL_READ; }
F(loops) { for (;;) ; }
"""
)

ARGS = ["csum", "--sizes", "40", "--align", "0", "--rounds", "20", "--modes", "latency",
        "--variants", "rfc1071-ref", "--no-store", "--time-limit", "2"]  # fmt: skip


@pytest.fixture
def bad_c(tmp_path: Path) -> Path:
    src = tmp_path / "bad.c"
    src.write_text(BAD_C)
    return src


@pytest.mark.parametrize(
    "function, words",
    [
        ("hangs", "did not return within 2 s (--time-limit) at len 40"),
        ("aborts", "crashed: SIGABRT (abort) at len 40"),
        ("segv", "crashed: SIGSEGV (Segmentation fault) at address (nil) at len 40"),
        ("ill", "crashed: SIGILL (an instruction this CPU lacks?) at len 40"),
        ("nullfirst", "crashed: SIGSEGV (Segmentation fault) at address (nil) at len 0"),
    ],
)
def test_a_failing_variant_is_named_and_the_run_kept(cli, bad_c: Path, function, words):
    res = cli(*ARGS, "--with", f"{bad_c}:{function}")
    assert res.status == 1, res.err
    row = next(line for line in res.out.splitlines() if line.startswith(function))
    assert f"WRONG: {words}" in row
    assert "expected 0x0, got 0x0" not in row  # a fault has no values to show
    ref = next(line for line in res.out.splitlines() if line.startswith("rfc1071-ref"))
    # The others were timed: a figure, or n/a because a neighbour on the
    # core spoiled every sample (said so), never a fault of theirs.
    assert "WRONG" not in ref
    assert "n/a" not in ref.split()[1] or "no clean sample" in ref


def test_printing_does_not_corrupt_the_output(cli, bad_c: Path):
    res = cli(*ARGS, "--with", f"{bad_c}:prints", "--json")
    assert res.status == 0, res.err
    mine = next(v for v in res.json()["variants"] if v["name"] == "prints")
    assert mine["status"] == "ok"  # checked, then timed while it printed
    # Its figure is there; a neighbour on the core may have left it n/a.
    assert "prints" in {f["variant"] for f in res.json()["figures"]}


@pytest.mark.parametrize(
    "function, called",
    [
        ("exits", "exit()"),
        ("quits3", "_exit(3)"),  # the status the runner's own bad input has
        ("quits0", "_exit(0)"),  # a run that ends well, without its JSON
        ("garbles", "exit()"),  # after bytes that are no UTF-8 on its stderr
    ],
)
def test_ending_the_runner_names_the_variant(cli, bad_c: Path, function, called):
    res = cli(*ARGS, "--with", f"{bad_c}:{function}")
    assert res.status == 1, res.err
    said = f"variant '{function}' called {called} while it was being checked or timed"
    assert said in res.err
    assert "Traceback" not in res.err and "Exception in thread" not in res.err


@pytest.mark.parametrize(
    "constructor, how", [("_exit(0)", "exit 0"), ("__builtin_trap()", "killed by SIGILL")]
)
def test_a_constructor_that_ends_the_runner_names_its_variant(cli, tmp_path, constructor, how):
    """(issue 40, item 16): "runner printed invalid JSON", or "killed by
    SIGILL" with the runner's whole command line, named nothing."""
    src = tmp_path / "ctor.c"
    src.write_text(
        "#include <stdint.h>\n#include <unistd.h>\n"
        f"__attribute__((constructor)) static void bye(void) {{ {constructor}; }}\n"
        "uint32_t mine(const void *b, int len, uint32_t s) { return s; }\n"
    )
    res = cli(*ARGS, "--with", f"{src}:mine")
    assert res.status == 1, res.err
    assert f"the runner ended ({how}) while loading variant 'mine' from " in res.err
    assert "invalid JSON" not in res.err and "--primitive" not in res.err


def start(bad_c: Path, tmp_path: Path, function: str, *args: str) -> subprocess.Popen:
    """hotpath in a process of its own, its temporary folder (and so its
    runner's command line, which names the variant's .so) in tmp_path/tmp."""
    tmpdir = tmp_path / "tmp"
    tmpdir.mkdir()
    return subprocess.Popen(
        [sys.executable, "-m", "hotpath", *args, "--with", f"{bad_c}:{function}"],
        env={**os.environ, "TMPDIR": str(tmpdir)},
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def runners(tmp_path: Path) -> list[int]:
    """The runner processes (and copies of them) this test started: those
    whose command line names a variant in a .so under tmp_path/tmp."""
    marker = f"{tmp_path / 'tmp'}/".encode()
    found = []
    for proc in Path("/proc").iterdir():
        try:
            line = (proc / "cmdline").read_bytes()
        except OSError:  # not a process, or gone
            continue
        if proc.name.isdigit() and marker in line and b".so:" in line:
            found.append(int(proc.name))
    return found


def runners_left(tmp_path: Path) -> list[int]:
    """Those still there after 10 s (a killed process takes a moment to go);
    they are killed then, so that a failing test leaves none either."""
    deadline = time.monotonic() + 10
    while (left := runners(tmp_path)) and time.monotonic() < deadline:
        time.sleep(0.1)
    for pid in left:
        os.kill(pid, signal.SIGKILL)
    return left


def test_a_variant_that_forks_ends_within_the_time_limit(bad_c: Path, tmp_path: Path):
    args = [*ARGS[:-2], "--time-limit", "5"]
    proc = start(bad_c, tmp_path, "forks", *args)
    try:
        out, err = proc.communicate(timeout=30)
    except subprocess.TimeoutExpired:
        proc.kill()  # its pipes may be held by what it left: not read again
        out, err = "", "hotpath still running after 30 s"
    assert runners_left(tmp_path) == []
    assert proc.wait() == 0, err
    assert any(line.startswith("forks") for line in out.splitlines()), out


@pytest.mark.parametrize("function", ["loops", "forkloops"])
@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT])
def test_a_signal_leaves_no_runner_and_no_temporary_folder(
    bad_c: Path, tmp_path: Path, sig, function
):
    proc = start(bad_c, tmp_path, function, *[a for a in ARGS if a not in ("--time-limit", "2")])
    tmpdir = tmp_path / "tmp"
    deadline = time.monotonic() + 60
    while not any(tmpdir.iterdir()) and time.monotonic() < deadline:
        time.sleep(0.1)
    time.sleep(2)  # the runner is spinning in the gate by now
    proc.send_signal(sig)
    _, err = proc.communicate(timeout=30)
    assert runners_left(tmp_path) == []
    assert proc.returncode == (143 if sig == signal.SIGTERM else 130), err
    assert list(tmpdir.iterdir()) == []


def test_killing_hotpath_kills_its_runner(bad_c: Path, tmp_path: Path):
    proc = start(bad_c, tmp_path, "forkloops", *ARGS)
    deadline = time.monotonic() + 60
    while len(runners(tmp_path)) < 2 and time.monotonic() < deadline:
        time.sleep(0.1)
    time.sleep(1)  # its variant has forked a copy of it by now
    proc.kill()  # SIGKILL: hotpath can clean up nothing itself
    proc.communicate()
    assert runners_left(tmp_path) == []
