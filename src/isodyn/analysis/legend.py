"""What the report's abbreviations mean, for the names a report actually shows (pure).

Topic and level codes are DynaMath's (arXiv 2411.00836, Table 1), the Iso* groups and IsoCB / IsoSP
are IsoBench's (arXiv 2404.01266, Sections 2 and 4), and the metrics are defined in `metrics`,
`consistency`, `modality` and `stats`. `legend(texts)` keeps the entries whose name appears as a
whole word in the texts given (table headers and captions, findings, figure captions), in the order
below: metrics first, then topics, levels and representations.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

from isodyn.analysis.metrics import MIN_INTERVAL_SEEDS
from isodyn.analysis.tables import LEVEL_COLUMNS, TOPIC_COLUMNS
from isodyn.core import Level, Topic


@dataclass(frozen=True)
class Entry:
    name: str  # as the tables, sentences and figures write it
    meaning: str


METRICS: tuple[Entry, ...] = (
    Entry("A_avg", "average-case accuracy: the mean over seeds of the share of a seed's variants answered "
                   "right (DynaMath Eq. 1)"),
    Entry("A_wst", "worst-case accuracy: the share of seeds with every variant right, averaged over "
                   "repeats (DynaMath Eq. 1)"),
    Entry("RR", "reasoning robustness, A_wst / A_avg; undefined when A_avg = 0 (DynaMath Eq. 2)"),
    Entry("RC", "repetition consistency: the share of repeats of a variant that give the same answer "
                "(DynaMath Eq. 3)"),
    Entry("gap", "modality gap: accuracy on the best text representation minus on the image, on the same "
                 "items, in percentage points (IsoBench)"),
    Entry("MDE", "minimum detectable effect: the smallest difference these seeds detect at 80% power, "
                 "alpha 0.05"),
    Entry("ALL", "every seed of the arm together"),
    Entry("pp", "percentage points: a difference of two percentages"),
)  # fmt: skip

_TOPICS = {
    Topic.PLANE_GEOMETRY: "Plane Geometry (DynaMath)",
    Topic.SOLID_GEOMETRY: "Solid Geometry (DynaMath)",
    Topic.ANALYTIC_GEOMETRY: "Analytic Geometry (DynaMath)",
    Topic.ALGEBRA: "Algebra (DynaMath)",
    Topic.PUZZLE_TEST: "Puzzle Test (DynaMath)",
    Topic.GRAPH_THEORY: "Graph Theory (DynaMath)",
    Topic.STATISTICS: "Statistics (DynaMath)",
    Topic.SCIENTIFIC_FIGURE: "Scientific Figure (DynaMath)",
    Topic.ARITHMETIC: "Arithmetic (DynaMath)",
    Topic.ISO_MATH: "IsoBench mathematical functions: parity, convexity, breakpoints",
    Topic.ISO_ALGORITHMS: "IsoBench graph algorithms: connectivity, maximum flow, isomorphism",
    Topic.ISO_GAMES: "IsoBench chess: winner identification, puzzles",
    Topic.ISO_SCIENCE: "IsoBench science: physics and chemistry questions",
}
_LEVELS = {
    Level.ELEMENTARY: "elementary school (DynaMath level)",
    Level.HIGH_SCHOOL: "high school (DynaMath level)",
    Level.UNDERGRADUATE: "undergraduate (DynaMath level)",
}
TOPICS = tuple(Entry(code, _TOPICS[topic]) for topic, code in TOPIC_COLUMNS.items() if topic in _TOPICS)
LEVELS = tuple(Entry(code, _LEVELS[level]) for level, code in LEVEL_COLUMNS.items() if level in _LEVELS)
REPRESENTATIONS: tuple[Entry, ...] = (
    Entry("isocb", "IsoCombination: the image and every text representation in one prompt (IsoBench)"),
    Entry("isosp", "IsoScratchPad: the model describes the image as text, then solves from that text "
                   "(IsoBench)"),
)  # fmt: skip
ENTRIES: tuple[Entry, ...] = (*METRICS, *TOPICS, *LEVELS, *REPRESENTATIONS)


def _word(name: str) -> re.Pattern[str]:
    # A whole word: `AL` is not found in `ALL`, nor `A_avg` in `A_avg_low`.
    return re.compile(rf"(?<![A-Za-z0-9_]){re.escape(name)}(?![A-Za-z0-9_])")


_PATTERNS = {entry.name: _word(entry.name) for entry in ENTRIES}


def legend(texts: Iterable[str]) -> list[Entry]:
    """The entries whose name the texts show, in the legend's order."""
    shown = "\n".join(texts)
    return [entry for entry in ENTRIES if _PATTERNS[entry.name].search(shown)]


def interval_note() -> Entry:
    """What "too few for an interval" means, for a legend that shows intervals."""
    return Entry("[low, high]", f"percentile cluster-bootstrap interval over seeds; from fewer than "
                                f"{MIN_INTERVAL_SEEDS} seeds none is given")  # fmt: skip
