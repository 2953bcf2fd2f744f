"""The real-reply corpus: replies of released models to two public math benchmarks, taken from the
benchmarks' own evaluation logs (see SOURCES.json and build.py), with the benchmark's own extraction
and verdict as a noisy label and hand-read verdicts where they were read (labels.tsv).

- `questions.jsonl.gz`: each benchmark item as asked (question, answer type, options, truth, tolerance);
- `replies.jsonl.gz`: each model reply with the benchmark's extraction and verdict;
- `labels.tsv`: hand-read verdicts: id, verdict (correct / wrong / none), the committed answer as
  read, reader, note;
- `test_split.txt`: the frozen test split (ids), drawn once before any rule was changed against this
  corpus and scored only to report; rules are developed on the other rows.
"""

from __future__ import annotations

import gzip
import json
from dataclasses import dataclass
from functools import cache
from pathlib import Path

HERE = Path(__file__).parent
VERDICTS = ("correct", "wrong", "none")


@dataclass(frozen=True)
class RealQuestion:
    item: str
    source: str
    question: str  # as the benchmark asked it
    answer_type: str
    choices: tuple[str, ...]
    truth: str
    tolerance: float | None  # absolute, when the benchmark rounds to a precision


@dataclass(frozen=True)
class RealReply:
    id: str
    source: str
    model: str
    asked: RealQuestion
    reply: str
    bench_answer: str | None  # the benchmark's own extraction
    bench_correct: bool  # the benchmark's own verdict


@dataclass(frozen=True)
class Label:
    id: str
    verdict: str  # correct / wrong / none
    answer: str  # the committed answer as the reader read it ("" for none)
    reader: str
    note: str


def _lines(name: str) -> list[dict]:
    with gzip.open(HERE / name, "rt", encoding="utf-8") as source:
        return [json.loads(line) for line in source if line.strip()]


@cache
def load_real() -> tuple[RealReply, ...]:
    questions = {
        row["item"]: RealQuestion(
            item=row["item"],
            source=row["source"],
            question=row["question"],
            answer_type=row["answer_type"],
            choices=tuple(row["choices"]),
            truth=row["truth"],
            tolerance=row["tolerance"],
        )
        for row in _lines("questions.jsonl.gz")
    }
    return tuple(
        RealReply(
            id=row["id"],
            source=row["source"],
            model=row["model"],
            asked=questions[row["item"]],
            reply=row["reply"],
            bench_answer=row["bench_answer"],
            bench_correct=row["bench_correct"],
        )
        for row in _lines("replies.jsonl.gz")
    )


def load_labels(name: str = "labels.tsv") -> dict[str, Label]:
    path = HERE / name
    if not path.is_file():
        return {}
    found = {}
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.strip() and not line.startswith("#"):
            id_, verdict, answer, reader, note = (line.split("\t") + [""] * 5)[:5]
            assert verdict in VERDICTS, line
            found[id_] = Label(id_, verdict, answer, reader, note)
    return found


def test_split() -> frozenset[str]:
    path = HERE / "test_split.txt"
    return frozenset(line.strip() for line in path.read_text().splitlines() if line.strip())


# ---- grading the corpus (shared by the tests, survey.py and settle.py) ----------------------------


@dataclass(frozen=True)
class Graded:
    id: str
    correct: bool
    found: bool  # an answer was read (reason ok)
    extracted: str | None
    method: str
    seconds: float = 0.0  # time to grade it, where measured (tests/corpus/sources)


def grade_row(row: RealReply) -> Graded:
    from isodyn.scoring import Tolerance, score

    asked = row.asked
    tolerance = Tolerance(absolute=asked.tolerance) if asked.tolerance else Tolerance()
    found = score(
        row.reply, asked.truth, asked.answer_type, asked.choices, tolerance, question=asked.question
    )
    return Graded(row.id, found.correct, found.reason == "ok", found.extracted, found.method)


def _grade_share(share: tuple[int, int]) -> list[Graded]:
    part, parts = share
    return [grade_row(row) for row in load_real()[part::parts]]


@cache
def grade_all(workers: int = 2) -> dict[str, Graded]:
    """Every reply graded by the rules as they stand, over `workers` processes."""
    if workers <= 1:
        return {g.id: g for g in _grade_share((0, 1))}
    from concurrent.futures import ProcessPoolExecutor

    with ProcessPoolExecutor(workers) as pool:
        shares = pool.map(_grade_share, [(k, workers) for k in range(workers)])
        return {g.id: g for share in shares for g in share}


def expected_correct(row: RealReply, labels: dict[str, Label]) -> bool:
    """The verdict a row should get: read by hand where it was, else the benchmark's."""
    label = labels.get(row.id)
    return label.verdict == "correct" if label is not None else row.bench_correct


def read_ids(name: str) -> dict[str, str]:
    """A ledger: id, then an optional reason after a tab; `#` lines are comments."""
    path = HERE / name
    if not path.is_file():
        return {}
    rows = [line.split("\t", 1) for line in path.read_text(encoding="utf-8").splitlines()]
    return {r[0]: (r[1] if len(r) > 1 else "") for r in rows if r[0] and not r[0].startswith("#")}
