"""The style layer: the one place where a render profile's drawing-time choices reach a figure.

Every seed's figure is rasterised by `images` (`render_png`, `figure_png`), which calls
`style_figure` after the seed has drawn and before the canvas is drawn. Under the default style it
does nothing (the pixels stay byte-identical); under another (`drawing_under`) it restyles what the
seed drew, generically: every text's family and size, every line's and patch's width, the named
chart colours remapped, the resolution. No seed knows about profiles.

What a picture shows must not change, so tick locations are frozen before text grows or shrinks
(matplotlib's automatic locator picks fewer ticks for bigger labels), and a colour is remapped only
to the same-named colour of the colour-blind-safe palette ("the red bar" stays red).

`recording_texts` lists the strings each drawing put on the canvas, for the tests that check a
profile kept every label and value.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field
from functools import cache
from typing import Any

import numpy as np
from matplotlib import font_manager
from matplotlib.artist import Artist
from matplotlib.axis import Axis
from matplotlib.backend_bases import FigureCanvasBase
from matplotlib.collections import Collection
from matplotlib.colors import to_hex, to_rgba
from matplotlib.figure import Figure
from matplotlib.lines import Line2D
from matplotlib.patches import Patch
from matplotlib.text import Text
from matplotlib.ticker import FixedLocator, NullLocator


@dataclass(frozen=True)
class Style:
    """The drawing-time part of a render profile (`profiles.RenderProfile` builds it)."""

    dpi_scale: float = 1.0
    font_family: str | None = None
    font_scale: float = 1.0
    line_scale: float = 1.0
    recolor: Mapping[str, str] = field(default_factory=dict)  # '#rrggbb' -> '#rrggbb'

    @property
    def is_plain(self) -> bool:
        return self == PLAIN


PLAIN = Style()
_ACTIVE: ContextVar[Style] = ContextVar("isodyn_style", default=PLAIN)
_RECORDING: ContextVar[list[list[str]] | None] = ContextVar("isodyn_drawn_texts", default=None)
_STYLED = "_isodyn_styled"  # set on a figure once restyled, so no path restyles it twice


@contextmanager
def drawing_under(chosen: Style) -> Iterator[None]:
    """Within the block, every figure drawn through `images` is restyled by `chosen`."""
    token = _ACTIVE.set(chosen)
    try:
        yield
    finally:
        _ACTIVE.reset(token)


def active() -> Style:
    return _ACTIVE.get()


def scaled_min_px(min_px: tuple[int, int]) -> tuple[int, int]:
    """The smallest picture `render_png` accepts, scaled with the drawing resolution: its decisions
    (crop, redraw bigger) then match the default drawing's, at the profile's resolution."""
    scale = active().dpi_scale
    return min_px if scale == 1 else (round(min_px[0] * scale), round(min_px[1] * scale))


@cache
def font_exists(family: str) -> bool:
    """Whether matplotlib finds a font of this family (or a generic one: serif, monospace, ...)."""
    try:
        font_manager.findfont(font_manager.FontProperties(family=family), fallback_to_default=False)
    except ValueError:
        return False
    return True


def style_figure(fig: Figure) -> None:
    """Apply the active style to what was drawn on `fig` (once; nothing under the plain style)."""
    chosen = active()
    if chosen.is_plain or getattr(fig, _STYLED, False):
        return
    setattr(fig, _STYLED, True)
    if chosen.font_scale != 1:
        _freeze_ticks(fig)
    for artist in _artists(fig):
        _restyle(artist, chosen)
    if chosen.dpi_scale != 1:
        fig.set_dpi(fig.dpi * chosen.dpi_scale)


def _freeze_ticks(fig: Figure) -> None:
    """Fix every axis's tick locations where they are now: the automatic locator spaces ticks by the
    label size, so bigger labels would otherwise drop some of the values drawn."""
    for ax in fig.axes:
        for axis in (ax.xaxis, ax.yaxis):
            if not isinstance(axis.get_major_locator(), FixedLocator | NullLocator):
                axis.set_major_locator(FixedLocator(list(axis.get_majorticklocs())))
            if not isinstance(axis.get_minor_locator(), FixedLocator | NullLocator):
                axis.set_minor_locator(FixedLocator(list(axis.get_minorticklocs())))


def _artists(fig: Figure) -> Iterator[Artist]:
    """Every artist of the figure once; of an axis only the ticks drawn (the one-tick axis draws
    every location with its first tick, see `one_tick_axis`), not one tick per location."""
    stack: list[Artist] = [fig]
    seen: set[int] = set()
    while stack:
        artist = stack.pop()
        if id(artist) in seen:
            continue
        seen.add(id(artist))
        yield artist
        if isinstance(artist, Axis):
            stack.extend([artist.label, artist.offsetText, *artist.majorTicks[:1], *artist.minorTicks[:1]])
        else:
            stack.extend(artist.get_children())


def _restyle(artist: Artist, chosen: Style) -> None:
    lines, recolor = chosen.line_scale, chosen.recolor
    if isinstance(artist, Text):
        if chosen.font_family is not None:  # the text's own family after it, for a glyph it lacks
            artist.set_fontfamily([chosen.font_family, *artist.get_fontfamily()])
        if chosen.font_scale != 1:
            artist.set_fontsize(float(artist.get_fontsize()) * chosen.font_scale)
        if recolor:
            _swap(artist.get_color, artist.set_color, recolor)
    elif isinstance(artist, Line2D):
        if lines != 1:
            artist.set_linewidth(artist.get_linewidth() * lines)
            artist.set_markeredgewidth(artist.get_markeredgewidth() * lines)
        if recolor:
            _swap(artist.get_color, artist.set_color, recolor)
            _swap(artist.get_markerfacecolor, artist.set_markerfacecolor, recolor)
            _swap(artist.get_markeredgecolor, artist.set_markeredgecolor, recolor)
    elif isinstance(artist, Patch):
        if lines != 1:
            artist.set_linewidth(artist.get_linewidth() * lines)
        if recolor:
            _swap(artist.get_facecolor, artist.set_facecolor, recolor)
            _swap(artist.get_edgecolor, artist.set_edgecolor, recolor)
    elif isinstance(artist, Collection):
        if lines != 1:
            artist.set_linewidth([float(w) * lines for w in np.atleast_1d(artist.get_linewidth())])
        if recolor and artist.get_array() is None:  # colours from a colormap are no named colours
            _swap_all(artist.get_facecolor, artist.set_facecolor, recolor)
            _swap_all(artist.get_edgecolor, artist.set_edgecolor, recolor)


def _swap(get: Callable[[], Any], set_: Callable[[Any], Any], recolor: Mapping[str, str]) -> None:
    """Set the remapped colour, only when it differs (an unchanged artist is left untouched)."""
    color = get()
    mapped = _mapped(color, recolor)
    if mapped is not color:
        set_(mapped)


def _swap_all(get: Callable[[], Any], set_: Callable[[Any], Any], recolor: Mapping[str, str]) -> None:
    colors = np.asarray(get())
    if colors.ndim != 2 or not len(colors):
        return
    rows = [tuple(float(c) for c in row) for row in colors]
    mapped = [_mapped(row, recolor) for row in rows]
    if any(m is not row for m, row in zip(mapped, rows, strict=True)):
        set_(mapped)


def _mapped(color: Any, recolor: Mapping[str, str]) -> Any:
    """`color` with its RGB replaced by the remapped one (alpha kept), or `color` itself."""
    if isinstance(color, str) and color.lower() in ("none", "auto"):
        return color
    try:
        rgba = to_rgba(color)
    except ValueError:
        return color
    target = recolor.get(to_hex(rgba[:3]))
    return color if target is None else (*to_rgba(target)[:3], rgba[3])


# --- what a drawing wrote -------------------------------------------------------------------------


@contextmanager
def recording_texts() -> Iterator[list[list[str]]]:
    """Within the block, each canvas drawn through `images` appends the list of strings it drew
    (ticks, labels, titles, legends), in drawing order: the last list is the picture's."""
    drawn: list[list[str]] = []
    token = _RECORDING.set(drawn)
    try:
        yield drawn
    finally:
        _RECORDING.reset(token)


@contextmanager
def texts_recorded(canvas: FigureCanvasBase) -> Iterator[None]:
    """While `canvas` is drawn: its strings recorded, if `recording_texts` is on."""
    drawn = _RECORDING.get()
    if drawn is None:
        yield
        return
    renderer: Any = canvas.get_renderer()  # type: ignore[attr-defined]  # an Agg canvas's
    strings: list[str] = []
    drawn.append(strings)
    draw_text = renderer.draw_text

    def recording(gc: Any, x: float, y: float, s: str, *args: Any, **kwargs: Any) -> Any:
        strings.append(s)
        return draw_text(gc, x, y, s, *args, **kwargs)

    renderer.draw_text = recording  # this renderer, this draw only
    try:
        yield
    finally:
        del renderer.draw_text  # the class's method again (the renderer is shared)
