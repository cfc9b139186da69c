# SPDX-License-Identifier: GPL-2.0-only
"""The avc lab's bad input, against the real runner: node counts outside
what its avc_lookup takes, and a trace line with a NUL byte. Each is
refused with the value and what is allowed, exit 2, nothing run."""

import subprocess
import sys

import pytest

pytestmark = [pytest.mark.runner, pytest.mark.usefixtures("real_runner")]

# avc_lookup's domain (MAX_NODES in c/avc/registry_avc_lookup.c), as the
# runner's list says it and the refusal repeats it
ALLOWED = "allowed: node counts, powers of two 1..1048576"


@pytest.mark.parametrize("size", ["1073741824", "2097152", "0", "3"])
def test_stats_refuses_a_node_count_the_runner_does_not_take(cli, size):
    res = cli("avc", "--stats", "--sizes", size, "--checks", "1000")
    assert res.status == 2 and res.out == "", res.out
    assert f"--sizes '{size}': {ALLOWED}" in res.err


def test_stats_names_the_first_bad_count_of_a_list(cli):
    res = cli("avc", "--stats", "--sizes", "512,0,1024", "--checks", "1000")
    assert res.status == 2 and f"--sizes '0': {ALLOWED}" in res.err


def test_recommend_refuses_zero_nodes_at_once():
    # it used to time every slot count with an empty cache: past 60 s
    res = subprocess.run(
        [sys.executable, "-m", "hotpath", "avc", "--recommend", "--sizes", "0"],
        capture_output=True, text=True, timeout=60, check=False,
    )  # fmt: skip
    assert res.returncode == 2 and res.stdout == "", res.stdout
    assert f"--sizes '0': {ALLOWED}" in res.stderr


def test_a_trace_line_with_a_nul_byte_is_named_as_such(cli, tmp_path):
    trace = tmp_path / "trace.txt"
    trace.write_bytes(b"28,30,2\n28,\x0031,2\n29,30,5\n")
    res = cli("avc", "--stats", "--trace", str(trace), "--checks", "1000")
    assert res.status == 2 and res.out == ""
    assert "line 2 holds a NUL byte; allowed: text, ssid,tsid,tclass per line" in res.err
    assert "longer than" not in res.err
