"""Named colours for figures whose colours a question may mention, and text that reads on a fill.

`CHART_COLORS` is the palette of the statistics charts and lettered graphs; `PALETTE` that of the
arithmetic, algebra and puzzle figures, with `pick_colors` to draw colours that never sit side by
side with a look-alike. (The geometry figures keep their own, in `geometry.COLORS`.)
"""

from __future__ import annotations

import re
from collections.abc import Sequence

import numpy as np

# Colour names a reader cannot confuse with one another (no pink next to red, no cyan next to blue).
CHART_COLORS: dict[str, str] = {
    "red": "#d62728",
    "blue": "#1f77b4",
    "green": "#2ca02c",
    "orange": "#ff7f0e",
    "purple": "#9467bd",
    "yellow": "#ffe135",
    "brown": "#8c564b",
    "gray": "#7f7f7f",
}

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


def pick_colors(rng: np.random.Generator, k: int, names: Sequence[str] = COLOR_NAMES) -> list[str]:
    """`k` distinct colour names, no two of them a confusable pair."""
    while True:
        out = [str(c) for c in rng.choice(list(names), size=k, replace=False)]
        if not any(frozenset({a, b}) in CONFUSABLE for i, a in enumerate(out) for b in out[i + 1 :]):
            return out


def text_color_on(hex_color: str) -> str:
    """Black or white, whichever reads better on a fill of `hex_color`."""
    r, g, b = (int(hex_color[i : i + 2], 16) / 255 for i in (1, 3, 5))
    return "black" if 0.299 * r + 0.587 * g + 0.114 * b > 0.55 else "white"


# Every colour a figure's question may name (the chart, figure and geometry palettes use these names).
_COLOR_WORDS = re.compile(
    r"\b(red|blue|green|orange|purple|yellow|brown|gray|grey|pink|black|cyan|magenta)\b", re.IGNORECASE
)


def names_a_color(text: str) -> bool:
    """Whether `text` names a colour (a question about "the red ring" needs the picture's hues)."""
    return _COLOR_WORDS.search(text) is not None
