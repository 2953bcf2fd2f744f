"""One pass over results.jsonl that keeps what the viewer's index needs of each cell (`scan_results`).

A row as this isodyn writes it is read without its reply and transcript (the fast path, below);
any other row is read whole, by the same rules as `results.read_results`. A large file's halves are
scanned in two forked processes and joined.
"""

from __future__ import annotations

import multiprocessing
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import orjson

from isodyn.core import DEFAULT_RENDER, NO_PERTURBATION, Modality
from isodyn.runs.results import BOM, parsed_line, row_problem
from isodyn.runs.schema import GRADED, ROW_FIELDS, SCHEMA_VERSION, migrate
from isodyn.scoring.extract import CLEAR, NONE_FOUND

CODED = (
    "model", "strategy", "modality", "seed_id", "render", "perturbation", "topic", "reason", "method",
    "ambiguity",
)  # fmt: skip
NUMERIC = ("variant", "repeat", "verdict", "disagree", "judged", "offset", "length")
RIGHT, WRONG, NOT_GRADED = range(3)
SHORT = 80  # characters of the truth and the answer read, kept for the list


@dataclass
class Columns:
    """The index while it is built: plain lists, one per column."""

    codes: dict[str, list[int]] = field(default_factory=lambda: {name: [] for name in CODED})
    numbers: dict[str, list[int]] = field(default_factory=lambda: {name: [] for name in NUMERIC})
    truth: list[str] = field(default_factory=list)
    extracted: list[str | None] = field(default_factory=list)
    lookup: dict[str, dict[str, int]] = field(default_factory=lambda: {name: {} for name in CODED})

    def add(self, row: dict[str, Any], offset: int, length: int) -> None:
        # runs once per cell of a cold start: locals and direct appends, no dict per row
        reason = row.get("reason", "ok")
        graded = reason in GRADED
        extracted = row.get("extracted")
        ambiguity = row.get("ambiguity")
        if graded and ambiguity is None:  # as `Score` derives it
            ambiguity = NONE_FOUND if extracted is None and reason != "ok" else CLEAR
        codes, lookup = self.codes, self.lookup
        for name, value in (
            ("model", row["model"]), ("strategy", row["strategy"]), ("modality", row["modality"]),
            ("seed_id", row["seed_id"]), ("render", row.get("render", DEFAULT_RENDER)),
            ("perturbation", row.get("perturbation", NO_PERTURBATION)), ("topic", row.get("topic", "")),
            ("reason", reason),
            ("method", row.get("method") or ""), ("ambiguity", ambiguity or ""),
        ):  # fmt: skip
            known = lookup[name]
            code = known.get(value)
            if code is None:
                code = known[value] = len(known)
            codes[name].append(code)
        scores = row.get("scores") or {}
        numbers = self.numbers
        numbers["variant"].append(row["variant"])
        numbers["repeat"].append(row.get("repeat", 0))
        numbers["verdict"].append(NOT_GRADED if not graded else RIGHT if row.get("correct") else WRONG)
        numbers["disagree"].append(graded and len({bool(s.get("correct")) for s in scores.values()}) > 1)
        numbers["judged"].append("judge" in scores)
        numbers["offset"].append(offset)
        numbers["length"].append(length)
        self.truth.append(row.get("truth", "")[:SHORT])
        self.extracted.append(None if extracted is None else extracted[:SHORT])


_TEXT = (str,)
_OPTIONAL_TEXT = (str, type(None))
_CHECKED: tuple[tuple[str, tuple[type, ...]], ...] = (
    ("model", _TEXT), ("strategy", _TEXT), ("modality", _TEXT), ("seed_id", _TEXT), ("variant", (int,)),
    ("repeat", (int,)), ("render", _TEXT), ("perturbation", _TEXT), ("topic", _TEXT), ("reason", _TEXT),
    ("truth", _TEXT),
    ("correct", (bool, type(None))), ("extracted", _OPTIONAL_TEXT), ("method", _OPTIONAL_TEXT),
    ("ambiguity", _OPTIONAL_TEXT), ("scores", (dict,)),
)  # fmt: skip
_MODALITIES = frozenset(m.value for m in Modality)
_REQUIRED = ("model", "strategy", "modality", "seed_id", "variant")


def _index_problem(row: dict[str, Any]) -> str | None:
    """What keeps a fast-read row's index columns from being what results.jsonl's reader takes (the
    exact JSON types of `schema.Row`); the other columns are checked when the cell is opened."""
    for name in _REQUIRED:
        if name not in row:
            return f"{name} is missing"
    for name, accepted in _CHECKED:
        if name in row and type(row[name]) not in accepted:
            return f"{name} is not of its column's type"
    if row["modality"] not in _MODALITIES:
        return f"modality {row['modality'][:40]!r} is not one isodyn knows"
    for score in row.get("scores", {}).values():
        if type(score) is not dict or type(score.get("correct")) is not bool:
            return "scores hold a score that is not one"
    return None


@dataclass(frozen=True)
class LinesSeen:
    damaged: int
    duplicates: int
    first_problem: str | None


# The fast path: a row as this isodyn writes it (`result_line`: the Row's columns in order, schema 3)
# is read without its replies and transcript, which are most of its bytes. Inside a JSON string a
# quote is always escaped, so `,"response":` and `,"scores":` found in the raw line are its own keys
# (no column before `response` holds an object); a slice that is not whole JSON falls back to
# reading the full line. The columns skipped are checked when the cell is opened.
_HEAD = f'{{"{ROW_FIELDS[0]}":'.encode()
_TAIL = f',"{ROW_FIELDS[-1]}":{SCHEMA_VERSION}}}\n'.encode()
_RESPONSE = b',"response":'
_SCORES = b',"scores":'
_TRANSCRIPT = b',"transcript":'
# What the fast path takes of the list (tests/test_columns.py checks the list still fits it): the
# columns before `response` hold no object, and `transcript` comes right after `scores`.


