"""isodyn's grader as an inspect scorer, and DynaMath's metrics over a seed's variants as inspect metrics.

The score follows the shared contract: value CORRECT or INCORRECT, the answer read, one line of method
and ambiguity as the explanation, and reason, method, ambiguity and grader in its metadata. A cell
that was not graded (skipped, or a failed call) scores NOANSWER with its reason: it stays out of the
metrics, as it stays out of isodyn's."""

from __future__ import annotations

from typing import Any

import pandas as pd
from inspect_ai.scorer import (
    CORRECT,
    INCORRECT,
    NOANSWER,
    Metric,
    SampleScore,
    Score,
    Scorer,
    Target,
    metric,
    scorer,
    value_to_float,
)
from inspect_ai.solver import TaskState

from isodyn.analysis.metrics import robustness
from isodyn.interop.inspect_cells import ISODYN, cell_of, question_of_metadata
from isodyn.interop.inspect_solver import FINISH, REASON
from isodyn.runs.record import GRADED_STATUSES, grade, status_of
from isodyn.runs.schema import Column
from isodyn.scoring import Score as IsodynScore


def inspect_score(score: IsodynScore) -> Score:
    """One isodyn verdict as inspect's Score (the shared contract)."""
    return Score(
        value=CORRECT if score.correct else INCORRECT,
        answer=score.extracted,
        explanation=f"{score.reason}; method: {score.method or 'none'}; "
        f"ambiguity: {score.ambiguity or 'none'}",
        metadata={
            "reason": score.reason, "method": score.method, "ambiguity": score.ambiguity,
            "grader": score.grader,
        },
    )  # fmt: skip


def _graded(sample: SampleScore) -> bool:
    """A cell isodyn graded: a reason among the graded ones (a skipped or failed cell has another)."""
    reason = (sample.score.metadata or {}).get("reason")
    return isinstance(reason, str) and status_of(reason) in GRADED_STATUSES


# inspect reduces a sample's epochs to one score before its metrics see it (CORRECT -> 1.0): a value
# is read as a float, the share right over the epochs
_as_float = value_to_float()


@metric(name="accuracy")
def graded_accuracy() -> Metric:
    """The share of graded cells answered right (skipped and failed cells are not counted)."""

    def compute(scores: list[SampleScore]) -> float:
        graded = [_as_float(s.score.value) for s in scores if _graded(s)]
        return sum(graded) / len(graded) if graded else float("nan")

    return compute


def _seed_table(scores: list[SampleScore]) -> pd.DataFrame:
    """The graded cells as isodyn's metrics read them: a seed is the seed within its arm (strategy,
    modality, render, perturbation), so two arms of one task never share a worst case."""
    rows: list[dict[str, Any]] = []
    for sample in scores:
        if not _graded(sample) or not sample.sample_metadata:
            continue
        cell = cell_of(sample.sample_metadata)
        arm = (cell.strategy, cell.modality.value, cell.render, cell.perturbation, cell.seed_id)
        rows.append({
            Column.seed_id: "|".join(arm), Column.repeat: cell.repeat,
            Column.correct: _as_float(sample.score.value),
        })  # fmt: skip
    return pd.DataFrame(rows, columns=[Column.seed_id, Column.repeat, Column.correct])


@metric(name="A_avg")
def a_avg() -> Metric:
    """DynaMath's average-case accuracy: the mean over seeds of each seed's share right (Eq. 1)."""

    def compute(scores: list[SampleScore]) -> float:
        table = _seed_table(scores)
        return robustness(table)["A_avg"] if len(table) else float("nan")

    return compute


@metric(name="A_wst")
def a_wst() -> Metric:
    """DynaMath's worst-case accuracy: the share of seeds with every variant right, per repeat (Eq. 2)."""

    def compute(scores: list[SampleScore]) -> float:
        table = _seed_table(scores)
        return robustness(table)["A_wst"] if len(table) else float("nan")

    return compute


@scorer(metrics=[graded_accuracy(), a_avg(), a_wst()], name=ISODYN)
def isodyn_grader(grader: str) -> Scorer:
    """The final reply graded by isodyn's `grader` against the question the cell asked."""

    async def score(state: TaskState, target: Target) -> Score:
        reason = state.store.get(REASON, "ok")
        if status_of(reason) not in GRADED_STATUSES:
            unread = {"reason": reason, "method": None, "ambiguity": None, "grader": grader}
            return Score(value=NOANSWER, explanation=reason, metadata=unread)
        question = question_of_metadata(state.metadata)
        return inspect_score(grade(state.output.completion, question, grader, state.store.get(FINISH)))

    return score
