"""Image rendering without global pyplot state: each call draws its own Figure on an Agg canvas.

Single-axes drawings (`render_png`) are drawn once on a canvas with room to spare around the axes and
then cropped to what was drawn. `tight_layout` would give a similar picture but costs a second pass
over every text (about half the time of a whole draw), and figures are drawn by the thousand.

Matplotlib's per-figure overheads are cut wherever the pixels stay
the same (tests compare every seed with stock matplotlib): blank axes are unpickled from a template
(`blank_axes`), ticks are drawn with one reused tick (`one_tick_axis`), and figures of one size share
a renderer and so its text measurements (`SharedRendererCanvas`).

Every figure passes through the style layer (`style.style_figure`) after the seed drew it and before
it is rasterised: a render profile's drawing-time choices reach every seed there, and nowhere else.
"""

from __future__ import annotations

import io
import math
import pickle
from collections.abc import Callable
from functools import lru_cache
from typing import TYPE_CHECKING, Any, ClassVar, cast

import matplotlib
import numpy as np
from matplotlib.axes import Axes
from matplotlib.backends.backend_agg import FigureCanvasAgg, RendererAgg
from matplotlib.figure import Figure
from PIL import Image

from isodyn.modalities import style
from isodyn.modalities.one_tick_axis import OneTickXAxis, OneTickYAxis

if TYPE_CHECKING:
    from matplotlib.typing import RcKeyType

# zlib level 1: encoding takes a third of the default level's time for files about 30% larger;
# images are drawn by the thousand, stored once and sent as base64, so speed wins.
PNG_COMPRESS_LEVEL = 1
MARGIN_IN = 1.0  # room around the axes for tick labels, titles and legends (cropped away after)
PAD_PX = 8  # white border kept around the drawn content
# A fixed title position: matplotlib's automatic one measures every tick label again to dodge them,
# and no figure here has tick labels above its axes.
FIXED_TITLE: dict[RcKeyType, Any] = {"axes.titley": 1.0}


class SharedRendererCanvas(FigureCanvasAgg):
    """An Agg canvas that shares its renderer with every figure of the same pixel size and dpi.

    Matplotlib caches text measurements per renderer, and a new canvas makes a new renderer, so
    every figure measured "0", "1", "2", ... afresh. The shared renderer is cleared before each
    draw; its pixels (`buffer_rgba`) are valid until the next figure of that size is drawn, so draw
    from one thread per process (isodyn renders in its main thread and in worker processes).
    """

    _shared: ClassVar[dict[tuple[int, int, float], RendererAgg]] = {}
    KEEP = 32  # renderers kept per process (a few MB each), least recently used dropped first

    def get_renderer(self) -> RendererAgg:
        width, height = self.get_width_height(physical=True)
        key = (width, height, self.figure.dpi)
        renderer = self._shared.pop(key, None)
        if renderer is None:
            renderer = RendererAgg(width, height, self.figure.dpi)
        self._shared[key] = renderer  # (re)inserted last: the dict's order is the LRU order
        while len(self._shared) > self.KEEP:
            del self._shared[next(iter(self._shared))]
        self.renderer, self._lastKey = renderer, key
        return renderer


def new_figure(size: tuple[float, float], dpi: int) -> Figure:
    fig = Figure(figsize=size, dpi=dpi)
    SharedRendererCanvas(fig)
    return fig


class DrawingAxes(Axes):
    """Axes tuned for drawing many small figures, with the same pixels as stock `Axes`.

    - Ticks are drawn by `one_tick_axis`: one reused tick instead of one per location.
    - `add_patch` skips the data-limit bookkeeping once both limits are fixed: matplotlib finds a
      patch's extent by solving for the extrema of every Bezier segment, for chess glyphs and
      circles alike, which is wasted when `set_xlim`/`set_ylim` already fixed the view.
    """

    def _init_axis(self) -> None:
        # As `Axes._init_axis`, with the one-tick axis classes.
        self.xaxis = OneTickXAxis(self, clear=False)
        self.spines.bottom.register_axis(self.xaxis)
        self.spines.top.register_axis(self.xaxis)
        self.yaxis = OneTickYAxis(self, clear=False)
        self.spines.left.register_axis(self.yaxis)
        self.spines.right.register_axis(self.yaxis)

    def _update_patch_limits(self, patch: Any) -> None:
        if self.get_autoscalex_on() or self.get_autoscaley_on():
            super()._update_patch_limits(patch)  # type: ignore[misc]  # private, so not in matplotlib's stubs


def add_axes(fig: Figure, rect: tuple[float, float, float, float]) -> Axes:
    """`fig.add_axes(rect)`: titles at a fixed height (see FIXED_TITLE), see DrawingAxes."""
    with matplotlib.rc_context(FIXED_TITLE):
        return fig.add_axes(rect, axes_class=DrawingAxes)


@lru_cache(maxsize=256)  # ~40 kB each; sizes follow the content in some seeds
def _blank_figure(size: tuple[float, float], dpi: int, rect: tuple[float, float, float, float]) -> bytes:
    fig = Figure(figsize=size, dpi=dpi)
    add_axes(fig, rect)
    return pickle.dumps(fig)


