"""Reading what a release (or a study file) names, within its folder and within size bounds.

Release files come from elsewhere, so nothing in them is trusted: a path an item names is resolved
(symlinks followed) and must stay inside the release root the user named (`contained`); the root
itself may be a symlink, since the user chose it. Every read has a bound (`Limits`), checked on the
size a file or zip member declares and again while reading, since a declared size can lie. A read
never blocks: a FIFO, a device or a folder where a file is expected is refused.

The bounds, each raised by an environment variable (a number; MB are 1,000,000 bytes):

| bound | default | variable |
| --- | --- | --- |
| one image (file, zip member, parquet cell, base64 text) | 20 MB | ISODYN_MAX_IMAGE_MB |
| one text field of an item (characters) | 1 MB | ISODYN_MAX_TEXT_MB |
| a data file (dataset.json, *.jsonl, *.parquet: stored, unpacked; a program) | 256 MB | ISODYN_MAX_FILE_MB |
| the pictures an IsoBench release's items hold in memory | 4 x the above | ISODYN_MAX_FILE_MB |
| a study file (`config=`) | 1 MB | ISODYN_MAX_STUDY_MB |
| items in one data file, or made by one `exp generate` | 100,000 | ISODYN_MAX_ITEMS |
| members of one zip | 100,000 | ISODYN_MAX_ZIP_MEMBERS |
| one model server's reply body, decoded (models/bounded.py) | 32 MB | ISODYN_MAX_REPLY_MB |

Values nested deeper than MAX_DEPTH and pictures with more pixels than PIL's own bound are refused too.
"""

from __future__ import annotations

import io
import os
import re
import stat
import zipfile
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from isodyn.core import JsonObject
from isodyn.errors import IsodynError

MB = 1_000_000
MAX_DEPTH = 64  # nesting of one item's value: real releases nest 2 or 3 deep (a matrix, a dict of labels)
PARQUET_BATCH_ROWS = 8  # rows decoded at a time: a bomb is stopped after one small batch


class ReleaseError(IsodynError, ValueError):
    """A release that cannot be read; the message is one line naming the problem."""


@dataclass(frozen=True)
class Bound:
    name: str  # the Limits field
    variable: str
    default: float
    unit: int  # bytes per unit of the variable (MB) or 1 for counts


BOUNDS = (
    Bound("image_bytes", "ISODYN_MAX_IMAGE_MB", 20, MB),
    Bound("text_chars", "ISODYN_MAX_TEXT_MB", 1, MB),
    Bound("file_bytes", "ISODYN_MAX_FILE_MB", 256, MB),
    Bound("study_bytes", "ISODYN_MAX_STUDY_MB", 1, MB),
    Bound("items", "ISODYN_MAX_ITEMS", 100_000, 1),
    Bound("zip_members", "ISODYN_MAX_ZIP_MEMBERS", 100_000, 1),
    Bound("reply_bytes", "ISODYN_MAX_REPLY_MB", 32, MB),
)
_BY_NAME = {bound.name: bound for bound in BOUNDS}


@dataclass(frozen=True)
class Limits:
    image_bytes: int
    text_chars: int
    file_bytes: int
    study_bytes: int
    items: int
    zip_members: int
    reply_bytes: int


def limits() -> Limits:
    """The bounds in force: the defaults, each replaced by its environment variable when set (read
    on every call, so a test or a long session can change them)."""
    values = {}
    for bound in BOUNDS:
        text = os.environ.get(bound.variable, "").strip()
        try:
            number = float(text) if text else bound.default
        except ValueError:
            number = -1.0
        if not 0 < number < 1e15:
            raise ReleaseError(f"{bound.variable}={text!r}: must be a number above zero")
        values[bound.name] = max(1, int(number * bound.unit))
    return Limits(**values)


def too_big(where: str, what: str, size: int | None, limit: int, bound: str) -> ReleaseError:
    """The one-line refusal of something over a bound, saying which variable raises it."""
    variable = _BY_NAME[bound].variable
    unit = "" if _BY_NAME[bound].unit == 1 else " bytes"
    amount = f" {size:,}{unit}," if size is not None else ""
    return ReleaseError(
        f"{where}: {what} is{amount} over the bound of {limit:,}{unit} (raise it with {variable})"
    )


# ------------------------------------------------------------------------------------------ paths

_DRIVE = re.compile(r"^[A-Za-z]:")


