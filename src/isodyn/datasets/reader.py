"""The one reader of release files and the one image check, shared by every importer.

Built on `datasets.contained`, which keeps every path inside the release the user named and bounds
every read. What is here:

- `read_json`: one JSON document (DynaMath's `dataset.json`);
- `read_records`: the records of a data file: parquet rows, a JSON document holding records (a list,
  a split holding a list, a dict keyed by id, columns of equal length, or one record), or JSON lines
  (also under a `.json` name), each a dict with where it stands (`Located`);
- `find_image`, `read_image`, `checked_image`: the picture an item names, looked up inside the release,
  read within the image bound, and checked to be a picture within the pixel bound; `zip_index`: the
  pictures a zip holds, by name and base name, members that would leave the release never matched;
- field-map helpers: `resolve_columns` (canonical field -> a file's column, by aliases), `label` and
  `lookup` (a released label in a table), `clean` (plain values), `one_line` (messages).

Every problem is a `ReleaseError` of one line naming the file and the line or item.
"""

from __future__ import annotations

import json
import math
import re
import zipfile
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path, PurePosixPath
from typing import Any, NamedTuple, TypeVar

from isodyn.datasets.contained import (
    ReleaseError,
    check_count,
    check_image,
    check_members,
    contained,
    declared_members,
    limits,
    member_problem,
    read_bounded,
    read_parquet_rows,
    read_text,
)

T = TypeVar("T")

# Keys under which a JSON document holds its list of records (a split, as a hub download names it).
SPLIT_KEYS = ("validation", "data", "rows", "items", "examples")

# ------------------------------------------------------------------------------------------ messages


def one_line(text: object, limit: int = 160) -> str:
    """`text` on one line, cut to `limit` characters (a released value quoted in a message)."""
    flat = " ".join(str(text).split())
    return flat if len(flat) <= limit else flat[: limit - 3] + "..."


# ---------------------------------------------------------------------------------------- field maps

FieldMap = Mapping[str, tuple[str, ...]]  # canonical field -> the column names a release uses for it


def resolve_columns(fields: FieldMap, columns: Iterable[str], *, fold_case: bool = True) -> dict[str, str]:
    """Canonical field -> the file's column for it: the first alias that is a column, else (with
    `fold_case`) the first that is one ignoring case. Fields without a column are left out."""
    present = list(columns)
    folded = {c.lower(): c for c in reversed(present)}  # the first spelling wins
    found = {}
    for name, aliases in fields.items():
        exact = next((alias for alias in aliases if alias in present), None)
        if exact is None and fold_case:
            exact = next((folded[a.lower()] for a in aliases if a.lower() in folded), None)
        if exact is not None:
            found[name] = exact
    return found


def label(value: Any) -> str:
    """A released label as looked up: lower case, runs of spaces, `_` and `-` as one space."""
    return re.sub(r"[\s_\-]+", " ", str(value)).strip().lower()


def lookup(table: Mapping[str, T], value: Any, what: str, where: str) -> T:
    """The entry of `table` (keyed by `label`s) for a released value, or a ReleaseError naming it."""
    found = table.get(label(value))
    if found is None:
        raise ReleaseError(
            f"{where}: unknown {what} {one_line(repr(value))}; expected one of {', '.join(sorted(table))}"
        )
    return found


def clean(value: Any) -> Any:
    """Plain Python values: None for null and NaN, numpy scalars and arrays (parquet) unwrapped."""
    if value is None:
        return None
    if hasattr(value, "tolist") and not isinstance(value, bytes | bytearray | str):
        value = value.tolist()
    if isinstance(value, float) and math.isnan(value):
        return None
    return value


# ---------------------------------------------------------------------------------------------- JSON


def read_json(path: Path) -> Any:
    """The JSON document in `path`, read within the file bound."""
    text = read_text(path, str(path))
    try:
        return json.loads(text)
    except (json.JSONDecodeError, RecursionError) as exc:
        reason = "nested too deep" if isinstance(exc, RecursionError) else str(exc)
        raise ReleaseError(f"{path}: cannot read it as JSON ({reason})") from None


