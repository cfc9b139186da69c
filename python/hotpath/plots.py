# SPDX-License-Identifier: GPL-2.0-only
"""Plots of a run: cost per call and bytes per cycle against size.

One figure per (lab, primitive, mode), two panels: per-call cost (log-log,
the 95% CI as a shaded band) and bytes per unit of time (log x). Alignment
0 is a solid line, other alignments dashed. hotpath's own variant and the
kernel's newest are drawn thick and on top, the rest thin, so the two lines
a reader looks for first stand out among a dozen. Written as PNG and SVG with the Agg
backend, so no display is needed. matplotlib is imported only when a plot
is drawn: importing it makes its cache and config folders in HOME, which a
command that draws nothing (or fails on bad input) must not.
"""

import os
import re
from pathlib import Path
from typing import Any

from hotpath.labs import Lab, Roles, lab_for
from hotpath.protocol import Variant
from hotpath.results import FigureResult, RunResult, unit_name, unit_of

LINESTYLES = ("-", "--", ":", "-.")


def _series(figures: list[FigureResult]) -> dict[tuple[str, int], list[FigureResult]]:
    series: dict[tuple[str, int], list[FigureResult]] = {}
    for fig in figures:
        # A log axis has no place for a median at or below zero (a fenced
        # figure below the subtracted empty call): the tables show those.
        if fig.timed and fig.median is not None and fig.median > 0:
            series.setdefault((fig.variant, fig.align), []).append(fig)
    for points in series.values():
        points.sort(key=lambda f: f.size)
    return series


def _emphasised(
    lab: Lab | None, primitive: str, variants: list[str], infos: list[Variant]
) -> dict[str, str]:
    """Variant -> why it is drawn thick: hotpath's own and the kernel's newest."""
    if lab is None:
        return {}
    marked = {}
    shown = [v for v in infos if v.name in variants]
    own = Roles.of(shown).own
    if own is not None:
        marked[own] = "hotpath"
    kernels = lab.kernel_variants(primitive, shown)
    if kernels:
        marked[kernels[-1]] = "kernel"
    return marked


def _pyplot() -> Any:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def plot_run(run: RunResult, folder: Path) -> list[Path]:
    """Write the plots into folder; return the files written (PNG and SVG).

    Each file is written whole (into a hidden sibling, then renamed); if
    one cannot be (OSError) or the command is interrupted, the files this
    call already wrote are removed again.
    """
    written: list[Path] = []
    try:
        _plot_into(run, folder, written)
    except BaseException:
        for path in written:
            path.unlink(missing_ok=True)
        raise
    return written


def _plot_into(run: RunResult, folder: Path, written: list[Path]) -> None:
    plt = _pyplot()
    folder.mkdir(parents=True, exist_ok=True)
    groups: dict[tuple[str, str, str], list[FigureResult]] = {}
    for fig in run.figures:
        if unit_of(fig.unit).time:  # a cost against size; a model's statistics are tables
            groups.setdefault((fig.lab, fig.primitive, fig.mode), []).append(fig)
    for (lab_name, primitive, mode), figures in groups.items():
        series = _series(figures)
        if not series:
            continue
        lab = lab_for(lab_name)
        if lab is None or not lab.plotted:  # tune evaluate's workloads: no size axis
            continue
        per_byte = lab.sizes_are_bytes if lab else False
        unit = unit_name(figures[0].unit)
        panels = 2 if per_byte else 1
        variants = sorted({variant for variant, _ in series})
        legend_rows = (len(variants) + 3) // 4
        figure, axes = plt.subplots(
            1, panels, figsize=(6.0 * panels, 4.2 + 0.25 * legend_rows), squeeze=False
        )
        cost_axis = axes[0][0]
        aligns = sorted({align for _, align in series})
        palette = plt.get_cmap("tab20")
        colors = {name: palette(i % 20) for i, name in enumerate(variants)}
        infos = [v.info for v in run.variants if v.primitive == primitive]
        emphasised = _emphasised(lab, primitive, variants, infos)
        for (variant, align), points in sorted(series.items()):
            sizes = [p.size for p in points]
            medians = [p.median or 0.0 for p in points]
            style = LINESTYLES[aligns.index(align) % len(LINESTYLES)]
            label = variant if align == aligns[0] else None
            if label is not None and variant in emphasised:
                label = f"{variant} ({emphasised[variant]})"
            strong = variant in emphasised
            line = {
                "linestyle": style, "marker": "o", "markersize": 3.5 if strong else 2.5,
                "linewidth": 2.6 if strong else 1.0, "alpha": 1.0 if strong else 0.75,
                "zorder": 3 if strong else 2, "color": colors[variant],
            }  # fmt: skip
            cost_axis.plot(sizes, medians, label=label, **line)
            cost_axis.fill_between(
                sizes, [p.ci_lo or 0.0 for p in points], [p.ci_hi or 0.0 for p in points],
                color=colors[variant], alpha=0.25 if strong else 0.12, linewidth=0,
            )  # fmt: skip
            if per_byte:
                rate = [s / m if m > 0 else 0.0 for s, m in zip(sizes, medians, strict=True)]
                axes[0][1].plot(sizes, rate, **line)
        styles = ", ".join(
            f"{LINESTYLES[i % len(LINESTYLES)]!r} {lab.align_label(a) if lab else a}"
            for i, a in enumerate(aligns)
        )
        cost_axis.set_xscale("log", base=2)
        cost_axis.set_yscale("log")
        cost_axis.set_xlabel("size (bytes)" if per_byte else "size")
        cost_axis.set_ylabel(f"{unit} per call")
        cost_axis.set_title(f"{primitive}, {mode}: {unit} per call")
        cost_axis.grid(True, which="both", alpha=0.3)
        figure.legend(loc="lower center", ncol=4, fontsize="small", frameon=False)
        if per_byte:
            rate_axis = axes[0][1]
            rate_axis.set_xscale("log", base=2)
            rate_axis.set_xlabel("size (bytes)")
            per = "cycle" if figures[0].unit == "cycles" else "TSC tick"
            rate_axis.set_ylabel(f"bytes per {per}")
            rate_axis.set_title(f"{primitive}, {mode}: bytes per {per}")
            rate_axis.grid(True, which="both", alpha=0.3)
        figure.suptitle(
            f"{run.machine.short_name()}; median with 95% CI; lines: {styles}", fontsize="small"
        )
        figure.tight_layout(rect=(0.0, 0.06 * legend_rows / 2 + 0.04, 1.0, 1.0))
        # A workload may hold spaces and commas ("latency, 512 slots"): not in a file name.
        stem = re.sub(r"[^A-Za-z0-9_.-]+", "-", f"{lab_name}-{primitive}-{mode}")
        try:
            for suffix in (".png", ".svg"):
                path = folder / f"{stem}{suffix}"
                temp = folder / f".{stem}{suffix}.partial-{os.getpid()}"
                try:
                    # No date and fixed ids: a page rebuilt from the history is
                    # the same page (hotpath report RUN).
                    stamp = {"Date": None} if suffix == ".svg" else None
                    with plt.rc_context({"svg.hashsalt": "hotpath"}):
                        figure.savefig(temp, dpi=110, format=suffix[1:], metadata=stamp)
                    temp.replace(path)
                finally:
                    temp.unlink(missing_ok=True)
                written.append(path)
        finally:
            plt.close(figure)