def _fast_row(data: bytes, start: int, end: int) -> dict[str, Any] | None:
    """The index's columns of the line data[start:end] as `result_line` writes it, or None (read
    it whole). Only the short parts are copied out of `data`."""
    if not (data.startswith(_HEAD, start, end) and data.endswith(_TAIL, start, end)):
        return None
    response = data.find(_RESPONSE, start, end)
    scores_at = data.find(_SCORES, response, end)
    transcript = data.find(_TRANSCRIPT, scores_at, end)
    if response < 0 or scores_at < 0 or transcript < 0:
        return None
    try:
        row = orjson.loads(data[start:response] + b"}")
        scores = orjson.loads(data[scores_at + len(_SCORES) : transcript])
    except orjson.JSONDecodeError:
        return None
    if not isinstance(row, dict):
        return None
    row["scores"] = scores
    row["schema"] = SCHEMA_VERSION  # as the line's end says
    return row


def _whole_row(line: bytes, where: str) -> tuple[dict[str, Any] | None, str]:
    """A line read whole, as `results.read_rows` reads it: the row (migrated) or why it is damaged."""
    row, why = parsed_line(line)
    if row is None:
        return None, why
    why = row_problem(row, where) or ""
    return (None, why) if why else (migrate(row), "")


@dataclass
class _Part:
    """One byte range of results.jsonl, scanned: its columns, each kept row's cell key, and what was
    set aside (line numbers are global: the range knows the line it starts on)."""

    columns: Columns
    keys: list[tuple[Any, ...]]
    damaged: int
    duplicates: int
    first: str | None


def _scan_range(data: bytes, position: int, stop: int, number: int, results: Path) -> _Part:
    columns = Columns()
    keys: list[tuple[Any, ...]] = []
    seen: set[tuple[Any, ...]] = set()
    damaged = duplicates = 0
    first: str | None = None
    while position < stop:
        end = data.find(b"\n", position, stop)
        end = stop if end < 0 else end + 1
        start, position, number = position, end, number + 1
        row = _fast_row(data, start, end)
        why = _index_problem(row) if row is not None else None
        if row is None:
            line = data[start:end]
            if not line.strip():
                continue
            row, why = _whole_row(line, f"{results} line {number}")
        if row is None or why:
            damaged += 1
            first = first or f"line {number}: {why}"
            continue
        key = (
            row["model"],
            row["strategy"],
            row["modality"],
            row["seed_id"],
            row["variant"],
            row.get("repeat", 0),
            row.get("render", DEFAULT_RENDER),
            row.get("perturbation", NO_PERTURBATION),
        )
        if key in seen:
            duplicates += 1
            continue
        seen.add(key)
        keys.append(key)
        columns.add(row, start, end - start)
    return _Part(columns, keys, damaged, duplicates, first)


# A cold start of a large run scans its halves in two forked processes (the bytes are shared, not
# copied); below this size, or where fork is unavailable, one pass is quicker than starting one.
PARALLEL_BYTES = 32_000_000
_SHARED: bytes = b""  # the file's bytes, for the forked worker


def _scan_second_half(args: tuple[int, int, int, Path]) -> _Part:
    position, stop, number, results = args
    return _scan_range(_SHARED, position, stop, number, results)


def scan_results(results: Path, data: bytes | None = None) -> tuple[Columns, LinesSeen]:
    """The index's columns of results.jsonl (`data`: its bytes, when already read)."""
    global _SHARED
    data = results.read_bytes() if data is None else data
    begin = len(BOM) if data.startswith(BOM) else 0
    middle = data.find(b"\n", begin + (len(data) - begin) // 2) + 1
    if len(data) < PARALLEL_BYTES or middle <= 0 or "fork" not in multiprocessing.get_all_start_methods():
        part = _scan_range(data, begin, len(data), 0, results)
        return part.columns, LinesSeen(part.damaged, part.duplicates, part.first)
    _SHARED = data
    try:
        with ProcessPoolExecutor(1, mp_context=multiprocessing.get_context("fork")) as pool:
            later = pool.submit(
                _scan_second_half, (middle, len(data), data.count(b"\n", begin, middle), results)
            )
            first_half = _scan_range(data, begin, middle, 0, results)
            second_half = later.result()
    finally:
        _SHARED = b""
    return _joined(first_half, second_half)


def _joined(first: _Part, second: _Part) -> tuple[Columns, LinesSeen]:
    """Two consecutive ranges as one scan: the second's codes renumbered into the first's
    vocabularies, and its rows of cells the first already holds dropped (the first row counts)."""
    columns = first.columns
    held = set(first.keys)
    keep = [i for i, key in enumerate(second.keys) if key not in held]
    for name in CODED:
        lookup = columns.lookup[name]
        renumbered = [lookup.setdefault(value, len(lookup)) for value in second.columns.lookup[name]]
        codes = second.columns.codes[name]
        columns.codes[name].extend(renumbered[codes[i]] for i in keep)
    for name in NUMERIC:
        numbers = second.columns.numbers[name]
        columns.numbers[name].extend(numbers[i] for i in keep)
    columns.truth.extend(second.columns.truth[i] for i in keep)
    columns.extracted.extend(second.columns.extracted[i] for i in keep)
    duplicates = first.duplicates + second.duplicates + len(second.keys) - len(keep)
    return columns, LinesSeen(first.damaged + second.damaged, duplicates, first.first or second.first)
