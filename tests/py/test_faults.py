# SPDX-License-Identifier: GPL-2.0-only
"""A brought variant that hangs, crashes, aborts, exits or prints: named,
never fatal to the run, and nothing of hotpath's left behind.

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

static volatile int calls;
#define LATER (len == 40 && ++calls > 3000)
#define F(name) uint32_t name(const void *b, int len, uint32_t s)
#define NULL_READ (*(volatile uint32_t *)0)

F(hangs) { if (LATER) for (;;) ; return ok(b, len, s); }
F(aborts) { if (LATER) abort(); return ok(b, len, s); }
F(segv) { if (LATER) return NULL_READ; return ok(b, len, s); }
F(ill) { if (LATER) __asm__ volatile("ud2"); return ok(b, len, s); }
F(exits) { if (LATER) exit(0); return ok(b, len, s); }
F(prints) { if (LATER) printf("{not json\n"); return ok(b, len, s); }
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
    figures = {f["variant"]: f for f in res.json()["figures"]}
    assert figures["prints"]["status"] == "ok" and figures["prints"]["median"] is not None


def test_exit_names_the_variant(cli, bad_c: Path):
    res = cli(*ARGS, "--with", f"{bad_c}:exits")
    assert res.status == 1
    assert "variant 'exits' called exit() while it was being checked or timed" in res.err
    assert "Traceback" not in res.err


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT])
def test_a_signal_leaves_no_runner_and_no_temporary_folder(bad_c: Path, tmp_path: Path, sig):
    tmpdir = tmp_path / "tmp"
    tmpdir.mkdir()
    env = {**os.environ, "TMPDIR": str(tmpdir)}
    args = [a for a in ARGS if a not in ("--time-limit", "2")]
    proc = subprocess.Popen(
        [sys.executable, "-m", "hotpath", *args, "--with", f"{bad_c}:loops"],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    deadline = time.monotonic() + 60
    while not any(tmpdir.iterdir()) and time.monotonic() < deadline:
        time.sleep(0.1)
    time.sleep(2)  # the runner is spinning in the gate by now
    proc.send_signal(sig)
    _, err = proc.communicate(timeout=30)
    assert proc.returncode == (143 if sig == signal.SIGTERM else 130), err
    assert list(tmpdir.iterdir()) == []
    ps = subprocess.run(["ps", "-eo", "args"], capture_output=True, text=True, check=True)
    assert f"{bad_c.parent}" not in ps.stdout and "user0-bad.so:loops" not in ps.stdout
