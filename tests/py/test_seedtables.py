# SPDX-License-Identifier: GPL-2.0-only
"""Seed tables: the seed's layout, the published figures beside ours, computed directions.

The CLI runs against the scripted runner (structure only, never timings);
the directions are checked on synthetic figures whose CIs are chosen to
give each outcome.
"""

import itertools
import json
import re
from pathlib import Path

import jsonschema
import pytest

from conftest import SCHEMA
from hotpath.machine import Fingerprint
from hotpath.protocol import Failure, Variant
from hotpath.results import FigureResult, RunResult, VariantResult
from hotpath.seedtable_spec import Axis, Claim, Published, SeedTable, TableSpec
from hotpath.seedtables import (
    DOES_NOT_HOLD,
    HOLDS,
    NOT_COMPARABLE,
    NOT_DISTINGUISHABLE,
    combine,
    decide_point,
    evaluate,
)

# --- the format, against the scripted runner ------------------------------


def table_at(out: str, title: str) -> list[str]:
    """The header, underline and body lines of the first table under `title`."""
    lines = out.splitlines()
    start = next(i for i, line in enumerate(lines) if line.strip() == title)
    under = next(i for i in range(start, len(lines)) if set(lines[i].strip()) == {"=", " "})
    end = next((i for i in range(under + 1, len(lines)) if not lines[i].strip()), len(lines))
    return lines[under - 1 : end]


def spans(underline: str) -> list[tuple[int, int]]:
    return [m.span() for m in re.finditer(r"=+", underline)]


def check_grid(table: list[str], right_first: bool = True) -> None:
    """seed 002's layout: '=' under each header as wide as its column, cells right-aligned."""
    header, underline, *body = table
    assert body
    assert underline.startswith("        =")  # indented like the seed's tables
    columns = spans(underline)
    gaps = [b[0] - a[1] for a, b in itertools.pairwise(columns)]
    assert gaps and all(gap == 4 for gap in gaps)
    for line in [header, *body]:
        for index, (lo, hi) in enumerate(columns):
            if index == 0 and not right_first:
                assert line[lo] != " "
                continue
            assert line[hi - 1] != " ", f"not right-aligned at {hi}: {line!r}"
            assert hi == len(line) or line[hi] == " "
            assert lo == 0 or line[lo - 1] == " "


@pytest.mark.usefixtures("fake_runner")
def test_skb_table_format(cli):
    res = cli("crc32c", "--skb-table", "--rounds", "20", "--no-store")
    assert res.status == 0, res.err
    out = res.out
    for title in (
        "Linear sk_buffs",
        "Nonlinear sk_buffs (even split between head and one fragment)",
    ):
        table = table_at(out, title)
        check_grid(table)
        header = table[0]
        cols = [header[lo:hi].strip() for lo, hi in spans(table[1])]
        assert cols == ["Length in bytes", "__skb_checksum cycles", "skb_crc32c cycles",
                        "Zen 5 __skb_checksum", "Zen 5 skb_crc32c", "hotpath cycles",
                        "matrix combine cycles"]  # fmt: skip
        rows = [line.split()[0] for line in table[2:]]
        assert rows == ["64", "256", "1420", "16384"]
        # ours: integers like the seed's
        assert all(re.fullmatch(r"~?\d+", cell) for line in table[2:] for cell in line.split())
    linear = table_at(out, "Linear sk_buffs")
    assert linear[2].split()[3:5] == ["43", "18"]
    assert linear[5].split()[3:5] == ["1735", "1642"]
    nonlinear = table_at(out, "Nonlinear sk_buffs (even split between head and one fragment)")
    assert nonlinear[2].split()[3:5] == ["579", "22"]
    assert "latency mode (each call's result feeds the next call): core cycles per" in out
    assert "machine: " in out and "AMD Zen 5" in out
    assert "__skb_checksum = generic-gf2mul" in out  # which variant the column is
    flat = " ".join(out.split())
    assert "direction: linear, 64 bytes: skb_crc32c (direct calls) cheaper" in flat
    assert "at every length: holds here" in flat  # the scripted generic walk costs 5x


