# SPDX-License-Identifier: GPL-2.0-only
"""The report's summary: bands, hotpath's own, the kernel's lineage, and where it is shown."""

from pathlib import Path

import pytest

from hotpath import summary
from hotpath.labs import LABS, Roles
from hotpath.protocol import Variant
from hotpath.results import FigureResult

CSUM = LABS["csum"]


def fig(variant, size, median, half=0.1, align=0, mode="latency"):
    return FigureResult(
        lab="csum", primitive="csum_partial", variant=variant, size=size, align=align,
        mode=mode, unit="cycles", status="ok", n=40, median=median,
        ci_lo=median - half, ci_hi=median + half,
    )  # fmt: skip


def cols(*figures):
    by = {}
    for f in figures:
        by.setdefault((f.align, f.size), []).append(f)
    return [
        summary.Column(size, align, sorted(fs, key=lambda f: f.median))
        for (align, size), fs in sorted(by.items())
    ]


def test_bands_join_sizes_with_one_winner_and_say_ties():
    columns = cols(
        fig("hp-csum", 40, 8.0), fig("kernel-2024", 40, 9.0),
        fig("hp-csum", 64, 10.0), fig("kernel-2024", 64, 10.05),  # CIs overlap: a tie
        fig("kernel-2024", 1500, 100.0), fig("hp-csum", 1500, 120.0),
    )  # fmt: skip
    roles = Roles(own="hp-csum", reimplemented=frozenset({"kernel-2024"}))
    assert summary.fastest_bands(CSUM, columns, roles) == [
        "40-64 B even: hp-csum (1.12x ahead of re-implemented kernel-2024; tied with "
        "re-implemented kernel-2024 at 64 B even)",
        "1500 B even: re-implemented kernel-2024 (1.20x ahead of hp-csum)",
    ]


def test_own_line_counts_and_names_its_worst_column():
    columns = cols(
        fig("hp-csum", 40, 8.0), fig("seed-adx", 40, 6.0),
        fig("hp-csum", 1500, 100.0), fig("kernel-2024", 1500, 101.0),
    )  # fmt: skip
    text, tone = summary.own_line(CSUM, "hp-csum", columns)
    assert text == (
        "fastest in 1 of 2 columns, within 3% of the fastest in 1; "
        "furthest behind at 40 B even: 1.33x the time of seed-adx"
    )
    assert tone == summary.BAD


def test_own_line_counts_gaps_of_one_cycle_apart():
    columns = cols(
        fig("hp-csum", 8, 9.0), fig("seed-no-odd", 8, 8.0),  # 12% but one cycle
        fig("hp-csum", 16, 9.5), fig("seed-no-odd", 16, 8.0),  # 1.5 cycles: a gap
        fig("hp-csum", 1500, 100.0), fig("kernel-2024", 1500, 99.0),  # within 3%
    )  # fmt: skip
    text, _ = summary.own_line(CSUM, "hp-csum", columns)
    assert text.startswith(
        "fastest in 0 of 3 columns, within 3% of the fastest in 1, "
        "1 core cycle or less behind in 1 more; furthest behind at 16 B even"
    )
    assert summary.own_within_unit("hp-csum", columns) == 1


def test_kernel_line_is_a_geometric_mean_with_counts():
    columns = cols(
        fig("kernel-2024", 40, 5.0), fig("kernel-5.17", 40, 10.0),
        fig("kernel-2024", 64, 20.0), fig("kernel-5.17", 64, 10.0),
        fig("kernel-2024", 256, 10.0), fig("kernel-5.17", 256, 10.05),
    )  # fmt: skip
    line = summary.kernel_line("kernel-2024", "kernel-5.17", columns)
    assert line == (
        "0.998x the time of kernel-5.17 (geometric mean over 3 columns): "
        "faster in 1, slower in 1, within noise in 1"
    )


def variant(name, flags=(), origin=""):
    return Variant(name, "", origin, [], list(flags), "ok", None, None, None)


