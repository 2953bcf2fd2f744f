"""Records that name a cell hold a `Cell` (Mark, Judgement, the viewer's CellView and CellSummary),
yet what they write and send is what it was when they spelled the six fields out: marks.jsonl and
process.jsonl lines byte for byte, the viewer's JSON key for key. The expected lines and key lists
below were written by hand from the records as they were before they held a Cell."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import orjson
import pytest

import view_runs as vr
from isodyn.core import Modality
from isodyn.runs.folder import RunFolder
from isodyn.runs.judgements import Judgement, JudgementLine, read_judgements, write_judgements
from isodyn.runs.marks import Mark, append_mark, mark_from_request, read_marks
from isodyn.runs.record import Cell
from isodyn.runs.results import record_check
from isodyn.view.index import CellSummary
from isodyn.view.server import Viewer, encode

# --- the formats, as they were written before -----------------------------------------------------
MARK_KEYS = [
    "model", "strategy", "modality", "seed_id", "variant", "repeat", "verdict_right", "note", "time",
    "reading",
]  # fmt: skip
SUMMARY_KEYS = [
    "id", "model", "strategy", "modality", "seed_id", "variant", "repeat", "topic", "verdict", "reason",
    "method", "ambiguity", "disagree", "judged", "truth", "extracted", "failed", "graded", "marked",
]  # fmt: skip
CELL_VIEW_KEYS = [
    "id", "model", "strategy", "modality", "seed_id", "variant", "repeat", "topic", "level",
    "answer_type", "question", "shown", "choices", "truth", "solution", "reason", "error", "verdict",
    "graded_reading", "extracted", "method", "ambiguity", "grader", "reply", "span", "scores", "judge",
    "calls", "images", "representations", "profiles", "arms", "failed", "graded", "mark", "notes",
]  # fmt: skip
MARK_LINE = (
    b'{"model":"m-a","strategy":"zs","modality":"latex","seed_id":"s1","variant":2,"repeat":1,'
    b'"verdict_right":true,"note":"a note \xc3\xa9","time":"2024-05-01T10:00:00+00:00","reading":"correct"}\n'
)
JUDGEMENT_LINE = (
    b'{"model": "m", "strategy": "cot", "modality": "image", "seed_id": "s2", "variant": 3, "repeat": 0, '
    b'"topic": "geometry", "level": "college", "correct": false, "first_wrong_step": 2, '
    b'"error_type": "calculation", "explanation": "step 2: 3\xc3\x977", "judge_readable": true, '
    b'"judge_model": "j", "judge_key": "k1", "judge_cache_hit": false, "judge_reply": "{}"}\n'
)

CELL = Cell("m-a", "zs", Modality.LATEX, "s1", 2, 1)
MARK = Mark(CELL, True, "a note é", "2024-05-01T10:00:00+00:00", "correct")
JUDGEMENT = Judgement(
    cell=Cell("m", "cot", Modality.IMAGE, "s2", 3), topic="geometry", level="college", correct=False,
    first_wrong_step=2, error_type="calculation", explanation="step 2: 3×7", judge_readable=True,
    judge_model="j", judge_key="k1", judge_cache_hit=False, judge_reply="{}",
)  # fmt: skip


# --- marks.jsonl ----------------------------------------------------------------------------------
def test_a_mark_is_written_as_before_and_read_back_equal(tmp_path: Path) -> None:
    assert MARK.line() == MARK_LINE
    assert list(orjson.loads(MARK_LINE)) == MARK_KEYS
    assert Mark.from_json(orjson.loads(MARK_LINE)) == MARK
    append_mark(tmp_path, MARK)
    assert (tmp_path / "marks.jsonl").read_bytes() == MARK_LINE
    read = read_marks(tmp_path)
    assert read.marks == [MARK] and read.damaged == 0
    assert MARK.key == ("m-a", "zs", "latex", "s1", 2, 1, "default", "none") == MARK.cell  # the plain tuple
    assert read.latest() == {("m-a", "zs", "latex", "s1", 2, 1, "default", "none"): MARK}


def test_a_mark_without_repeat_or_note_reads_with_the_defaults() -> None:
    data = orjson.loads(MARK_LINE)
    del data["repeat"], data["note"], data["reading"]
    assert Mark.from_json(data) == Mark(CELL._replace(repeat=0), True, "", MARK.time, None)


@pytest.mark.parametrize(
    "changes",
    [
        {"variant": "2"}, {"variant": True}, {"repeat": 1.0}, {"model": 3}, {"seed_id": None},
        {"verdict_right": 1}, {"note": 5}, {"time": 0}, {"reading": "maybe"}, {"modality": "braille"},
        {"modality": None},
    ],
)  # fmt: skip
def test_a_line_that_is_not_a_mark_is_refused(changes: dict[str, Any]) -> None:
    data = {**orjson.loads(MARK_LINE), **changes}
    assert Mark.from_json(data) is None
    assert Mark.from_json([data]) is None


def test_a_damaged_marks_file_costs_its_damaged_lines(tmp_path: Path) -> None:
    bad = orjson.dumps({**orjson.loads(MARK_LINE), "variant": "2"}) + b"\n"
    (tmp_path / "marks.jsonl").write_bytes(MARK_LINE + b"not json\n" + bad + MARK_LINE[:-1])
    read = read_marks(tmp_path)
    assert read.marks == [MARK] and read.damaged == 3  # the last line is cut short


def test_a_mark_from_the_page_holds_the_cell_the_index_names() -> None:
    made = mark_from_request(("m-a", "zs", "latex", "s1", 2, 1), "wrong", {"verdict_right": False})
    assert made.cell == CELL and type(made.cell.modality) is Modality and not made.verdict_right


# --- process.jsonl --------------------------------------------------------------------------------
def test_a_judgement_is_written_as_before_and_read_back_equal(tmp_path: Path) -> None:
    assert JUDGEMENT.line() == JUDGEMENT_LINE
    path = tmp_path / "process.jsonl"
    write_judgements(path, [JUDGEMENT, JUDGEMENT])
    assert path.read_bytes() == JUDGEMENT_LINE * 2
    read = read_judgements(path)
    assert read.damaged == 0 and read.records == [JUDGEMENT.to_json()] * 2
    assert [Judgement.from_json(r) for r in read.records] == [JUDGEMENT, JUDGEMENT]
    assert JUDGEMENT.key == ("m", "cot", "image", "s2", 3, 0, "default", "none")


def test_the_line_is_still_checked_flat() -> None:
    check = record_check(JudgementLine)
    assert check.test(JUDGEMENT.to_json())
    assert not check.test({**JUDGEMENT.to_json(), "variant": "3"})


@pytest.mark.parametrize(
    "changes",
    [
        {"variant": "3"}, {"correct": "no"}, {"error_type": "made_up"}, {"modality": "braille"},
        {"judge_key": 7}, {"judge_cache_hit": "no"}, {"seed_id": None},
    ],
)  # fmt: skip
def test_a_line_that_is_not_a_judgement_is_refused(changes: dict[str, Any]) -> None:
    assert Judgement.from_json({**JUDGEMENT.to_json(), **changes}) is None


def test_a_judgement_without_its_defaults_reads_with_them() -> None:
    data = {k: v for k, v in JUDGEMENT.to_json().items() if k in ("model", "strategy", "modality", "seed_id")}
    data["variant"] = 3
    assert Judgement.from_json(data) == Judgement(cell=JUDGEMENT.cell)


# --- the viewer's JSON ----------------------------------------------------------------------------
@pytest.fixture
def viewer(tmp_path: Path) -> Viewer:
    run_dir = vr.write_run(tmp_path)
    append_mark(run_dir, Mark(Cell.of((*vr.HOSTILE, 0)), True, "seen", "T", "correct"))
    return Viewer(RunFolder(run_dir), images=lambda: None)


def test_a_cell_is_sent_with_the_keys_it_had(viewer: Viewer) -> None:
    index = viewer.holder.current()
    marked = index.find((*vr.HOSTILE, 0))
    assert marked is not None
    sent = orjson.loads(encode(viewer.cell(marked)))
    assert list(sent) == CELL_VIEW_KEYS
    assert [sent[k] for k in MARK_KEYS[:6]] == [*vr.HOSTILE, 0]
    assert list(sent["mark"]) == MARK_KEYS and sent["mark"]["note"] == "seen"
    other = orjson.loads(encode(viewer.cell(0 if marked else 1)))
    assert list(other) == CELL_VIEW_KEYS and other["mark"] is None


def test_a_list_page_and_the_review_queue_send_the_keys_they_had(viewer: Viewer) -> None:
    page = orjson.loads(encode(viewer.cells({"size": "5"})))
    assert list(page) == ["total", "page", "size", "rows"] and len(page["rows"]) == 5
    assert all(list(row) == SUMMARY_KEYS for row in page["rows"])
    marked = orjson.loads(encode(viewer.cells({"marked": "yes"})))
    assert [(list(row), row["marked"]) for row in marked["rows"]] == [(SUMMARY_KEYS, "right")]
    queue = orjson.loads(encode(viewer.review({})))
    assert queue["rows"] and all(list(row) == SUMMARY_KEYS for row in queue["rows"])
    assert queue["ids"] and all(type(i) is int for i in queue["ids"])


def test_a_posted_mark_is_answered_with_the_keys_of_its_line(viewer: Viewer) -> None:
    sent = orjson.loads(encode(viewer.mark({"cell": 3, "verdict_right": True, "note": "x"})))
    assert list(sent) == MARK_KEYS


def test_a_lone_surrogate_is_escaped_with_the_same_keys() -> None:
    row = CellSummary(7, CELL, "algebra", "wrong", "ok", "boxed", "", False, False, "\ud800", None, 1, 2)
    sent = json.loads(encode({"rows": [row]}))  # orjson refuses the surrogate: the fallback
    assert list(sent["rows"][0]) == SUMMARY_KEYS
    assert sent["rows"][0]["truth"] == "\ud800" and sent["rows"][0]["modality"] == "latex"
