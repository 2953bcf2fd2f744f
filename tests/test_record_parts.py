"""The parts of the cell record: a call survives the replay memo's pickling, an outcome's words
round-trip, usage sums what returned, and a schema-2 row's judge reading becomes the judge's score."""

from __future__ import annotations

import pickle

import pytest

from isodyn.runs.calls import Call, Usage
from isodyn.runs.record import CellResult, Outcome, Status
from isodyn.runs.schema import JUDGE, SCHEMA_VERSION


def test_a_call_pickles_to_an_equal_call() -> None:
    call = Call(step="describe", model="m", sample=2, messages=({"role": "user", "content": "Q"},),
                key="k", cache_hit=True, response="R", prompt_tokens=3, completion_tokens=4,
                cost_usd=0.25, latency_s=0.5)  # fmt: skip
    again = pickle.loads(pickle.dumps(call))
    assert again == call and again is not call
    assert again.messages[0]["content"] == "Q" and again.cost_usd == 0.25


@pytest.mark.parametrize(
    ("reason", "status", "detail"),
    [
        ("ok", Status.OK, ""),
        ("extraction_failed", Status.EXTRACTION_FAILED, ""),
        ("skipped: cot3 runs only on image cells", Status.SKIPPED, "cot3 runs only on image cells"),
        ("error:rate_limit", Status.ERROR, "rate_limit"),
        ("error:local", Status.ERROR, "local"),
    ],
)
def test_an_outcome_reads_and_writes_the_same_words(reason: str, status: Status, detail: str) -> None:
    outcome = Outcome.from_reason(reason)
    assert (outcome.status, outcome.detail, outcome.reason) == (status, detail, reason)
    assert outcome.graded == (status in (Status.OK, Status.EXTRACTION_FAILED))


def test_usage_counts_only_the_calls_that_returned() -> None:
    returned = Call(
        step="a", model="m", key="k1", cache_hit=True, prompt_tokens=5, cost_usd=0.5, latency_s=0.2
    )
    fresh = Call(step="b", model="m", key="k2", cache_hit=False, completion_tokens=7, cost_usd=0.25)
    failed = Call(step="c", model="m", prompt_tokens=100, cost_usd=9.0)  # no key: it never returned
    usage = Usage.of((returned, fresh, failed))
    assert (usage.cache_hit, usage.prompt_tokens, usage.completion_tokens) == (False, 5, 7)
    assert usage.cost_usd == pytest.approx(0.75) and usage.latency_s == pytest.approx(0.2)
    assert Usage.of((returned,)).cache_hit is True
    assert Usage.of(()).cost_usd == 0 and isinstance(Usage.of(()).cost_usd, int)  # as `sum` wrote it


def _schema2(**changes: object) -> dict[str, object]:
    row: dict[str, object] = {
        "model": "m", "strategy": "zeroshot", "modality": "latex", "seed_id": "s", "variant": 0, "repeat": 0,
        "answer_type": "multiple_choice", "question": "Even or odd?", "choices": ["even", "odd"],
        "truth": "A",
        "reason": "extraction_failed", "correct": False, "extracted": None, "method": "none",
        "ambiguity": "none found", "grader": "isodyn", "response": "hmm", "schema": 2,
    }  # fmt: skip
    return {**row, **changes}


def test_a_judged_schema_2_row_keeps_both_readings() -> None:
    reading = {"key": "jk", "answer": "A", "rules": {"extracted": None, "method": "none"}}
    row = _schema2(reason="ok", correct=True, extracted="A", method="judge", judge_extract=reading)
    result = CellResult.from_row(row)
    assert result.decided_by == JUDGE
    assert (result.correct, result.extracted, result.reason) == (True, "A", "ok")
    assert result.judge_extract == {"key": "jk", "answer": "A"}
    rules = result.scores["isodyn"]
    assert (rules.extracted, rules.method, rules.reason) == (None, "none", "extraction_failed")
    again = CellResult.from_row(result.to_row())
    assert again == result and result.to_row()["schema"] == SCHEMA_VERSION


def test_a_judge_that_found_nothing_leaves_the_rules_verdict() -> None:
    reading = {"key": "jk", "answer": None, "rules": {"extracted": None, "method": "none"}}
    result = CellResult.from_row(_schema2(judge_extract=reading))
    assert result.decided_by == "isodyn" and result.reason == "extraction_failed" and result.correct is False
    assert result.scores[JUDGE].extracted is None and result.judge_extract == {"key": "jk", "answer": None}
    assert CellResult.from_row(result.to_row()) == result


def test_a_rescore_adds_its_verdict_and_keeps_the_judge() -> None:
    reading = {"key": "jk", "answer": None, "rules": {"extracted": None, "method": "none"}}
    result = CellResult.from_row(_schema2(response="The answer is (A).", judge_extract=reading))
    rescored = result.regraded("isodyn")
    assert rescored.decided_by == "isodyn" and rescored.correct is True and rescored.reason == "ok"
    assert set(rescored.scores) == {"isodyn", JUDGE}