def test_lineage_from_the_lab_roles_from_the_registry():
    """Which variant is hotpath's own and which re-implement the kernel is
    what the registry flags, never what the names look like."""
    names = ["rfc1071-ref", "kernel-5.17-rc", "kernel-2024", "kernel-5.17", "hp-csum", "hp"]
    flags = {"hp-csum": ["own"], "kernel-5.17-rc": ["reimplemented"],
             "kernel-2024": ["reimplemented"], "kernel-5.17": ["reimplemented"]}  # fmt: skip
    variants = [variant(n, flags.get(n, ())) for n in names]
    assert CSUM.kernel_variants("csum_partial", variants) == ("kernel-5.17", "kernel-2024")
    assert Roles.of(variants).own == "hp-csum"
    assert Roles.of([variant(n) for n in names]) == Roles()  # no flags: no guess
    crc = [variant("kernel-x86", ["reimplemented"]), variant("hotpath", ["own"])]
    assert LABS["crc32c"].kernel_variants("crc32c", crc) == ("kernel-x86",)
    assert LABS["crc32c"].kernel_variants("crc32c", [variant("kernel-x86")]) == ()


def test_real_kernels_win_over_reimplementations_ordered_by_version():
    real = [
        variant("linux-HEAD+dirty", ["user", "kernel"], "x.c, Linux 6.13.0-rc2: /src/linux"),
        variant("linux-6.12", ["kernel"], "x.c, Linux 6.12.117: Debian linux-source-6.12"),
        variant("linux-6.12:pcl", ["kernel"], "x.S, Linux 6.12.117: Debian linux-source-6.12"),
        variant("linux-6.1", ["kernel"], "x.c, Linux 6.1.192: Debian linux-source-6.1"),
    ]
    variants = [variant("kernel-2024", ["reimplemented"]), variant("kernel-5.17"), *real]
    assert CSUM.kernel_variants("csum_partial", variants) == (
        "linux-6.1",
        "linux-6.12",
        "linux-HEAD+dirty",
    )
    roles = Roles.of(variants)
    assert roles.label("kernel-2024") == "re-implemented kernel-2024"
    assert roles.label("linux-6.12") == "linux-6.12"


@pytest.mark.usefixtures("fake_runner")
def test_run_prints_the_summary_first_and_the_markdown_opens_with_it(cli, tmp_path: Path):
    out = tmp_path / "r"
    res = cli("run", "--quick", "--out", str(out), "--db", str(tmp_path / "h.sqlite"))
    assert res.status == 0
    lines = res.out.splitlines()
    assert lines[-1] == str(out)
    start = lines.index("Summary")
    assert lines[start + 1].startswith("  machine: ")
    assert any("hotpath's own" in line for line in lines[start:])
    md = (out / "report.md").read_text()
    assert md.index("## Summary") < md.index("## Calibration") < md.index("## Results")
    assert "| lab | fastest | hotpath's own |" in md


@pytest.mark.usefixtures("fake_runner")
def test_report_and_compare_html_refuse_bad_input(cli, tmp_path: Path):
    db = str(tmp_path / "h.sqlite")
    assert cli("csum", "--rounds", "10", "--db", db).status == 0
    for ref in ("7", "bogus", "last~3"):
        res = cli("report", ref, "--out", str(tmp_path / "x"), "--db", db)
        assert res.status == 2 and res.err.count("\n") == 1 and ref in res.err
        assert not (tmp_path / "x").exists()
    blocker = tmp_path / "file"
    blocker.write_text("")
    res = cli("compare", "1", "1", "--html", str(blocker), "--db", db)
    assert res.status == 2 and "--html" in res.err
    res = cli("report", "1", "--out", str(tmp_path / "page"), "--db", db)
    assert res.status == 0 and (tmp_path / "page" / "report.html").is_file()
    assert "stored before the history kept" not in (tmp_path / "page" / "report.html").read_text()
