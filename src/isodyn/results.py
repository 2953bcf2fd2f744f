"""The cell record: one typed, self-sufficient result per grid cell, and the one reader of a run.

`CellResult` holds everything needed to read, re-grade, judge and show a cell without any seed
registry: the cell's identity, the question as shown with its structured choices, the truth and how
it is compared, the transcript of calls, the extraction and verdict, and what the cell cost. A line
of `results.jsonl` is its serialization (`to_row`), written once by the runner; `read_results` reads
a run back, migrating rows written before the record had a schema version.

A frozen dataclass rather than a pydantic or msgspec model: the record needs no validation beyond
its own reader, the standard library keeps it dependency-free, and orjson writes dataclasses
natively, so the hot path of a cached rerun (a few hundred thousand rows) stays fast.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field, fields, replace
from pathlib import Path
from typing import Any

import orjson

from isodyn.core import AnswerType
from isodyn.scoring import DEFAULT_GRADER, Question, Score, Tolerance, get_grader

SCHEMA_VERSION = 2  # 1: rows before the record (no `schema` key); 2: CellResult
GRADED = ("ok", "extraction_failed")  # reasons of a cell whose reply was graded


@dataclass(frozen=True, slots=True, kw_only=True)
class Call:
    """One model call of a cell, in call order: the request (images replaced by their hashes) and,
    once it returned, the reply, its cache key and what it cost. A call that failed has no reply."""

    step: str
    model: str
    sample: int = 0
    messages: Sequence[dict[str, Any]] = ()
    key: str | None = None
    cache_hit: bool | None = None
    response: str | None = None
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cost_usd: float = 0.0
    latency_s: float = 0.0

    @property
    def returned(self) -> bool:
        return self.key is not None

    def to_json(self) -> dict[str, Any]:
        data = {name: getattr(self, name) for name in _CALL_FIELDS}
        data["messages"] = list(self.messages)
        return data

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Call:
        values = {k: v for k, v in data.items() if v is not None and k in _CALL_FIELDS}
        if "step" in values and "model" in values:
            return cls(**values)
        return cls(**{"step": "answer", "model": "", **values})


@dataclass(frozen=True, slots=True, kw_only=True)
class CellResult:
    """One cell of the grid, as run and graded."""

    # identity: which cell this is
    model: str
    strategy: str
    modality: str
    seed_id: str
    variant: int
    repeat: int = 0
    # the question as shown and how its answer is compared
    topic: str = ""
    level: str = ""
    answer_type: str = AnswerType.TEXT.value
    question: str = ""
    choices: tuple[str, ...] = ()  # in the order shown (a permuting strategy records its order in notes)
    truth: str = ""
    percent_question: bool = False
    abs_tol: float = Tolerance().absolute
    rel_tol: float = Tolerance().relative
    solution: str = ""  # the reference solution, for process evaluation; empty when none is known
    variation_types: tuple[str, ...] = ()
    # the outcome: reason is "ok" or "extraction_failed" (graded), "skipped: ..." or "error:..."
    reason: str = "ok"
    correct: bool | None = None
    extracted: str | None = None
    method: str | None = None
    ambiguity: str | None = None
    grader: str | None = None
    response: str | None = None  # the final reply that was graded
    error: str | None = None
    judge_extract: dict[str, Any] | None = None  # the judge's reading, when a judge was asked
    # how it ran
    transcript: tuple[Call, ...] = ()
    notes: dict[str, Any] = field(default_factory=dict)
    cache_hit: bool | None = None
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cost_usd: float = 0.0
    latency_s: float = 0.0
    schema: int = SCHEMA_VERSION

    @property
    def cell(self) -> tuple[str, str, str, str, int, int]:
        return (self.model, self.strategy, self.modality, self.seed_id, self.variant, self.repeat)

    @property
    def graded(self) -> bool:
        return self.reason in GRADED

    @property
    def tolerance(self) -> Tolerance:
        return Tolerance(self.abs_tol, self.rel_tol)

    def asked(self, tolerance: Tolerance | None = None) -> Question:
        """What the graders need: the truth, its type, the options and the question as shown."""
        return Question(
            self.truth, AnswerType(self.answer_type), self.choices, self.question, self.percent_question,
            tolerance or self.tolerance,
        )  # fmt: skip

    def regraded(self, grader: str, tolerance: Tolerance | None = None) -> CellResult:
        """This cell graded again from its saved reply by the named grader; a cell that was
        skipped, failed or has no reply is returned as it is."""
        if not self.graded or self.response is None:
            return self
        return self.graded_by(get_grader(grader)(self.response, self.asked(tolerance)), tolerance)

    def graded_by(self, score: Score, tolerance: Tolerance | None = None) -> CellResult:
        """This cell with a new verdict (the reply, transcript and cost stay)."""
        return replace(self, **verdict_fields(score, tolerance or self.tolerance))

    def to_row(self) -> dict[str, Any]:
        """The results.jsonl form: flat, JSON-ready, every field (what `result_line` writes)."""
        row = {name: getattr(self, name) for name in _RESULT_FIELDS}
        row["choices"] = list(self.choices)
        row["variation_types"] = list(self.variation_types)
        row["transcript"] = [call.to_json() for call in self.transcript]
        return row

    @classmethod
    def from_row(cls, row: dict[str, Any]) -> CellResult:
        """A results.jsonl row of any schema version (older rows are migrated, see `migrate`)."""
        data = migrate(row)
        values = {k: v for k, v in data.items() if k in _RESULT_FIELDS}
        values["choices"] = tuple(str(c) for c in values.get("choices") or ())
        values["variation_types"] = tuple(values.get("variation_types") or ())
        values["transcript"] = tuple(Call.from_json(t) for t in values.get("transcript") or ())
        values["notes"] = dict(values.get("notes") or {})
        return cls(**values)


_CALL_FIELDS = tuple(f.name for f in fields(Call))
_RESULT_FIELDS = tuple(f.name for f in fields(CellResult))


def verdict_fields(score: Score, tolerance: Tolerance) -> dict[str, Any]:
    """The fields of a CellResult that a grading decides."""
    return {
        "extracted": score.extracted, "correct": score.correct, "reason": score.reason,
        "method": score.method, "ambiguity": score.ambiguity, "grader": score.grader,
        "abs_tol": tolerance.absolute, "rel_tol": tolerance.relative,
    }  # fmt: skip


def migrate(row: dict[str, Any]) -> dict[str, Any]:
    """A row of an older schema brought to the current one (pure). Version 1 rows (before the
    record) may lack the question (taken from the last user message of the transcript), the grading
    method and ambiguity, the grader and the tolerance; their missing counts were never written."""
    if row.get("schema", 1) >= SCHEMA_VERSION:
        return row
    data = {k: v for k, v in row.items() if v is not None or k in ("correct", "extracted", "response")}
    data.setdefault("question", _asked_in_transcript(row.get("transcript") or ()))
    if data.get("reason") in GRADED:
        data.setdefault("grader", DEFAULT_GRADER)
        failed = data.get("reason") != "ok" and data.get("extracted") is None
        data.setdefault("ambiguity", "none found" if failed else "clear")
    for count in ("prompt_tokens", "completion_tokens"):
        data[count] = int(data.get(count) or 0)
    data["cost_usd"] = float(data.get("cost_usd") or 0.0)
    data["schema"] = SCHEMA_VERSION
    return data


def _asked_in_transcript(transcript: Iterable[dict[str, Any]]) -> str:
    """The text of the last user message of a transcript (what a version-1 row was asked)."""
    for call in reversed(list(transcript)):
        for message in reversed(call.get("messages") or []):
            if message.get("role") == "user":
                content = message.get("content")
                if isinstance(content, str):
                    return content
                return "\n".join(p.get("text", "") for p in content or () if isinstance(p, dict))
    return ""


DAMAGED_FILE = "results.damaged.jsonl"  # lines of results.jsonl that are not a whole row, kept


@dataclass(frozen=True)
class RowsRead:
    rows: list[dict[str, Any]]
    damaged: int  # lines that are not a complete JSON object (a cut write, a damaged disk, an edit)


def _parsed(line: bytes) -> dict[str, Any] | None:
    if not line.endswith(b"\n"):
        return None  # an unterminated last line: the write was cut
    try:
        row = orjson.loads(line)
    except orjson.JSONDecodeError:
        try:
            row = json.loads(line)  # NaN and other values json accepts and orjson does not
        except ValueError:
            return None
    return row if isinstance(row, dict) else None


def read_rows(run_dir: Path, repair: bool = False, missing_ok: bool = False) -> RowsRead:
    """The rows of a run's results.jsonl, every complete one wherever it is; a damaged line (cut
    short by a crash, or corrupted) is skipped and counted, never the rows after it. With `repair`,
    damaged lines are moved to results.damaged.jsonl (appended, so nothing is lost) and the file is
    rewritten without them, so appending goes on cleanly. With `missing_ok`, a run that stopped
    before its first row (no results.jsonl yet) has no rows instead of being an error."""
    path = Path(run_dir) / "results.jsonl"
    if not path.is_file():
        if missing_ok and Path(run_dir).is_dir():
            return RowsRead([], 0)
        raise FileNotFoundError(f"no results.jsonl in {run_dir}")
    rows, good, damaged = [], [], []
    for line in path.read_bytes().splitlines(keepends=True):
        if not line.strip():
            continue
        row = _parsed(line)
        if row is None:
            damaged.append(line if line.endswith(b"\n") else line + b"\n")
        else:
            rows.append(row)
            good.append(line)
    if repair and damaged:
        with (Path(run_dir) / DAMAGED_FILE).open("ab") as aside:
            aside.write(b"".join(damaged))
        temporary = path.with_suffix(".jsonl.tmp")
        temporary.write_bytes(b"".join(good))
        temporary.replace(path)  # atomic: a crash leaves the old file or the new one, whole
    return RowsRead(rows, len(damaged))


def load_rows(run_dir: Path, repair: bool = False) -> list[dict[str, Any]]:
    """The complete rows of a run's results.jsonl (see `read_rows`)."""
    return read_rows(run_dir, repair).rows


