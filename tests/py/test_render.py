# SPDX-License-Identifier: GPL-2.0-only
"""Tables: WRONG/skipped/n-a rows, ties, noisy marks, commit-message format."""

import json
from pathlib import Path

from hotpath.machine import Fingerprint
from hotpath.protocol import parse_run
from hotpath.render import markdown, text
from hotpath.render.blocks import build_blocks
from hotpath.results import RunResult

FIXTURES = Path(__file__).parent / "fixtures"


def bench_doc():
    doc = json.loads((FIXTURES / "run-protocol-example.json").read_text())
    base = doc["variants"][0]
    doc["variants"] = [
        {**base, "name": "fast", "flags": []},
        {**base, "name": "slow", "flags": []},
        {**base, "name": "twin", "flags": []},
        {**base, "name": "zero", "flags": ["no_latency"]},
        {**base, "name": "broken", "status": "wrong",
         "failure": {"len": 7, "align": 1, "seed": 3, "expected": 255, "got": 254,
                     "what": "mismatch"}},
        {**base, "name": "wide", "status": "skipped", "reason": "needs avx512bw"},
    ]  # fmt: skip
    figures = []
    for align in (0, 1):
        for name, values in (
            ("fast", [5.0, 5.1, 5.0, 5.05]),
            ("slow", [9.0, 9.1, 9.0, 9.05]),
            ("twin", [9.02, 9.08, 9.0, 9.04]),
        ):
            figures.append({"variant": name, "size": 40, "align": align, "mode": "latency",
                            "status": "ok", "reason": None, "calls_per_sample": 10,
                            "values": values, "ticks": values})  # fmt: skip
        figures.append({"variant": "zero", "size": 40, "align": align, "mode": "latency",
                        "status": "n/a", "reason": "ignores its input", "values": [],
                        "ticks": []})  # fmt: skip
    doc["figures"] = figures
    return doc


def make_result():
    run = RunResult(command="csum", started="2025-01-01T00:00:00+00:00",
                    machine=Fingerprint(model_name="Test CPU", hypervisor="none", kernel="6.1"),
                    command_line="hotpath csum")  # fmt: skip
    run.add_replicas([parse_run(bench_doc())])
    return run


def test_text_table_rows():
    out = text.render_run(make_result())
    assert "csum_partial, latency mode" in out and "core cycles per call" in out
    assert "40 B even" in out and "40 B odd" in out
    lines = {line.split()[0]: line for line in out.splitlines() if line and not line[0].isspace()}
    assert "5.0 ±" in lines["fast"]
    assert "WRONG: mismatch at len 7, align 1, seed 0x3: expected 0xff, got 0xfe" in lines["broken"]
    assert "skipped: needs avx512bw" in lines["wide"]
    assert "n/a: ignores its input" in lines["zero"]
    assert "machine: Test CPU" in out
    assert "WRONG variants (not timed): broken" in out


def test_order_claims_no_order_for_overlapping_cis():
    blocks = build_blocks(make_result())
    order = blocks[0].orders[0]
    assert order.startswith("40 B even: fast < ")
    assert "≈" in order  # slow and twin overlap


def test_noisy_mark_and_footnote():
    doc = bench_doc()
    doc["figures"][0]["values"] = [5.0, 9.0, 1.0, 7.0, 3.0]
    run = RunResult(command="csum", started="x", machine=Fingerprint())
    run.add_replicas([parse_run(doc)])
    out = text.render_run(run)
    assert "~" in out and "noisy" in out


def test_markdown_is_right_aligned_and_underlined():
    out = markdown.render_run(make_result())
    lines = out.splitlines()
    assert "core cycles per call" in lines[0] and "latency mode" in lines[0]
    assert lines[1].strip().startswith("machine: Test CPU")
    header_at = next(i for i, line in enumerate(lines) if "variant" in line and "40 B" in line)
    underline = lines[header_at + 1]
    assert set(underline.strip()) <= {"=", " "}
    assert len(underline) == len(lines[header_at])
    body = lines[header_at + 2 : header_at + 8]
    assert all(len(row) == len(underline) for row in body)  # right-aligned to the same edge
    assert any(row.strip().startswith("broken") and "WRONG" in row for row in body)
    assert "broken: WRONG: mismatch at len 7" in out
