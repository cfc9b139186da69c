# SPDX-License-Identifier: GPL-2.0-only
"""The dependency-chain bound beside csum_partial's 40-byte latency figures.

Once a csum run is made, every csum_partial figure gets a Bound: in latency
mode at 40 bytes, offsets 0 (even) and 1 (odd), for a timed variant that
hotpath.labs.csum.chainbound covers, the number of core cycles its chain from the
input sum to the result takes (cached; see that module); everywhere else
"n/a" with the reason. The run also gets the model's description (tools,
llvm-mca model) and each analysed path's graph, which report.html draws.
"""

from hotpath.labs.csum import chainbound
from hotpath.results import MODEL_OFF, Bound, BoundModel, FigureResult, Graph, RunResult

PRIMITIVE = "csum_partial"
LABEL = "bound"
WHAT = (
    "bound: floor per call in core cycles for the variant's compiled 40-byte path, the larger "
    "of its dependency chain from the input sum to the result (calls overlap around it) and "
    "llvm-mca's throughput bound (the execution ports' pressure, Block RThroughput); which "
    "one binds is in the JSON (binds). 'model off': the model puts the path above the "
    "measured figure, so it is wrong for this CPU and no floor is shown"
)
SCOPE = "the chain analysis covers the 40-byte path at offsets 0 (even) and 1 (odd), latency mode"
NOT_TIMED = "the variant was not timed"
NO_CHAIN = "the result does not depend on the input sum: no chain to bound"


def _out_of_scope(figure: FigureResult) -> str | None:
    if figure.mode != "latency":
        return "latency mode only"
    if figure.size != chainbound.SIZE:
        return f"the {chainbound.SIZE}-byte path only"
    if figure.align not in chainbound.ALIGNS:
        return "offsets 0 (even) and 1 (odd) only"
    if figure.unit != "cycles":
        return "the bound is in core cycles; this run is in TSC ticks (--unit ticks)"
    if figure.status not in ("ok", "n/a"):  # the variant was not timed (WRONG, skipped)
        return NOT_TIMED
    return None


def honest_bound(figure: FigureResult, result: chainbound.ChainBound) -> Bound:
    """The larger of the chain and throughput bounds, and which binds; "model
    off" where it lies above the measured figure's whole 95% interval (the
    model is wrong for this CPU: it must not be printed as a floor)."""
    chain, ports = float(result.bound_cycles), result.throughput_cycles
    cycles, binds = (chain, "chain") if chain >= ports else (ports, "throughput")
    bound = Bound(
        "ok",
        cycles=cycles,
        chain_cycles=result.chain_cycles,
        mca_cycles=result.mca_cycles,
        seed_chain_cycles=result.bound_cycles,
        throughput_cycles=ports,
        binds=binds,
    )
    if figure.timed and figure.ci_hi is not None and cycles > figure.ci_hi:
        bound.status, bound.cycles = MODEL_OFF, None  # no floor above the figure
        places = _places_apart(cycles, figure.ci_hi)
        bound.reason = (
            f"llvm-mca -mcpu={result.model} puts this path at {cycles:.{places}f} cycles "
            f"({binds} bound), above the measured {figure.median or 0:.{places}f}, whose 95% "
            f"interval ends at {figure.ci_hi:.{places}f}: the model is wrong for this CPU"
        )
    return bound


def _places_apart(above: float, below: float) -> int:
    """The fewest decimals (1 at least) at which `above` prints above `below`:
    the digits that decide "model off" (7.8 against 7.77 is 7.80 and 7.77,
    not 7.8 and 7.8)."""
    places = 1
    while places < 6 and f"{above:.{places}f}" == f"{below:.{places}f}":
        places += 1
    return places


def attach_bounds(run: RunResult) -> None:
    figures = [f for f in run.figures if f.primitive == PRIMITIVE]
    if not figures:
        return
    wanted = [(f.variant, f.align) for f in figures if _out_of_scope(f) is None]
    model, model_note = chainbound.model_for(run.machine.vendor)
    tools: chainbound.Tools | None = None
    results: dict[tuple[str, int], chainbound.ChainBound | str] = {}
    unavailable: str | None = None
    if wanted:
        try:
            tools, results = chainbound.analyse_many(wanted, model)
        except chainbound.AnalysisError as err:
            unavailable = str(err)
    tool_words = tools.describe(model) if tools else f"llvm-mca -mcpu={model}"
    legend = f"{WHAT} ({tool_words}; {model_note}); a model, not a measurement"
    if unavailable:
        legend += f"; not available here: {unavailable}"
    run.bound_models[PRIMITIVE] = BoundModel(
        primitive=PRIMITIVE,
        label=LABEL,
        legend=legend,
        mode="latency",
        sizes=(chainbound.SIZE,),
        aligns=chainbound.ALIGNS,
        scope=SCOPE,
        available=unavailable is None,
        reason=unavailable,
        details={
            "name": "dependency-chain bound",
            "model": model,
            "model_note": model_note,
            "tools": {"gcc": tools.cc_version, "llvm_mca": tools.mca_version} if tools else None,
            "method": chainbound.METHOD,
        },
    )
    drawn: set[tuple[str, int]] = set()
    for figure in figures:
        reason = _out_of_scope(figure) or unavailable
        result = results.get((figure.variant, figure.align))
        if reason is None and isinstance(result, str):
            reason = result
        if reason is not None or not isinstance(result, chainbound.ChainBound):
            figure.bound = Bound("n/a", reason=reason or "not analysed")
            continue
        if result.bound_cycles <= 0:
            figure.bound = Bound("n/a", reason=NO_CHAIN, chain_cycles=result.chain_cycles)
            continue
        figure.bound = honest_bound(figure, result)
        if (figure.variant, figure.align) not in drawn:
            drawn.add((figure.variant, figure.align))
            word = chainbound.ALIGN_WORDS.get(figure.align, f"+{figure.align}")
            run.graphs.append(
                Graph(
                    lab=figure.lab,
                    primitive=PRIMITIVE,
                    variant=figure.variant,
                    size=figure.size,
                    align=figure.align,
                    title=f"{figure.variant}, {figure.size} B {word}: bound "
                    f"{figure.bound.text()} cycles (chain from the sum {result.bound_cycles}, "
                    f"ports {result.throughput_cycles:g}, longest chain in the call "
                    f"{result.chain_cycles}, llvm-mca {result.mca_cycles:g} per call)",
                    dot=result.dot,
                )
            )
    order = {v.info.name: i for i, v in enumerate(run.variants) if v.primitive == PRIMITIVE}
    run.graphs.sort(key=lambda g: (g.primitive != PRIMITIVE, order.get(g.variant, 0), g.align))
