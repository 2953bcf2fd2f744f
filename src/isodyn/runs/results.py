"""The one reader and writer of a run's results.jsonl: the cell record (`runs.record`) a line at a time.

A line of `results.jsonl` is a `CellResult` flat (`CellResult.to_row`), written once by the runner;
`read_results` reads a run back, migrating rows written by older schemas (`migrate`).

Frozen dataclasses rather than pydantic or msgspec models: the record needs no validation beyond
its own reader, the standard library keeps it dependency-free, and orjson writes them natively, so
the hot path of a cached rerun (a few hundred thousand rows) stays fast. The reader checks each row
against the columns' own annotations (`schema.Row`, `record_check`): a row that does not fit is set
aside like a damaged line, and a row of a newer schema refuses the run (`NewerRun`).
"""

from __future__ import annotations

import json
import math
import types
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import MISSING, dataclass, fields, is_dataclass, replace
from functools import cache
from pathlib import Path
from typing import Any, Union, get_args, get_origin, get_type_hints

import orjson

from isodyn.core import AnswerType, JsonObject, Modality
from isodyn.errors import IsodynError
from isodyn.runs import files
from isodyn.runs.calls import Call
from isodyn.runs.files import DAMAGED
from isodyn.runs.record import Cell, CellResult
from isodyn.runs.schema import ROW_FIELDS, SCHEMA_VERSION, Row, ScoreRow, migrate
from isodyn.runs.summary import RunSummary, read_summary

__all__ = ["SCHEMA_VERSION", "Call", "CellResult", "NewerRun", "Run", "read_results", "result_line"]

DAMAGED_FILE = DAMAGED  # lines of results.jsonl that are not a whole row, kept


class NewerRun(IsodynError, ValueError):
    """A run written by a newer isodyn (a schema this one does not know): refused, never guessed at."""


# --- checking a JSON value against a record's field annotations -----------------------------------
# An annotation becomes the JSON types it takes (one set look-up per field, so reading a few hundred
# thousand good rows stays fast), an extra test for what a type alone does not say (list items, a
# finite number), and, only for a value that fails, the reason in words.
Test = Callable[[Any], bool]


@dataclass(frozen=True)
class Expect:
    types: frozenset[type] | None  # the JSON value's Python types; None: any value
    deep: Test | None  # a further test of a value of those types, when one is needed
    name: str  # what the annotation expects, in words ("text", "true or false")

    def test(self, value: Any) -> bool:
        if self.types is not None and type(value) not in self.types:
            return False
        return self.deep is None or self.deep(value)

    def explain(self, value: Any) -> str:
        """Why a value this refused does not fit."""
        return f"{_shown(value)}, not {self.name}"


def _shown(value: Any) -> str:
    """A value as a reason quotes it: short and on one line, whatever the row held."""
    if value is None or isinstance(value, bool):
        return json.dumps(value)
    if isinstance(value, str):
        return json.dumps(value[:40]) + ("…" if len(value) > 40 else "")
    if isinstance(value, list):
        return f"a list of {len(value)}"
    if isinstance(value, dict):
        return "an object"
    return repr(value)[:40]


_SIMPLE: dict[Any, Expect] = {
    type(None): Expect(frozenset({type(None)}), None, "null"),
    bool: Expect(frozenset({bool}), None, "true or false"),  # type(True) is bool: never an int here
    int: Expect(frozenset({int}), None, "a whole number"),
    # NaN or Infinity (json reads them) in a cost or a tolerance would poison every sum and test
    float: Expect(frozenset({int, float}), math.isfinite, "a finite number"),
    str: Expect(frozenset({str}), None, "text"),
}


def _expect(hint: Any) -> Expect:
    """What one annotation accepts of a JSON value. Tuples and sequences are JSON lists; a dataclass
    is an object checked field by field (see `record_check`)."""
    origin, args = get_origin(hint), get_args(hint)
    if hint is Any:
        return Expect(None, None, "anything")
    if hint in _SIMPLE:
        return _SIMPLE[hint]
    if origin in (Union, types.UnionType):
        members = [_expect(a) for a in args]
        if any(m.types is None for m in members):
            return Expect(None, None, "anything")
        accepted = frozenset().union(*(m.types or () for m in members))
        deep = None if all(m.deep is None for m in members) else (lambda v: any(m.test(v) for m in members))
        return Expect(accepted, deep, " or ".join(m.name for m in members))
    if hint is dict or origin is dict:
        return Expect(frozenset({dict}), None, "an object")
    if origin in (tuple, list, Sequence) or hint in (tuple, list):
        item = _expect(args[0] if args else Any)
        return _ListOf(frozenset({list}), lambda v: all(map(item.test, v)), f"a list of {item.name}", item)
    if isinstance(hint, type) and is_dataclass(hint):
        return record_check(hint, *_READ_AS.get(hint, ()))
    raise TypeError(f"no check for the annotation {hint!r}")  # a new field type: teach _expect


