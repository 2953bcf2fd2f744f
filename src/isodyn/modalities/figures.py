"""Drawing and formatting helpers shared by the algebra, arithmetic and puzzle seeds.

Tables, clock faces, cell grids, balance scales, function plots with readable (10 pt) ticks, plus the
small number formatters every seed needs so the image and the text forms print numbers identically.
All helpers draw on a given `Axes` (or return PNG bytes through `render_png`) and are deterministic.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from fractions import Fraction
from typing import Any

import numpy as np
import sympy as sp
from matplotlib import patheffects
from matplotlib.axes import Axes
from matplotlib.patches import Circle, FancyBboxPatch, Patch, Polygon, Rectangle, RegularPolygon
from sympy.printing.str import StrPrinter

from isodyn.modalities.functions import (
    X,
    auto_ylim,
    break_jumps,
    real_poles,
    sample_function,
    style_function_axes,
)
from isodyn.modalities.images import render_png

# Colours whose names nobody disputes (no "teal" vs "cyan"): name -> hex.
PALETTE: dict[str, str] = {
    "red": "#d62728",
    "blue": "#1f5fbf",
    "green": "#2ca02c",
    "orange": "#ff8c00",
    "purple": "#8e44ad",
    "brown": "#8b5a2b",
}
COLOR_NAMES: tuple[str, ...] = tuple(PALETTE)
# Pairs that sit too close to tell apart at a glance; never shown together.
CONFUSABLE = (
    frozenset({"blue", "purple"}),
    frozenset({"red", "brown"}),
    frozenset({"orange", "brown"}),
    frozenset({"red", "purple"}),
)
MIN_FONT = 10  # points: the smallest text any figure may carry
FONT = 12


def pick_colors(rng: np.random.Generator, k: int, names: Sequence[str] = COLOR_NAMES) -> list[str]:
    """`k` distinct colour names, no two of them a confusable pair."""
    while True:
        out = [str(c) for c in rng.choice(list(names), size=k, replace=False)]
        if not any(frozenset({a, b}) in CONFUSABLE for i, a in enumerate(out) for b in out[i + 1 :]):
            return out


# ---------------------------------------------------------------------------------------------- numbers


def fmt_num(value: float | int | Fraction, places: int = 3) -> str:
    """A number as written in a textbook: `3`, `-2.5`, `0.125` (exact fractions with a terminating
    decimal expansion print exactly; others round to `places`)."""
    if isinstance(value, Fraction):
        if value.denominator == 1:
            return str(value.numerator)
        den = value.denominator
        while den % 2 == 0:
            den //= 2
        while den % 5 == 0:
            den //= 5
        if den == 1:  # terminating decimal: print it exactly
            text = f"{float(value):.12f}".rstrip("0").rstrip(".")
            return "0" if text in ("-0", "") else text
        value = float(value)
    if isinstance(value, int) or (isinstance(value, float) and float(value).is_integer()):
        return str(int(value))
    text = f"{value:.{places}f}".rstrip("0").rstrip(".")
    return "0" if text == "-0" else text


def fmt_money(cents: int, symbol: str = "$") -> str:
    """`1234` -> `$12.34`; negative amounts keep the sign in front: `-$3.05`."""
    sign = "-" if cents < 0 else ""
    cents = abs(int(cents))
    return f"{sign}{symbol}{cents // 100}.{cents % 100:02d}"


def cents_answer(cents: int) -> str:
    """An amount of money as a plain float answer: `1234` -> `12.34`, `500` -> `5`."""
    return fmt_num(Fraction(int(cents), 100))


def join_words(items: Sequence[str]) -> str:
    """`a`, `a and b`, `a, b, and c`."""
    items = list(items)
    if len(items) <= 2:
        return " and ".join(items)
    return ", ".join(items[:-1]) + ", and " + items[-1]


def latex_array(
    rows: Sequence[Sequence[str]], hline_after: Sequence[int] = (0,), first_col_rule: bool = True
) -> str:
    """A LaTeX `array` of strings (math mode), e.g. a value table; horizontal rules after the given rows."""
    ncols = max(len(r) for r in rows)
    spec = ("c|" + "c" * (ncols - 1)) if first_col_rule else "c" * ncols
    lines = []
    for i, row in enumerate(rows):
        line = " & ".join(row) + r" \\"
        if i in hline_after:
            line += r" \hline"
        lines.append(line)
    return "\\begin{array}{" + spec + "}\n" + "\n".join(lines) + "\n\\end{array}"


class _ExactPrinter(StrPrinter):
    def _print_Rational(self, expr: sp.Rational) -> str:
        return f"Rational({expr.p}, {expr.q})"


def sympy_code(expr: sp.Expr, name: str = "f", var: str = "x") -> str:
    """A runnable SymPy definition of a function of one variable, importing every function it uses
    (`exp`, `sin`, `Abs`, `sqrt`, `pi`, ...), so `exec` of it gives `expr` back."""
    names = sorted(
        {type(f).__name__ for f in expr.atoms(sp.Function)} | ({"pi"} if expr.has(sp.pi) else set())
    )
    if any(isinstance(a, sp.Pow) and a.exp == sp.Rational(1, 2) for a in expr.atoms(sp.Pow)):
        names = sorted({*names, "sqrt"})
    body = _ExactPrinter().doprint(expr)  # a bare 9/2 would be the float 4.5 in Python
    imports = ", ".join(["Rational", "Symbol", *names] if "Rational(" in body else ["Symbol", *names])
    return f'from sympy import {imports}\n\n{var} = Symbol("{var}", real=True)\n{name} = {body}\n'


# ---------------------------------------------------------------------------------------------- canvas


def blank(ax: Axes, xlim: tuple[float, float], ylim: tuple[float, float], equal: bool = True) -> None:
    """A drawing area without axes: fixed limits, optional equal aspect."""
    ax.set_xlim(*xlim)
    ax.set_ylim(*ylim)
    if equal:
        ax.set_aspect("equal")
    ax.set_axis_off()


def png(draw: Callable[[Axes], None], size: tuple[float, float] = (5, 4)) -> bytes:
    return render_png(draw, size=size)


# ---------------------------------------------------------------------------------------------- tables


def text_width(text: str, fontsize: float = FONT) -> float:
    """A generous estimate of rendered text width in inches (DejaVu Sans averages ~0.6 em)."""
    return len(text) * fontsize * 0.62 / 72


def draw_table(
    ax: Axes,
    rows: Sequence[Sequence[str]],
    *,
    col_widths: Sequence[float],
    row_height: float = 0.5,
    x0: float = 0.0,
    y_top: float = 0.0,
    header_rows: int = 1,
    header_cols: int = 0,
    fontsize: float = FONT,
    header_fill: str = "#e6e6e6",
    cell_fills: dict[tuple[int, int], str] | None = None,
    bold_header: bool = True,
    align: Sequence[str] | None = None,
) -> float:
    """Draw a ruled table (data units = inches when the caller sizes the figure so); returns its bottom y."""
    cell_fills = cell_fills or {}
    y = y_top
    for r, row in enumerate(rows):
        x = x0
        for c, width in enumerate(col_widths):
            text = row[c] if c < len(row) else ""
            is_header = r < header_rows or c < header_cols
            fill = cell_fills.get((r, c), header_fill if is_header else "white")
            ax.add_patch(
                Rectangle((x, y - row_height), width, row_height, facecolor=fill, edgecolor="black", lw=1)
            )
            ha = align[c] if align else "center"
            tx = {"center": x + width / 2, "left": x + 0.1, "right": x + width - 0.1}[ha]
            ax.text(
                tx,
                y - row_height / 2,
                text,
                ha=ha,
                va="center",
                fontsize=fontsize,
                fontweight="bold" if (is_header and bold_header) else "normal",
            )
            x += width
        y -= row_height
    return y


def table_png(
    rows: Sequence[Sequence[str]],
    *,
    title: str | None = None,
    header_rows: int = 1,
    header_cols: int = 0,
    fontsize: float = FONT,
    row_height: float = 0.5,
    min_col: float = 0.7,
) -> bytes:
    """A standalone table image sized to its content (title above in 12 pt)."""
    ncols = max(len(r) for r in rows)
    widths = [
        max(min_col, max(text_width(r[c] if c < len(r) else "", fontsize) for r in rows) + 0.3)
        for c in range(ncols)
    ]
    total_w, total_h = sum(widths), row_height * len(rows)
    title_h = 0.55 if title else 0.0
    if title:
        total_w = max(total_w, text_width(title, FONT + 1) + 0.2)
    x0 = (total_w - sum(widths)) / 2
    margin = 0.15

    def draw(ax: Axes) -> None:
        blank(ax, (-margin, total_w + margin), (-total_h - margin, title_h + margin))
        if title:
            ax.text(total_w / 2, title_h / 2, title, ha="center", va="center", fontsize=FONT + 1)
        draw_table(
            ax,
            rows,
            col_widths=widths,
            row_height=row_height,
            x0=x0,
            y_top=0.0,
            header_rows=header_rows,
            header_cols=header_cols,
            fontsize=fontsize,
        )

    size = (max(3.0, total_w + 2 * margin + 0.3), max(1.5, total_h + title_h + 2 * margin + 0.3))
    return render_png(draw, size=size)


# ---------------------------------------------------------------------------------------------- clock

ROMAN = ("XII", "I", "II", "III", "IV", "V", "VI", "VII", "VIII", "IX", "X", "XI")


def draw_clock(
    ax: Axes,
    hour: int,
    minute: int,
    *,
    numerals: str = "arabic",
    center: tuple[float, float] = (0.0, 0.0),
    radius: float = 1.0,
    face: str = "#fffdf5",
    rim: str = "#333333",
) -> None:
    """An analogue clock at `hour:minute` (12-hour dial): 60 minute ticks, 12 hour ticks, numerals
    `arabic` (1-12), `roman` (I-XII) or `none` (bold hour ticks only); the hour hand sits between hours."""
    cx, cy = center
    ax.add_patch(Circle(center, radius, facecolor=face, edgecolor=rim, lw=4, zorder=1))
    for k in range(60):
        ang = math.pi / 2 - 2 * math.pi * k / 60
        major = k % 5 == 0
        inner = radius * (0.86 if major else 0.92)
        if numerals == "none" and major:
            inner = radius * 0.80
        ax.plot(
            [cx + inner * math.cos(ang), cx + 0.97 * radius * math.cos(ang)],
            [cy + inner * math.sin(ang), cy + 0.97 * radius * math.sin(ang)],
            color="black",
            lw=(3.2 if numerals == "none" else 2.2) if major else 0.9,
            zorder=2,
            solid_capstyle="butt",
        )
    if numerals != "none":
        for h in range(12):
            ang = math.pi / 2 - 2 * math.pi * h / 12
            label = str(12 if h == 0 else h) if numerals == "arabic" else ROMAN[h]
            ax.text(
                cx + 0.72 * radius * math.cos(ang),
                cy + 0.72 * radius * math.sin(ang),
                label,
                ha="center",
                va="center",
                fontsize=16 if numerals == "arabic" else 14,
                fontfamily="serif" if numerals == "roman" else "sans-serif",
                zorder=7,  # above the hands, with a halo, so a hand never hides a numeral
                path_effects=[patheffects.withStroke(linewidth=3, foreground=face)],
            )
    minute_ang = math.pi / 2 - 2 * math.pi * minute / 60
    hour_ang = math.pi / 2 - 2 * math.pi * ((hour % 12) + minute / 60) / 12
    ax.plot(
        [cx, cx + 0.50 * radius * math.cos(hour_ang)],
        [cy, cy + 0.50 * radius * math.sin(hour_ang)],
        color="black",
        lw=7,
        solid_capstyle="round",
        zorder=4,
    )
    ax.plot(
        [cx, cx + 0.84 * radius * math.cos(minute_ang)],
        [cy, cy + 0.84 * radius * math.sin(minute_ang)],
        color="black",
        lw=3.0,
        solid_capstyle="round",
        zorder=5,
    )
    ax.add_patch(Circle(center, 0.045 * radius, color="black", zorder=6))


# ---------------------------------------------------------------------------------------------- grids


def draw_cell_grid(
    ax: Axes,
    nrows: int,
    ncols: int,
    *,
    fills: dict[tuple[int, int], str] | None = None,
    labels: dict[tuple[int, int], str] | None = None,
    origin: tuple[float, float] = (0.0, 0.0),
    cell: float = 1.0,
    fontsize: float = 16,
    lw: float = 1.5,
    label_colors: dict[tuple[int, int], str] | None = None,
) -> None:
    """A grid of square cells; cell (r, c) has row 0 at the TOP. Optional fills and centred labels."""
    fills = fills or {}
    labels = labels or {}
    label_colors = label_colors or {}
    x0, y0 = origin
    for r in range(nrows):
        for c in range(ncols):
            x = x0 + c * cell
            y = y0 + (nrows - 1 - r) * cell
            ax.add_patch(
                Rectangle((x, y), cell, cell, facecolor=fills.get((r, c), "white"), edgecolor="black", lw=lw)
            )
            if (r, c) in labels:
                ax.text(
                    x + cell / 2,
                    y + cell / 2,
                    labels[(r, c)],
                    ha="center",
                    va="center",
                    fontsize=fontsize,
                    color=label_colors.get((r, c), "black"),
                    fontweight="bold",
                )


def draw_box(
    ax: Axes,
    x: float,
    y: float,
    w: float,
    h: float,
    text: str = "",
    *,
    fill: str = "white",
    edge: str = "black",
    fontsize: float = FONT,
    lw: float = 1.5,
    round_: float = 0.0,
    color: str = "black",
    bold: bool = False,
) -> None:
    """A (rounded) box with centred text; (x, y) is its lower-left corner."""
    patch: Patch
    if round_:
        patch = FancyBboxPatch(
            (x, y),
            w,
            h,
            boxstyle=f"round,pad=0,rounding_size={round_}",
            facecolor=fill,
            edgecolor=edge,
            lw=lw,
        )
    else:
        patch = Rectangle((x, y), w, h, facecolor=fill, edgecolor=edge, lw=lw)
    ax.add_patch(patch)
    if text:
        ax.text(
            x + w / 2,
            y + h / 2,
            text,
            ha="center",
            va="center",
            fontsize=fontsize,
            color=color,
            fontweight="bold" if bold else "normal",
        )


# ---------------------------------------------------------------------------------------------- shapes


SHAPES = ("circle", "square", "triangle", "diamond", "hexagon", "star")


def draw_shape(ax: Axes, kind: str, x: float, y: float, size: float, color: str, zorder: int = 3) -> None:
    """A filled token centred at (x, y) with overall width about `size`."""
    r = size / 2
    style: dict[str, Any] = {"facecolor": color, "edgecolor": "black", "lw": 1.2, "zorder": zorder}
    if kind == "circle":
        ax.add_patch(Circle((x, y), r, **style))
    elif kind == "square":
        ax.add_patch(Rectangle((x - r * 0.9, y - r * 0.9), 1.8 * r, 1.8 * r, **style))
    elif kind == "triangle":
        ax.add_patch(RegularPolygon((x, y - 0.15 * r), 3, radius=r * 1.15, **style))
    elif kind == "diamond":
        ax.add_patch(RegularPolygon((x, y), 4, radius=r, **style))
    elif kind == "hexagon":
        ax.add_patch(RegularPolygon((x, y), 6, radius=r, **style))
    elif kind == "star":
        pts = []
        for k in range(10):
            rad = r * (1.0 if k % 2 == 0 else 0.45)
            ang = math.pi / 2 + k * math.pi / 5
            pts.append((x + rad * math.cos(ang), y + rad * math.sin(ang)))
        ax.add_patch(Polygon(pts, closed=True, **style))
    else:  # pragma: no cover - callers pass names from SHAPES
        raise ValueError(kind)


# ---------------------------------------------------------------------------------------------- plots


def plot_expr_png(
    expr: sp.Expr,
    domain: tuple[float, float],
    *,
    ylim: tuple[float, float] | None = None,
    color: str = "#1f5fbf",
    title: str | None = None,
    x_tick_step: float | None = 1,
    y_tick_step: float | None = None,
    extra: Callable[[Axes], None] | None = None,
    size: tuple[float, float] = (5.5, 4.4),
    mask: Callable[[np.ndarray], np.ndarray] | None = None,
) -> bytes:
    """Plot `expr` like `functions.plot_function_png` but with 10 pt tick labels, integer grid steps and
    an optional `extra(ax)` hook for dots, asymptotes and labels. `mask(xs)` hides samples (NaN)."""
    from matplotlib.ticker import MultipleLocator

    domain = (float(domain[0]), float(domain[1]))
    poles = real_poles(expr, domain, X)
    xs, ys = sample_function(expr, domain, poles=poles)
    if mask is not None:
        ys = np.where(mask(xs), np.nan, ys)
    window = ylim or auto_ylim(ys, has_poles=bool(poles))
    ys = break_jumps(ys, window)

    def draw(ax: Axes) -> None:
        style_function_axes(ax, domain, window, x_tick_step=x_tick_step)
        if y_tick_step:
            ax.yaxis.set_major_locator(MultipleLocator(y_tick_step))
        ax.tick_params(labelsize=MIN_FONT)
        ax.plot(xs, ys, color=color, linewidth=2.2)
        if extra is not None:
            extra(ax)
        if title:
            ax.set_title(title, fontsize=FONT)

    return render_png(draw, size=size)


def integer_ticks(ax: Axes, xlim: tuple[float, float], ylim: tuple[float, float], step: int = 1) -> None:
    """A square grid with a tick at every `step`, axes through the origin, 10 pt labels."""
    from matplotlib.ticker import MultipleLocator

    style_function_axes(ax, xlim, ylim, x_tick_step=step)
    ax.yaxis.set_major_locator(MultipleLocator(step))
    ax.tick_params(labelsize=MIN_FONT)