@pytest.mark.usefixtures("fake_runner")
def test_skb_table_modes_json_markdown_store(cli, tmp_path: Path):
    db = tmp_path / "h.sqlite"
    res = cli("crc32c", "--skb-table", "--rounds", "10", "--modes", "throughput,fenced",
              "--db", str(db))  # fmt: skip
    assert res.status == 0 and "stored as run 1" in res.out
    assert "throughput mode (calls independent)" in res.out and "latency mode" not in res.out
    doc = cli("crc32c", "--skb-table", "--rounds", "10", "--json", "--no-store").json()
    jsonschema.validate(doc, json.loads(SCHEMA.read_text()))
    tables = doc["seed_table"]["tables"]
    assert [t["title"] for t in tables] == ["Linear sk_buffs", "Nonlinear sk_buffs (even split "
                                             "between head and one fragment)"]  # fmt: skip
    cell = tables[0]["rows"][0]["cells"][0]
    assert cell["variant"] == "generic-gf2mul" and cell["size"] == 64
    assert cell["ci_lo"] <= cell["median"] <= cell["ci_hi"]
    assert tables[0]["rows"][0]["published"] == {"generic": 43, "chained": 18}
    assert tables[1]["verdicts"][0]["outcome"] == HOLDS
    md = cli("crc32c", "--skb-table", "--rounds", "10", "--markdown", "--no-store").out
    assert "=====" in md and "clock (" not in md and "stored as" not in md


def flat_latency_of(block: str) -> str:
    return " ".join(block.split())


@pytest.mark.usefixtures("fake_runner")
def test_csum_seed_table(cli):
    res = cli("csum", "--seed-table", "--rounds", "20", "--no-store")
    assert res.status == 0, res.err  # the seed's own wrong code is a result
    out = res.out
    flat = " ".join(out.split())
    assert 'TSC ticks on an Intel Cascade Lake reported as "cycles"' in flat
    assert "ours are core cycles calibrated on this machine" in flat
    blocks = out.split("    csum_partial, 40 bytes\n")[1:]
    assert len(blocks) == 3
    for block, mode in zip(blocks, ("latency", "throughput", "fenced"), strict=True):
        assert f"{mode} mode" in block
    latency, throughput, fenced = blocks
    table = table_at("    csum_partial, 40 bytes\n" + latency, "csum_partial, 40 bytes")
    check_grid(table, right_first=False)
    labels = [line.strip()[: line.strip().index(")") + 1] for line in table[2:]]
    assert (
        labels[0] == "Baseline (kernel-5.17-rc)"
        and labels[-1] == "Assume Zero Input (seed-zero-sum)"
    )
    rows = {
        label: line.split(")")[-1].split() for label, line in zip(labels, table[2:], strict=True)
    }
    # ours even, odd; the seed's even, odd; the chain bound even, odd (latency mode only)
    assert table[0].split()[-4:] == ["bound", "even", "bound", "odd"]
    assert rows["Baseline (kernel-5.17-rc)"] == ["WRONG", "WRONG", "11.1", "19.2", "-", "-"]
    assert rows["Two Streams as printed (seed-two-streams-published)"][:2] == ["WRONG", "WRONG"]
    assert rows["Assume Zero Input (seed-zero-sum)"] == ["n/a", "n/a", "4.0*", "4.0*", "n/a", "n/a"]
    assert rows["32 bit only (seed-32bit)"][2:4] == ["5.7", "5.8"]
    assert rows["Dead Code Removed (seed-dead-code)"][4:] == ["9", "9"]  # seed 000's chain: 9
    assert "-mcpu=znver2" in flat_latency_of(latency)
    assert "seed 000 drew its critical chain by hand" in flat_latency_of(latency)
    assert "seed-zero-sum: bound n/a: the result does not depend on the input sum" in (
        flat_latency_of(latency)
    )
    flat_latency = " ".join(latency.split())
    assert "seed-two-streams-published: WRONG: mismatch at len 3" in flat_latency
    assert "seed-zero-sum: n/a: ignores its input sum" in flat_latency
    assert "compare it with ours in throughput mode (even " in flat_latency
    assert "Dead Code Removed cheaper than Baseline: holds here" in flat_latency
    assert "the seed printed no figures for throughput mode" in throughput
    assert "seed even" not in throughput
    assert "bound even" not in throughput and "bound even" not in fenced
    fenced_table = table_at("    csum_partial, 40 bytes\n" + fenced, "csum_partial, 40 bytes")
    fenced_rows = {
        line.split("(")[0].strip(): line.split(")")[-1].split() for line in fenced_table[2:]
    }
    assert fenced_rows["Baseline"][2:] == ["19.1", "26.9"]
    assert fenced_rows["32 bit only"][2:] == ["-", "-"]  # the seed has no fenced 32-bit row
    assert "4.0*" not in fenced  # the zero-input caveat belongs to the main table only


