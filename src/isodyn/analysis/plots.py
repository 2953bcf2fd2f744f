"""Report figures: pure functions from tables to PNG bytes (matplotlib Agg, no pyplot state)."""

from __future__ import annotations

import io
from collections.abc import Callable, Sequence

import numpy as np
import pandas as pd
from matplotlib.axes import Axes
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure

from isodyn.analysis.columns import ARM
from isodyn.schema import Column
from isodyn.textsafe import visible


def _png(draw: Callable[[Axes], None], size: tuple[float, float]) -> bytes:
    fig = Figure(figsize=size, dpi=100)
    FigureCanvasAgg(fig)
    draw(fig.add_subplot())
    fig.tight_layout()
    buffer = io.BytesIO()
    fig.savefig(buffer, format="png", metadata={"Software": None})
    return buffer.getvalue()


def label(value: object) -> str:
    """Untrusted text as a plot label: controls shown, and `$` escaped so matplotlib never parses
    a model name as mathtext (an unbalanced `$\\frac{` would stop the whole report)."""
    return visible(str(value)).replace("$", r"\$")


def series_label(record: dict) -> str:
    return label(" / ".join(str(record[c]) for c in ARM))


def _error_bars(frame: pd.DataFrame, metric: str) -> tuple[np.ndarray, np.ndarray]:
    value = frame[metric].to_numpy(float)
    low = frame.get(f"{metric}_low", frame[metric]).to_numpy(float)
    high = frame.get(f"{metric}_high", frame[metric]).to_numpy(float)
    return value, np.nan_to_num(np.vstack([value - low, high - value]))


def accuracy_by_topic(table: pd.DataFrame) -> bytes:
    """A_avg with its interval per topic, one marker series per model / strategy / modality."""
    topics = sorted(table[Column.topic].unique())
    series = list(table.groupby(list(ARM), sort=True))

    def draw(ax: Axes) -> None:
        width = 0.8 / max(len(series), 1)
        for i, (key, group) in enumerate(series):
            group = group.set_index(Column.topic).reindex(topics)
            value, err = _error_bars(group.reset_index(), "A_avg")
            x = np.arange(len(topics)) + (i - (len(series) - 1) / 2) * width
            ax.errorbar(
                x, 100 * value, yerr=100 * err, fmt="o", capsize=3, label=label(" / ".join(map(str, key)))
            )
        ax.set_xticks(np.arange(len(topics)), [label(t) for t in topics], rotation=30, ha="right")
        ax.set_ylabel("A_avg (%)")
        ax.set_ylim(-5, 105)
        ax.grid(axis="y", alpha=0.3)
        ax.legend(fontsize=7, loc="upper left", bbox_to_anchor=(1.01, 1))
        ax.set_title("Average-case accuracy by topic (cluster-bootstrap intervals)")

    return _png(draw, (11, 4.5))


def rr_by_series(table: pd.DataFrame) -> bytes:
    """Reasoning robustness RR = A_wst / A_avg per model / strategy / modality, with intervals."""
    records = table.to_dict("records")

    def draw(ax: Axes) -> None:
        value, err = _error_bars(table, "RR")
        y = np.arange(len(records))
        ax.barh(y, np.nan_to_num(value), xerr=err, capsize=3, color="#4c72b0")
        ax.set_yticks(y, [series_label(r) for r in records], fontsize=8)
        ax.set_xlabel("RR = A_wst / A_avg")
        ax.set_xlim(0, 1.05)
        ax.set_title("Reasoning robustness")
        ax.grid(axis="x", alpha=0.3)

    return _png(draw, (8, 1.2 + 0.45 * len(records)))


def modality_gaps(gaps: pd.DataFrame) -> bytes:
    """Best text representation minus image, per task and model (percentage points)."""

    def draw(ax: Axes) -> None:
        pivot = gaps.pivot_table(index="task", columns=Column.model, values="gap", aggfunc="mean") * 100
        width = 0.8 / max(len(pivot.columns), 1)
        for i, model in enumerate(pivot.columns):
            x = np.arange(len(pivot.index)) + (i - (len(pivot.columns) - 1) / 2) * width
            ax.bar(x, pivot[model].to_numpy(float), width=width, label=label(model))
        ax.axhline(0, color="black", linewidth=0.8)
        ax.set_xticks(np.arange(len(pivot.index)), [label(t) for t in pivot.index], rotation=20, ha="right")
        ax.set_ylabel("text - image (points)")
        ax.set_title("Modality gap on the same items")
        ax.legend(fontsize=7)

    return _png(draw, (8, 4))


def error_types(distribution: pd.DataFrame, label_columns: Sequence[str]) -> bytes:
    """Stacked shares of first-error types per group, from process evaluation."""
    kinds = [c for c in distribution.columns if c not in [*label_columns, "judged"]]

    def draw(ax: Axes) -> None:
        labels = [
            label(" / ".join(str(r[c]) for c in label_columns)) for r in distribution.to_dict("records")
        ]
        totals = distribution[kinds].sum(axis=1).replace(0, 1).to_numpy(float)
        left = np.zeros(len(distribution))
        for kind in kinds:
            share = distribution[kind].to_numpy(float) / totals * 100
            ax.barh(labels, share, left=left, label=label(kind))
            left += share
        ax.set_xlabel("share of judged solutions (%)")
        ax.set_title("First wrong step by error type")
        ax.legend(fontsize=7, loc="lower right")

    return _png(draw, (8, 1.5 + 0.45 * len(distribution)))


def correct_variants_per_seed(graded: pd.DataFrame) -> bytes:
    """How many seeds have k of their variants right (first repeat), per series."""
    first = graded[graded[Column.repeat] == graded[Column.repeat].min()]
    series = list(first.groupby(list(ARM), sort=True))

    def draw(ax: Axes) -> None:
        most = int(first.groupby([Column.seed_id])[Column.variant].nunique().max()) if len(first) else 0
        bins = [i - 0.5 for i in range(most + 2)]
        for key, group in series:
            counts = group.groupby(Column.seed_id)[Column.correct].sum()
            ax.hist(counts, bins=bins, histtype="step", linewidth=1.5, label=label(" / ".join(map(str, key))))
        ax.set_xlabel("variants answered correctly")
        ax.set_ylabel("seeds")
        ax.set_xticks(range(most + 1))
        ax.set_title("Correct variants per seed")
        ax.legend(fontsize=7, loc="upper left", bbox_to_anchor=(1.01, 1))

    return _png(draw, (11, 4))


def forest(comparisons: pd.DataFrame) -> bytes:
    """Paired differences with intervals, one line per comparison (points)."""
    records = comparisons.to_dict("records")

    def draw(ax: Axes) -> None:
        y = np.arange(len(records))[::-1]
        diff = np.array([r["difference"] for r in records]) * 100
        low = np.array([r["low"] for r in records]) * 100
        high = np.array([r["high"] for r in records]) * 100
        ax.errorbar(diff, y, xerr=np.vstack([diff - low, high - diff]), fmt="o", capsize=3)
        ax.axvline(0, color="black", linewidth=0.8)
        ax.set_yticks(y, [label(f"{r['a']} vs {r['b']} ({r['context']})") for r in records], fontsize=8)
        ax.set_xlabel("difference in accuracy (points), A - B")
        ax.set_title("Paired comparisons (cluster bootstrap intervals)")
        ax.grid(axis="x", alpha=0.3)

    return _png(draw, (8, 1.5 + 0.5 * len(records)))
