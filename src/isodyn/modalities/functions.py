"""Helpers for problems about a real function of one variable: plot it, print it as LaTeX or SymPy code.

Everything here is pure: the same expression and options give the same PNG bytes and the same text.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np
import numpy.typing as npt
import sympy as sp
from matplotlib import patheffects
from matplotlib.axes import Axes
from matplotlib.ticker import MaxNLocator, MultipleLocator, ScalarFormatter

from isodyn.modalities.canvas import FONT, MIN_FONT
from isodyn.modalities.images import render_png

X = sp.Symbol("x", real=True)

# Enough points that corners look sharp and steep rational branches look smooth at 5x4 inches.
_SAMPLES_PER_UNIT = 200
_MIN_SAMPLES = 1201


# ------------------------------------------------------------------------------------------------- text


def expr_latex(expr: sp.Expr) -> str:
    """LaTeX for an expression, e.g. `\\frac{x^{2} + 1}{x^{4} + 2}` (decimal Floats print as written)."""
    return sp.latex(expr)


def expr_code(expr: sp.Expr) -> str:
    """SymPy source for an expression, e.g. `(x**2 + 1)/(x**4 + 2)`; `sympify` of it gives `expr` back."""
    return sp.sstr(expr)


def function_latex(expr: sp.Expr, name: str = "f", var: str = "x") -> str:
    """`f(x) = ...` as display LaTeX (without surrounding `$`)."""
    return f"{name}({var}) = {expr_latex(expr)}"


def function_code(expr: sp.Expr, name: str = "f", var: str = "x") -> str:
    """A runnable SymPy definition of the function, in the style of IsoBench's code representation."""
    return f'import sympy\n\n{var} = sympy.Symbol("{var}", real=True)\n{name} = {expr_code(expr)}\n'


# ---------------------------------------------------------------------------------------------- sampling


def real_poles(expr: sp.Expr, domain: tuple[float, float], x: sp.Symbol = X) -> list[float]:
    """Real zeros of the denominator of `expr` inside `domain` (empty when it has no polynomial one)."""
    _, den = sp.fraction(sp.together(expr))
    if den.is_number or not den.is_polynomial(x):
        return []
    lo, hi = domain
    roots = sp.Poly(den, x).real_roots()
    return sorted(float(r) for r in roots if lo <= float(r) <= hi)


def sample_function(
    expr: sp.Expr,
    domain: tuple[float, float],
    *,
    x: sp.Symbol = X,
    extra_points: Sequence[float] = (),
    poles: Sequence[float] = (),
) -> tuple[np.ndarray, np.ndarray]:
    """Evaluate `expr` on a dense grid of `domain` (plus `extra_points`, e.g. corners, so they stay sharp).

    Grid points that fall on or next to a pole are replaced by NaN, so a plotted line breaks there
    instead of joining +inf to -inf with a vertical stroke.
    """
    lo, hi = float(domain[0]), float(domain[1])
    n = max(_MIN_SAMPLES, int((hi - lo) * _SAMPLES_PER_UNIT) + 1)
    xs = np.linspace(lo, hi, n)
    inside = [float(p) for p in extra_points if lo <= p <= hi]
    if inside:
        xs = np.union1d(xs, inside)
    fn = sp.lambdify(x, expr, modules="numpy")
    with np.errstate(all="ignore"):
        ys = np.asarray(fn(xs), dtype=float) * np.ones_like(xs)  # broadcast constants
    ys[~np.isfinite(ys)] = np.nan
    step = (hi - lo) / (n - 1)
    for p in poles:
        ys[np.abs(xs - p) < 0.5 * step] = np.nan
        # A NaN sample exactly at the pole guarantees the line is split even between grid points.
        xs = np.append(xs, p)
        ys = np.append(ys, np.nan)
    order = np.argsort(xs, kind="stable")
    return xs[order], ys[order]


