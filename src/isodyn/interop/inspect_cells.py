"""A cell's record in inspect's sample metadata: the shared contract between the tasks and the logs.

`sample.metadata["isodyn"]` holds the cell (`Cell.to_json`), the question as asked (`Question`'s fields
in results.jsonl's column names) and the variant's labels (`Labels`); `sample.id` is `Cell.words`.
Pure JSON, no inspect type: the tasks write it and whoever reads a log back reads it.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from isodyn.core import AnswerType, JsonObject
from isodyn.runs.record import Cell, CellResult, Labels
from isodyn.scoring import Question, Tolerance

ISODYN = "isodyn"  # the metadata key, and the name of the score that is the cell's verdict


def cell_metadata(result: CellResult) -> JsonObject:
    """The contract object of a cell (its verdict and reply are in the sample's score and output)."""
    return {
        "cell": result.cell.to_json(),
        "asked": {
            "truth": result.truth, "answer_type": result.answer_type, "choices": list(result.choices),
            "question": result.question, "percent_question": result.percent_question,
            "abs_tol": result.abs_tol, "rel_tol": result.rel_tol, "solution": result.solution,
        },
        "labels": {
            "topic": result.topic, "level": result.level,
            "variation_types": list(result.variation_types),
            "number_digits": result.labels.number_digits,
        },
    }  # fmt: skip


def cell_of(metadata: Mapping[str, Any]) -> Cell:
    """The cell a sample's metadata names (KeyError, ValueError when it names none)."""
    return Cell.from_json(metadata[ISODYN]["cell"])


def question_of_metadata(metadata: Mapping[str, Any]) -> Question:
    """The question a sample's metadata says was asked: what the grader reads the reply against."""
    asked = metadata[ISODYN]["asked"]
    return Question(
        str(asked["truth"]), AnswerType(asked["answer_type"]), tuple(str(c) for c in asked["choices"]),
        str(asked["question"]), bool(asked["percent_question"]),
        Tolerance(float(asked["abs_tol"]), float(asked["rel_tol"])), str(asked["solution"]),
    )  # fmt: skip


def labels_of_metadata(metadata: Mapping[str, Any]) -> Labels:
    labels = metadata[ISODYN]["labels"]
    return Labels(
        str(labels["topic"]), str(labels["level"]), tuple(labels["variation_types"]),
        labels["number_digits"],
    )  # fmt: skip