def contained(root: Path, named: str | Path, where: str, base: Path | None = None) -> Path:
    """The file `named` (relative to `base`, default `root`) resolved, symlinks followed; a
    ReleaseError naming `where` and the path when it leads outside `root` (itself resolved), holds a
    NUL, names a drive (`C:`) or loops. Backslashes are read as separators (releases written on
    Windows)."""
    text = str(named)
    if "\x00" in text:
        raise ReleaseError(f"{where}: path {text!r} holds a NUL character")
    text = text.replace("\\", "/")
    if _DRIVE.match(text):
        raise ReleaseError(f"{where}: path {text!r} names a drive; paths are relative to the release")
    try:
        home = root.resolve()
        found = ((base or root) / text).resolve()
    except (OSError, RuntimeError) as exc:  # 3.11 raises RuntimeError for a symlink loop
        raise ReleaseError(f"{where}: path {text!r} cannot be resolved ({exc})") from None
    if not found.is_relative_to(home):
        raise ReleaseError(f"{where}: path {text!r} leads outside the release folder {root} (to {found})")
    return found


def member_problem(name: str) -> str | None:
    """Why a zip member's name is refused (absolute, a drive, `..` after reading backslashes as
    separators, a NUL), or None."""
    if "\x00" in name:
        return "holds a NUL character"
    posix = name.replace("\\", "/")
    if posix.startswith("/") or _DRIVE.match(posix):
        return "is absolute"
    if ".." in posix.split("/"):
        return "climbs out with '..'"
    return None


# ------------------------------------------------------------------------------------------ reads


def read_bounded(path: Path, limit: int, where: str, bound: str, what: str = "the file") -> bytes:
    """The bytes of the regular file `path`, refused over `limit` (its size, then what is read).
    Opened without blocking, so a FIFO or a device is refused at once rather than read or waited on."""
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_BINARY", 0)
    try:
        handle = os.open(path, flags)
    except OSError as exc:
        raise ReleaseError(f"{where}: cannot read {path} ({exc.strerror or exc})") from None
    with os.fdopen(handle, "rb") as file:
        info = os.fstat(file.fileno())
        if not stat.S_ISREG(info.st_mode):
            raise ReleaseError(f"{where}: {path} is not a regular file")
        if info.st_size > limit:
            raise too_big(where, f"{what} {path.name}", info.st_size, limit, bound)
        try:
            data = file.read(limit + 1)
        except OSError as exc:
            raise ReleaseError(f"{where}: cannot read {path} ({exc.strerror or exc})") from None
    if len(data) > limit:  # it grew since fstat
        raise too_big(where, f"{what} {path.name}", None, limit, bound)
    return data


def read_member(archive: zipfile.ZipFile, member: str, limit: int, where: str) -> bytes:
    """A zip member's bytes: refused when it declares more than `limit`, and never more than
    `limit` read whatever it declares."""
    info = archive.getinfo(member)
    if info.file_size > limit:
        raise too_big(where, f"member {member!r} (as it declares)", info.file_size, limit, "image_bytes")
    with archive.open(info) as handle:
        data = handle.read(limit + 1)
    if len(data) > limit:
        raise too_big(where, f"member {member!r} (as read)", None, limit, "image_bytes")
    return data


def check_members(path: Path, count: int, limit: int) -> None:
    if count > limit:
        raise too_big(str(path), "the zip's member count", count, limit, "zip_members")


def declared_members(path: Path) -> int | None:
    """The member count a zip's end record declares (read from its last 22 bytes, before zipfile
    reads its whole directory into memory); None when the zip has a comment or is zip64."""
    try:
        with path.open("rb") as file:
            file.seek(0, os.SEEK_END)
            if file.tell() < 22:
                return None
            file.seek(-22, os.SEEK_END)
            end = file.read(22)
    except OSError:
        return None
    if end[:4] != b"PK\x05\x06":
        return None
    count = int.from_bytes(end[10:12], "little")
    return None if count == 0xFFFF else count


def check_count(count: int, where: str, limit: int) -> None:
    if count > limit:
        raise too_big(where, "the number of items", count, limit, "items")


def check_value(value: Any, limit: int, where: str) -> None:
    """Refuse a value (text, or a list or dict of them) holding more than `limit` characters, or
    nested deeper than MAX_DEPTH. Walked without recursion and stopped at the bound."""
    size = 0
    stack: list[tuple[Any, int]] = [(value, 0)]
    while stack:
        item, depth = stack.pop()
        if depth > MAX_DEPTH:
            raise ReleaseError(f"{where} is nested more than {MAX_DEPTH} levels deep")
        if isinstance(item, str | bytes | bytearray):
            size += len(item)
        elif isinstance(item, dict):
            size += len(item)
            stack.extend((v, depth + 1) for v in item.values())
            stack.extend((k, depth + 1) for k in item)
        elif isinstance(item, list | tuple):
            size += len(item)
            stack.extend((v, depth + 1) for v in item)
        elif hasattr(item, "tolist") and hasattr(item, "size"):  # a numpy array from parquet
            size += int(item.size)
            if size <= limit:
                stack.append((item.tolist(), depth))
        else:
            size += 1
        if size > limit:
            raise too_big(where, "its text", None, limit, "text_chars")