@pytest.mark.parametrize(
    ("lab", "args", "named"),
    [
        ("crc32c", ["--skb-table", "--sizes", "64"], "--sizes"),
        ("crc32c", ["--skb-table", "--align", "1"], "--align"),
        ("crc32c", ["--skb-table", "--variants", "chained"], "--variants"),
        ("crc32c", ["--skb-table", "--primitive", "crc32c"], "--primitive"),
        ("crc32c", ["--skb-table", "--modes", "latency,warp"], "warp"),
        ("crc32c", ["--skb-table", "--rounds", "0"], "0"),
        ("crc32c", ["--seed-table"], "--seed-table"),
        ("csum", ["--skb-table"], "--skb-table"),
        ("csum", ["--seed-table", "--sizes", "40"], "--sizes"),
        ("csum", ["--seed-table", "--with", "x.c:f"], "--with"),
        ("csum", ["--seed-table", "--noisy-threshold", "3"], "3"),
    ],
)
@pytest.mark.usefixtures("fake_runner")
def test_seed_table_bad_input(cli, tmp_path: Path, lab, args, named):
    db = tmp_path / "h.sqlite"
    res = cli(lab, *args, "--db", str(db))
    assert res.status == 2, res.err
    assert named in res.err
    assert not db.exists()


# --- directions from synthetic figures ------------------------------------


def test_decide_point():
    assert decide_point((9.0, 9.2), (10.0, 10.4)) == HOLDS
    assert decide_point((10.0, 10.4), (9.0, 9.2)) == DOES_NOT_HOLD
    assert decide_point((9.0, 10.1), (10.0, 10.4)) == NOT_DISTINGUISHABLE
    assert decide_point(None, (10.0, 10.4)) == NOT_COMPARABLE
    # "at least 2x cheaper": 6 x 2 = 12 is not below 10
    assert decide_point((6.0, 6.1), (10.0, 10.4), factor=2.0) == DOES_NOT_HOLD
    assert decide_point((4.0, 4.1), (10.0, 10.4), factor=2.0) == HOLDS


def test_combine_worst_point_decides():
    assert combine([HOLDS, HOLDS]) == HOLDS
    assert combine([HOLDS, NOT_DISTINGUISHABLE]) == NOT_DISTINGUISHABLE
    assert combine([NOT_DISTINGUISHABLE, DOES_NOT_HOLD, HOLDS]) == DOES_NOT_HOLD
    assert combine([HOLDS, NOT_COMPARABLE]) == NOT_COMPARABLE
    assert combine([]) == NOT_COMPARABLE


SPEC = TableSpec(
    title="Synthetic",
    primitive="p",
    row_header="Length in bytes",
    rows=(Axis("64", "64", size=64), Axis("256", "256", size=256)),
    columns=(Axis("old", "old", variant="old"), Axis("new", "new", variant="new")),
    published=(
        Published(
            mode=None,
            source="the seed's figures",
            columns={"old": "seed old", "new": "seed new"},
            values={"64": {"old": 40, "new": 20}, "256": {"old": 90, "new": 100}},
        ),
    ),
    claims=(Claim("new cheaper than old", cheaper="new", dearer="old"),),
)
SEED = SeedTable(flag="x-table", help="", seed="synthetic", tables=(SPEC,), modes=("latency",))


def fake_run(cis: dict[tuple[str, int], tuple[float, float] | None], wrong: str = "") -> RunResult:
    machine = Fingerprint(model_name="Test CPU", hypervisor="none", kernel="6.1")
    run = RunResult(command="lab", started="2025-01-01T00:00:00+00:00", machine=machine)
    for name in ("old", "new"):
        failure = Failure(1, 0, 0, 1, 2, "mismatch") if name == wrong else None
        status = "wrong" if failure else "ok"
        run.variants.append(
            VariantResult("lab", "p", Variant(name, "", "", [], [], status, None, 1, failure))
        )
    for (name, size), ci in cis.items():
        figure = FigureResult("lab", "p", name, size, 0, "latency", "cycles", "ok", n=30)
        if ci is None:
            figure.status, figure.reason = "n/a", "no chain"
        else:
            figure.ci_lo, figure.ci_hi = ci
            figure.median = (ci[0] + ci[1]) / 2
        run.figures.append(figure)
    return run


