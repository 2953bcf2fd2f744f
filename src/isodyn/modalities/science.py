"""Drawing and wording helpers for IsoBench-style science questions (ScienceQA figures).

Three pictures, each drawn from plain parameters so that the picture and the text description are
two views of the same numbers:

- `solutions_png`: two identical containers of solvent with solute particles drawn as dots
  (chemistry, "which solution has the higher concentration?");
- `magnet_pairs_png`: two pairs of bar magnets, drawn to scale in centimetres, with labelled poles
  and a labelled gap (physics, "in which pair is the magnetic force larger?");
- `circuits_png`: two series circuits with a labelled battery and labelled resistors.

Geometry that the samplers also need (where a particle may sit) lives here too, so the sampler and
the renderer agree on it.
"""

from __future__ import annotations

from collections.abc import Sequence
from fractions import Fraction
from typing import Any

import numpy as np
from matplotlib.axes import Axes
from matplotlib.patches import Circle, FancyArrowPatch, Rectangle

from isodyn.modalities.images import render_png

# ---------------------------------------------------------------------------------------------- words


def fmt_number(x: int | float) -> str:
    """2 -> "2", 2.0 -> "2", 2.5 -> "2.5" (no trailing zeros, no exponent)."""
    value = Fraction(str(x))
    if value.denominator == 1:
        return str(value.numerator)
    return f"{float(value):g}"


def count_word(n: int, noun: str) -> str:
    """`3 particles`, `1 particle` (digits, so the numbers can be parsed back)."""
    return f"{n} {noun}" if n == 1 else f"{n} {noun}s"


def equals_decimal(value: Fraction) -> str:
    """`= 0.28` when the decimal is exact within three places, otherwise `≈ 0.233` (for worked
    solutions, which follow it with an exact comparison)."""
    if (value * 1000).denominator == 1:
        return f"= {fmt_number(float(value))}"
    return f"≈ {float(value):.3f}"


# ---------------------------------------------------------------------------------------------- solutions

# Solute colours: names a reader agrees on, drawn in a saturated shade with a dark outline.
SOLUTE_COLORS: dict[str, str] = {
    "green": "#1a9e3a",
    "blue": "#1f4fd6",
    "purple": "#8a2be2",
    "red": "#d62728",
    "orange": "#f07f00",
}
SOLVENT_FILL = "#e3f1fb"  # very pale blue liquid
GLASS_EDGE = "#333333"

# Container geometry (data units; the figure keeps an equal aspect ratio).
BEAKER_WIDTH = 4.0
BEAKER_HEIGHT = 6.6
BEAKER_LEFTS = (1.0, 7.0)  # Solution A, Solution B
BEAKER_BOTTOM = 1.3
LIQUID_HEIGHT_PER_ML = 0.12  # 20 mL -> 2.4, 50 mL -> 6.0
DOT_RADIUS = 0.16
CELL = 0.6  # particles sit one per grid cell of this size ...
JITTER = 0.07  # ... moved at most this far from the cell centre, so dots never touch
LIQUID_MARGIN = 0.15


def liquid_height(volume_ml: int) -> float:
    return volume_ml * LIQUID_HEIGHT_PER_ML