def check_fields(record: JsonObject, skip: Iterable[str], limit: int, where: str) -> None:
    """Every field of a record but those in `skip` (pictures) within the text bound."""
    skipped = set(skip)
    for name, value in record.items():
        if name not in skipped:
            check_value(value, limit, f"{where} field {name!r}")


def check_image(data: Any, limit: int, where: str) -> bytes:
    """Bytes that are a picture PIL recognizes, within `limit` bytes and PIL's pixel bound (only
    the header is read: nothing is decoded here)."""
    if not isinstance(data, bytes | bytearray | memoryview):
        raise ReleaseError(f"{where}: its image is a {type(data).__name__}, not bytes")
    data = bytes(data)
    if len(data) > limit:
        raise too_big(where, "its image", len(data), limit, "image_bytes")
    import warnings

    from PIL import Image

    try:
        with warnings.catch_warnings():
            warnings.simplefilter("error", Image.DecompressionBombWarning)
            with Image.open(io.BytesIO(data)) as opened:
                width, height = opened.size
    except (Image.DecompressionBombError, Image.DecompressionBombWarning):
        raise ReleaseError(f"{where}: its image has more pixels than {Image.MAX_IMAGE_PIXELS:,}") from None
    except Exception:  # PIL raises many kinds for bytes that are no picture
        raise ReleaseError(f"{where}: image is not a readable picture (it starts {data[:12]!r})") from None
    if width * height == 0:
        raise ReleaseError(f"{where}: its image is empty ({width} x {height} pixels)")
    return data


def read_parquet_rows(path: Path, where: str) -> tuple[list[str], list[JsonObject]]:
    """A parquet file's column names and rows as dicts (a picture struct as {"bytes", "path"}), read
    in small batches: its size on disk, its declared row count and uncompressed size are checked
    first, and reading stops as soon as the decoded rows pass the file bound (a compressed column can
    hold a huge string). pandas' index column is left out."""
    bounds = limits()
    read_bounded_size(path, bounds.file_bytes, where)
    import pyarrow.parquet as pq

    try:
        with pq.ParquetFile(path) as parquet:
            meta = parquet.metadata
            check_count(meta.num_rows, where, bounds.items)
            declared = sum(meta.row_group(i).total_byte_size for i in range(meta.num_row_groups))
            if declared > bounds.file_bytes:
                raise too_big(where, "its uncompressed data", declared, bounds.file_bytes, "file_bytes")
            columns = list(meta.schema.to_arrow_schema().names)
            rows: list[JsonObject] = []
            decoded = 0
            for batch in parquet.iter_batches(batch_size=PARQUET_BATCH_ROWS):
                decoded += batch.nbytes
                if decoded > bounds.file_bytes:
                    raise too_big(where, "its decoded data", None, bounds.file_bytes, "file_bytes")
                rows.extend(_without_index(row) for row in batch.to_pylist())
    except ReleaseError:
        raise
    except Exception as exc:  # pyarrow raises its own kinds for a damaged file
        first = (str(exc).splitlines() or [type(exc).__name__])[0]
        raise ReleaseError(f"{where}: cannot read it as parquet ({first})") from None
    return [c for c in columns if c != "__index_level_0__"], rows


def _without_index(row: JsonObject) -> JsonObject:
    return {k: v for k, v in row.items() if k != "__index_level_0__"}


def read_bounded_size(path: Path, limit: int, where: str) -> None:
    """Refuse a file that is not regular or is over `limit` bytes, without reading it."""
    try:
        info = path.stat()
    except OSError as exc:
        raise ReleaseError(f"{where}: cannot read it ({exc.strerror or exc})") from None
    if not stat.S_ISREG(info.st_mode):
        raise ReleaseError(f"{where}: not a regular file")
    if info.st_size > limit:
        raise too_big(where, "the file", info.st_size, limit, "file_bytes")


def read_text(path: Path, where: str) -> str:
    """A data file's text (UTF-8, a BOM dropped), within the file bound."""
    data = read_bounded(path, limits().file_bytes, where, "file_bytes")
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise ReleaseError(f"{where}: not UTF-8 text (byte {exc.start + 1})") from None
