"""Replies from independent public sources, one file per source (see SOURCES.json and build.py): each
row the model's reply verbatim, the item as asked, the truth, and the benchmark's own verdict as a noisy
label (null where it has none).

The source named in TRANSFER is the transfer test source: scored only to report, in aggregate, and never
read while developing rules (report.py refuses to print its rows).
"""

from __future__ import annotations

import gzip
import json
from collections.abc import Iterator
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from corpus.real import Graded

HERE = Path(__file__).parent


@dataclass(frozen=True)
class Row:
    id: str
    source: str
    model: str
    item: str
    question: str  # as the model was asked, as far as the log shows it
    answer_type: str  # an isodyn AnswerType value
    choices: tuple[str, ...]  # multiple choice: the options in the order shown
    truth: str
    tolerance: float | None  # absolute, where the benchmark states a precision
    reply: str
    label: bool | None  # the benchmark's own verdict
    bench_answer: str | None  # the benchmark's own extraction, where it records one


def sources() -> dict[str, dict]:
    return json.loads((HERE / "SOURCES.json").read_text(encoding="utf-8"))


def transfer_source() -> str:
    return (HERE / "TRANSFER").read_text(encoding="utf-8").strip()


def dev_sources() -> list[str]:
    return [name for name in sources() if name != transfer_source()]


def _rows(name: str) -> Iterator[Row]:
    with gzip.open(HERE / f"{name}.jsonl.gz", "rt", encoding="utf-8") as lines:
        for line in lines:
            if line.strip():
                raw = json.loads(line)
                raw["choices"] = tuple(raw["choices"])
                yield Row(**raw)


@cache
def load_source(name: str) -> tuple[Row, ...]:
    return tuple(_rows(name))


def grade_row(row: Row) -> Graded:
    from time import perf_counter

    from isodyn.scoring import Tolerance, score

    tolerance = Tolerance(absolute=row.tolerance) if row.tolerance else Tolerance()
    start = perf_counter()
    found = score(row.reply, row.truth, row.answer_type, row.choices, tolerance, question=row.question)
    seconds = perf_counter() - start
    return Graded(row.id, found.correct, found.reason == "ok", found.extracted, found.method, seconds)


def _grade_share(job: tuple[str, int, int]) -> list[Graded]:
    name, part, parts = job
    return [grade_row(row) for row in load_source(name)[part::parts]]


def grade_source(name: str, workers: int = 2) -> dict[str, Graded]:
    """Every reply of a source graded by the rules as they stand, over `workers` processes (no cache)."""
    if workers <= 1:
        return {g.id: g for g in _grade_share((name, 0, 1))}
    from concurrent.futures import ProcessPoolExecutor

    with ProcessPoolExecutor(workers) as pool:
        shares = pool.map(_grade_share, [(name, k, workers) for k in range(workers)])
        return {g.id: g for share in shares for g in share}


@dataclass(frozen=True)
class HandLabel:
    """A row read by hand, blind to every verdict (tests/corpus/real/READING_GUIDE.md)."""

    verdict: str  # correct, wrong or none
    answer: str
    reader: str
    note: str


@cache
def load_labels() -> dict[str, HandLabel]:
    """labels.tsv: id, verdict, committed answer, reader, note (one row a line, tab-separated)."""
    path = HERE / "labels.tsv"
    if not path.exists():
        return {}
    found = {}
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.strip() and not line.startswith("#"):
            row_id, verdict, answer, reader, note = (line.split("\t") + [""] * 5)[:5]
            found[row_id] = HandLabel(verdict, answer, reader, note)
    return found


def expected_correct(row: Row, labels: dict[str, HandLabel]) -> bool | None:
    """The hand-read verdict where a reader read the row, else the benchmark's own label."""
    read = labels.get(row.id)
    return read.verdict == "correct" if read is not None else row.label


def commits(row: Row, labels: dict[str, HandLabel]) -> bool:
    """The reply commits to an answer: read so by hand, or unread (nobody said it does not)."""
    read = labels.get(row.id)
    return read is None or read.verdict != "none"
