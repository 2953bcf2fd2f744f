"""The parts every report figure (`analysis/plots.py`) is built from: its width, resolution, palette
and markers; labels cut to fit; how a number, an undefined metric and what was not measured are
shown (`Shown`, the shaded n/a strip); and the bounds (`MAX_HEIGHT`, `MAX_ROWS`, `MAX_PANELS`) that
split many series into panels and leave out, with a line saying so, what does not fit.
"""

from __future__ import annotations

import io
import math
import textwrap
from collections.abc import Callable, Sequence
from enum import StrEnum
from typing import TypeVar

import numpy as np
from matplotlib import rc_context
from matplotlib.axes import Axes
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure
from matplotlib.lines import Line2D

from isodyn.analysis.columns import ARM
from isodyn.analysis.tables import LEVEL_COLUMNS, TOPIC_COLUMNS
from isodyn.core import Modality
from isodyn.textsafe import visible

WIDTH = 11.0  # inches at 100 dpi: the HTML report's column, so a figure is shown at its real size
DPI = 100
# Distinct at a glance and for the common colour-vision deficiencies (Okabe-Ito, then Tol's muted).
PALETTE = ("#0072B2", "#E69F00", "#009E73", "#CC79A7", "#56B4E9", "#D55E00", "#000000", "#F0E442",
           "#332288", "#88CCEE", "#117733", "#999933", "#882255", "#AA4499")  # fmt: skip
MARKERS = ("o", "s", "D", "^", "v", "P", "X", "h", "<", ">", "p", "*")
NA_COLOUR = "#8a8a8a"
NA_FILL = "#f0f0f0"
T = TypeVar("T")
MAX_HEIGHT = 40.0  # inches (4,000 px at DPI): no figure is taller
MAX_ROWS = 40  # rows of one panel (arms, strategies, groups); more are left out, and said so
MAX_PANELS = 24  # panels of one figure (each is drawn and laid out: about 0.1 s apiece)
TOPIC_CODES = {topic.value: code for topic, code in TOPIC_COLUMNS.items()}
LEVEL_CODES = {level.value: code for level, code in LEVEL_COLUMNS.items()}


def _png(draw: Callable[[Axes], None], size: tuple[float, float]) -> bytes:
    fig = Figure(figsize=size, dpi=DPI)
    FigureCanvasAgg(fig)
    draw(fig.add_subplot())
    fig.tight_layout()
    buffer = io.BytesIO()
    fig.savefig(buffer, format="png", metadata={"Software": None})
    return buffer.getvalue()


def _figure(size: tuple[float, float]) -> Figure:
    fig = Figure(figsize=size, dpi=DPI)
    FigureCanvasAgg(fig)
    return fig


def saved_png(fig: Figure) -> bytes:
    engine = fig.get_layout_engine()
    if engine is not None:
        # `savefig` with a layout engine draws the whole figure twice: once, not rendered, to lay it
        # out, then for real. Laid out here and then fixed, the figure is drawn once: the same
        # pixels (compared byte for byte on the benchmark's figures), in half the drawing.
        engine.execute(fig)
        with rc_context({"figure.autolayout": False, "figure.constrained_layout.use": False}):
            fig.set_layout_engine(None)  # no engine at all ("none" keeps a placeholder: two draws)
    buffer = io.BytesIO()
    fig.savefig(buffer, format="png", metadata={"Software": None})
    return buffer.getvalue()


def label(value: object) -> str:
    """Untrusted text as a plot label: controls shown, and `$` escaped so matplotlib never parses
    a model name as mathtext (an unbalanced `$\\frac{` would stop the whole report)."""
    return visible(str(value)).replace("$", r"\$")


def short_label(value: object, width: int = 40) -> str:
    """`label`, cut to `width` characters with an ellipsis at the end."""
    text = visible(str(value))
    if len(text) > width:
        text = text[: width - 1] + "…"
    return text.replace("$", r"\$")


def wrapped_label(value: object, width: int = 36) -> str:
    """`label` on lines of at most `width` characters (a long model name in a panel title)."""
    return "\n".join(label(line) for line in textwrap.wrap(visible(str(value)), width) or [""])


def series_label(record: dict) -> str:
    return label(" / ".join(str(record[c]) for c in ARM))


def topic_code(topic: object) -> str:
    """A topic as the tables name it (DynaMath Table 1's PG, SG, ...; IsoBench's IsoMath, ...)."""
    return TOPIC_CODES.get(str(topic), str(topic))


def series_style(index: int) -> tuple[str, str]:
    """The colour and marker of the `index`th series: 14 colours x 12 markers never repeat a pair
    before 84 series, and two series sharing a colour differ in marker."""
    return PALETTE[index % len(PALETTE)], MARKERS[index % len(MARKERS)]


class Shown(StrEnum):
    """How a point is drawn: a number (a filled marker, zero included), a metric with no value
    (a hollow marker in the n/a strip), or nothing measured (a grey cross in the n/a strip)."""

    VALUE = "value"
    UNDEFINED = "undefined"
    MISSING = "missing"


def _nan(value: object) -> bool:
    return value is None or (isinstance(value, float | np.floating) and math.isnan(value))


def value_shown(value: float | None) -> Shown:
    """A measured number (0 included) or nothing measured."""
    return Shown.MISSING if _nan(value) else Shown.VALUE


def rr_shown(rr: float | None, a_avg: float | None) -> Shown:
    """RR = A_wst / A_avg: a number (0 when no seed is right on every variant), undefined when
    A_avg = 0 (nothing right at all), missing when the arm has no graded cells."""
    if _nan(a_avg):
        return Shown.MISSING
    if a_avg == 0 or _nan(rr):
        return Shown.UNDEFINED
    return Shown.VALUE


