# SPDX-License-Identifier: GPL-2.0-only
"""A brought variant is as first-class as a built-in: its own name in the
run, its compiler flags and CPU needs declared in the file, a clear word
when its function is missing or its CRC inverts. Against the real runner.
"""

from pathlib import Path

import pytest

from conftest import RFC1071_C

pytestmark = [pytest.mark.runner, pytest.mark.usefixtures("real_runner")]

CRC_C = r"""
#include <stddef.h>
#include <stdint.h>

static uint32_t raw(uint32_t crc, const uint8_t *p, size_t n)
{
	while (n--) {
		crc ^= *p++;
		for (int k = 0; k < 8; k++)
			crc = (crc >> 1) ^ (0x82f63b78 & -(crc & 1));
	}
	return crc;
}

uint32_t hotpath(uint32_t crc, const void *b, size_t n) { return raw(crc, b, n); }
uint32_t inverting(uint32_t crc, const void *b, size_t n) { return ~raw(~crc, b, n); }
"""

CSUM_C = (
    "// hotpath: cflags=-DSCALE=1\n// hotpath: needs=NEEDS\n"
    + RFC1071_C
    + r"""
uint32_t plain(const void *buf, int len, uint32_t sum)
{
	return ok(buf, len, sum * SCALE);
}
"""
)

CRC = ["crc32c", "--primitive", "crc32c", "--sizes", "64", "--rounds", "5",
       "--modes", "latency", "--no-store"]  # fmt: skip
CSUM = ["csum", "--sizes", "40", "--align", "0", "--rounds", "5", "--modes", "latency",
        "--variants", "rfc1071-ref", "--no-store"]  # fmt: skip


def rows(out: str) -> dict[str, str]:
    return {line.split()[0]: line for line in out.splitlines() if line and line[0].isalpha()}


def test_a_name_a_builtin_has_is_shown_as_file_function(cli, tmp_path: Path):
    (tmp_path / "crc.c").write_text(CRC_C)
    other = tmp_path / "other"
    other.mkdir()
    (other / "crc2.c").write_text(CRC_C)
    res = cli(*CRC, "--variants", "hotpath", "--with", f"{tmp_path / 'crc.c'}:hotpath",
              "--with", f"{other / 'crc2.c'}:hotpath", "--json")  # fmt: skip
    assert res.status == 0, res.err
    names = [f["variant"] for f in res.json()["figures"]]
    assert sorted(names) == ["crc.c:hotpath", "crc2.c:hotpath", "hotpath"]
    res = cli(*CRC, "--with", f"{tmp_path / 'crc.c'}:hotpath",
              "--with", f"{tmp_path / 'crc.c'}:hotpath")  # fmt: skip
    assert res.status == 2 and "given twice" in res.err


def test_inverting_convention_is_named(cli, tmp_path: Path):
    (tmp_path / "crc.c").write_text(CRC_C)
    res = cli(*CRC, "--variants", "bitwise-ref", "--with", f"{tmp_path / 'crc.c'}:inverting")
    assert res.status == 1
    assert "WRONG: mismatch (inverting convention?" in rows(res.out)["inverting"]


def test_file_directives_and_flags(cli, tmp_path: Path):
    src = tmp_path / "mine.c"
    src.write_text(CSUM_C.replace("NEEDS", "adx"))
    res = cli(*CSUM, "--with", f"{src}:plain")  # cflags=-DSCALE=1 from the file
    assert res.status == 0, res.err
    src.write_text(CSUM_C.replace("// hotpath: cflags=-DSCALE=1\n", "").replace("NEEDS", "adx"))
    assert cli(*CSUM, "--with", f"{src}:plain").status == 2  # SCALE undefined
    res = cli(*CSUM, "--with", f"{src}:plain", "--with-cflags=-DSCALE=1")
    assert res.status in (0, 1) and "plain" in rows(res.out)
    src.write_text(CSUM_C.replace("NEEDS", "nosuchfeature"))
    res = cli(*CSUM, "--with", f"{src}:plain")
    assert res.status == 2 and "CPU feature 'nosuchfeature'" in res.err
    src.write_text("// hotpath: color=blue\n")
    res = cli(*CSUM, "--with", f"{src}:plain")
    assert res.status == 2 and "'// hotpath: color=' is not known" in res.err


def test_needs_a_feature_the_cpu_lacks_is_skipped(cli, tmp_path: Path, monkeypatch):
    src = tmp_path / "mine.c"
    src.write_text(CSUM_C.replace("NEEDS", "avx512f"))
    features = cli("list").out.splitlines()[0]  # "cpu: ...; features: a, b"
    reason = "this CPU lacks avx512f"
    if "avx512f" in features:  # take it away, as on a CPU without
        monkeypatch.setenv("HOTPATH_CPU_HIDE", "avx512f")
        reason += " (hidden by HOTPATH_CPU_HIDE)"
    res = cli(*CSUM, "--with", f"{src}:plain", "--json")
    assert res.status == 0, res.err
    mine = next(v for v in res.json()["variants"] if v["name"] == "plain")
    assert mine["status"] == "skipped" and mine["reason"] == reason


def test_a_file_whose_needs_the_cpu_lacks_is_never_compiled(cli, tmp_path: Path, monkeypatch):
    src = tmp_path / "mine.c"
    src.write_text(CSUM_C.replace("NEEDS", "avx512f") + "#error compiled\n")
    monkeypatch.setenv("HOTPATH_CPU_HIDE", "avx512f")  # lacking it, whatever this CPU has
    res = cli(*CSUM, "--with", f"{src}:plain", "--json")
    assert res.status == 0, res.err
    mine = next(v for v in res.json()["variants"] if v["name"] == "plain")
    assert mine["status"] == "skipped"