def auto_ylim(
    ys: np.ndarray,
    *,
    has_poles: bool = False,
    symmetric: bool = False,
    include_zero: bool = True,
    pad: float = 0.12,
    min_half_span: float = 1.0,
) -> tuple[float, float]:
    """A y window that shows the curve: the full range, or (near poles) the central bulk of values."""
    finite = ys[np.isfinite(ys)]
    if finite.size == 0:
        return (-min_half_span, min_half_span)
    if has_poles:
        lo, hi = np.quantile(finite, [0.08, 0.92])
    else:
        lo, hi = float(finite.min()), float(finite.max())
    if include_zero:
        lo, hi = min(lo, 0.0), max(hi, 0.0)
    if symmetric:
        m = max(abs(lo), abs(hi), min_half_span)
        lo, hi = -m, m
    span = max(hi - lo, 2 * min_half_span)
    mid = (lo + hi) / 2
    half = span / 2 * (1 + pad)
    return (float(mid - half), float(mid + half))


def break_jumps(ys: np.ndarray, ylim: tuple[float, float]) -> np.ndarray:
    """NaN out samples beyond the window where the curve jumps from one edge to the other.

    A fallback for poles not found symbolically: without it a branch leaving at the top and the next
    one entering at the bottom would be joined by a vertical line.
    """
    lo, hi = ylim
    out = ys.copy()
    above, below = out > hi, out < lo
    cross = (above[:-1] & below[1:]) | (below[:-1] & above[1:])
    idx = np.nonzero(cross)[0]
    out[idx] = np.nan
    out[idx + 1] = np.nan
    return out


# ---------------------------------------------------------------------------------------------- drawing


LABEL_ZORDER = 3.5


class _ScalarWithoutZero(ScalarFormatter):
    """Matplotlib's usual tick labels, with none at 0 (where two axes' zeros would collide)."""

    def __call__(self, x: float, pos: int | None = None) -> str:
        return "" if x == 0 else super().__call__(x, pos)


def grid_under_curves(ax: Axes) -> None:
    """A light grid below the curves, with tick labels above them, each on a white halo.

    With the axes through the origin the tick labels sit inside the plot, where a curve can pass
    over them. Matplotlib draws an axis's grid and its labels as one artist, so the grid is drawn
    here as separate lines at the current tick positions, and the axis itself goes above the curves.
    """
    ax.grid(False)
    for ticks, limits, grid_line in (
        (ax.get_xticks(), ax.get_xlim(), ax.axvline),
        (ax.get_yticks(), ax.get_ylim(), ax.axhline),
    ):
        low, high = sorted(limits)
        for tick in ticks:
            if low <= tick <= high:
                grid_line(tick, color="0.85", linewidth=0.6, zorder=0.5)
    # Ticks and labels above the curves (seeds draw them at zorder 2 to 3) and below the marked
    # points (4 and up), whose open or filled dots a label must never hide.
    ax.xaxis.set_zorder(LABEL_ZORDER)
    ax.yaxis.set_zorder(LABEL_ZORDER)
    # a see-through halo: the label reads clearly, and a curve under it still looks unbroken
    halo: list[patheffects.AbstractPathEffect] = [
        patheffects.withStroke(linewidth=3, foreground="white", alpha=0.6)
    ]
    for label in (*ax.get_xticklabels(), *ax.get_yticklabels()):
        label.set_path_effects(halo)


