"""Replies from independent public sources (tests/corpus/sources): the files are what SOURCES.json says,
the transfer source is named and is the one with the newest models, and every dev source keeps its
verdicts right (hand-read where read, else the benchmark's own label) at or above the floor
recorded in floors.json.

The transfer source is held by no figure here: it is only reported (report.py), never read while
developing rules.
"""

from __future__ import annotations

import json

import pytest

from corpus.sources import (
    HERE,
    dev_sources,
    expected_correct,
    grade_source,
    load_labels,
    load_source,
    report,
    sources,
    transfer_source,
)
from isodyn.core import AnswerType

LICENCES = {"MIT", "Apache-2.0", "CC BY 4.0", "CC BY-SA 4.0"}  # redistribution with attribution
FLOORS = {k: v for k, v in json.loads((HERE / "floors.json").read_text()).items() if not k.startswith("_")}


@pytest.mark.parametrize("name", sorted(sources()))
def test_a_source_file_matches_its_provenance(name: str) -> None:
    meta = sources()[name]
    rows = load_source(name)
    assert len(rows) == meta["rows"]
    assert meta["licence"] in LICENCES and meta["attribution"] and meta["paths"]
    assert len(meta["commit"]) == 40 and meta["repository"].startswith("github.com/")
    assert len({row.id for row in rows}) == len(rows), "ids are unique"
    assert sorted({row.model for row in rows}) == meta["models"]
    for row in rows:
        assert row.source == name and row.id.startswith(f"{name}:")
        assert AnswerType(row.answer_type)
        assert bool(row.choices) == (row.answer_type == "multiple_choice")
        assert row.label in (True, False, None)


def test_the_transfer_source_is_named_and_has_the_newest_models() -> None:
    meta = sources()
    transfer = transfer_source()
    assert transfer in meta
    newest = {name: (max(m["years"]), m["newest_model"]) for name, m in meta.items()}
    assert all(newest[transfer] > when for name, when in newest.items() if name != transfer)


def test_the_transfer_source_is_held_by_no_floor() -> None:
    assert set(FLOORS) == set(dev_sources())
    assert transfer_source() not in FLOORS


def test_misses_refuses_the_transfer_source(capsys: pytest.CaptureFixture[str]) -> None:
    assert report.main(["--misses", transfer_source(), "--limit", "1"]) == 2
    assert capsys.readouterr().out == "", "not a line of its replies is printed"


@pytest.mark.parametrize("name", sorted(FLOORS))
def test_a_dev_source_keeps_its_verdicts_right(name: str) -> None:
    """Right against the expected verdict: hand-read where read (labels.tsv), else the benchmark's."""
    graded, labels = grade_source(name), load_labels()
    expected = {row.id: expected_correct(row, labels) for row in load_source(name)}
    held = [(row_id, verdict) for row_id, verdict in expected.items() if verdict is not None]
    right = sum(graded[row_id].correct == verdict for row_id, verdict in held)
    share = 100 * right / len(held)
    assert share >= FLOORS[name], f"{name}: {share:.2f}% of verdicts right, floor {FLOORS[name]}%"
