"""Opening, checking and setting aside the diskcache stores of a cache directory, and knowing which
directories are caches at all.

A store is a directory holding an SQLite file. A damaged one (a disk error, a copy cut short, a
file written over it) must not turn every command into a traceback: opening names the store and the
way out, `exp cache clear` removes what it cannot open, and `exp cache repair` sets a damaged store
aside (renamed, nothing deleted) so the next run starts a fresh one.

The cache owns only what it made. A run writes a marker file (`MARKER`, naming isodyn and a format
version) into the cache directory before it opens a store there; `exp cache clear`, `repair` and
`prune` act only on a marked directory, and even there touch only diskcache's own files inside the
store directories (`cache.db*` and the `xx/yy/<hex>.val` value files), never anything else.
`exp cache stats`, `clear`, `repair` and `prune` create nothing.

Caches made before the marker existed are adopted (marked) when the directory holds nothing but
isodyn's names (`responses`, `replays`, `renders`, `locks`, `dspy`, `programs`, `last_run.json`, stores set
aside as `NAME.damaged-*`) and every store directory holds only diskcache's files, its `cache.db`
an SQLite file. Anything else is refused as "not an isodyn cache", and left as it is.

A store that cannot be read for want of permission is reported as such (`CacheUnreadable`), never
as damaged: another user's healthy cache is no damaged one.
"""

from __future__ import annotations

import contextlib
import errno
import json
import os
import re
import sqlite3
import tempfile
from datetime import UTC, datetime
from pathlib import Path

import diskcache

from isodyn.errors import IsodynError

STORES = ("responses", "replays", "renders")  # replies, the cell memo, drawings
MARKER = "isodyn-cache.json"
FORMAT = 1
# Other names a run or a command of isodyn leaves in a cache directory.
OTHER_NAMES = ("locks", "dspy", "programs", "last_run.json", MARKER)
DB_FILES = ("cache.db", "cache.db-wal", "cache.db-shm", "cache.db-journal")
SQLITE_HEADER = b"SQLite format 3\x00"
_HEX2 = re.compile(r"[0-9a-f]{2}")
_VALUE_FILE = re.compile(r"[0-9a-f]{28}\.val")  # diskcache: 32 hex digits, the first 4 as two dirs
_SET_ASIDE = re.compile(r"(responses|replays|renders)\.damaged-[0-9x-]+")
_PERMISSION = (errno.EACCES, errno.EPERM)


class CacheDamaged(IsodynError, RuntimeError):
    """A cache store that cannot be opened or read. `exp` turns this class (and its subclasses,
    which say other things) into one line and exit 2."""

    def __init__(self, directory: Path, reason: str) -> None:
        root = directory.parent
        super().__init__(
            f"cache store {directory} is damaged ({reason}); run `exp cache repair cache_dir={root}` to set "
            f"it aside, or `exp cache clear cache_dir={root}`"
        )
        self.directory = directory


class CacheUnreadable(CacheDamaged):
    """A store this user may not read or write: no damage, nothing to repair or delete."""

    def __init__(self, directory: Path, reason: str) -> None:
        RuntimeError.__init__(
            self,
            f"cannot read the cache: permission denied ({directory}: {reason}); use a cache_dir= of "
            "your own, or ask the owner of this one",
        )
        self.directory = directory


class NotACache(CacheDamaged):
    """A directory that isodyn did not make as a cache: it is refused and left as it is."""

    def __init__(self, directory: Path, why: str) -> None:
        RuntimeError.__init__(self, f"{directory} is not an isodyn cache ({why}); nothing was changed")
        self.directory = directory


def _reason(exc: BaseException) -> str:
    return str(exc).splitlines()[0] if str(exc) else type(exc).__name__


def is_permission_problem(exc: BaseException, path: Path) -> bool:
    """Whether opening `path` failed for want of permission rather than from damage. SQLite says
    "unable to open" or "readonly database" for an unreadable or unwritable file: look at the
    file's permissions then, since a damaged file says something else."""
    if isinstance(exc, OSError) and exc.errno in _PERMISSION:
        return True
    if isinstance(exc, sqlite3.OperationalError):
        message = str(exc)
        if "readonly" in message or "unable to open" in message:
            targets = [path, path / "cache.db"]
            return any(t.exists() and not os.access(t, os.R_OK | os.W_OK) for t in targets)
    return False


def open_store(directory: Path | str) -> diskcache.Cache:
    """The diskcache at `directory` (made when missing), or CacheDamaged naming it."""
    path = Path(directory)
    if path.exists() and not path.is_dir():
        raise NotACache(path.parent, f"{path.name} is a file isodyn did not make")
    try:
        return diskcache.Cache(str(path))
    except (sqlite3.DatabaseError, OSError) as exc:
        if is_permission_problem(exc, path):
            raise CacheUnreadable(path, _reason(exc)) from None
        raise CacheDamaged(path, _reason(exc)) from None


def store_problem(directory: Path) -> str | None:
    """Why the store at `directory` cannot be used, or None when it opens and checks clean (or is
    not there). CacheUnreadable when it cannot be read for want of permission (that is no damage)."""
    if not directory.is_dir():
        return None
    try:
        with diskcache.Cache(str(directory)) as store:
            found = store._sql("PRAGMA quick_check").fetchone()  # diskcache's own SQLite connection
            if not found or found[0] != "ok":
                return f"integrity check: {found[0] if found else 'no answer'}"
            len(store)
    except (sqlite3.DatabaseError, OSError) as exc:
        if is_permission_problem(exc, directory):
            raise CacheUnreadable(directory, _reason(exc)) from None
        return _reason(exc)
    return None


