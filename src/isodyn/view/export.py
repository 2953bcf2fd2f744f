"""A run's marks as labelled replies for the grading corpus (tests/corpus), in its layout.

Each line is what `tests/corpus` reads (`CorpusReply`): id, source, pattern, answer_type, question,
choices, truth, percent_question, reply, verdict (correct / wrong / none: the reply as the person
reads it), answer (the committed answer as read; null for none or when not written down) and note.
A mark that says a verdict is right gives the grader's reading; a mark that says it is wrong must
carry the person's own reading (the viewer's buttons give it), since "not right" alone could be
either of two verdicts; such a mark without one is left out and counted.
"""

from __future__ import annotations

import hashlib
from collections import Counter
from dataclasses import asdict, dataclass
from pathlib import Path

import orjson

from isodyn.atomic import write_atomic
from isodyn.runs.folder import RunFolder
from isodyn.runs.marks import Mark, graded_reading
from isodyn.view.cells import CellUnreadable, read_cell
from isodyn.view.index import load_index

SOURCE = "review"


@dataclass(frozen=True)
class CorpusLine:
    id: str
    source: str
    pattern: str  # why the cell was worth a look: graders disagree, its ambiguity, or clear
    answer_type: str
    question: str
    choices: list[str]
    truth: str
    percent_question: bool
    reply: str
    verdict: str
    answer: str | None
    note: str


@dataclass(frozen=True)
class Exported:
    path: Path
    written: int
    skipped: dict[str, int]  # why marks were left out, and how many

    def summary(self) -> str:
        left = "; ".join(f"{count} {why}" for why, count in sorted(self.skipped.items()))
        return f"{self.written} labelled replies written to {self.path}" + (
            f"; left out: {left}" if left else ""
        )


def corpus_lines(folder: RunFolder) -> tuple[list[CorpusLine], Counter[str]]:
    """The run's last mark of each cell as corpus lines, and why the others were left out."""
    index, _ = load_index(folder)
    results = folder.results_file
    lines: list[CorpusLine] = []
    skipped: Counter[str] = Counter()
    for key, mark in folder.marks().latest().items():
        cell = index.find(key)
        if cell is None:
            skipped["marks of cells this run does not hold"] += 1
            continue
        try:
            result = read_cell(index, results, cell)
        except CellUnreadable:
            skipped["marks of damaged lines"] += 1
            continue
        graded = graded_reading(result.reason, result.correct)
        if graded is None or result.response is None:
            skipped["marks of cells without a graded reply"] += 1
            continue
        verdict = mark.reading or (graded if mark.verdict_right else None)
        if verdict is None:
            skipped["verdicts marked wrong without the person's reading"] += 1
            continue
        answer = result.extracted if verdict == graded else result.truth if verdict == "correct" else None
        disagree = len({s.correct for s in result.scores.values()}) > 1
        lines.append(CorpusLine(
            _line_id(folder.name, mark), SOURCE, "graders disagree" if disagree else str(result.ambiguity),
            result.answer_type, result.question, list(result.choices), result.truth,
            result.percent_question, result.response, verdict, answer,
            _note(folder.name, mark, graded, result.method),
        ))  # fmt: skip
    return lines, skipped


def _line_id(run: str, mark: Mark) -> str:
    digest = hashlib.sha256(orjson.dumps([run, *mark.key])).hexdigest()[:12]
    return f"r-{digest}"


def _note(run: str, mark: Mark, graded: str, method: str | None) -> str:
    said = f"{mark.note.strip()} " if mark.note.strip() else ""
    c = mark.cell
    where = f"{c.model} {c.strategy} {c.modality.value} {c.seed_id} v{c.variant} r{c.repeat}"
    return f"{said}(run {run}: {where}; the grader read {graded} by {method or 'none'}; marked {mark.time})"


def export_marks(folder: RunFolder, target: Path) -> Exported:
    """Write the corpus lines to `target` (whole, swapped in: a link there is replaced)."""
    lines, skipped = corpus_lines(folder)
    data = b"".join(orjson.dumps(asdict(line), option=orjson.OPT_APPEND_NEWLINE) for line in lines)
    write_atomic(Path(target), data)
    return Exported(Path(target), len(lines), dict(skipped))
