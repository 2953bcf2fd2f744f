"""Statistics charts on value axes: bar charts, stem-and-leaf displays, box plots, dot plots, scatter plots.

Everything is a pure function of its arguments, so the same data give the same PNG bytes.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np
from matplotlib.axes import Axes
from matplotlib.patches import Rectangle
from matplotlib.ticker import MultipleLocator

from isodyn.modalities.images import render_png

LABEL_SIZE = 11  # default font size for labels inside figures (never below 10)


def _value_axis(ax: Axes, horizontal: bool, step: float, top: float, label: str) -> None:
    axis = ax.xaxis if horizontal else ax.yaxis
    axis.set_major_locator(MultipleLocator(step))
    (ax.set_xlim if horizontal else ax.set_ylim)(0, top)
    (ax.set_xlabel if horizontal else ax.set_ylabel)(label, fontsize=LABEL_SIZE)
    ax.grid(True, axis="x" if horizontal else "y", color="0.85", linewidth=0.7)
    ax.set_axisbelow(True)


def nice_step(top: float, max_ticks: int = 10) -> float:
    """The smallest of 1, 2, 5, 10, 20, ... that gives at most `max_ticks` ticks up to `top`."""
    for step in (1, 2, 5, 10, 20, 25, 50, 100, 200, 250, 500, 1000):
        if top / step <= max_ticks:
            return step
    # larger values (a magnitude perturbation): the same 1, 2, 2.5, 5 pattern at every power of ten
    power = 1000
    while True:
        power *= 10
        for mult in (1, 2, 2.5, 5):
            if top / (mult * power) <= max_ticks:
                return int(mult * power)


def bar_chart_png(
    categories: Sequence[str],
    values: Sequence[int],
    *,
    horizontal: bool,
    color: str,
    title: str,
    category_label: str,
    value_label: str,
) -> bytes:
    """Bars with their values written at the bar ends, on a grid."""
    step = nice_step(max(values) * 1.15)
    top = math.ceil(max(values) * 1.15 / step) * step

    def draw(ax: Axes) -> None:
        idx = np.arange(len(categories))
        if horizontal:
            ax.barh(idx, values, color=color, edgecolor="black", height=0.6, zorder=2)
            ax.set_yticks(idx, list(categories), fontsize=LABEL_SIZE)
            ax.invert_yaxis()  # first category on top, as a table reads
            ax.set_ylabel(category_label, fontsize=LABEL_SIZE)
            for i, v in enumerate(values):
                ax.text(v + top * 0.01, i, str(v), va="center", ha="left", fontsize=LABEL_SIZE)
        else:
            ax.bar(idx, values, color=color, edgecolor="black", width=0.6, zorder=2)
            ax.set_xticks(idx, list(categories), fontsize=LABEL_SIZE)
            ax.set_xlabel(category_label, fontsize=LABEL_SIZE)
            for i, v in enumerate(values):
                ax.text(i, v + top * 0.01, str(v), va="bottom", ha="center", fontsize=LABEL_SIZE)
        _value_axis(ax, horizontal, step, top, value_label)
        ax.tick_params(labelsize=10)
        ax.set_title(title, fontsize=12)
        for side in ("top", "right"):
            ax.spines[side].set_visible(False)

    return render_png(draw, size=(5.5 if horizontal else 5, 4))


def stem_leaf_png(rows: Sequence[tuple[int, Sequence[int]]], title: str, key: str) -> bytes:
    """A stem-and-leaf display: one row per stem, leaves in order, a vertical bar, the key below."""
    n = len(rows)

    def draw(ax: Axes) -> None:
        ax.set_xlim(0, 10)
        ax.set_ylim(-(n + 2.2), 1.2)
        ax.axis("off")
        ax.text(2.3, 0.2, "Stem", ha="right", va="center", fontsize=13, fontweight="bold")
        ax.text(3.0, 0.2, "Leaf", ha="left", va="center", fontsize=13, fontweight="bold")
        ax.plot([2.65, 2.65], [0.75, -n - 0.4], color="black", linewidth=1.5)
        ax.plot([0.6, 9.6], [-0.35, -0.35], color="black", linewidth=1.0)
        for i, (stem, leaves) in enumerate(rows):
            y = -(i + 1)
            ax.text(2.3, y, str(stem), ha="right", va="center", fontsize=13, family="DejaVu Sans Mono")
            ax.text(
                3.0, y, "  ".join(str(x) for x in leaves), ha="left", va="center", fontsize=13,
                family="DejaVu Sans Mono",
            )  # fmt: skip
        ax.text(0.6, -(n + 1.5), key, ha="left", va="center", fontsize=11, style="italic")
        ax.set_title(title, fontsize=12)

    return render_png(draw, size=(5, max(3.0, 1.2 + 0.42 * (n + 3))))


def box_plot_png(
    names: Sequence[str],
    colors: Sequence[str],
    summaries: Sequence[Sequence[float]],
    *,
    horizontal: bool,
    axis_label: str,
    lo: float,
    hi: float,
    step: float,
    title: str,
) -> bytes:
    """Box plots drawn from five-number summaries (min, Q1, median, Q3, max); a tick at every `step`."""

    def draw(ax: Axes) -> None:
        for i, (color, (mn, q1, med, q3, mx)) in enumerate(zip(colors, summaries, strict=True)):
            c, w = float(i), 0.5

            def seg(a: float, b: float, p: float, q: float, **kw: Any) -> None:
                # a, b along the value axis; p, q across it
                xs, ys = ([a, b], [p, q]) if horizontal else ([p, q], [a, b])
                ax.plot(xs, ys, color="black", **kw)

            box = (
                Rectangle((q1, c - w / 2), q3 - q1, w)
                if horizontal
                else Rectangle((c - w / 2, q1), w, q3 - q1)
            )
            box.set(facecolor=color, edgecolor="black", linewidth=1.4, zorder=2)
            ax.add_patch(box)
            seg(med, med, c - w / 2, c + w / 2, linewidth=2.6, zorder=3)
            seg(mn, q1, c, c, linewidth=1.4, zorder=1)
            seg(q3, mx, c, c, linewidth=1.4, zorder=1)
            seg(mn, mn, c - w / 4, c + w / 4, linewidth=1.4, zorder=1)
            seg(mx, mx, c - w / 4, c + w / 4, linewidth=1.4, zorder=1)
        idx = list(range(len(names)))
        if horizontal:
            ax.set_yticks(idx, list(names), fontsize=LABEL_SIZE)
            ax.set_ylim(-0.6, len(names) - 0.4)
            ax.invert_yaxis()
            ax.set_xlim(lo, hi)
            ax.xaxis.set_major_locator(MultipleLocator(step))
            ax.set_xlabel(axis_label, fontsize=LABEL_SIZE)
            ax.grid(True, axis="x", color="0.85", linewidth=0.7)
        else:
            ax.set_xticks(idx, list(names), fontsize=LABEL_SIZE)
            ax.set_xlim(-0.6, len(names) - 0.4)
            ax.set_ylim(lo, hi)
            ax.yaxis.set_major_locator(MultipleLocator(step))
            ax.set_ylabel(axis_label, fontsize=LABEL_SIZE)
            ax.grid(True, axis="y", color="0.85", linewidth=0.7)
        ax.set_axisbelow(True)
        ax.tick_params(labelsize=10)
        ax.set_title(title, fontsize=12)

    return render_png(draw, size=(5.5, 4) if horizontal else (5, 4.5))


def dot_plot_png(values: Sequence[int], freqs: Sequence[int], axis_label: str, title: str) -> bytes:
    """One dot per observation, stacked above its value on a number line."""
    top = max(max(freqs), 4)

    def draw(ax: Axes) -> None:
        for v, f in zip(values, freqs, strict=True):
            if f:
                ax.scatter([v] * f, range(1, f + 1), s=150, color="#1f77b4", edgecolors="black", zorder=3)
        ax.set_xlim(min(values) - 0.6, max(values) + 0.6)
        ax.set_ylim(0.3, top + 0.7)
        ax.set_xticks(list(values))
        ax.tick_params(axis="x", labelsize=12)
        ax.set_yticks([])
        for side in ("left", "right", "top"):
            ax.spines[side].set_visible(False)
        ax.spines["bottom"].set_position(("data", 0.4))
        ax.set_xlabel(axis_label, fontsize=LABEL_SIZE)
        ax.set_title(title, fontsize=12)

    return render_png(draw, size=(5.5, max(3.2, 1.4 + 0.38 * top)))


def scatter_png(xs: Sequence[float], ys: Sequence[float], color: str, xlabel: str, ylabel: str) -> bytes:
    def draw(ax: Axes) -> None:
        ax.scatter(xs, ys, s=45, color=color, edgecolors="black", linewidths=0.6, zorder=3)
        ax.grid(True, color="0.88", linewidth=0.7)
        ax.set_axisbelow(True)
        ax.set_xlabel(xlabel, fontsize=LABEL_SIZE)
        ax.set_ylabel(ylabel, fontsize=LABEL_SIZE)
        ax.tick_params(labelsize=10)

    return render_png(draw)
