# SPDX-License-Identifier: GPL-2.0-only
"""Size lists and sweeps as the labs take them; numbers in ASCII digits only,
and long values cut where a message quotes them."""

import argparse

import pytest

from hotpath.cli import build_parser
from hotpath.errors import UsageError
from hotpath.inputs import MAX_SWEEP_POINTS, ascii_int, parse_sizes, shown
from hotpath.machine import Fingerprint
from hotpath.results import RunResult
from hotpath.store import Store


def test_plain_list_keeps_the_users_order():
    assert parse_sizes("1500,40,1500") == (1500, 40)


def test_sweep_has_two_points_per_octave_and_both_ends():
    sweep = parse_sizes("1..65536")
    assert sweep[0] == 1 and sweep[-1] == 65536
    assert {40, 1500} - set(sweep) == {40, 1500}
    for k in range(16):
        assert 2**k in sweep
    assert 3 * 1024 in sweep and 3 * 1024 + 1 not in sweep
    assert list(sweep) == sorted(set(sweep))
    assert parse_sizes("5..100")[:2] == (5, 6)
    assert parse_sizes("5..100")[-1] == 100


def test_sweep_and_single_sizes_merge_in_order():
    assert parse_sizes("40,1..64,1500") == (1, 2, 3, 4, 6, 8, 12, 16, 24, 32, 40, 48, 64, 1500)


def test_too_many_points_is_refused_with_the_limit():
    text = ",".join(str(n) for n in range(MAX_SWEEP_POINTS + 1))
    with pytest.raises(UsageError, match=str(MAX_SWEEP_POINTS)):
        parse_sizes(text)


# ---- numbers in ASCII digits only, long values cut (issue 28 item 18) ----

# int() takes each of these as a number; none is one on a command line
NOT_ASCII = ("\uff14\uff10", "\u0664\u0660", "1_000", "\u00b2")  # fullwidth 40, Arabic-Indic 40


@pytest.mark.parametrize("text", [*NOT_ASCII, "\uff14..\uff18", "1..1_000"])
def test_sizes_take_ascii_digits_only(text):
    with pytest.raises(UsageError, match="ASCII digits") as err:
        parse_sizes(text)
    assert text.split("..")[0] in str(err.value) or text in str(err.value)


def test_every_number_option_takes_ascii_digits_only(cli):
    def actions(parser):
        for action in parser._actions:
            yield action
            if isinstance(action, argparse._SubParsersAction):
                for sub in action.choices.values():
                    yield from actions(sub)

    assert not [a.dest for a in actions(build_parser()) if a.type in (int, float)]
    for args in (("csum", "--rounds", "\uff14\uff10"), ("history", "--limit", "1_0"),
                 ("compare", "a", "b", "--threshold", "nan"),
                 ("csum", "--noisy-threshold", "\uff10.1")):  # fmt: skip
        res = cli(*args)
        assert res.status == 2 and f"'{args[-1]}': allowed: a" in res.err, res.err
        assert "ASCII digits" in res.err
    res = cli("avc", "--slots", "\uff15\uff11\uff12")
    assert res.status == 2 and "--slots '\uff15\uff11\uff12': allowed: a power of two" in res.err
    res = cli("crossing", "--chunk", "\uff14")
    assert res.status == 2 and "--chunk '\uff14': allowed: a whole number" in res.err


def test_run_references_take_ascii_digits_only(tmp_path):
    store = Store.open(tmp_path / "h.sqlite")
    for _ in range(5):
        store.save(RunResult(command="csum", started="now", machine=Fingerprint()))
    assert store.resolve("4") == 4 and store.resolve("last~1") == 4
    for bad in ("\uff14", "\u00b2", "last~\uff11", "-1", "last~-1"):
        with pytest.raises(UsageError, match="allowed: a run id, 'last' or 'last~N'"):
            store.resolve(bad)
    store.close()


def test_a_huge_integer_is_out_of_range_not_a_traceback():
    # int() refuses strings of more than 4300 digits with a ValueError
    with pytest.raises(UsageError, match="out of range"):
        parse_sizes("9" * 5000)
    assert ascii_int("0" * 5000 + "7") == 7 and ascii_int("-" + "9" * 5000) == -(10**30)


@pytest.mark.usefixtures("fake_runner")
def test_a_long_name_is_cut_in_messages(cli):
    name = "v" * 100_000
    for args in (("csum", "--variants", name), ("csum", "--primitive", name),
                 ("csum", "--modes", name), ("csum", "--sizes", name)):  # fmt: skip
        res = cli(*args)
        assert res.status == 2 and f"'{'v' * 60}\u2026(100000 bytes)'" in res.err, res.err[:300]
        assert len(res.err) < 1000


def test_shown_counts_bytes_and_keeps_short_values():
    assert shown("x" * 60) == "x" * 60
    assert shown("\u00e9" * 61) == "\u00e9" * 60 + "\u2026(122 bytes)"
