# SPDX-License-Identifier: GPL-2.0-only
"""The runner's JSON as docs/runner-protocol.md shows it parses; drift is reported."""

import json
from pathlib import Path

import pytest

from hotpath.errors import RunnerError
from hotpath.protocol import parse_facts, parse_listing, parse_run

FIXTURES = Path(__file__).parent / "fixtures"


def test_protocol_example_parses():
    doc = json.loads((FIXTURES / "run-protocol-example.json").read_text())
    run = parse_run(doc)
    assert run.primitive == "csum_partial" and run.lab == "csum"
    assert run.clock is not None and run.clock.unit == "cycles"
    assert run.clock.perf_cycles.available is False
    assert run.cpu.core_hz_estimate == 3.27e9
    assert run.variants[0].needs == ["adx"]
    assert run.figures[0].values == [11.02, 11.05]


def test_wrong_schema_named():
    doc = json.loads((FIXTURES / "run-protocol-example.json").read_text())
    doc["schema"] = "hotpath.bench/2"
    with pytest.raises(RunnerError, match=r"hotpath\.bench/2"):
        parse_run(doc)


def test_missing_field_named():
    doc = json.loads((FIXTURES / "run-protocol-example.json").read_text())
    del doc["clock"]["tsc_hz"]
    with pytest.raises(RunnerError, match=r"clock\.tsc_hz"):
        parse_run(doc)


@pytest.mark.parametrize("values", [[11.0, True], [11.0, "11"], [None], "11.0"])
def test_samples_that_are_not_numbers_named(values):
    doc = json.loads((FIXTURES / "run-protocol-example.json").read_text())
    doc["figures"][0]["values"] = values
    with pytest.raises(RunnerError, match=r"figures\[\]\.values is not a list of numbers"):
        parse_run(doc)


def test_failure_case_read():
    doc = json.loads((FIXTURES / "run-protocol-example.json").read_text())
    doc["variants"][0].update(
        status="wrong",
        failure={"len": 3, "align": 1, "seed": 5, "expected": 4660, "got": "0x2345",
                 "what": "mismatch"},
    )  # fmt: skip
    failure = parse_run(doc).variants[0].failure
    assert failure is not None
    assert failure.describe() == (
        "mismatch at len 3, align 1, seed 0x5: expected 0x1234, got 0x2345"
    )


def test_listing():
    doc = {
        "schema": "hotpath.bench/1",
        "command": "list",
        "cpu": {"vendor": "v", "family": 1, "model": 2, "stepping": 3, "brand": "b",
                "features": []},
        "primitives": [{"name": "csum_partial", "lab": "csum", "seed_name": "sum",
                        "default_sizes": [40], "variants": [{"name": "x", "status": "ok"}]}],
    }  # fmt: skip
    listing = parse_listing(doc)
    prim = listing.primitive("csum_partial")
    assert prim is not None and prim.variants[0].name == "x"
    assert listing.primitive("nope") is None


def test_facts_state_the_limits_features_row_primitives_and_dispatch_facts():
    doc = json.loads((Path(__file__).parent / "fixtures" / "runner-facts.json").read_text())
    facts = parse_facts(doc)
    assert facts.limits.size_max == 1 << 30 and facts.limits.align_max == 4095
    assert facts.limits.rounds_max == 1_000_000 and facts.limits.time_limit_max == 86400
    assert facts.cpu_features[:2] == ["sse4.2", "pclmulqdq"]  # the runner's bit order
    assert "skb_crc32c_linear" in facts.row_primitives and "avc_lookup" not in facts.row_primitives
    assert facts.dispatch.of("crc32c").methods["avx512-fused"] == "fused-crc32-vpclmul"
    assert facts.dispatch.primitive_of_key("csum.odd") == "csum_partial"
    with pytest.raises(RunnerError, match=r"facts\.limits\.size_max"):
        parse_facts({**doc, "limits": {**doc["limits"], "size_max": "1 GiB"}})


def test_listing_states_the_row_in_use():
    doc = {
        "schema": "hotpath.bench/1",
        "command": "list",
        "cpu": {"vendor": "v", "family": 1, "model": 2, "stepping": 3, "brand": "b",
                "features": ["avx2"], "hidden": ["sse4.2"], "hypervisor": False},
        "dispatch": {"name": "r", "source": "built-in", "text": "t", "key": "k",
                     "user_row": None, "steps": {"crc32c": [["sse42", 0], ["fold4", 64]]}},
        "primitives": [],
    }  # fmt: skip
    listing = parse_listing(doc)
    assert listing.dispatch == {"name": "r", "source": "built-in", "text": "t", "key": "k",
                                "user_row": ""}  # fmt: skip
    assert listing.dispatch_steps == {"crc32c": [("sse42", 0), ("fold4", 64)]}
    assert listing.cpu.hidden == ["sse4.2"] and listing.cpu.hypervisor is False
    doc["dispatch"]["steps"] = {"crc32c": [["sse42", "0"]]}
    with pytest.raises(RunnerError, match=r"dispatch\.steps\.crc32c"):
        parse_listing(doc)
