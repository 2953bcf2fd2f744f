"""An analogue clock face showing a time."""

from __future__ import annotations

import math

from matplotlib import patheffects
from matplotlib.axes import Axes
from matplotlib.patches import Circle

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
    for ang, length, lw, zorder in ((hour_ang, 0.50, 7, 4), (minute_ang, 0.84, 3.0, 5)):
        ax.plot(
            [cx, cx + length * radius * math.cos(ang)],
            [cy, cy + length * radius * math.sin(ang)],
            color="black",
            lw=lw,
            solid_capstyle="round",
            zorder=zorder,
        )
    ax.add_patch(Circle(center, 0.045 * radius, color="black", zorder=6))
