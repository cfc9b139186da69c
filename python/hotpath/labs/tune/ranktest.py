# SPDX-License-Identifier: GPL-2.0-only
"""The Mann-Whitney U test (Wilcoxon rank-sum), two-sided: scipy's.

hotpath.significance has the bootstrap ratio and Student's t; evaluate's
samples are whole process runs of a workload, each independent of the
others, with the long right tail of a shared machine: a rank test makes no
normality assumption. The exact distribution of U when there are no ties and
both sides are small (the usual evaluate: 5 to 30 rounds), the normal
approximation with tie and continuity corrections otherwise; scipy decides
the exact case by size alone, so the choice is made here.
"""

from collections.abc import Sequence

EXACT_MAX = 50  # each side at most this many for the exact distribution


def mann_whitney_u(a: Sequence[float], b: Sequence[float]) -> tuple[float, float]:
    """(U of a, two-sided p-value) for 'a and b come from the same distribution'."""
    # scipy.stats takes 0.6 s to import: only when a test runs
    from scipy.stats import mannwhitneyu  # type: ignore[import-untyped]

    m, n = len(a), len(b)
    if m == 0 or n == 0:
        raise ValueError("both samples need at least one value")
    values = [float(x) for x in a] + [float(x) for x in b]
    distinct = len(set(values))
    if distinct == 1:
        return m * n / 2.0, 1.0  # every value equal: nothing tells the samples apart
    exact = distinct == m + n and m <= EXACT_MAX and n <= EXACT_MAX
    got = mannwhitneyu(
        values[:m], values[m:], alternative="two-sided", method="exact" if exact else "asymptotic"
    )
    return float(got.statistic), min(1.0, float(got.pvalue))
