"""A blank drawing area and the font sizes of the arithmetic, algebra and puzzle figures.

The figures drawn on it (`shapes`, `tables`, `clock`) draw on a given `Axes`; `png` renders a
drawing through `render_png`, so the same drawing gives the same bytes.
"""

from __future__ import annotations

from collections.abc import Callable

from matplotlib.axes import Axes

from isodyn.modalities.images import render_png

MIN_FONT = 10  # points: the smallest text any figure may carry
FONT = 12  # points: labels and table text


def blank(ax: Axes, xlim: tuple[float, float], ylim: tuple[float, float], equal: bool = True) -> None:
    """A drawing area without axes: fixed limits, optional equal aspect."""
    ax.set_xlim(*xlim)
    ax.set_ylim(*ylim)
    if equal:
        ax.set_aspect("equal")
    ax.set_axis_off()


def png(draw: Callable[[Axes], None], size: tuple[float, float] = (5, 4)) -> bytes:
    """PNG bytes of `draw` on a `size`-inch axes (see `images.render_png`)."""
    return render_png(draw, size=size)
