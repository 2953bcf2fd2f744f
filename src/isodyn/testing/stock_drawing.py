"""Drawing as stock matplotlib would, to check and measure isodyn's drawing speed-ups against it."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from matplotlib.axes import Axes
from matplotlib.backends.backend_agg import FigureCanvasAgg

from isodyn.modalities import images


@contextmanager
def stock_matplotlib() -> Iterator[None]:
    """Within: matplotlib's own axis classes, a new renderer per figure, axes built afresh.

    Worker processes forked inside inherit this. The pixels must not change (tests compare them).
    """
    saved = images.DrawingAxes._init_axis, images.SharedRendererCanvas.get_renderer, images.blank_axes
    images.DrawingAxes._init_axis = Axes._init_axis  # type: ignore[attr-defined,method-assign]
    images.SharedRendererCanvas.get_renderer = FigureCanvasAgg.get_renderer  # type: ignore[method-assign]
    images.blank_axes = lambda size, dpi, rect: images.add_axes(images.new_figure(size, dpi), rect)
    images._blank_figure.cache_clear()  # templates were pickled with the one-tick axes
    try:
        yield
    finally:
        images.DrawingAxes._init_axis, images.SharedRendererCanvas.get_renderer, images.blank_axes = saved  # type: ignore[method-assign]
        images._blank_figure.cache_clear()
