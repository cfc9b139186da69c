# SPDX-License-Identifier: GPL-2.0-only
"""The libFuzzer targets (`make fuzz-csum`, `make fuzz-crc32c`) build and run.

Nothing else links them, so a source they need and do not list (the
dispatch rows, once hp_csum and hp_crc32c took their methods from them)
broke both without a failing test. Each is built into a temporary build
folder and run for a few thousand inputs; clang comes from the set-up.
"""

import os
import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize("lab", ["csum", "crc32c"])
def test_fuzz_target_builds_and_runs(lab: str, tmp_path: Path):
    assert shutil.which("clang") or shutil.which("clang-14"), (
        "clang not found: ./scripts/setup.sh installs it"
    )
    target = tmp_path / "fuzz" / f"{lab}_fuzz"
    built = subprocess.run(
        ["make", "-s", "-C", str(ROOT), f"BUILD={tmp_path}", str(target)],
        capture_output=True, text=True, check=False, timeout=300,
    )  # fmt: skip
    assert built.returncode == 0, built.stdout + built.stderr
    corpus = tmp_path / "corpus"
    corpus.mkdir()
    ran = subprocess.run(
        [str(target), "-runs=3000", "-max_len=4096", f"-artifact_prefix={tmp_path}/", str(corpus)],
        capture_output=True, text=True, check=False, timeout=300,
        env={**os.environ, "ASAN_OPTIONS": "detect_leaks=0"},
    )  # fmt: skip
    assert ran.returncode == 0, ran.stderr[-2000:]
    assert "Done 3000 runs" in ran.stderr