@dataclass(frozen=True)
class _ListOf(Expect):
    item: Expect

    def explain(self, value: Any) -> str:
        if type(value) is not list:
            return f"{_shown(value)}, not a list"
        index = next(i for i, element in enumerate(value) if not self.item.test(element))
        return f"a list whose item {index} is {self.item.explain(value[index])}"


@dataclass(frozen=True)
class _Record(Expect):
    fields: dict[str, Expect]
    required: tuple[str, ...]
    skip_null: bool

    def explain(self, value: Any) -> str:
        if type(value) is not dict:
            return f"{_shown(value)}, not an object"
        for name in self.required:
            if name not in value:
                return f"{name} is missing"
        for name, item in value.items():
            expect = self.fields.get(name)
            if expect is not None and not (self.skip_null and item is None) and not expect.test(item):
                return f"{name} is {expect.explain(item)}"
        return "fits"  # not reached for a value the test refused


# How a nested record's reader takes it: `Call.from_json` fills in a missing step and model and
# drops nulls, so a call is checked the same way (fields that may be absent, nulls as absent).
_READ_AS: dict[type, tuple[frozenset[str], bool]] = {Call: (frozenset({"step", "model"}), True)}


@cache
def record_check(record: type, optional: frozenset[str] = frozenset(), skip_null: bool = False) -> Expect:
    """What a JSON object must be to be read as `record` (a dataclass), by its own field annotations:
    every field without a default (less `optional`) present, every known field of its type. Unknown
    fields are left alone (a later version within a schema may add some). With `skip_null`, a null
    field counts as absent (as a reader that drops nulls takes it)."""
    hints = get_type_hints(record)
    expects = {f.name: _expect(hints[f.name]) for f in fields(record)}
    required = tuple(
        f.name for f in fields(record)
        if f.default is MISSING and f.default_factory is MISSING and f.name not in optional
    )  # fmt: skip
    shallow = {name: e.types for name, e in expects.items() if e.types is not None}
    deep = {name: e.deep for name, e in expects.items() if e.deep is not None}
    null = type(None)

    def fits(data: JsonObject) -> bool:
        # the hot loop of every read: set look-ups, a function call only where a field needs one
        for name in required:
            if name not in data:
                return False
        for name, value in data.items():
            accepted = shallow.get(name)
            if accepted is None:
                continue
            kind = type(value)
            if kind is null and skip_null:
                continue
            if kind not in accepted:
                return False
            further = deep.get(name)
            if further is not None and not further(value):
                return False
        return True

    return _Record(frozenset({dict}), fits, "an object", expects, required, skip_null)


_ANSWER_TYPES = frozenset(t.value for t in AnswerType)
_MODALITIES = frozenset(m.value for m in Modality)


_SCORE_CHECK = record_check(ScoreRow)


_CELL_CHECK = record_check(Row)


def _cell_problem(data: JsonObject) -> str | None:
    """What keeps a (migrated) row from being a CellResult, or None."""
    if not _CELL_CHECK.test(data):
        return _CELL_CHECK.explain(data)
    if data.get("answer_type", AnswerType.TEXT.value) not in _ANSWER_TYPES:
        valid = ", ".join(sorted(_ANSWER_TYPES))
        return f"answer_type is {_shown(data['answer_type'])}, not one of {valid}"
    if data["modality"] not in _MODALITIES:
        return f"modality is {_shown(data['modality'])}, not one of {', '.join(sorted(_MODALITIES))}"
    scores = data.get("scores") or {}
    for name, score in scores.items():
        if not _SCORE_CHECK.test(score):
            return f"scores.{name} is {_SCORE_CHECK.explain(score)}"
    return None


def row_problem(row: JsonObject, where: str = "a row") -> str | None:
    """What keeps a results.jsonl row from being read as a CellResult (None when it fits). Raises
    NewerRun for a schema newer than this isodyn knows: its rows may mean other things."""
    schema = row.get("schema", 1)
    if type(schema) is not int:
        return f"schema is {_shown(schema)}, not a whole number"
    if schema > SCHEMA_VERSION:
        raise NewerRun(
            f"{where} was written by a newer isodyn (schema {schema}; this one reads schema "
            f"{SCHEMA_VERSION} and older): upgrade isodyn to read it"
        )
    if schema < SCHEMA_VERSION:
        transcript, calls = row.get("transcript"), _expect(tuple[Call, ...])
        if transcript is not None and not calls.test(transcript):
            return f"transcript is {calls.explain(transcript)}"  # first: migrating reads it
        try:
            row = migrate(row)
        except (TypeError, ValueError) as exc:  # a count that is no number, say
            return f"a schema-{schema} row that cannot be migrated ({str(exc)[:80]})"
    return _cell_problem(row)


