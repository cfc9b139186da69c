# SPDX-License-Identifier: GPL-2.0-only
"""Downloads from Debian's archive (hotpath.debian) against a stand-in
apt-get on PATH: one that stalls, one that trickles, one slow but steady.
Nothing here reaches the network."""

import os
import signal
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from conftest import ROOT

# A stand-in `apt-get download`: writes into ./partial as apt does, its
# writer a child of the shell (as apt's http method is apt-get's).
STALLS = "printf x > partial/p.deb; sleep 600"
TRICKLES = "while :; do printf x >> partial/p.deb; sleep 0.2; done"
STEADY = "for i in $(seq 12); do printf x >> partial/p.deb; sleep 0.25; done"  # 3 s


def fake_download(tmp_path: Path, writer: str, stall_s: float, limit_s: float):
    """debian.download() run in a process of its own with these limits and
    the stand-in apt-get; its result, and the stand-in's writer's pid."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    pidfile = tmp_path / "writer.pid"
    apt_get = bin_dir / "apt-get"
    apt_get.write_text(
        f"#!/bin/sh\nmkdir -p partial\n( {writer} ) & echo $! > {pidfile}\nwait\n"
        "mv partial/p.deb linux-source-6.1_1_all.deb\n"
    )
    apt_get.chmod(0o755)
    into = tmp_path / "into"
    into.mkdir()
    script = textwrap.dedent(f"""
        from pathlib import Path
        from hotpath import debian
        debian.DOWNLOAD_STALL_S = {stall_s}
        debian.DOWNLOAD_LIMIT_S = {limit_s}
        try:
            debian.download(["linux-source-6.1=1"], Path({str(into)!r}))
        except debian.HotpathError as err:
            print(err)
            raise SystemExit(1)
    """)
    env = {**os.environ, "PATH": f"{bin_dir}:{os.environ['PATH']}"}
    proc = subprocess.Popen(
        [sys.executable, "-c", script],
        cwd=ROOT,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        start_new_session=True,
    )
    try:
        out, _ = proc.communicate(timeout=30)
    except subprocess.TimeoutExpired:
        out = "download still running after 30 s"
    finally:
        # Whatever is left of it (before the time limits existed: all of it).
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
    return proc.returncode, out, int(pidfile.read_text()), into


def gone(pid: int) -> bool:
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except FileNotFoundError:
        return True
    return stat.rpartition(")")[2].split()[0] == "Z"


# Each limit far from the other and from the writer's pace, so that a busy
# machine cannot make one case look like the other.
@pytest.mark.parametrize(
    "writer, stall_s, limit_s, said",
    [
        (STALLS, 1.0, 20.0, "no data for 1 s"),
        (TRICKLES, 5.0, 2.0, "not done after 2 s"),
    ],
)
def test_a_stalled_download_is_stopped_and_named(tmp_path, writer, stall_s, limit_s, said):
    status, out, writer_pid, _ = fake_download(tmp_path, writer, stall_s, limit_s)
    assert status == 1, out
    assert "apt-get download linux-source-6.1=1" in out and said in out, out
    assert "Traceback" not in out
    assert gone(writer_pid), "apt-get's child left running"


def test_a_slow_download_that_goes_on_is_not_stopped(tmp_path):
    status, out, _, into = fake_download(tmp_path, STEADY, stall_s=2.0, limit_s=20.0)
    assert status == 0, out
    assert (into / "linux-source-6.1_1_all.deb").read_text() == "x" * 12
