"""A person's marks on verdicts, kept beside the run in RUN/marks.jsonl (append-only).

A mark says whether a cell's verdict is right, and optionally how the person reads the reply
(`reading`: correct, wrong or none, the grading corpus's words), which is what makes the mark a
labelled reply for the corpus. The file is only ever appended to, one line per mark; the last mark
of a cell wins, so a person changes their mind by marking again, and results.jsonl is never touched.

The run folder may be shared, or prepared by someone else: marks.jsonl is opened without following
a symbolic link, must be a regular file (a FIFO would hang the server), must stay inside the run
folder, is never appended to through a hard link, and is read with a bound. This module imports
nothing from the analysis layer, which reads marks for the report.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import orjson

from isodyn.core import Modality
from isodyn.runs.files import MARKS
from isodyn.runs.record import Cell, CellKey
from isodyn.runs.safe import inside, open_own, read_bounded

MARKS_FILE = MARKS
READINGS = ("correct", "wrong", "none")  # the corpus's verdicts: how a person reads the reply
MAX_MARKS_BYTES = 64_000_000  # far beyond any person's marking; a planted huge file is not read whole
MAX_NOTE = 2_000  # characters of a note

_MODALITIES = frozenset(m.value for m in Modality)


@dataclass(frozen=True, slots=True)
class Mark:
    """One person's word on one cell's verdict. Its line of marks.jsonl is flat: the cell's six
    values (model, strategy, modality, seed_id, variant, repeat), then the mark's own fields."""

    cell: Cell
    verdict_right: bool
    note: str = ""
    time: str = field(default_factory=lambda: datetime.now(UTC).isoformat(timespec="seconds"))
    reading: str | None = None  # correct / wrong / none: the reply as the person reads it

    @property
    def key(self) -> CellKey:
        return self.cell.key

    def to_json(self) -> dict[str, Any]:
        """The mark as its line (and the viewer's API) spells it: flat, in this order."""
        return {
            **self.cell.to_json(), "verdict_right": self.verdict_right, "note": self.note, "time": self.time,
            "reading": self.reading,
        }  # fmt: skip

    def line(self) -> bytes:
        return orjson.dumps(self.to_json(), option=orjson.OPT_APPEND_NEWLINE)

    @classmethod
    def from_json(cls, data: Any) -> Mark | None:
        """A mark from one parsed line, or None when the line is not a mark (wrong types, a
        modality that is none of isodyn's, a reading outside READINGS): exact JSON types, as
        results.jsonl's reader checks them."""
        if not isinstance(data, dict):
            return None
        texts = ("model", "strategy", "modality", "seed_id")
        if not all(type(data.get(name)) is str for name in texts):
            return None
        if data["modality"] not in _MODALITIES:  # no cell of any run: results.jsonl refuses it too
            return None
        if type(data.get("variant")) is not int or type(data.get("repeat", 0)) is not int:
            return None
        if type(data.get("render", "")) is not str or type(data.get("perturbation", "")) is not str:
            return None
        if type(data.get("verdict_right")) is not bool:
            return None
        note, time, reading = data.get("note", ""), data.get("time", ""), data.get("reading")
        if (
            type(note) is not str
            or type(time) is not str
            or (reading is not None and reading not in READINGS)
        ):
            return None
        cell = Cell.from_json(data)
        return cls(cell, data["verdict_right"], note[:MAX_NOTE], time, reading)


@dataclass(frozen=True)
class MarksRead:
    marks: list[Mark]  # in the order written
    damaged: int  # lines that are not a mark (cut short, not JSON, wrong types): skipped

    def latest(self) -> dict[CellKey, Mark]:
        return latest_marks(self.marks)


def latest_marks(marks: Iterable[Mark]) -> dict[CellKey, Mark]:
    """The last mark of each cell (a later mark replaces an earlier one)."""
    found: dict[CellKey, Mark] = {}
    for mark in marks:
        found[mark.key] = mark
    return found


def marks_path(run_dir: Path) -> Path:
    """RUN/marks.jsonl, after checking it is no link and stays inside the run folder."""
    return inside(run_dir, MARKS_FILE)


def read_marks(run_dir: Path) -> MarksRead:
    """Every mark of the run, in order; damaged lines are skipped and counted. No file: no marks."""
    path = marks_path(run_dir)
    if not path.exists():
        return MarksRead([], 0)
    data = read_bounded(path, MAX_MARKS_BYTES)
    marks: list[Mark] = []
    damaged = 0
    for line in data.splitlines(keepends=True):
        if not line.strip():
            continue
        mark = None
        if line.endswith(b"\n"):
            try:
                mark = Mark.from_json(orjson.loads(line))
            except orjson.JSONDecodeError:
                mark = None
        if mark is None:
            damaged += 1
        else:
            marks.append(mark)
    return MarksRead(marks, damaged)


def append_mark(run_dir: Path, mark: Mark) -> None:
    """Append one mark to RUN/marks.jsonl in one write; a line cut short before it (a crash) is
    ended first, so the new mark is never glued onto it. A marks.jsonl with other names (hard
    links, one of which may be outside the run) is first copied to a file of its own, swapped in:
    the other names' file is never written."""
    path = marks_path(run_dir)
    handle = open_own(path, os.O_RDWR | os.O_APPEND | os.O_CREAT, MAX_MARKS_BYTES)
    try:
        size = os.fstat(handle).st_size
        ends_cleanly = size == 0 or os.pread(handle, 1, size - 1) == b"\n"
        os.write(handle, (b"" if ends_cleanly else b"\n") + mark.line())
    finally:
        os.close(handle)


def graded_reading(reason: str, correct: bool | None) -> str | None:
    """How the grader read a reply, in the corpus's words (None: the cell was not graded)."""
    if reason == "extraction_failed":
        return "none"
    if reason != "ok":
        return None
    return "correct" if correct else "wrong"


def mark_from_request(key: CellKey, graded: str | None, body: Mapping[str, Any]) -> Mark:
    """The mark a page sends for a cell: its identity from the index (never from the page), and
    with a reading, whether the verdict is right follows from it (the reading equals the grader's)."""
    verdict_right, note, reading = body.get("verdict_right"), body.get("note", ""), body.get("reading")
    if type(verdict_right) is not bool:
        raise ValueError("verdict_right must be true or false")
    if type(note) is not str:
        raise ValueError("note must be text")
    if reading is not None and reading not in READINGS:
        raise ValueError(f"reading must be one of {', '.join(READINGS)}")
    if graded is None:
        raise ValueError("this cell was not graded: there is no verdict to mark")
    if reading is not None and (reading == graded) != verdict_right:
        raise ValueError(
            f"reading {reading!r} and verdict_right {verdict_right} disagree with the grader's {graded!r}"
        )
    return Mark(Cell.of(key), verdict_right, note[:MAX_NOTE], reading=reading)
