# SPDX-License-Identifier: GPL-2.0-only
"""The avc lab's model statistics (`hotpath avc --stats`) as a table and as
JSON (hotpath.avc-stats/1), from the analyser's document, fresh or rebuilt
from a stored run (hotpath.labs.avc.stored.from_run)."""

from typing import Any

from hotpath.labs.avc import PRIMITIVE


def to_json(schema: str, doc: dict[str, Any], slots: int, run_id: int | None) -> dict[str, Any]:
    return {"schema": schema, "slots": slots, "run_id": run_id, "analyses": doc["analyses"]}


def render(doc: dict[str, Any], slots: int) -> str:
    rows = [a for a in doc["analyses"] if a.get("result")]
    first = rows[0]["result"] if rows else {}
    lines = [
        f"{PRIMITIVE} model, {slots} slots: {first.get('checks', 0):,} checks of the "
        f"{first.get('workload', 'synthetic')} workload ({first.get('runs', 1)} seed(s)), "
        f"hash_stats sampled {first.get('samples', 0)} times (means); (formula/random): a "
        "perfectly random "
        "hash with as many entries, by the formula and run through the same model (reclaim "
        "included); not a timing",
        "",
        f"{'hash':<9} {'nodes':>6} {'entries':>8} {'buckets used (formula/random)':>31} "
        f"{'longest chain (formula/random)':>31} {'hit rate':>9} {'memory':>10}",
    ]
    for a in rows:
        r = a["result"]
        lines.append(
            f"{a['variant']:<9} {a['size']:>6} {r['mean_entries']:>8.1f} "
            f"{r['mean_utilisation']:>14.1%} ({r['limit_utilisation']:.1%}/"
            f"{r['random_utilisation']:.1%}) "
            f"{r['mean_longest_chain']:>18.2f} ({r['limit_longest_chain']:.2f}/"
            f"{r['random_longest_chain']:.2f}) "
            f"{r['hit_rate']:>9.1%} {r['memory_bytes'] / 1024:>7.0f} KiB"
        )
    if len(rows) == 1:
        r = rows[0]["result"]
        lines += ["", "hash_stats:", r["hash_stats"].rstrip(), "", "cache_stats:"]
        lines.append(r["cache_stats"].rstrip())
    return "\n".join(lines) + "\n"