def style_function_axes(
    ax: Axes,
    domain: tuple[float, float],
    ylim: tuple[float, float],
    *,
    x_tick_step: float | None = None,
    var: str = "x",
    ylabel: str = "y",
) -> None:
    """Grid, axes through the origin, axis names at their ends, ticks that make values readable."""
    ax.set_xlim(*domain)
    ax.set_ylim(*ylim)
    for side in ("top", "right"):
        ax.spines[side].set_visible(False)
    # Put the axes through the origin when it is in view (it always is for the seeds in this package).
    if domain[0] <= 0 <= domain[1]:
        ax.spines["left"].set_position(("data", 0))
    if ylim[0] <= 0 <= ylim[1]:
        ax.spines["bottom"].set_position(("data", 0))
    if x_tick_step:
        ax.xaxis.set_major_locator(MultipleLocator(x_tick_step))
    else:
        ax.xaxis.set_major_locator(MaxNLocator(nbins=12, integer=True))
    ax.yaxis.set_major_locator(MaxNLocator(nbins=10, steps=[1, 2, 2.5, 5, 10]))
    if domain[0] <= 0 <= domain[1] and ylim[0] <= 0 <= ylim[1]:
        ax.yaxis.set_major_formatter(_ScalarWithoutZero())  # the x axis's "0" names the origin
    ax.tick_params(labelsize=10)
    grid_under_curves(ax)
    # Axis names at the positive ends, as in a textbook plot.
    ax.annotate(
        var,
        xy=(1.0, 0),
        xycoords=("axes fraction", "data"),
        xytext=(-2, 4),
        textcoords="offset points",
        ha="right",
        va="bottom",
        fontsize=10,
        style="italic",
    )
    ax.annotate(
        ylabel,
        xy=(0, 1.0),
        xycoords=("data", "axes fraction"),
        xytext=(4, -2),
        textcoords="offset points",
        ha="left",
        va="top",
        fontsize=10,
        style="italic",
    )


def plot_function_png(
    expr: sp.Expr,
    domain: tuple[float, float],
    *,
    x: sp.Symbol = X,
    ylim: tuple[float, float] | None = None,
    symmetric_y: bool = False,
    extra_points: Sequence[float] = (),
    x_tick_step: float | None = None,
    label: str | None = None,
    color: str = "tab:blue",
    size: tuple[float, float] = (5, 4),
    dpi: int = 100,
) -> bytes:
    """PNG of `expr` over `domain`: poles masked, y window clipped, axes through the origin.

    `label` (e.g. "y = f(x)", mathtext) is written above the plot; `extra_points` are x values that
    must be sampled exactly (kinks).
    """
    domain = (float(domain[0]), float(domain[1]))
    poles = real_poles(expr, domain, x)
    xs, ys = sample_function(expr, domain, x=x, extra_points=extra_points, poles=poles)
    window = ylim or auto_ylim(ys, has_poles=bool(poles), symmetric=symmetric_y)
    ys = break_jumps(ys, window)

    def draw(ax: Axes) -> None:
        style_function_axes(ax, domain, window, x_tick_step=x_tick_step, var=str(x))
        ax.plot(xs, ys, color=color, linewidth=2)
        if label:  # above the axes, where it cannot cover the curve or tick labels
            ax.set_title(f"${label}$", fontsize=11)

    return render_png(draw, size=size, dpi=dpi)


# ------------------------------------------------------------------------------------------ stated domains
# Helpers for seeds whose function lives on a stated closed interval [lo, hi]: the plot shows exactly
# that interval (with the interval written in its title) and the code form declares it as well.


def format_number(value: float | int) -> str:
    """A JSON number as a person writes it: 6, -3, 0.5, 1.25 (never 6.0)."""
    value = float(value)
    return str(int(value)) if value.is_integer() else repr(value)


def domain_latex(domain: Sequence[float], var: str = "x") -> str:
    """`0.5 \\le x \\le 6` (without surrounding `$`)."""
    lo, hi = domain
    return f"{format_number(lo)} \\le {var} \\le {format_number(hi)}"


def nice_tick_step(span: float, max_ticks: int = 10) -> float:
    """The smallest of 0.5, 1, 2, 5, 10, 20, ... that puts at most `max_ticks` intervals on `span`."""
    step, factors = 0.5, (2, 2, 2.5)  # 0.5 -> 1 -> 2 -> 5 -> 10 -> 20 -> 50 ...
    i = 0
    while span / step > max_ticks:
        step *= factors[i % 3]
        i += 1
    return step