# --- reading JSON lines ---------------------------------------------------------------------------
BOM = b"\xef\xbb\xbf"  # an editor's UTF-8 byte order mark at the start of a file


def parsed_line(line: bytes) -> tuple[JsonObject | None, str]:
    """A line of a JSON-lines file as an object, or None and why it is not one."""
    if not line.endswith(b"\n"):
        return None, "cut short (no newline at its end)"
    try:
        row = orjson.loads(line)
    except orjson.JSONDecodeError:
        try:
            row = json.loads(line)  # NaN and other values json accepts and orjson does not
        except ValueError:
            return None, "not JSON"
    if not isinstance(row, dict):
        return None, f"{_shown(row)}, not a JSON object"
    return row, ""


@dataclass(frozen=True)
class LinesRead:
    """The records of a JSON-lines file that fit, and the lines that do not, as they were."""

    rows: list[JsonObject]
    good: list[bytes]
    damaged: list[bytes]
    first_problem: str | None  # "line 3: correct is 'maybe', not true or false or null"


def scan_lines(
    path: Path, problem: Callable[[JsonObject, str], str | None]
) -> Iterator[tuple[JsonObject | None, bytes, str]]:
    """Each non-blank line of `path`, read as the file is read (never the whole file at once): the
    JSON object when `problem(row, where)` says None, else None and "line N: why", with the line as
    it was. `problem` may raise to refuse the whole file."""
    with path.open("rb") as lines:
        for number, line in enumerate(lines, 1):
            if number == 1:
                line = line.removeprefix(BOM)
            if not line.strip():
                continue
            row, why = parsed_line(line)
            if row is not None:
                why = problem(row, f"{path} line {number}") or ""
            yield (None, line, f"line {number}: {why}") if why or row is None else (row, line, "")


def read_lines(path: Path, problem: Callable[[JsonObject, str], str | None]) -> LinesRead:
    """Every line of `path` that is a JSON object for which `problem(row, where)` says None; the
    others are set aside (blank lines are skipped). `problem` may raise to refuse the whole file."""
    rows: list[JsonObject] = []
    good: list[bytes] = []
    damaged: list[bytes] = []
    first: str | None = None
    for row, line, why in scan_lines(path, problem):
        if row is not None:
            rows.append(row)
            good.append(line)
        else:
            damaged.append(line if line.endswith(b"\n") else line + b"\n")
            first = first or why
    return LinesRead(rows, good, damaged, first)


@dataclass(frozen=True)
class RowsRead:
    rows: list[JsonObject]
    damaged: int  # lines that are not a whole row: not JSON (a cut write, a damaged disk) or not a cell
    first_problem: str | None = None  # the first of them and why


def read_rows(run_dir: Path, repair: bool = False, missing_ok: bool = False) -> RowsRead:
    """The rows of a run's results.jsonl, every complete one wherever it is; a damaged line (cut
    short by a crash, corrupted, or a row whose fields are not of the record's types) is skipped and
    counted, never the rows after it. With `repair`, damaged lines are moved to results.damaged.jsonl
    (appended, so nothing is lost) and the file is rewritten without them, so appending goes on
    cleanly. With `missing_ok`, a run that stopped before its first row (no results.jsonl yet) has
    no rows instead of being an error. A row of a newer schema refuses the whole run (NewerRun),
    before anything is moved."""
    path = _results_path(Path(run_dir), missing_ok)
    if path is None:
        return RowsRead([], 0)
    read = read_lines(path, row_problem)
    if repair and read.damaged:
        with (Path(run_dir) / DAMAGED_FILE).open("ab") as aside:
            aside.write(b"".join(read.damaged))
        temporary = path.with_suffix(".jsonl.tmp")
        temporary.write_bytes(b"".join(read.good))
        temporary.replace(path)  # atomic: a crash leaves the old file or the new one, whole
    return RowsRead(read.rows, len(read.damaged), read.first_problem)


def _results_path(run_dir: Path, missing_ok: bool) -> Path | None:
    """The run's results.jsonl; None for a run that stopped before its first row when `missing_ok`
    (its folder is there), else FileNotFoundError when there is none."""
    path = run_dir / files.RESULTS
    if path.is_file():
        return path
    if missing_ok and run_dir.is_dir():
        return None
    raise FileNotFoundError(f"no results.jsonl in {run_dir}")


def load_rows(run_dir: Path, repair: bool = False) -> list[JsonObject]:
    """The complete rows of a run's results.jsonl (see `read_rows`)."""
    return read_rows(run_dir, repair).rows