@dataclass(frozen=True)
class Located:
    """One record of a data file and where it stands."""

    key: str  # its default id: its line, its place in a list (from 1), or its key in a dict
    where: str  # for messages: "line 7", "item 7", "item abc"
    value: dict[str, Any]
    keyed: bool = False  # filed under `key` in a dict of records keyed by id


class Found(NamedTuple):
    """A value read, before it is known to be a record (a `Located`)."""

    key: str
    where: str
    value: Any
    keyed: bool = False


def read_records(path: Path, *, blank_lines: bool = True) -> list[Located]:
    """The records of a parquet, JSON or JSON-lines file, each a dict, within the file and item
    bounds. `blank_lines=False`: a blank line between records is refused (a release whose ids are
    line numbers), not skipped."""
    try:
        if path.stat().st_size == 0:
            raise ReleaseError(f"{path} is empty")
    except OSError as exc:
        raise ReleaseError(f"{path}: cannot read it ({one_line(exc)})") from exc
    if path.suffix.lower() == ".parquet":
        rows = read_parquet_rows(path, str(path))[1]
        found = [Found(str(n), f"item {n}", row) for n, row in enumerate(rows, start=1)]
    else:
        found = _json_records(path, read_text(path, str(path)), blank_lines)
    if not found:
        raise ReleaseError(f"{path} has no items")
    check_count(len(found), str(path), limits().items)
    records = []
    for key, where, value, keyed in found:
        if not isinstance(value, dict):
            raise ReleaseError(f"{path} {where} is a JSON {type(value).__name__}, not an object")
        records.append(Located(key, where, value, keyed))
    return records


def _json_records(path: Path, text: str, blank_lines: bool) -> list[Found]:
    if not text.strip():
        raise ReleaseError(f"{path} is empty")
    if path.suffix.lower() == ".json":
        try:
            whole = json.loads(text)
        except json.JSONDecodeError:
            pass  # JSON lines under a .json name (`Dataset.to_json` writes them): read line by line
        except RecursionError:
            raise ReleaseError(f"{path}: cannot read it as JSON (nested too deep)") from None
        else:
            return _document_records(path, whole)
    return _json_lines(path, text, blank_lines)


def _document_records(path: Path, whole: Any) -> list[Found]:
    """The records a JSON document holds: a list, a split holding a list, records keyed by id, columns
    of one length, or (any other object) one record."""
    if isinstance(whole, dict):
        values = list(whole.values())
        split = next((whole[key] for key in SPLIT_KEYS if isinstance(whole.get(key), list)), None)
        if split is not None:
            whole = split
        elif values and all(isinstance(v, dict) for v in values):
            check_count(len(whole), str(path), limits().items)
            return [Found(str(key), f"item {key}", value, keyed=True) for key, value in whole.items()]
        elif values and all(isinstance(v, list) for v in values) and len({len(v) for v in values}) == 1:
            whole = [dict(zip(whole, row, strict=True)) for row in zip(*values, strict=True)]  # columns
        else:
            whole = [whole] if whole else []
    if not isinstance(whole, list):
        raise ReleaseError(f"{path}: expected a list of records (or one record per line)")
    check_count(len(whole), str(path), limits().items)
    return [Found(str(n), f"item {n}", value) for n, value in enumerate(whole, start=1)]