def particle_cells(volume_ml: int) -> list[tuple[float, float]]:
    """Centres of the grid cells a particle may occupy, relative to the liquid's bottom-left corner."""
    cols = int((BEAKER_WIDTH - 2 * LIQUID_MARGIN) // CELL)
    rows = int((liquid_height(volume_ml) - 2 * LIQUID_MARGIN) // CELL)
    x0 = (BEAKER_WIDTH - cols * CELL) / 2
    y0 = (liquid_height(volume_ml) - rows * CELL) / 2
    return [(x0 + (c + 0.5) * CELL, y0 + (r + 0.5) * CELL) for r in range(rows) for c in range(cols)]


def place_particles(rng: np.random.Generator, count: int, volume_ml: int) -> list[list[float]]:
    """`count` non-overlapping particle centres inside the liquid (distinct grid cells, small jitter),
    rounded to three decimals so they are plain JSON."""
    cells = particle_cells(volume_ml)
    if count > len(cells):
        raise ValueError(f"{count} particles do not fit in {volume_ml} mL")
    picked = sorted(int(i) for i in rng.choice(len(cells), size=count, replace=False))
    jitter = rng.uniform(-JITTER, JITTER, size=(count, 2))
    return [
        [round(cells[i][0] + float(dx), 3), round(cells[i][1] + float(dy), 3)]
        for i, (dx, dy) in zip(picked, jitter, strict=True)
    ]


def _draw_solutions(ax: Axes, solutions: Sequence[dict[str, Any]], color: str) -> None:
    face = SOLUTE_COLORS[color]
    for left, sol in zip(BEAKER_LEFTS, solutions, strict=True):
        level = liquid_height(sol["volume_ml"])
        ax.add_patch(Rectangle((left, BEAKER_BOTTOM), BEAKER_WIDTH, level, facecolor=SOLVENT_FILL, lw=0))
        ax.plot([left, left], [BEAKER_BOTTOM, BEAKER_BOTTOM + BEAKER_HEIGHT], color=GLASS_EDGE, lw=2.5)
        ax.plot(
            [left + BEAKER_WIDTH] * 2,
            [BEAKER_BOTTOM, BEAKER_BOTTOM + BEAKER_HEIGHT],
            color=GLASS_EDGE,
            lw=2.5,
        )
        ax.plot([left, left + BEAKER_WIDTH], [BEAKER_BOTTOM] * 2, color=GLASS_EDGE, lw=2.5)
        ax.plot([left, left + BEAKER_WIDTH], [BEAKER_BOTTOM + level] * 2, color="#6aa6d6", lw=1.5)
        for x, y in sol["particles"]:
            ax.add_patch(
                Circle((left + x, BEAKER_BOTTOM + y), DOT_RADIUS, facecolor=face, edgecolor="black", lw=0.8)
            )
        mid = left + BEAKER_WIDTH / 2
        ax.text(mid, BEAKER_BOTTOM + BEAKER_HEIGHT + 0.5, f"Solution {sol['label']}", ha="center",
                va="center", fontsize=15, fontweight="bold")  # fmt: skip
        ax.text(mid, BEAKER_BOTTOM - 0.6, f"Solvent volume: {sol['volume_ml']} mL", ha="center",
                va="center", fontsize=13)  # fmt: skip
    ax.set_xlim(0, 12)
    ax.set_ylim(0, BEAKER_BOTTOM + BEAKER_HEIGHT + 1.1)
    ax.set_aspect("equal")
    ax.axis("off")


def solutions_png(solutions: Sequence[dict[str, Any]], color: str) -> bytes:
    """Two containers side by side; each solution is `{"label", "volume_ml", "particles": [[x, y]]}`
    with particle centres relative to the bottom-left corner of its liquid."""
    return render_png(lambda ax: _draw_solutions(ax, solutions, color), size=(6, 5))


# ---------------------------------------------------------------------------------------------- magnets

NORTH_FILL = "#f4a3a3"  # light red
SOUTH_FILL = "#a3c4f4"  # light blue
NORTH_COLOR_NAME, SOUTH_COLOR_NAME = "red", "blue"
MAGNET_ASPECT = 0.45  # height / length: every magnet has the same shape
PAIR_ROW_HEIGHT = 6.2  # data units (cm) per pair, top to bottom
FIGURE_WIDTH_CM = 19.0


def _draw_magnet(ax: Axes, x: float, y: float, length: float, poles: str) -> None:
    """A bar magnet with its bottom-left corner at (x, y); `poles` is "NS" or "SN" from left to right."""
    height = length * MAGNET_ASPECT
    half = length / 2
    size = 16 if length >= 3 else 13  # the letter stays well inside the smallest magnets' halves
    for i, pole in enumerate(poles):
        fill = NORTH_FILL if pole == "N" else SOUTH_FILL
        ax.add_patch(Rectangle((x + i * half, y), half, height, facecolor=fill, edgecolor="black", lw=1.5))
        ax.text(x + (i + 0.5) * half, y + height / 2, pole, ha="center", va="center", fontsize=size,
                fontweight="bold")  # fmt: skip


def _draw_magnet_pairs(ax: Axes, pairs: Sequence[dict[str, Any]]) -> None:
    for row, pair in enumerate(pairs):
        top = (len(pairs) - row) * PAIR_ROW_HEIGHT
        length, gap = float(pair["length_cm"]), float(pair["distance_cm"])
        height = length * MAGNET_ASPECT
        x0 = (FIGURE_WIDTH_CM - (2 * length + gap)) / 2
        ax.text(0.2, top - 0.5, f"Pair {row + 1}", ha="left", va="center", fontsize=15, fontweight="bold")
        base = top - 1.9 - 2.7  # magnets of every size share a baseline within the row
        _draw_magnet(ax, x0, base, length, pair["left"])
        _draw_magnet(ax, x0 + length + gap, base, length, pair["right"])
        # The gap: guide lines up from the facing ends and a double-headed arrow with its label.
        a, b = x0 + length, x0 + length + gap
        arrow_y = base + height + 0.6
        for xe in (a, b):
            ax.plot([xe, xe], [base + height, arrow_y + 0.25], color="#555555", lw=1, ls=(0, (2, 2)))
        ax.add_patch(FancyArrowPatch((a, arrow_y), (b, arrow_y), arrowstyle="<|-|>", mutation_scale=12,
                                     color="black", lw=1.2, shrinkA=0, shrinkB=0))  # fmt: skip
        ax.text((a + b) / 2, arrow_y + 0.45, f"{fmt_number(gap)} cm", ha="center", va="bottom", fontsize=13)
        ax.text(FIGURE_WIDTH_CM / 2, base - 0.55, f"each magnet is {fmt_number(length)} cm long", ha="center",
                va="top", fontsize=12, color="#333333")  # fmt: skip
    for row in range(1, len(pairs)):
        y = row * PAIR_ROW_HEIGHT
        ax.plot([0.2, FIGURE_WIDTH_CM - 0.2], [y, y], color="#999999", lw=1)
    ax.set_xlim(0, FIGURE_WIDTH_CM)
    ax.set_ylim(0, len(pairs) * PAIR_ROW_HEIGHT)
    ax.set_aspect("equal")
    ax.axis("off")


def magnet_pairs_png(pairs: Sequence[dict[str, Any]]) -> bytes:
    """Pairs stacked top to bottom; each is `{"length_cm", "distance_cm", "left": "NS"|"SN", "right": ...}`,
    drawn to scale (1 data unit = 1 cm)."""
    return render_png(lambda ax: _draw_magnet_pairs(ax, pairs), size=(6.4, 4.6))


# ---------------------------------------------------------------------------------------------- circuits

CIRCUIT_WIDTH, CIRCUIT_HEIGHT = 4.4, 3.6
CIRCUIT_LEFTS = (1.7, 10.0)
CIRCUIT_BOTTOM = 1.0
WIRE = "#222222"


def _zigzag(ax: Axes, start: tuple[float, float], end: tuple[float, float], amp: float = 0.16) -> None:
    """A resistor symbol centred on the segment from `start` to `end` (horizontal or vertical)."""
    (x1, y1), (x2, y2) = start, end
    length = np.hypot(x2 - x1, y2 - y1)
    ux, uy = (x2 - x1) / length, (y2 - y1) / length
    nx_, ny_ = -uy, ux
    body = 1.1
    lead = (length - body) / 2
    pts = [(x1, y1), (x1 + ux * lead, y1 + uy * lead)]
    teeth = 6
    for k in range(teeth):
        t = lead + body * (k + 0.5) / teeth
        side = 1 if k % 2 == 0 else -1
        pts.append((x1 + ux * t + nx_ * amp * side, y1 + uy * t + ny_ * amp * side))
    pts += [(x1 + ux * (lead + body), y1 + uy * (lead + body)), (x2, y2)]
    xs, ys = zip(*pts, strict=True)
    ax.plot(xs, ys, color=WIRE, lw=1.8, solid_joinstyle="miter")


def _battery(ax: Axes, x: float, y_lo: float, y_hi: float, volts: int | float) -> None:
    """A cell on the vertical wire at `x` between `y_lo` and `y_hi`: long plate (+) above short plate (-)."""
    mid = (y_lo + y_hi) / 2
    gap = 0.14
    ax.plot([x, x], [y_lo, mid - gap], color=WIRE, lw=1.8)
    ax.plot([x, x], [mid + gap, y_hi], color=WIRE, lw=1.8)
    ax.plot([x - 0.45, x + 0.45], [mid + gap] * 2, color=WIRE, lw=2)  # long plate: positive terminal
    ax.plot([x - 0.22, x + 0.22], [mid - gap] * 2, color=WIRE, lw=4)  # short plate: negative terminal
    ax.text(x + 0.3, mid + gap + 0.3, "+", fontsize=12, ha="left", va="center")
    ax.text(x - 0.6, mid, f"{fmt_number(volts)} V", fontsize=13, ha="right", va="center", fontweight="bold")


def _draw_circuits(ax: Axes, circuits: Sequence[dict[str, Any]]) -> None:
    for k, (left, circuit) in enumerate(zip(CIRCUIT_LEFTS, circuits, strict=True)):
        x1, x2 = left, left + CIRCUIT_WIDTH
        y1, y2 = CIRCUIT_BOTTOM, CIRCUIT_BOTTOM + CIRCUIT_HEIGHT
        _battery(ax, x1, y1, y2, circuit["voltage"])
        sides = [
            ((x1, y2), (x2, y2), ((x1 + x2) / 2, y2 + 0.35), "center", "bottom"),  # top
            ((x2, y2), (x2, y1), (x2 + 0.35, (y1 + y2) / 2), "left", "center"),  # right
            ((x2, y1), (x1, y1), ((x1 + x2) / 2, y1 - 0.35), "center", "top"),  # bottom
        ]
        for i, (start, end, (tx, ty), ha, va) in enumerate(sides):
            if i < len(circuit["resistors"]):
                _zigzag(ax, start, end)
                ax.text(tx, ty, f"{fmt_number(circuit['resistors'][i])} Ω", fontsize=13, ha=ha, va=va)
            else:
                ax.plot([start[0], end[0]], [start[1], end[1]], color=WIRE, lw=1.8)
        ax.text((x1 + x2) / 2, y2 + 1.2, f"Circuit {k + 1}", fontsize=15, fontweight="bold", ha="center",
                va="center")  # fmt: skip
    ax.set_xlim(0, 16)
    ax.set_ylim(0, CIRCUIT_BOTTOM + CIRCUIT_HEIGHT + 1.7)
    ax.set_aspect("equal")
    ax.axis("off")


def circuits_png(circuits: Sequence[dict[str, Any]]) -> bytes:
    """Two series circuits side by side; each is `{"voltage": V, "resistors": [R, ...]}` (1 to 3
    resistors, drawn on the top, right and bottom wires in that order)."""
    return render_png(lambda ax: _draw_circuits(ax, circuits), size=(8, 3.8))