def verdict(run: RunResult):
    return evaluate(SEED, run, ("latency",)).tables[0].verdicts[0]


def test_direction_holds_and_seed_side():
    run = fake_run({("old", 64): (50, 52), ("new", 64): (20, 22),
                    ("old", 256): (120, 122), ("new", 256): (80, 82)})  # fmt: skip
    v = verdict(run)
    assert v.outcome == HOLDS
    assert v.seed_outcome == DOES_NOT_HOLD  # the synthetic seed has new dearer at 256
    line = v.line(0, 0)
    assert "new cheaper than old: holds here (64 21 vs 51 (2.4x); 256 81 vs 121 (1.5x))" in line
    assert "the seed's figures: does not hold (64 20 vs 40; 256 100 vs 90)" in line


def test_direction_does_not_hold():
    run = fake_run({("old", 64): (50, 52), ("new", 64): (20, 21),
                    ("old", 256): (80, 82), ("new", 256): (120, 122)})  # fmt: skip
    assert verdict(run).outcome == DOES_NOT_HOLD


def test_direction_not_distinguishable():
    run = fake_run({("old", 64): (50, 52), ("new", 64): (20, 21),
                    ("old", 256): (100, 110), ("new", 256): (105, 115)})  # fmt: skip
    assert verdict(run).outcome == NOT_DISTINGUISHABLE


def test_direction_not_comparable_when_untimed_or_wrong():
    run = fake_run({("old", 64): (50, 52), ("new", 64): None,
                    ("old", 256): (120, 122), ("new", 256): (80, 82)})  # fmt: skip
    assert verdict(run).outcome == NOT_COMPARABLE
    run = fake_run({("old", 64): (50, 52), ("new", 64): (20, 21),
                    ("old", 256): (120, 122), ("new", 256): (80, 82)}, wrong="old")  # fmt: skip
    result = evaluate(SEED, run, ("latency",)).tables[0]
    assert result.verdicts[0].outcome == NOT_COMPARABLE
    assert any(note.startswith("old: WRONG: mismatch at len 1") for note in result.notes)
    assert result.body()[0][1] == "WRONG"


def test_spec_checks_itself():
    with pytest.raises(ValueError, match="no variant or size"):
        TableSpec(title="t", primitive="p", row_header="r",
                  rows=(Axis("a", "a"),), columns=(Axis("b", "b", variant="v"),))  # fmt: skip
    with pytest.raises(ValueError, match="both keys"):
        TableSpec(title="t", primitive="p", row_header="r", size=1,
                  rows=(Axis("a", "a"),), columns=(Axis("b", "b", variant="v"),),
                  claims=(Claim("x", cheaper="a", dearer="b"),))  # fmt: skip


def test_lab_tables_are_declared_as_data():
    from hotpath.labs import LABS

    skb = LABS["crc32c"].seed_tables[0]
    assert skb.flag == "skb-table" and skb.modes == ("latency",)
    wants = {w.primitive: w for w in skb.wants()}
    assert set(wants) == {"skb_crc32c_linear", "skb_crc32c_nonlinear"}
    assert wants["skb_crc32c_linear"].sizes == (64, 256, 1420, 16384)
    assert set(wants["skb_crc32c_linear"].variants) == {"generic-gf2mul", "chained", "hotpath",
                                                        "generic-matrix"}  # fmt: skip
    ladder = LABS["csum"].seed_tables[0]
    (want,) = ladder.wants()
    assert want.sizes == (40,) and want.aligns == (0, 1)
    assert "seed-two-streams-published" in want.variants and "kernel-5.17-rc" in want.variants


def test_every_seed_table_is_declared_in_its_labs_spec():
    """One mechanism (issue 38): every lab's seed tables are its spec's
    SeedTables behind a flag each; a table of the lab's own measuring
    (avc's model and fitted cost) says so and has the hook that measures it."""
    from hotpath.commands import labs
    from hotpath.labs import ALL_LABS, LABS

    assert [(s.flag, s.own) for s in LABS["avc"].seed_tables] == [("seed-table", True)]
    for lab in ALL_LABS:
        for seed in lab.seed_tables:
            if seed.own:
                assert labs.hooks(lab.name).seed_table is not None and not seed.tables
            else:
                assert seed.tables, (lab.name, seed.flag)