def modality_order(values: Sequence[object]) -> list[str]:
    """Modalities in the project's order (image, latex, code, story), any others after, sorted: the
    same modality keeps its colour and marker in every figure of a report."""
    known = [m.value for m in Modality]
    present = {str(v) for v in values}
    return [m for m in known if m in present] + sorted(present - set(known))


class Points:
    """The points of one panel, drawn together when the panel is done: one `errorbar` (or `plot`)
    call per style and kind of point, not one per point. Each call is a container of artists that
    is laid out and drawn: hundreds per figure cost seconds; the picture is the same.

    A number is a filled marker with its interval; what has no number is drawn at `na` (the n/a
    strip's position on the value axis): a hollow marker (undefined) or a grey cross (missing)."""

    def __init__(self, na: float, horizontal: bool, size: float = 6) -> None:
        self.na, self.horizontal, self.size = na, horizontal, size
        self.added: dict[tuple[tuple[str, str], Shown, bool], list[tuple[float, float, float, float]]] = {}

    def add(self, x: float, y: float, shown: Shown, style: tuple[str, str],
            error: tuple[float, float] | None) -> None:  # fmt: skip
        """One point at (x, y) (`error`: its interval below and above the value, when drawn)."""
        if shown is Shown.VALUE:
            bars = error is not None and all(map(math.isfinite, error))
            low, high = (max(error[0], 0.0), max(error[1], 0.0)) if error is not None and bars else (0.0, 0.0)
            self.added.setdefault((style, shown, bars), []).append((x, y, low, high))
            return
        x, y = (self.na, y) if self.horizontal else (x, self.na)
        style = style if shown is Shown.UNDEFINED else (NA_COLOUR, "x")
        self.added.setdefault((style, shown, False), []).append((x, y, 0.0, 0.0))

    def draw(self, ax: Axes) -> None:
        size = self.size
        for ((colour, marker), shown, bars), points in self.added.items():
            x, y, low, high = (np.array(column) for column in zip(*points, strict=True))
            if shown is Shown.VALUE:
                error = np.array([low, high]) if bars else None
                xerr, yerr = (error, None) if self.horizontal else (None, error)
                ax.errorbar(x, y, xerr=xerr, yerr=yerr, fmt=marker, color=colour, markersize=size, capsize=2,
                            linewidth=1.2)  # fmt: skip
            elif shown is Shown.UNDEFINED:
                ax.plot(x, y, marker=marker, markersize=size, markerfacecolor="white", markeredgecolor=colour,
                        markeredgewidth=1.4, linestyle="none")  # fmt: skip
            else:
                ax.plot(x, y, marker="x", markersize=size - 1, color=NA_COLOUR, linestyle="none")
        self.added = {}


def na_strip(ax: Axes, low: float, high: float, horizontal: bool, ticks: Sequence[float]) -> None:
    """The shaded strip off the scale where what has no number is drawn, its tick labelled n/a."""
    middle = (low + high) / 2
    ax.grid(axis="x" if horizontal else "y", alpha=0.3)
    if horizontal:
        ax.axvspan(low, high, color=NA_FILL, zorder=0)
        ax.set_xticks([middle, *ticks], ["n/a", *(f"{t:g}" for t in ticks)])
    else:
        ax.axhspan(low, high, color=NA_FILL, zorder=0)
        ax.set_yticks([middle, *ticks], ["n/a", *(f"{t:g}" for t in ticks)])
    axis = ax.xaxis if horizontal else ax.yaxis
    axis.get_major_ticks()[0].gridline.set_visible(False)  # no grid line through the strip


def first_shown(items: Sequence[T], most: int, what: str) -> tuple[list[T], str]:
    """The first `most` of `items`, and what to say under the figure when some are left out."""
    if len(items) <= most:
        return list(items), ""
    return list(items[:most]), f"showing the first {most:,} of {len(items):,} {what}; the tables list all"


def fitting(count: int, columns: int, panel_height: float, header: float) -> int:
    """How many of `count` panels (in rows of `columns`, each `panel_height` inches tall, under
    `header` inches of legend) fit in MAX_HEIGHT, and no more than MAX_PANELS: at least one."""
    rows = max(1, int((MAX_HEIGHT - header) // panel_height))
    return max(1, min(count, rows * max(1, columns), MAX_PANELS))


def say_what_is_shown(fig: Figure, *notes: str) -> None:
    """Under the figure, what was left out of it (nothing when every note is empty)."""
    said = "; ".join(note for note in notes if note)
    if said:
        fig.supxlabel(said, fontsize=8, color="#555555")


def panel_grid(count: int, columns: int, size: tuple[float, float]) -> tuple[Figure, list[Axes]]:
    """A figure `WIDTH` wide of `count` panels in rows of `columns`, laid out by matplotlib's
    constrained layout (titles, legends and tick labels never overlap); never taller than
    MAX_HEIGHT (callers choose what fits, this is the last guard)."""
    columns = max(1, min(columns, count))
    rows = max(1, math.ceil(count / columns))
    size = (size[0], min(size[1], MAX_HEIGHT))
    fig = Figure(figsize=size, dpi=DPI, layout="constrained")
    FigureCanvasAgg(fig)
    grid = fig.add_gridspec(rows, columns)
    axes = [fig.add_subplot(grid[i // columns, i % columns]) for i in range(count)]
    return fig, axes


def legend_handle(style: tuple[str, str], text: str, hollow: bool = False) -> Line2D:
    colour, marker = style
    return Line2D([], [], linestyle="none", marker=marker, color=colour, markersize=6, label=text,
                  markerfacecolor="white" if hollow else colour)  # fmt: skip
