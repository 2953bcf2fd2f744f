"""Verdicts kept with a run: each grader's verdict on each reply, computed once per grader version.

A report's grader-sensitivity table reads every reply under every grader. Graded once, the verdicts
are kept in RUN/verdicts.jsonl, each under a digest of what decides it (the reply, whether it was cut
off, the question as asked with its tolerance), the grader's name and the grader's version
(`scoring.version`: a digest of the grading code). A later report reads them instead of grading
again, and writes the same bytes. A line of another version, or one that does not read as a verdict,
is ignored and its verdict computed again; a file that is a link, not a regular file or too large is
not read. The file holds verdicts, as results.jsonl does: whoever can write a run folder can write
either, so it is trusted as much as the results beside it, no more.
"""

from __future__ import annotations

import hashlib
import json
import multiprocessing
import os
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import orjson

from isodyn.atomic import write_atomic
from isodyn.runs.files import VERDICTS
from isodyn.runs.record import grade
from isodyn.runs.results import CellResult
from isodyn.runs.safe import UnsafeFile, open_own, read_bounded
from isodyn.scoring import GRADERS, Question, Score
from isodyn.scoring.version import grader_version

VERDICTS_FILE = VERDICTS
# Told what is being done, how much of it is done and its total (a report's progress line).
Progress = Callable[[str, int, int], None]
PROGRESS_EVERY = 500  # replies graded between two progress reports (and a worker's chunk)
PARALLEL_FROM = 4_000  # replies to grade from which worker processes pay for their start (~1 s)
MAX_WORKERS = 8
MAX_BOOK_BYTES = 1 << 30  # far above 4 graders x 1,000,000 replies; a larger file is not read


def graded_afresh(results: Sequence[CellResult], grader: str) -> list[Score | None]:
    """Each cell's verdict by `grader`, graded now from its saved reply with the tolerance it was
    graded with; None for a cell that was not graded or has no reply (its verdict stands)."""
    return [
        grade(r.response, r.asked, grader, r.finish_reason) if r.graded and r.response is not None else None
        for r in results
    ]


def reply_digest(response: str, finish_reason: str | None, asked: Question) -> str:
    """A digest of everything a rule grader reads: the reply, its finish reason, the question."""
    tolerance = asked.tolerance
    parts = [
        response, finish_reason, asked.truth, str(asked.answer_type), list(asked.choices), asked.text,
        asked.percent_question, repr(tolerance.absolute), repr(tolerance.relative), asked.solution,
    ]  # fmt: skip
    try:
        data = orjson.dumps(parts)
    except TypeError:  # a lone surrogate (orjson refuses it): escaped, still one text per reply
        data = json.dumps(parts, ensure_ascii=True).encode()
    return hashlib.blake2b(data, digest_size=16).hexdigest()


def _score_line(key: str, version: str, score: Score) -> bytes:
    line = {
        "key": key, "grader": score.grader, "version": version, "correct": score.correct,
        "extracted": score.extracted, "reason": score.reason, "method": score.method,
        "ambiguity": score.ambiguity, "detail": dict(score.detail) if score.detail else None,
    }  # fmt: skip
    try:
        return orjson.dumps(line) + b"\n"
    except TypeError:
        return json.dumps(line, ensure_ascii=True).encode() + b"\n"


def _score_of(line: Any, grader: str) -> Score | None:
    """The verdict a kept line holds, or None when it does not read as one."""
    kinds = {"correct": bool, "reason": str, "method": str, "ambiguity": str}
    if not all(isinstance(line.get(name), kind) for name, kind in kinds.items()):
        return None
    extracted, detail = line.get("extracted"), line.get("detail")
    if not (extracted is None or isinstance(extracted, str)) or not (
        detail is None or isinstance(detail, dict)
    ):
        return None
    return Score(
        line["correct"], extracted, line["reason"], line["method"], line["ambiguity"], grader, detail
    )


def verdict_lines(result: CellResult) -> bytes:
    """The lines a run keeps for a cell it graded: the verdict of each rule grader it holds (a
    judge's is not a rule's: it is never kept here), so a report need not grade the reply again."""
    if not result.graded or result.response is None:
        return b""
    kept = [(name, score) for name, score in result.scores.items() if name in GRADERS]
    if not kept:
        return b""
    key = reply_digest(result.response, result.finish_reason, result.asked)
    return b"".join(_score_line(key, grader_version(name), score) for name, score in kept)