@dataclass(frozen=True)
class Run:
    """A run directory read back: its results and what was saved beside them."""

    directory: Path
    results: list[CellResult]
    config: dict[str, Any]
    summary: dict[str, Any] | None
    damaged: int = 0  # lines set aside as damaged (see `read_rows`)
    duplicates: int = 0  # rows of a cell already read (two processes wrote one run): ignored

    def problems(self) -> str | None:
        """One line on what was set aside, or None."""
        said = []
        if self.damaged:
            said.append(f"{self.damaged} damaged line(s) of results.jsonl skipped (kept in {DAMAGED_FILE})")
        if self.duplicates:
            said.append(f"{self.duplicates} duplicate row(s) of cells already read ignored")
        return "; ".join(said) or None


def read_results(run_dir: Path, repair: bool = False, missing_ok: bool = False) -> Run:
    """The one reader of a run directory, used by every command that reads results. Each cell
    counts once: a second row for a cell already read is ignored and counted."""
    run_dir = Path(run_dir)
    read = read_rows(run_dir, repair, missing_ok)
    config = read_json(run_dir / "config.json") or {}
    results: list[CellResult] = []
    seen: set[tuple[str, str, str, str, int, int]] = set()
    for row in read.rows:
        result = CellResult.from_row(row)
        if not result.question and "question" not in row:
            result = _question_from_seed(result, int(config.get("base_seed", 0) or 0))
        if result.cell not in seen:
            seen.add(result.cell)
            results.append(result)
    return Run(
        run_dir, results, config, read_json(run_dir / "summary.json"), read.damaged,
        len(read.rows) - len(results),
    )  # fmt: skip


