# SPDX-License-Identifier: GPL-2.0-only
"""The Mann-Whitney U test (Wilcoxon rank-sum), two-sided.

hotpath.significance has the bootstrap ratio and Student's t; evaluate's
samples are whole process runs of a workload, each independent of the
others, with the long right tail of a shared machine: a rank test makes no
normality assumption. Exact distribution of U when there are no ties and
both sides are small (the usual evaluate: 5 to 30 rounds), the normal
approximation with tie and continuity corrections otherwise. numpy and
math only, like the rest of the statistics (no scipy dependency).
"""

import math
from collections.abc import Sequence
from functools import cache

EXACT_MAX = 50  # each side at most this many for the exact distribution


@cache
def _u_counts(m: int, n: int) -> tuple[int, ...]:
    """How many orderings of m + n values give each U = 0..m*n (no ties).

    f(m, n, u) = f(m-1, n, u-n) + f(m, n-1, u): the largest value is
    either one of the first sample's (above all n others: +n) or not.
    """
    if m == 0 or n == 0:
        return (1,)
    left = _u_counts(m - 1, n)
    right = _u_counts(m, n - 1)
    counts = [0] * (m * n + 1)
    for u, c in enumerate(left):
        counts[u + n] += c
    for u, c in enumerate(right):
        counts[u] += c
    return tuple(counts)


def _ranks(values: list[float]) -> tuple[list[float], list[int]]:
    """Average ranks (1-based) and the sizes of the tie groups."""
    order = sorted(range(len(values)), key=lambda i: values[i])
    ranks = [0.0] * len(values)
    ties = []
    i = 0
    while i < len(order):
        j = i
        while j + 1 < len(order) and values[order[j + 1]] == values[order[i]]:
            j += 1
        for k in range(i, j + 1):
            ranks[order[k]] = (i + j) / 2.0 + 1.0
        ties.append(j - i + 1)
        i = j + 1
    return ranks, ties


def mann_whitney_u(a: Sequence[float], b: Sequence[float]) -> tuple[float, float]:
    """(U of a, two-sided p-value) for 'a and b come from the same distribution'."""
    m, n = len(a), len(b)
    if m == 0 or n == 0:
        raise ValueError("both samples need at least one value")
    ranks, ties = _ranks([float(x) for x in a] + [float(x) for x in b])
    u = sum(ranks[:m]) - m * (m + 1) / 2.0
    if all(t == 1 for t in ties) and m <= EXACT_MAX and n <= EXACT_MAX:
        counts = _u_counts(m, n)
        total = math.comb(m + n, m)
        k = round(u)
        low = sum(counts[: k + 1]) / total
        high = sum(counts[k:]) / total
        return u, min(1.0, 2.0 * min(low, high))
    mean = m * n / 2.0
    tie_term = sum(t**3 - t for t in ties) / ((m + n) * (m + n - 1))
    var = m * n / 12.0 * ((m + n + 1) - tie_term)
    if var <= 0.0:
        return u, 1.0  # every value equal: nothing tells the samples apart
    z = (abs(u - mean) - 0.5) / math.sqrt(var)
    return u, min(1.0, math.erfc(max(z, 0.0) / math.sqrt(2.0)))