@contextmanager
def kept_by_the_run(run_dir: Path) -> Iterator[Callable[[CellResult], None]]:
    """A writer appending `verdict_lines` of each cell to RUN/verdicts.jsonl as the run grades it.
    A file there that is a link or not a regular file is left alone (nothing is kept: a report
    grades again); one with other names (hard links) is first copied to a file of its own."""
    path = run_dir / VERDICTS_FILE
    try:
        handle = open_own(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, MAX_BOOK_BYTES)
    except (OSError, UnsafeFile):
        yield lambda result: None
        return
    with os.fdopen(handle, "ab", buffering=1 << 20) as out:  # a cache of verdicts: no flush per cell

        def keep(result: CellResult) -> None:
            out.write(verdict_lines(result))

        yield keep


Graded = tuple[str, Question, str, str | None]  # (reply, question, grader, finish reason)


def _grade_chunk(chunk: list[Graded]) -> list[Score]:
    return [grade(*item) for item in chunk]


def _graded(items: list[Graded], what: str, progress: Progress | None) -> list[Score]:
    """`record.grade` of each item, in order; a long list in worker processes, one per core (the
    rules are pure: the same verdicts), told to `progress` a chunk at a time."""
    chunks = [items[at : at + PROGRESS_EVERY] for at in range(0, len(items), PROGRESS_EVERY)]
    workers = min(os.cpu_count() or 1, MAX_WORKERS)
    out: list[Score] = []
    if len(items) >= PARALLEL_FROM and workers > 1:
        try:
            context = multiprocessing.get_context("spawn")  # no fork of a process holding threads
            with ProcessPoolExecutor(workers, mp_context=context) as pool:
                for scores in pool.map(_grade_chunk, chunks):
                    if progress is not None:
                        progress(what, len(out), len(items))
                    out.extend(scores)
            return out
        except (OSError, BrokenProcessPool):  # no worker processes here: grade in this one
            out = []
    for chunk in chunks:
        if progress is not None:
            progress(what, len(out), len(items))
        out.extend(_grade_chunk(chunk))
    return out


@dataclass
class VerdictBook:
    """Verdicts by (grader, reply digest), all of the current grader versions."""

    known: dict[tuple[str, str], Score] = field(default_factory=dict)
    progress: Progress | None = None  # told of the replies graded (not read)
    added: int = 0  # verdicts computed since the book was read
    _digests: dict[int, tuple[CellResult, str]] = field(default_factory=dict, repr=False)

    @classmethod
    def read(cls, path: Path, progress: Progress | None = None) -> VerdictBook:
        """The kept verdicts of the current versions; an empty book when there is no usable file."""
        book = cls(progress=progress)
        try:
            data = read_bounded(path, MAX_BOOK_BYTES)
        except (OSError, UnsafeFile):
            return book
        for raw in data.splitlines():
            try:
                line = orjson.loads(raw)
            except orjson.JSONDecodeError:
                continue
            if not isinstance(line, dict):
                continue
            grader, key = line.get("grader"), line.get("key")
            if not isinstance(grader, str) or not isinstance(key, str):
                continue
            try:
                current = grader_version(grader)
            except KeyError:  # a grader this isodyn does not have
                continue
            score = _score_of(line, grader) if line.get("version") == current else None
            if score is not None:
                book.known[(grader, key)] = score
        return book

    def _digest(self, result: CellResult) -> str:
        # by identity, the cell held so that its id is not reused: a report asks once per grader
        kept = self._digests.get(id(result))
        if kept is None or kept[0] is not result:
            assert result.response is not None
            kept = (result, reply_digest(result.response, result.finish_reason, result.asked))
            self._digests[id(result)] = kept
        return kept[1]

    def verdicts(self, results: Sequence[CellResult], grader: str) -> list[Score | None]:
        """As `graded_afresh`, reading a kept verdict where there is one and keeping the others."""
        keys = [(grader, self._digest(r)) if r.graded and r.response is not None else None for r in results]
        missing = {key: r for key, r in zip(keys, results, strict=True) if key and key not in self.known}
        asked = [(r.response or "", r.asked, grader, r.finish_reason) for r in missing.values()]
        self.known.update(
            zip(missing, _graded(asked, f"grading replies by {grader}", self.progress), strict=True)
        )
        self.added += len(missing)
        return [self.known[key] if key else None for key in keys]

    def write(self, path: Path) -> None:
        """Keep every verdict of the book in `path` (swapped in whole), when any was added."""
        if not self.added:
            return
        lines = [
            _score_line(key, grader_version(grader), score) for (grader, key), score in self.known.items()
        ]
        write_atomic(path, b"".join(lines))
        self.added = 0