def plot_curve_png(
    xs: npt.ArrayLike,
    ys: npt.ArrayLike,
    domain: Sequence[float],
    *,
    title: str | None = None,
    x_tick_step: float | None = None,
    ylim: tuple[float, float] | None = None,
    color: str = "tab:blue",
    labelsize: int = 10,
    size: tuple[float, float] = (5, 4),
    dpi: int = 100,
) -> bytes:
    """PNG of already-sampled points (xs, ys) over exactly `domain` (the x limits are the domain).

    Unlike `plot_function_png` the axes frame the plot (ticks and axis names outside it, where they
    cannot cover the curve, whether or not the origin is in view); thin black lines mark x = 0 and
    y = 0 when they are in view. Tick labels are `labelsize` points. `title` is mathtext written
    above the axes; by default `y = f(x)` and the domain, so the picture states the domain as the
    text forms do.
    """
    lo, hi = float(domain[0]), float(domain[1])
    xs, ys = np.asarray(xs, dtype=float), np.asarray(ys, dtype=float)
    window = ylim or auto_ylim(ys)
    step = x_tick_step or nice_tick_step(hi - lo)
    if title is None:
        # mathtext knows \leq but not \le; braces keep a leading minus unary ("-4", not "- 4")
        title = f"$y = f(x),\\quad {{{format_number(lo)}}} \\leq x \\leq {{{format_number(hi)}}}$"

    def draw(ax: Axes) -> None:
        ax.set_xlim(lo, hi)
        ax.set_ylim(*window)
        ax.grid(True, color="0.85", linewidth=0.6)
        ax.set_axisbelow(True)
        for side in ("top", "right"):
            ax.spines[side].set_visible(False)
        if lo < 0 < hi:
            ax.axvline(0, color="black", linewidth=0.8, zorder=1)
        if window[0] < 0 < window[1]:
            ax.axhline(0, color="black", linewidth=0.8, zorder=1)
        ax.xaxis.set_major_locator(MultipleLocator(step))
        ax.yaxis.set_major_locator(MaxNLocator(nbins=8, steps=[1, 2, 2.5, 5, 10]))
        ax.tick_params(labelsize=labelsize)
        ax.set_xlabel("$x$", fontsize=labelsize + 1)
        ax.set_ylabel("$y$", fontsize=labelsize + 1, rotation=0, labelpad=10)
        ax.plot(xs, ys, color=color, linewidth=2, zorder=2)
        ax.set_title(title, fontsize=12)

    return render_png(draw, size=size, dpi=dpi)


def function_code_block(
    expr: sp.Expr | None,
    *,
    domain: Sequence[float] | None = None,
    name: str = "f",
    var: str = "x",
    body: str | None = None,
) -> str:
    """A runnable SymPy definition that imports every SymPy name the expression prints with.

    Unlike `function_code` (enough for rational functions), this works for `Abs`, `log`, `exp`,
    `Piecewise`, ...; with `domain` it also defines `domain = Interval(lo, hi)`. `body` replaces the
    printed expression with hand-laid-out source (e.g. one Piecewise branch per line).
    """
    import re  # local: this block was appended to a shared module without touching its header

    if body is None:
        assert expr is not None
        body = expr_code(expr)
    names = {n for n in re.findall(r"\b([A-Za-z_]\w*)\(", body) if hasattr(sp, n)}
    names.add("Symbol")
    if domain is not None:
        names.add("Interval")
    lines = [f"from sympy import {', '.join(sorted(names))}", "", f'{var} = Symbol("{var}", real=True)']
    if domain is not None:
        lines.append(f"domain = Interval({format_number(domain[0])}, {format_number(domain[1])})")
    lines.append(f"{name} = {body}")
    return "\n".join(lines) + "\n"


# ----------------------------------------------------------------------------- plots with integer grids


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
    """Plot `expr` like `plot_function_png` but with 10 pt tick labels, integer grid steps and
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