@dataclass(frozen=True)
class Run:
    """A run directory read back: its results and what was saved beside them."""

    directory: Path
    results: list[CellResult]
    # config.json as written, kept whole: a rescore copies every key, and a report reads a run of
    # another isodyn version, whose settings the typed read (`RunFolder.config()`) would refuse.
    config: JsonObject
    summary: RunSummary | None  # None: none, or a damaged one
    damaged: int = 0  # lines set aside as damaged (see `read_rows`)
    duplicates: int = 0  # rows of a cell already read (two processes wrote one run): ignored
    first_problem: str | None = None  # the first damaged line and why
    moved: bool = False  # the damaged lines were moved to DAMAGED_FILE (a repairing read)

    def problems(self) -> str | None:
        """One line on what was set aside, or None. It names DAMAGED_FILE only when the lines were
        moved there: a plain read (a report) leaves results.jsonl as it is and writes no such file."""
        said = []
        if self.damaged:
            where = f" (moved to {DAMAGED_FILE})" if self.moved else ""
            said.append(
                f"{self.damaged} damaged line(s) of results.jsonl skipped{where}; "
                f"the first, {self.first_problem}"
            )
        if self.duplicates:
            said.append(f"{self.duplicates} duplicate row(s) of cells already read ignored")
        return "; ".join(said) or None


def read_results(run_dir: Path, repair: bool = False, missing_ok: bool = False) -> Run:
    """The one reader of a run directory, used by every command that reads results. Each cell
    counts once: a second row for a cell already read is ignored and counted. Each line becomes its
    record as the file is read, so a large run is never held twice (as JSON objects and as
    records); a repairing read that met damaged lines then moves them aside (`read_rows`)."""
    run_dir = Path(run_dir)
    path = _results_path(run_dir, missing_ok)
    config = _object(read_json(run_dir / files.CONFIG)) or {}
    base_seed = config.get("base_seed")
    results: list[CellResult] = []
    seen: set[Cell] = set()
    rows = damaged = 0
    first: str | None = None
    for row, _line, why in scan_lines(path, row_problem) if path else ():
        if row is None:
            damaged += 1
            first = first or why
            continue
        rows += 1
        result = CellResult.from_row(row)
        if not result.question and "question" not in row:
            result = _question_from_seed(result, base_seed if type(base_seed) is int else 0)
        if result.cell not in seen:
            seen.add(result.cell)
            results.append(result)
    if repair and damaged:
        read_rows(run_dir, repair=True)  # a second pass, over a damaged file only: moves those lines
    return Run(
        run_dir, results, config, read_summary(run_dir), damaged,
        rows - len(results), first, moved=repair and damaged > 0,
    )  # fmt: skip


def _object(value: Any) -> JsonObject | None:
    """A JSON file's content when it is an object; anything else (a list, a number) is as damaged."""
    return value if isinstance(value, dict) else None


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
    asked = replace(result.asked, text=question, choices=choices, solution=variant.solution)
    return replace(result, asked=asked)


def read_json(path: Path) -> Any:
    """A JSON file beside a run or a cache, or None when it is missing or damaged (cut by a crash)."""
    try:
        return json.loads(path.read_text()) if path.is_file() else None
    except (ValueError, UnicodeDecodeError):
        return None


def results_frame(results: Sequence[CellResult], copy_calls: bool = True) -> Any:
    """The results as one table (a pandas DataFrame, one line per cell) for the analysis layer.
    Without `copy_calls`, the transcript column holds each record's own `Call`s instead of their
    JSON form: no copy of every prompt and reply (a report of a large run reads only a few)."""
    import pandas as pd

    rows = [result.to_row() for result in results] if copy_calls else [_row_sharing_calls(r) for r in results]
    # no results: still every column, so the tables say "nothing to show" instead of failing
    return pd.DataFrame(rows, columns=list(ROW_FIELDS))


def _row_sharing_calls(result: CellResult) -> JsonObject:
    row = result.flat()  # its transcript: the record's tuple of Calls
    row["choices"] = list(result.choices)
    row["variation_types"] = list(result.variation_types)
    return row


def write_results(path: Path, results: Iterable[CellResult]) -> None:
    with path.open("wb") as handle:
        for result in results:
            handle.write(result_line(result))


def result_line(result: CellResult) -> bytes:
    """A results.jsonl line (UTF-8 JSON and a newline); orjson is several times faster than json."""
    try:  # orjson writes the calls (dataclasses) and tuples itself, as `to_row` spells them out
        return orjson.dumps(result.flat(), option=orjson.OPT_APPEND_NEWLINE)
    except TypeError:  # a value orjson does not take (an integer beyond 64 bits): the slow way
        return (json.dumps(result.to_row(), ensure_ascii=False) + "\n").encode()