def _question_from_seed(result: CellResult, base_seed: int) -> CellResult:
    """A row written before the question was recorded, whose transcript does not show it either:
    the question, options and solution of its registered seed's variant (in the row's option order).
    A seed that is not registered (a released item) leaves the row as it is."""
    from isodyn.generators import all_seeds

    seed = all_seeds().get(result.seed_id)
    if seed is None:
        return result
    try:
        variant = seed.variant(result.variant, base_seed)
    except Exception:  # an index the seed cannot draw: keep what the row has
        return result
    choices = result.choices or variant.choices
    question = variant.question
    if choices != variant.choices and variant.choices:
        from isodyn.generators.base import format_choices

        question = question.removesuffix(format_choices(variant.choices)) + format_choices(choices)
    return replace(result, question=question, choices=choices, solution=variant.solution)


def read_json(path: Path) -> Any:
    """A JSON file beside a run or a cache, or None when it is missing or damaged (cut by a crash)."""
    try:
        return json.loads(path.read_text()) if path.is_file() else None
    except (ValueError, UnicodeDecodeError):
        return None


def results_frame(results: Sequence[CellResult]) -> Any:
    """The results as one table (a pandas DataFrame, one line per cell) for the analysis layer."""
    import pandas as pd

    # no results: still every column, so the tables say "nothing to show" instead of failing
    return pd.DataFrame([result.to_row() for result in results], columns=list(_RESULT_FIELDS))


def write_results(path: Path, results: Iterable[CellResult]) -> None:
    with path.open("wb") as handle:
        for result in results:
            handle.write(result_line(result))


def result_line(result: CellResult) -> bytes:
    """A results.jsonl line (UTF-8 JSON and a newline); orjson is several times faster than json."""
    try:  # orjson writes the dataclass itself, field by field, as `to_row` does
        return orjson.dumps(result, option=orjson.OPT_APPEND_NEWLINE)
    except TypeError:  # a value orjson does not take (an integer beyond 64 bits): the slow way
        return (json.dumps(result.to_row(), ensure_ascii=False) + "\n").encode()