def set_aside(directory: Path) -> Path:
    """Rename a store out of the way (kept for a person to look at); returns its new path."""
    stamp = datetime.now(UTC).strftime("%Y%m%d-%H%M%S")
    target = directory.with_name(f"{directory.name}.damaged-{stamp}")
    while target.exists():
        target = target.with_name(target.name + "x")
    directory.rename(target)
    return target


def remove_store(directory: Path) -> list[str]:
    """Delete a store's own files (what `clear` does to a store it cannot open): the SQLite files
    and diskcache's value files, then the directories they leave empty. Anything else is kept;
    returns the names of what was kept."""
    if not directory.is_dir() or directory.is_symlink():
        return [directory.name] if directory.exists() or directory.is_symlink() else []
    for name in DB_FILES:
        if (directory / name).is_file():
            (directory / name).unlink()
    for first in _hex_dirs(directory):
        for second in _hex_dirs(first):
            for value in second.iterdir():
                if value.is_file() and not value.is_symlink() and _VALUE_FILE.fullmatch(value.name):
                    value.unlink()
            _remove_if_empty(second)
        _remove_if_empty(first)
    kept = sorted(p.name for p in directory.iterdir())
    _remove_if_empty(directory)
    return kept


def _hex_dirs(directory: Path) -> list[Path]:
    return [p for p in directory.iterdir() if _HEX2.fullmatch(p.name) and p.is_dir() and not p.is_symlink()]


def _remove_if_empty(directory: Path) -> None:
    with contextlib.suppress(OSError):  # not empty: something that is not ours is in it
        directory.rmdir()


def has_store(directory: Path) -> bool:
    """A store isodyn made is there: a real directory (no link) with diskcache's SQLite file."""
    return directory.is_dir() and not directory.is_symlink() and (directory / "cache.db").is_file()


# ---- ownership ------------------------------------------------------------------------------------


def is_marked(root: Path) -> bool:
    """Whether `root` carries isodyn's marker (a JSON file naming isodyn and a format we read)."""
    try:
        data = json.loads((root / MARKER).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return False
    return isinstance(data, dict) and data.get("made_by") == "isodyn" and data.get("format") == FORMAT


def mark(root: Path) -> None:
    """Write the marker; atomic, so two runs that claim one cache at once leave one whole marker."""
    root.mkdir(parents=True, exist_ok=True)
    text = json.dumps({"made_by": "isodyn", "format": FORMAT, "what": "isodyn reply cache"}) + "\n"
    handle, temporary = tempfile.mkstemp(prefix=".marker-", dir=root)
    with os.fdopen(handle, "w", encoding="utf-8") as out:
        out.write(text)
    os.replace(temporary, root / MARKER)


def _foreign_in_store(store: Path) -> str | None:
    """The first name in a store directory that diskcache does not make, or None."""
    for entry in sorted(store.iterdir()):
        if entry.name in DB_FILES and entry.is_file():
            continue
        if _HEX2.fullmatch(entry.name) and entry.is_dir():
            continue
        return entry.name
    return None


def store_conflict(root: Path) -> str | None:
    """Why a run may not make its stores in `root`: a store's name taken by a file, or by a
    directory holding what diskcache does not make. None when the run may go ahead."""
    for name in STORES:
        store = root / name
        if store.is_symlink() or (store.exists() and not store.is_dir()):
            return f"{name} is a file or link isodyn did not make"
        if store.is_dir():
            foreign = _foreign_in_store(store)
            if foreign is not None:
                return f"{name}/ holds {foreign!r}, which isodyn did not make"
    return None


def _legacy_refusal(root: Path) -> str | None:
    """Why `root`, unmarked, is not a cache made before the marker existed; None to adopt it."""
    names = sorted(p.name for p in root.iterdir())
    foreign = [n for n in names if n not in STORES and n not in OTHER_NAMES and not _SET_ASIDE.fullmatch(n)]
    if foreign:
        return f"no {MARKER}, and it holds {foreign[0]!r}"
    if not any((root / n).is_dir() for n in STORES):
        return f"no {MARKER} and no store"
    conflict = store_conflict(root)
    if conflict:
        return conflict
    for name in STORES:
        database = root / name / "cache.db"
        if database.is_file() and database.stat().st_size and not _starts_sqlite(database):
            return f"{name}/cache.db is not an SQLite file"
    return None


def _starts_sqlite(path: Path) -> bool:
    with path.open("rb") as handle:
        return handle.read(len(SQLITE_HEADER)) == SQLITE_HEADER


def owned(root: Path) -> bool:
    """For the cache commands: True for isodyn's cache, False when there is none (no directory, or
    an empty one); NotACache for anything else. A cache made before the marker is adopted here."""
    try:
        if root.is_symlink() and not root.exists():
            raise NotACache(root, "a link to nothing")
        if not root.exists():
            return False
        if not root.is_dir():
            raise NotACache(root, "it is a file")
        if is_marked(root):
            return True
        if not any(root.iterdir()):
            return False
        refusal = _legacy_refusal(root)
    except PermissionError as exc:
        raise CacheUnreadable(root, _reason(exc)) from None
    if refusal:
        raise NotACache(root, refusal)
    # adopted: made by isodyn before the marker existed (a cache we may read but not write stays
    # unmarked, and is adopted again next time)
    with contextlib.suppress(OSError):
        mark(root)
    return True


def claim(root: Path) -> None:
    """For a run, which asks for a cache: mark `root` (made when missing) as isodyn's, or raise
    NotACache when a store's name there is taken by something isodyn did not make."""
    try:
        conflict = store_conflict(root) if root.is_dir() else None
    except PermissionError as exc:
        raise CacheUnreadable(root, _reason(exc)) from None
    if conflict:
        raise NotACache(root, conflict)
    if not is_marked(root):
        try:
            mark(root)
        except PermissionError as exc:
            raise CacheUnreadable(root, _reason(exc)) from None