def _json_lines(path: Path, text: str, blank_lines: bool) -> list[Found]:
    lines = [line.removesuffix("\r") for line in text.split("\n")]  # not splitlines: U+2028 is text
    while lines and not lines[-1].strip():
        lines.pop()  # a trailing newline (or several) is no record
    check_count(sum(1 for line in lines if line.strip()), str(path), limits().items)  # before parsing
    records = []
    for n, line in enumerate(lines, start=1):
        if not line.strip():
            if blank_lines:
                continue
            raise ReleaseError(f"{path} line {n} is empty (one record a line: ids are line numbers)")
        try:
            value = json.loads(line)
        except RecursionError:
            raise ReleaseError(f"{path} line {n} is not valid JSON (nested too deep)") from None
        except json.JSONDecodeError as exc:
            truncated = exc.pos >= len(line.rstrip()) or exc.msg.startswith("Unterminated string")
            state = "truncated" if truncated else "not valid JSON"
            raise ReleaseError(f"{path} line {n} is {state} ({exc.msg}; column {exc.colno})") from exc
        records.append(Found(str(n), f"line {n}", value))
    return records


# ------------------------------------------------------------------------------------------ pictures


@dataclass(frozen=True)
class FoundImage:
    """A picture file an item names: as named (for params and messages), and resolved."""

    named: Path  # the folder it was looked up in, joined with the name (not resolved)
    path: Path  # resolved, symlinks followed: inside the release


def find_image(root: Path, candidates: Iterable[tuple[Path, str]], where: str) -> FoundImage | None:
    """The first of `candidates` (folder, name as the release writes it) that is a file, or None.
    Each is resolved in turn and refused (ReleaseError) when it leads outside `root`, holds a NUL,
    names a drive or loops, even when a later one would be found."""
    for folder, name in candidates:
        candidate = contained(root, name, where, base=folder)
        if candidate.is_file():
            return FoundImage(folder / name, candidate)
    return None


def read_image(path: Path, where: str, what: str = "its image") -> bytes:
    """A picture file's bytes, refused over the image bound before and while it is read (a regular
    file only: a FIFO is not waited on). Not yet checked: see `checked_image`."""
    return read_bounded(path, limits().image_bytes, where, "image_bytes", what)


def checked_image(data: Any, where: str) -> bytes:
    """The image check every importer ends with: bytes PIL recognizes as a picture, within the image
    bound and PIL's pixel bound (only the header is read)."""
    return check_image(data, limits().image_bytes, where)


@dataclass(frozen=True)
class ZipIndex:
    """The members of a zip by name and base name."""

    names: frozenset[str]
    by_base: dict[str, tuple[str, ...]]
    refused: dict[str, str]  # base name -> the first member refused for its name, and why
    count: int  # members (checked against the bound on every use: the bound may change, not the zip)


def zip_index(path: Path) -> ZipIndex:
    """The members of the zip at `path`, within the member bound; read once per version of the file.
    Members named absolute, with a drive or with `..` are never matched (they are kept only to say why)."""
    try:
        stat = path.stat()
    except OSError as exc:
        raise ReleaseError(f"{path}: cannot read it ({exc.strerror or exc})") from exc
    index = _zip_index(path, stat.st_mtime_ns, stat.st_size)
    check_members(path, index.count, limits().zip_members)
    return index


@lru_cache(maxsize=8)
def _zip_index(path: Path, mtime_ns: int, size: int) -> ZipIndex:
    check_members(path, declared_members(path) or 0, limits().zip_members)  # before zipfile reads them all
    try:
        with zipfile.ZipFile(path) as archive:
            names = [name for name in archive.namelist() if not name.endswith("/")]
    except (OSError, zipfile.BadZipFile) as exc:
        raise ReleaseError(f"{path}: not a readable zip ({exc})") from exc
    by_base: dict[str, list[str]] = {}
    refused: dict[str, str] = {}
    for name in names:
        base = PurePosixPath(name.replace("\\", "/")).name
        if problem := member_problem(name):
            refused.setdefault(base, f"zip member {name!r} {problem}")
            continue
        by_base.setdefault(base, []).append(name)
    kept = frozenset(n for found in by_base.values() for n in found)
    by_name = {base: tuple(sorted(found)) for base, found in by_base.items()}
    return ZipIndex(kept, by_name, refused, len(names))
