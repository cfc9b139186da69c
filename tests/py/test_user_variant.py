# SPDX-License-Identifier: GPL-2.0-only
"""--with FILE.c:FUNCTION: compile errors, missing symbols, wrong results."""

import os
import shutil
import subprocess
import tempfile
from pathlib import Path

import pytest

pytestmark = [
    pytest.mark.usefixtures("fake_runner"),
    pytest.mark.skipif(shutil.which("cc") is None, reason="needs a C compiler"),
]

GOOD_C = """#include <stdint.h>
uint32_t my_csum(const void *buf, int len, uint32_t sum) { return sum; }
uint32_t my_wrong_csum(const void *buf, int len, uint32_t sum) { return sum + 1; }
"""


def test_good_variant_is_timed(cli, tmp_path: Path):
    src = tmp_path / "mine.c"
    src.write_text(GOOD_C)
    res = cli("csum", "--rounds", "5", "--modes", "latency", "--no-store",
              "--with", f"{src}:my_csum")  # fmt: skip
    assert "my_csum" in res.out
    line = next(line for line in res.out.splitlines() if line.startswith("my_csum"))
    assert "±" in line


def test_wrong_variant_exit_1(cli, tmp_path: Path):
    src = tmp_path / "mine.c"
    src.write_text(GOOD_C)
    res = cli("csum", "--rounds", "5", "--no-store", "--with", f"{src}:my_wrong_csum")
    assert res.status == 1
    assert "my_wrong_csum" in res.out and "WRONG: mismatch at len 3" in res.out


def test_compile_error_shown(cli, tmp_path: Path):
    src = tmp_path / "broken.c"
    src.write_text("int f(void) { return }\n")
    res = cli("csum", "--no-store", "--with", f"{src}:f")
    assert res.status == 2
    assert "broken.c" in res.err and "error" in res.err


def test_missing_symbol(cli, tmp_path: Path):
    src = tmp_path / "mine.c"
    src.write_text(GOOD_C)
    db = tmp_path / "h.sqlite"
    res = cli("csum", "--db", str(db), "--with", f"{src}:missing_fn")
    assert res.status == 2 and "missing_fn" in res.err
    assert not db.exists()


def test_a_killed_runs_build_folder_is_removed_by_the_next_run(cli, tmp_path: Path, monkeypatch):
    """(issue 40, item 12): kill -9 left /tmp/hotpath-with-* with compiled
    .so files for good; the next run removes those whose hotpath is gone."""
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    ended = subprocess.Popen(["true"])
    ended.wait()
    stale = tmp_path / f"hotpath-with-{ended.pid}-abc"
    live = tmp_path / f"hotpath-with-{os.getpid()}-def"
    for folder in (stale, live):
        folder.mkdir()
        (folder / "mine.so").write_bytes(b"\0")
    src = tmp_path / "mine.c"
    src.write_text(GOOD_C)
    res = cli("csum", "--rounds", "5", "--modes", "latency", "--no-store",
              "--with", f"{src}:my_csum")  # fmt: skip
    assert "my_csum" in res.out, res.err
    # the stale one removed, the run's own removed when it ended, a live one kept
    assert {p.name for p in tmp_path.glob("hotpath-with-*")} == {live.name}
