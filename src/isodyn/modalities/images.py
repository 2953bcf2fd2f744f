"""Image rendering without global pyplot state: each call builds its own Figure on an Agg canvas."""

from __future__ import annotations

import io
from collections.abc import Callable

from matplotlib.axes import Axes
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure


def render_png(draw: Callable[[Axes], None], size: tuple[float, float] = (5, 4), dpi: int = 100) -> bytes:
    """Draw on a fresh axes and return PNG bytes that are identical for identical drawings.

    PNG metadata (software version, dates) is dropped so the bytes, and the cache keys derived from
    them, depend only on what is drawn.
    """
    fig = Figure(figsize=size, dpi=dpi)
    FigureCanvasAgg(fig)
    ax = fig.add_subplot()
    draw(ax)
    fig.tight_layout()
    buf = io.BytesIO()
    fig.savefig(buf, format="png", metadata={"Software": None})
    return buf.getvalue()
