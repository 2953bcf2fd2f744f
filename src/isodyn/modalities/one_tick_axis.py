"""Axis objects that draw every tick with one reused `Tick` instead of one `Tick` per location.

Matplotlib's `Axis.draw` makes a `Tick` for every location (five artists each, styles deep-copied
from the first tick), and the spine and axis-label placement ask for all ticks again. For the small
plots drawn here by the thousand that was most of a figure's cost. `OneTickAxisMixin.draw` moves the
axis's first tick (which `tick_params` keeps styled) through the same locations, in the same order,
with the same labels, so the pixels are identical (tests compare every seed's picture with stock
matplotlib's).

The one difference: styling a single tick label by hand (`ax.get_xticklabels()[3].set_color(...)`)
is not honoured; the first tick's style applies to all. Style ticks with `tick_params` or
`set_xticklabels(..., **kwargs)`.
"""

from __future__ import annotations

from typing import Any

import matplotlib.axis as maxis
import matplotlib.transforms as mtransforms
from matplotlib.axis import Tick
from matplotlib.backend_bases import RendererBase
from matplotlib.ticker import NullLocator

_TICK_PARTS = ("tick1On", "tick2On", "label1On", "label2On", "gridOn")


def _group_visible(tick_kw: dict[str, Any]) -> bool:
    """Whether any part of a tick group (major or minor) is switched on in `tick_params`."""
    return any(tick_kw.get(part) is not False for part in _TICK_PARTS)


class OneTickAxisMixin:
    """Mixed into `XAxis`/`YAxis`: see the module docstring."""

    _drawing: tuple[list[Tick], list[Any], list[Any]] | None = None  # set only inside `draw`

    def _tick_stops(self: Any) -> list[tuple[Tick, float, str]]:
        """(reused tick, location, label) for every tick matplotlib would draw, major then minor."""
        stops: list[tuple[Tick, float, str]] = []
        for ticker, tick_kw, locs, ticks in (
            (self.major, self._major_tick_kw, self.get_majorticklocs, "majorTicks"),
            (self.minor, self._minor_tick_kw, self.get_minorticklocs, "minorTicks"),
        ):
            if not _group_visible(tick_kw) or isinstance(ticker.locator, NullLocator):
                continue
            where = locs()
            labels = ticker.formatter.format_ticks(where)
            tick = getattr(self, ticks)[0]
            stops.extend((tick, loc, label) for loc, label in zip(where, labels, strict=True))
        transform = self.get_transform()
        interval = transform.transform(sorted(self.get_view_interval()))
        inside = []
        for stop in stops:
            try:
                position = transform.transform(stop[1])
            except AssertionError:  # masked values from some scales, as in matplotlib
                continue
            # private, so not in matplotlib's stubs; matplotlib's own Axis uses it to the same end
            if mtransforms._interval_contains_close(interval, position):  # type: ignore[attr-defined]
                inside.append(stop)
        return inside

    def draw(self: Any, renderer: RendererBase) -> None:
        if not self.get_visible():
            return
        renderer.open_group(__name__, gid=self.get_gid())
        label1_boxes: list[Any] = []
        label2_boxes: list[Any] = []
        stops = self._tick_stops()
        for tick, loc, label in stops:
            tick.update_position(loc)
            tick.label1.set_text(label)
            tick.label2.set_text(label)
            for text, boxes in ((tick.label1, label1_boxes), (tick.label2, label2_boxes)):
                if text.get_visible() and text.get_in_layout():
                    boxes.append(text.get_window_extent(renderer))
            tick.draw(renderer)
        # Label placement asks for the drawn ticks (the spine, for tick length) and their label
        # boxes; answer from this draw instead of letting matplotlib build every tick.
        self._drawing = (list(dict.fromkeys(tick for tick, _, _ in stops)), label1_boxes, label2_boxes)
        try:
            self._update_label_position(renderer)
        finally:
            self._drawing = None
        self.label.draw(renderer)
        self._update_offset_text_position(label1_boxes, label2_boxes)
        self.offsetText.set_text(self.major.formatter.get_offset())
        self.offsetText.draw(renderer)
        renderer.close_group(__name__)
        self.stale = False

    def _update_ticks(self: Any) -> list[Tick]:
        if self._drawing is not None:
            return self._drawing[0]
        return super()._update_ticks()  # type: ignore[misc]

    def _get_tick_boxes_siblings(self: Any, renderer: RendererBase) -> tuple[list[Any], list[Any]]:
        if self._drawing is not None:
            return self._drawing[1], self._drawing[2]
        return super()._get_tick_boxes_siblings(renderer)  # type: ignore[misc]


class OneTickXAxis(OneTickAxisMixin, maxis.XAxis):
    pass


class OneTickYAxis(OneTickAxisMixin, maxis.YAxis):
    pass
