# SPDX-License-Identifier: GPL-2.0-only
"""`hotpath avc --seed-table`'s tables (hotpath.labs.avc.seed_table.Tables:
the model's statistics, the timed lookups, the trade-off's fit, the seed's
claim and the targets checked) as text, and as JSON
(hotpath.avc-seed-table/1), fresh or rebuilt from a stored run."""

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from hotpath.labs.avc.seed_table import BreakEven, Tables


def render(tables: "Tables") -> str:
    model, timed = tables.model, tables.timed
    lines = [
        "seed 004's tables redone: per configuration (nodes/buckets) and hash,",
        "- buckets used and longest chain: means of hash_stats sampled while the synthetic",
        f"  workload runs through the cache model, {tables.runs} workload seeds (not a "
        "timing); (formula/random) = a perfectly",
        "  random hash with as many entries, by the formula and through the same model"
        + (f" (the mean of {tables.randoms} random functions)" if tables.randoms > 1 else "")
        + ";",
        "- avc_search_node() in latency mode: core cycles (median over clean samples) and ns at",
        "  this run's core clock"
        + (
            f"; the mean of {tables.timed_seeds} workload seeds' medians, a cache and key "
            "stream each, one runner process each (--repeat each): which keys share a chain "
            "is one seed's luck"
            if tables.timed_seeds > 1
            else ""
        )
        + ";",
        "- [seed] = the patch's figures, from a phone (compare directions, not ns).",
        "",
        f"{'config':<11} {'hash':<8} {'buckets used (formula/random) [seed]':>38} "
        f"{'longest chain (formula/random) [seed]':>38} {'cycles':>8} {'ns':>7} {'[seed]':>7}",
    ]
    for c in tables.configs:
        for h in tables.hashes:
            r = model.get((c.nodes, c.slots, h))
            t = timed.get((c.nodes, c.slots, h))
            seed = c.seed.get(h) if c.seed else None
            used = longest = "n/a"
            if r is not None:
                used = (
                    f"{r['mean_utilisation']:.1%} ({r['limit_utilisation']:.1%}/"
                    f"{r['random_utilisation']:.1%})"
                )
                longest = (
                    f"{r['mean_longest_chain']:.2f} ({r['limit_longest_chain']:.2f}/"
                    f"{r['random_longest_chain']:.2f})"
                )
            if seed is not None:
                used += f" [{seed[0]:.1f}%]"
                longest += f" [{seed[1]:.1f}]"
            cycles, ns = (f"{t[0]:.1f}", f"{t[1]:.1f}") if t else ("n/a", "n/a")
            seed_ns = f"[{seed[2]:.0f}]" if seed else ""
            lines.append(
                f"{c.nodes}/{c.slots:<{10 - len(str(c.nodes))}} {h:<8} {used:>38} "
                f"{longest:>38} {cycles:>8} {ns:>7} {seed_ns:>7}"
            )
        lines.append("")
    lines += tables.directions
    lines += ["", *break_even_lines(tables.fit)]
    if tables.split:
        lines += ["", *tables.split]
    lines += ["", *tables.targets]  # last: issue 42's targets end the table
    return "\n".join(lines) + "\n"


def break_even_lines(fit: "BreakEven | None") -> list[str]:
    if fit is None:
        return ["break-even: not enough timed configurations to fit"]
    lines = [
        f"the seed's trade-off, measured here: one more chain node compared costs "
        f"{fit.per_node:.1f} cycles; the fixed cost of a lookup (hash call and loop) is "
        + ", ".join(f"{h} {c:.1f}" for h, c in sorted(fit.fixed.items(), key=lambda x: x[1]))
        + f" cycles (one slope for all hashes, fitted where a lookup compares at most "
        f"{fit.max_walk:g} nodes; worst misfit {fit.worst_residual:.0%})",
    ]
    base = fit.fixed.get("orig")
    for h, c in sorted(fit.fixed.items()):
        if base is None or h == "orig" or c <= base or fit.per_node <= 0:
            continue
        lines.append(
            f"break-even: {h}'s hash costing {c - base:.1f} cycles more than orig's pays for "
            f"itself when it shortens the average walk by {(c - base) / fit.per_node:.2f} nodes"
        )
    return lines


def to_json(tables: "Tables", run_id: int | None) -> dict[str, Any]:
    model, timed = tables.model, tables.timed
    return {
        "schema": tables.schema,
        "run_id": run_id,
        "model": [{"nodes": n, "slots": s, "hash": h, **r} for (n, s, h), r in model.items()],
        "timings": [
            {"nodes": n, "slots": s, "hash": h, "cycles": t[0], "ns": t[1]}
            for (n, s, h), t in timed.items()
        ],
        "untimed": [
            {"nodes": n, "slots": s, "hash": h, "reason": why}
            for (n, s, h), why in tables.untimed.items()
        ],
        "directions": tables.directions,
        "break_even": break_even_lines(tables.fit),
        "split": tables.split,
        "targets": tables.targets,
    }