# Options that make the compiler driver run a program, load code or write
# a file outside its temporary folder: refused, whatever the file needs.
OUTSIDE = [
    ("-wrapper '/bin/sh,-c,touch MARK'", "-wrapper"),
    ("-MD -MF MARK", "-MD"),
    ("-O2 -MF MARK", "-MF"),
    ("-fplugin=MARK", "-fplugin=MARK"),
    ("-fdump-tree-all=MARK", "-fdump-tree-all=MARK"),
    ("-fprofile-generate=MARK", "-fprofile-generate=MARK"),
    ("-flto=auto", "-flto=auto"),
    ("-specs=MARK", "-specs=MARK"),
    ("-B MARK", "-B"),
    ("-Wl,--version-script=MARK", "-Wl,--version-script=MARK"),
    ("-o MARK", "-o"),
    ("-I /usr/include", "-I/usr/include"),
    ("-I..", "-I.."),
]


@pytest.mark.parametrize("needs", ["", "avx512f"])
@pytest.mark.parametrize(("flags", "named"), OUTSIDE)
def test_compiler_options_that_reach_outside_are_refused(
    cli, tmp_path: Path, monkeypatch, flags, named, needs
):
    mark = tmp_path / "outside" / "mark"
    mark.parent.mkdir()
    src = tmp_path / "src" / "mine.c"
    src.parent.mkdir()
    text = CSUM_C.replace("-DSCALE=1", flags.replace("MARK", str(mark)))
    src.write_text(text.replace("NEEDS", needs or "sse4.2"))
    monkeypatch.setenv("HOTPATH_CPU_HIDE", "avx512f")
    res = cli(*CSUM, "--with", f"{src}:plain", "--with-cflags=-DSCALE=1")
    assert res.status == 2, res.err
    assert f"compiler option '{named.replace('MARK', str(mark))}'" in res.err
    assert "allowed: options that change the code generated" in res.err
    assert res.out == "" and list(mark.parent.iterdir()) == []


def test_code_generation_options_are_taken(cli, tmp_path: Path, monkeypatch):
    src = tmp_path / "src" / "mine.c"
    (src.parent / "inc").mkdir(parents=True)
    (src.parent / "inc" / "scale.h").write_text("#define SCALE (ONE * 1)\n")
    flags = "-O3 -funroll-loops -march=x86-64 -D ONE=1 -UNDEF -I inc -std=gnu11"
    text = CSUM_C.replace("-DSCALE=1", flags).replace("NEEDS", "sse4.2")
    src.write_text(text.replace("#include <stdint.h>", '#include <stdint.h>\n#include "scale.h"'))
    monkeypatch.chdir(tmp_path)  # -I is the file's folder's, wherever hotpath runs
    res = cli(*CSUM, "--with", f"{src}:plain")
    assert res.status in (0, 1), res.err
    assert "plain" in rows(res.out)


def test_a_compiler_that_writes_nothing_is_said(cli, tmp_path: Path):
    src = tmp_path / "mine.c"
    src.write_text(CSUM_C.replace("NEEDS", "sse4.2"))
    res = cli(*CSUM, "--with", f"{src}:plain", "--with-cflags=-fsyntax-only")
    assert res.status == 2
    assert "the compiler ended well but wrote no" in res.err and "user0-mine.so" in res.err


def test_cpu_hide_takes_features_away_and_refuses_unknown_names(cli, monkeypatch):
    monkeypatch.setenv("HOTPATH_CPU_HIDE", "avx2,avx512f")
    features = cli("list").out.splitlines()[0]
    assert "avx2" not in features.split("features:")[1] and "avx512f" not in features
    monkeypatch.setenv("HOTPATH_CPU_HIDE", "avx2,bogus")
    res = cli(*CSUM)
    assert res.status == 2
    assert "HOTPATH_CPU_HIDE: 'bogus' is not a CPU feature; allowed: comma-separated" in res.err


def test_odd_file_names_compilers_and_missing_functions(cli, tmp_path: Path, monkeypatch):
    dash = tmp_path / "-O0.c"
    dash.write_text(CSUM_C.replace("NEEDS", "adx"))
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("CC", "gcc -m64")  # a compiler with flags, as make allows
    res = cli(*CSUM, "--with=-O0.c:plain")
    assert res.status == 0, res.err
    assert "plain" in rows(res.out)
    res = cli(*CSUM, "--with=-O0.c:nosuch")
    assert res.status == 2
    assert "-O0.c defines no function 'nosuch'; it defines: plain" in res.err


def test_variants_of_another_primitive_and_empty_lists(cli):
    res = cli("crc32c", "--variants", "matrix", "--sizes", "1420", "--rounds", "5",
              "--modes", "latency", "--no-store", "--json")  # fmt: skip
    assert res.status == 0, res.err
    figures = res.json()["figures"]
    assert {(f["primitive"], f["variant"]) for f in figures} == {("crc32c_combine", "matrix")}
    res = cli("csum", "--variants", "", "--no-store")
    assert res.status == 2 and "variants ''" in res.err


def test_user_flags_name_the_library_headers_absolutely(real_runner: Path):
    words = (real_runner / "user-cflags").read_text().split()
    includes = [w for w in words if w.startswith("-I")]
    assert includes and all(Path(w[2:]).is_absolute() for w in includes)


def test_help_says_with_repeats_and_where_signatures_are(cli):
    res = cli("csum", "--help")
    text = " ".join(res.out.split())
    assert "repeatable" in text and "c/include/hotpath/csum.h" in text
