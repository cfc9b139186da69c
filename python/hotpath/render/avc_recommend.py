# SPDX-License-Identifier: GPL-2.0-only
"""`hotpath avc --recommend`'s answer (hotpath.labs.avc.recommend.Recommendation:
the options timed, the choice and its rule) as a table, and as JSON
(hotpath.avc-recommend/1), fresh or rebuilt from a stored run."""

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from hotpath.labs.avc.recommend import Recommendation


def to_json(rec: "Recommendation", run_id: int | None) -> dict[str, Any]:
    assert rec.choice is not None
    return {
        "schema": rec.schema,
        "run_id": run_id,
        "nodes": rec.settings["nodes"],
        "rule": rec.rule,
        "choice": rec.choice.__dict__,
        "options": [o.__dict__ for o in rec.options],
        "untimed": rec.untimed,
    }


def render(rec: "Recommendation") -> str:
    options, untimed, nodes = rec.options, rec.untimed, rec.settings["nodes"]
    best = rec.choice
    assert best is not None
    hashes = sorted({o.hash for o in options})
    table = {(o.slots, o.hash): o for o in options}
    trace = rec.settings.get("trace")
    workload = f"trace {trace}" if trace is not None else "the synthetic workload"
    lines = [
        f"{nodes} nodes, {workload}: avc_search_node() in latency mode, core cycles "
        "(median over clean samples), per slot count (CONFIG_SECURITY_SELINUX_AVC_HASH_BITS "
        "9..14) and hash",
        "",
        f"{'slots':>6} {'memory':>9} " + "".join(f"{h:>9}" for h in hashes),
    ]
    for slots in rec.slots:
        row = [table.get((slots, h)) for h in hashes]
        memory = next((o.memory for o in row if o), 0)
        lines.append(
            f"{slots:>6} {memory / 1024:>6.0f} KiB "
            + "".join(f"{o.cycles:>9.1f}" if o else f"{'n/a':>9}" for o in row)
        )
    lines += [
        "",
        f"recommended: {best.slots} slots (CONFIG_SECURITY_SELINUX_AVC_HASH_BITS="
        f"{best.slots.bit_length() - 1}) with {best.hash}: {best.cycles:.1f} cycles a lookup, "
        f"{best.memory / 1024:.0f} KiB; the rule: the fewest bytes among the configurations "
        f"within {rec.tolerance:.0%} of the fastest lookup ({min(o.cycles for o in options):.1f} "
        "cycles)",
    ]
    if untimed:
        lines.append(f"chosen among the timed ones; {len(untimed)} not timed (n/a above): "
                     f"{untimed[0]}" + (", ..." if len(untimed) > 1 else ""))  # fmt: skip
    return "\n".join(lines) + "\n"
