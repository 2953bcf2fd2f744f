"""Grading health per arm: how its verdicts were reached, and when a comparison may be the grader's (pure).

Rules that miss answers do not miss them at random: a model whose replies the rules cannot read
gets `none found` (counted wrong) more often, a strategy that writes long chains of thought is cut
off at the token limit more often. So a difference between two arms means little when their
verdicts were reached differently. `grading_health` gives, per arm, the graded cells and the share
that the rules found no answer in, found several in, or did not read because the reply was cut off,
and the share decided by the judge or marked by a person (`exp view`); `caution_for` says when two
arms compared in a finding differ in those shares by more than the finding's own difference.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass

import pandas as pd

from isodyn.analysis.columns import ARM, labels
from isodyn.runs.marks import Mark, latest_marks
from isodyn.runs.schema import JUDGE, Column
from isodyn.scoring.ambiguity import NONE_FOUND, SEVERAL_OPTIONS, SEVERAL_VALUES, TRUNCATED, UNREADABLE

AMBIGUOUS = (SEVERAL_OPTIONS, SEVERAL_VALUES, UNREADABLE)  # an answer marked, but not one clear answer
CAUTION_POINTS = 2.0  # shares further apart than this (in points) always earn a comparison a caution
ArmKey = tuple[str, str, str]  # model, strategy, modality
# a mark's key, in `Mark.key`'s order
_CELL = [*ARM, Column.seed_id, Column.variant, Column.repeat, Column.render, Column.perturbation]
_FLAGS = ("none_found", "ambiguous", "truncated", "judge", "marked")

LEGEND = (
    "Shares of each arm's graded cells, in %. none found: the rules read no answer, nor did a judge "
    "(counted wrong); ambiguous: several options, several values, or an answer that cannot be read "
    "(not decided by a judge); truncated: the "
    "reply was cut off at the token limit (not read, counted wrong); by judge: the judge's reading is "
    "the verdict; marked: a person marked the verdict in exp view."
)


@dataclass(frozen=True)
class Health:
    """How one arm's verdicts were reached: its graded cells and shares of them (0..1)."""

    graded: int
    none_found: float
    ambiguous: float
    truncated: float
    judge: float
    marked: float


def _marked(graded: pd.DataFrame, marks: Iterable[Mark]) -> pd.Series:
    """Whether a person marked each graded cell (any mark: the last one of a cell counts)."""
    keys = list(latest_marks(marks))
    if not keys or graded.empty:
        return pd.Series(False, index=graded.index)
    cells = pd.MultiIndex.from_frame(graded[_CELL].astype(object))
    return pd.Series(cells.isin(keys), index=graded.index)


def _flags(graded: pd.DataFrame, marks: Iterable[Mark] = ()) -> pd.DataFrame:
    """Per graded cell, whether its verdict is each kind `Health` counts."""
    ambiguity = graded[Column.ambiguity]
    # a cell the judge decided keeps the rules' ambiguity beside the judge's verdict: it was read
    judge = graded[Column.grader] == JUDGE if Column.grader in graded else pd.Series(False, graded.index)
    ambiguous = ambiguity.isin(AMBIGUOUS) | ambiguity.str.startswith("ambiguous", na=False)
    return pd.DataFrame(
        {
            "none_found": (ambiguity == NONE_FOUND) & ~judge,
            "ambiguous": ambiguous & ~judge,
            "truncated": ambiguity == TRUNCATED,
            "judge": judge,
            "marked": _marked(graded, marks),
        },
        index=graded.index,
    )


def _read(graded: pd.DataFrame) -> bool:
    """Whether the cells say how their verdicts were reached: an outside table of verdicts does not."""
    columns = (Column.method, Column.ambiguity)
    return not graded.empty and all(c in graded and bool(graded[c].notna().any()) for c in columns)


def grading_health(graded: pd.DataFrame, marks: Iterable[Mark] = ()) -> dict[ArmKey, Health]:
    """Per arm of the graded cells (`metrics.graded_cells`), its `Health`, in one grouped pass.
    Verdicts without the way they were reached (an outside table of verdicts: no method) give none."""
    if not _read(graded):
        return {}
    grouped = _flags(graded, marks).groupby([graded[c] for c in ARM], sort=True)
    shares, sizes = grouped.mean(), grouped.size()
    health: dict[ArmKey, Health] = {}
    for key in shares.index:
        model, strategy, modality = key
        values = (float(shares.at[key, flag]) for flag in _FLAGS)
        health[(str(model), str(strategy), str(modality))] = Health(int(sizes[key]), *values)
    return health


def cells_health(graded: pd.DataFrame) -> Health | None:
    """The `Health` of one group of graded cells (one side of a comparison); None when they do not
    say how their verdicts were reached."""
    if not _read(graded):
        return None
    shares = _flags(graded).mean()
    return Health(len(graded), *(float(shares[flag]) for flag in _FLAGS))


def health_table(health: Mapping[ArmKey, Health]) -> pd.DataFrame:
    """The report's table: an arm a line, its graded cells and each share in % to one place."""
    records = [
        {
            **dict(zip(labels(ARM), key, strict=True)),
            "graded": arm.graded,
            "none found %": _percent(arm.none_found),
            "ambiguous %": _percent(arm.ambiguous),
            "truncated %": _percent(arm.truncated),
            "by judge %": _percent(arm.judge),
            "marked %": _percent(arm.marked),
        }
        for key, arm in health.items()
    ]
    return pd.DataFrame.from_records(records)


def _percent(share: float) -> str:
    return f"{100 * share:.1f}"


@dataclass(frozen=True)
class Caution:
    """Two compared arms whose verdicts were reached differently enough to explain the difference:
    for each share that does, its name and the two arms' values (0..1), in the finding's order."""

    shares: tuple[tuple[str, float, float], ...]

    def text(self) -> str:
        listed = ", ".join(f"{name} {_percent(a)}% vs {_percent(b)}%" for name, a, b in self.shares)
        return f"grading caution: {listed}; the difference may come from grading"


def caution_for(a: Health, b: Health, reported: float) -> Caution | None:
    """A caution when the arms' `none found` or truncated shares differ by more than
    `CAUTION_POINTS` or by more than the difference the finding reports (`reported`, 0..1), both
    as the sentence shows them (to 0.1 point); None when neither does."""
    limit = min(CAUTION_POINTS, abs(round(100 * reported, 1)))
    pairs = (("none found", a.none_found, b.none_found), ("truncated", a.truncated, b.truncated))
    shares = tuple(
        (name, x, y) for name, x, y in pairs if abs(round(100 * x, 1) - round(100 * y, 1)) > limit + 1e-9
    )
    return Caution(shares) if shares else None


def with_caution(sentence: str, caution: Caution | None) -> str:
    """The sentence with its grading caution in brackets before the full stop, when it has one."""
    if caution is None:
        return sentence
    return f"{sentence.removesuffix('.')} ({caution.text()})."


def caution_between(a: pd.DataFrame, b: pd.DataFrame, reported: float) -> Caution | None:
    """`caution_for` two groups of graded cells compared (A - B = `reported`)."""
    first, second = cells_health(a), cells_health(b)
    if first is None or second is None:
        return None
    return caution_for(first, second, reported)