def blank_axes(size: tuple[float, float], dpi: int, rect: tuple[float, float, float, float]) -> Axes:
    """A new `size`-inch figure holding one axes at `rect` (figure fractions), like `add_axes`.

    Built once per (size, dpi, rect) and unpickled afterwards, a quarter of the cost of building
    axes, which read and validate dozens of rcParams. So rcParams changed after the first call with
    the same arguments do not reach the blank axes (isodyn itself never changes them).
    """
    fig = pickle.loads(_blank_figure(size, dpi, rect))
    SharedRendererCanvas(fig)
    return fig.axes[0]


def add_subplot(fig: Figure, *args: Any) -> Axes:
    """`fig.add_subplot(*args)` like `add_axes`."""
    with matplotlib.rc_context(FIXED_TITLE):
        return fig.add_subplot(*args, axes_class=DrawingAxes)


def png_size(data: bytes) -> tuple[int, int]:
    """(width, height) of PNG bytes, read from the IHDR chunk."""
    return int.from_bytes(data[16:20], "big"), int.from_bytes(data[20:24], "big")


def encode_png(rgba: np.ndarray) -> bytes:
    """PNG bytes (RGB, no metadata) of an opaque RGBA array, so equal pixels give equal bytes."""
    buf = io.BytesIO()
    Image.fromarray(rgba).convert("RGB").save(buf, format="png", compress_level=PNG_COMPRESS_LEVEL)
    return buf.getvalue()


def figure_of(ax: Axes) -> Figure:
    """The figure `ax` is drawn on (axes here are never placed on a subfigure)."""
    fig = ax.figure
    assert isinstance(fig, Figure)
    return fig


def canvas_rgba(fig: Figure) -> np.ndarray:
    """Draw `fig` and return its pixels; its canvas is an Agg canvas (every figure here gets one)."""
    canvas = cast(FigureCanvasAgg, fig.canvas)
    with style.texts_recorded(canvas):
        canvas.draw()
    return np.asarray(canvas.buffer_rgba())


def figure_png(fig: Figure, tight: bool = True, **tight_options: Any) -> bytes:
    """PNG bytes of a whole figure (laid out with `tight_layout` unless `tight=False`), drawn once.

    `Figure.tight_layout` leaves a placeholder layout engine on the figure, which makes `savefig`
    draw the whole figure an extra time; drawing the canvas directly avoids that.
    The active render profile's style is applied first (`style`), so the layout sees it.
    """
    style.style_figure(fig)
    if tight:
        fig.tight_layout(**tight_options)
        fig.set_layout_engine(None)
    return encode_png(canvas_rgba(fig))


def content_box(rgba: np.ndarray) -> tuple[int, int, int, int] | None:
    """(top, bottom, left, right) bounds (exclusive ends) of the pixels that are not opaque white."""
    ink = rgba.view(np.uint32)[:, :, 0] != 0xFFFFFFFF  # one comparison per pixel, not four
    rows, cols = np.flatnonzero(ink.any(axis=1)), np.flatnonzero(ink.any(axis=0))
    if rows.size == 0:
        return None
    return int(rows[0]), int(rows[-1]) + 1, int(cols[0]), int(cols[-1]) + 1


# Below this a picture's labels blur once a vision model downscales it (a hand audit found them hard
# to read): a smaller picture is drawn again at the resolution that makes it this big, same layout.
MIN_PX = (400, 250)


def render_png(
    draw: Callable[[Axes], None],
    size: tuple[float, float] = (5, 4),
    dpi: int = 100,
    min_px: tuple[int, int] = MIN_PX,
) -> bytes:
    """Draw on a fresh `size`-inch axes and return PNG bytes that are identical for identical drawings.

    The picture is cropped to the drawn content plus a small white border. A drawing that reaches the
    edge of the spare room is drawn again with `tight_layout`, so nothing is ever cut off. A picture
    smaller than `min_px` (width, height) is drawn again at the resolution that makes it about that big.
    """
    min_px = style.scaled_min_px(min_px)  # a profile drawing at another resolution scales the floor
    data = _cropped_png(draw, size, dpi)
    for _ in range(3):  # cropping is not quite linear in the resolution: a second step may be needed
        width, height = png_size(data)
        scale = max(min_px[0] / width, min_px[1] / height)
        if scale <= 1:
            break
        dpi = math.ceil(dpi * scale * 1.05)
        data = _cropped_png(draw, size, dpi)
    return data


def _cropped_png(draw: Callable[[Axes], None], size: tuple[float, float], dpi: int) -> bytes:
    width, height = size
    fw, fh = width + 2 * MARGIN_IN, height + 2 * MARGIN_IN
    ax = blank_axes((fw, fh), dpi, (MARGIN_IN / fw, MARGIN_IN / fh, width / fw, height / fh))
    draw(ax)
    style.style_figure(figure_of(ax))  # the one place a profile restyles what a seed drew
    rgba = canvas_rgba(figure_of(ax))
    box = content_box(rgba)
    if box is None:
        return encode_png(rgba)
    top, bottom, left, right = box
    height_px, width_px = rgba.shape[:2]
    if top == 0 or left == 0 or bottom == height_px or right == width_px:
        fig = new_figure(size, dpi)
        draw(add_subplot(fig))
        return figure_png(fig)
    return encode_png(rgba[max(0, top - PAD_PX) : bottom + PAD_PX, max(0, left - PAD_PX) : right + PAD_PX])
