"""How the search report writes a number, an estimate with its interval, a share, a cut text, an arm
(as columns or escaped prose) and a figure link.
"""

from __future__ import annotations

import math
from urllib.parse import quote

from isodyn.analysis.metrics import MIN_INTERVAL_SEEDS
from isodyn.analysis.stats import Interval
from isodyn.search.analysis import Arm
from isodyn.textsafe import markdown_text

TEXT_CUT = 80  # characters of a truth or a reply shown in the hard-set table


def number_text(value: float, places: int = 3) -> str:
    return "–" if math.isnan(value) else f"{value:.{places}f}"


def estimate_text(interval: Interval, seeds: int, scale: float = 1.0, places: int = 3) -> str:
    """The estimate, with its interval from `MIN_INTERVAL_SEEDS` seeds up (fewer say nothing)."""
    shown = number_text(interval.estimate * scale, places)
    if seeds < MIN_INTERVAL_SEEDS or math.isnan(interval.low):
        return shown
    return (
        f"{shown} ({number_text(interval.low * scale, places)}–{number_text(interval.high * scale, places)})"
    )


def share_text(part: int, whole: int) -> str:
    return f"{part / whole:.0%}" if whole else "–"


def cut_text(text: str | None, width: int = TEXT_CUT) -> str:
    if text is None:
        return "–"
    return text if len(text) <= width else text[: width - 1] + "…"


def arm_columns(arm: Arm) -> dict[str, str]:
    return {"model": arm.model, "strategy": arm.strategy, "modality": arm.modality.value}


def arm_text(arm: Arm) -> str:
    """An arm in prose, escaped (never at the start of a line)."""
    return markdown_text(arm.label())


def figure_link(alt: str, path: str) -> str:
    # Percent-encoded: a path holding `)`, spaces or `<` cannot end the link or start markup.
    return f"![{alt}]({quote(path)})"
