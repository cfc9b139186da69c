# SPDX-License-Identifier: GPL-2.0-only
"""Seed 000's csum_partial ladder as data, for `hotpath csum --seed-table`.

Arjan van de Ven's notes time eight steps from the 5.17 baseline to
"assume zero input" at 40 bytes, even and odd aligned, plus a table with
lfence around each call. This module maps each step to the runner's
variant, keeps the notes' figures to print beside ours and lists the
orderings the notes draw; hotpath.seedtables checks them against a run.
In latency mode the dependency-chain bound of each step sits beside ours
(hotpath.labs.csum.bound), with the notes' hand-drawn chain of "Dead Code
Removed" (9 cycles) beside its bound.
The notes' figures are TSC ticks on Cascade Lake printed as "cycles"
(docs PRODUCT.md), so only directions, not values, carry over.
"""

from hotpath.seedtable_spec import (
    Axis,
    Claim,
    OtherMode,
    Published,
    PublishedBound,
    SeedTable,
    TableSpec,
)

ROWS = (
    Axis("baseline", "Baseline (kernel-5.17-rc)", variant="kernel-5.17-rc"),
    # The baseline's code as released (Linux 6.1 still has it, with the
    # odd-seed fix): the real code where the run has it, and hotpath's
    # re-implementation beside it.
    Axis(
        "baseline-fixed",
        "Baseline as released, odd-seed fix (linux-6.1)",
        variant="linux-6.1",
        short="baseline",
        published_as="baseline",
        stand_in="baseline-reimplemented",
    ),
    Axis(
        "baseline-reimplemented",
        "Baseline, odd-seed fix, re-implemented (kernel-5.17)",
        variant="kernel-5.17",
        short="baseline re-implemented",
        published_as="baseline",
    ),
    Axis("specialized", "Specialized (seed-specialised)", variant="seed-specialised"),
    Axis("no-odd", "Unaligned removed (seed-no-odd)", variant="seed-no-odd"),
    Axis("dead-code", "Dead Code Removed (seed-dead-code)", variant="seed-dead-code"),
    Axis("adx", "Using ADX (seed-adx)", variant="seed-adx"),
    Axis("two-streams", "Two Streams (seed-two-streams)", variant="seed-two-streams"),
    Axis(
        "two-streams-published",
        "Two Streams as printed (seed-two-streams-published)",
        variant="seed-two-streams-published",
    ),
    Axis("32bit", "32 bit only (seed-32bit)", variant="seed-32bit"),
    Axis("zero", "Assume Zero Input (seed-zero-sum)", variant="seed-zero-sum"),
)
COLUMNS = (
    Axis("even", "Even aligned buffer", align=0, short="even"),
    Axis("odd", "Odd aligned buffer", align=1, short="odd"),
)
SEED_COLUMNS = {"even": "seed even", "odd": "seed odd"}


def _published(mode: str, source: str, figures: dict[str, tuple[float, float]]) -> Published:
    """One of the notes' tables: per step, (even, odd) to one decimal."""
    return Published(
        mode=mode,
        source=source,
        columns=SEED_COLUMNS,
        decimals=1,
        values={step: {"even": even, "odd": odd} for step, (even, odd) in figures.items()},
    )


MAIN = _published(
    "latency",
    'seed 000\'s main table: TSC ticks on Intel Cascade Lake reported as "cycles", '
    "averages of rdtsc around 102,400 calls",
    {
        "baseline": (11.1, 19.2),
        "specialized": (11.1, 19.2),
        "no-odd": (11.1, 11.1),
        "dead-code": (9.1, 9.1),
        "adx": (6.1, 6.1),
        "two-streams": (6.1, 6.1),
        "32bit": (5.7, 5.8),
        "zero": (4.0, 4.0),
    },
)
FENCED = _published(
    "fenced",
    'seed 000\'s lfence table ("latency measurement with OOO fenced off"): TSC ticks '
    'on Intel Cascade Lake reported as "cycles", the fences and the call included (the notes '
    "do not say an empty call was subtracted; ours subtract one, so compare orderings, not "
    "values); it has no 32 bit only row",
    {
        "baseline": (19.1, 26.9),
        "specialized": (18.2, 26.9),
        "no-odd": (18.4, 18.8),
        "dead-code": (14.0, 15.2),
        "adx": (15.8, 17.8),
        "two-streams": (16.3, 16.5),
        "zero": (14.4, 14.1),
    },
)

# The notes' "side track: critical chain analysis", drawn by hand for this step.
CHAIN = PublishedBound(
    row="dead-code",
    cycles=9,
    source="seed 000 drew its critical chain by hand (add, adc and shr of one cycle each, "
    'the mov not counted: "a lower bound of 9 cycles")',
)

CLAIMS = (
    Claim("Dead Code Removed cheaper than Baseline", cheaper="dead-code", dearer="baseline-fixed"),
    Claim("Two Streams cheaper than Dead Code Removed", cheaper="two-streams", dearer="dead-code"),
    Claim("Using ADX cheaper than Dead Code Removed", cheaper="adx", dearer="dead-code"),
    Claim(
        "Baseline: even aligned cheaper than odd aligned",
        cheaper="even",
        dearer="odd",
        at=("baseline-fixed",),
    ),
)

SEED_TABLE = SeedTable(
    flag="seed-table",
    help="seed 000's csum_partial ladder at 40 bytes, our figures beside the notes'",
    seed="seed 000: Arjan van de Ven, notes on optimizing csum_partial",
    modes=("latency", "throughput", "fenced"),
    header=(
        'seed 000\'s figures are TSC ticks on an Intel Cascade Lake reported as "cycles" '
        "(PRODUCT.md); ours are core cycles calibrated on this machine against a chain of "
        "dependent adds (or TSC ticks with --unit ticks, as each table says)",
        "the seed's main table is set beside our latency mode, its lfence table beside our "
        "fenced mode; it printed no throughput table",
        "Baseline: the seed measured kernel-5.17-rc, whose odd-address path is wrong for "
        "some non-zero seeds; kernel-5.17 is the same code with the fix, and the directions "
        "about the baseline use it",
    ),
    tables=(
        TableSpec(
            title="csum_partial, 40 bytes",
            primitive="csum_partial",
            row_header="Scenario",
            rows=ROWS,
            columns=COLUMNS,
            size=40,
            decimals=1,
            published=(MAIN, FENCED),
            claims=CLAIMS,
            published_bounds=(CHAIN,),
            other_modes=(
                OtherMode(
                    row="zero",
                    mode="latency",
                    measured_as="throughput",
                    why="seed-zero-sum ignores its input sum, so in the seed's loop no call "
                    "waited for the one before: no dependency chain",
                ),
            ),
        ),
    ),
)
