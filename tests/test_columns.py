"""results.jsonl's columns are declared once (`schema.COLUMNS`): the row written, the row read back,
the defaults, the reader's check and the viewer's byte-level reader all follow that one list."""

from __future__ import annotations

import json
from dataclasses import fields

import pytest

from isodyn.core import AnswerType, Modality
from isodyn.runs.calls import Call, Usage
from isodyn.runs.record import JUDGE, Cell, CellResult, Labels, Outcome, Status
from isodyn.runs.results import result_line, row_problem
from isodyn.runs.schema import COLUMNS, DEFAULTS, ROW_FIELDS, SCHEMA_VERSION, Column, Row
from isodyn.scoring import Question, Score, Tolerance
from isodyn.view import scan

IDENTITY = ("model", "strategy", "modality", "seed_id", "variant")


CALL = Call(
    step="ask",
    model="m/one",
    messages=[{"role": "user", "content": "How many?"}],
    key="key1",
    cache_hit=False,
    response="4",
    prompt_tokens=11,
    completion_tokens=5,
    cost_usd=0.25,
    latency_s=1.5,
    finish_reason="stop",
)


def full_record() -> CellResult:
    """A record in which no column holds its default, so each column shows where it is read from."""
    rules = Score(False, "3", "ok", "answer_line", "clear", "isodyn", {"why": "x"})
    judged = Score(True, "4", "ok", JUDGE, "clear", JUDGE, {"key": "k", "answer": "4"})
    return CellResult(
        cell=Cell("m/one", "cot3", Modality.CODE, "dynamath_ring_area", 7, 2, "gray", "noop"),
        asked=Question(
            "4", AnswerType.MULTIPLE_CHOICE, ("3", "4"), "How many?", True, Tolerance(0.5, 0.25), "count them"
        ),
        labels=Labels("graph theory", "hard", ("numerical_value",), 4),
        outcome=Outcome(Status.OK, "", "a note"),
        scores={JUDGE: judged, "isodyn": rules},
        decided_by=JUDGE,
        response="The answer is 4.",
        finish_reason="stop",
        calls=(CALL,),
        usage=Usage(False, 11, 5, 0.25, 1.5),
        notes={"order": [1, 0]},
    )


def test_a_row_holds_every_column_in_the_lists_order() -> None:
    row = json.loads(result_line(full_record()))
    assert list(row) == list(ROW_FIELDS) == [c.name for c in COLUMNS]


def test_no_column_of_the_full_record_holds_its_default() -> None:
    # else the round trip below could not tell a column read from its default (a graded cell's reason
    # is its default, "ok"; the schema is the current one)
    flat = full_record().flat()
    assert [name for name, default in DEFAULTS.items() if flat[name] == default] == ["reason", "schema"]


def test_a_written_row_reads_back_as_the_same_record() -> None:
    record = full_record()
    row = json.loads(result_line(record))
    assert row_problem(row) is None
    assert CellResult.from_row(row) == record
    assert CellResult.from_row(row).flat() == record.flat()


def test_a_row_of_only_its_identity_reads_every_other_column_as_its_default() -> None:
    identity = {"model": "m", "strategy": "zeroshot", "modality": "latex", "seed_id": "s", "variant": 0}
    flat = CellResult.from_row({**identity, "reason": "skipped: no images"}).flat()
    expected = {**DEFAULTS, **identity, "reason": "skipped: no images"}
    assert flat == expected


@pytest.mark.parametrize("name", [c.name for c in COLUMNS if c.name not in IDENTITY])
def test_each_column_left_out_reads_as_its_default(name: str) -> None:
    row = json.loads(result_line(full_record()))
    del row[name]
    read = CellResult.from_row(row).flat()
    if name in ("correct", "extracted", "method", "ambiguity", "reason", "error"):
        return  # the verdict columns of a row with `scores` are read from the decided score
    if name == "grader":  # a graded row names no grader: the default grader's score, not the judge's
        assert read["grader"] == "isodyn"
        return
    assert read[name] == DEFAULTS[name], name


def test_the_readers_check_names_the_identity_as_required() -> None:
    assert tuple(f.name for f in fields(Row)) == ROW_FIELDS
    assert tuple(c.name for c in COLUMNS if c.name not in DEFAULTS) == IDENTITY
    for name in IDENTITY:
        row = json.loads(result_line(full_record()))
        del row[name]
        assert row_problem(row) is not None, name


def test_the_analysis_names_are_the_lists() -> None:
    assert tuple(Column) == ROW_FIELDS


def test_the_viewers_fast_reader_fits_the_list() -> None:
    names = list(ROW_FIELDS)
    assert all(
        c.json_type is not dict and "dict" not in str(c.json_type) for c in COLUMNS[: names.index("response")]
    )
    assert names.index("transcript") == names.index("scores") + 1
    assert names[-1] == "schema" and names[0] == "model"
    line = result_line(full_record())
    fast = scan._fast_row(line, 0, len(line))
    assert fast is not None  # the line as written takes the fast path
    whole = json.loads(line)
    assert {k: whole[k] for k in fast} == fast
    assert fast["schema"] == SCHEMA_VERSION
