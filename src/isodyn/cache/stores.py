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

Caches made before the marker existed are adopted (marked, as format 1: they hold pickles) when
the directory holds nothing but isodyn's names (`responses`, `replays`, `renders`, `locks`, `dspy`,
`programs`, `last_run.json`, `models.json`, stores set aside as `NAME.damaged-*`) and every store
directory holds only diskcache's files, its `cache.db` an SQLite file. Anything else is refused as
"not an isodyn cache", and left as it is.

A store that cannot be read for want of permission is reported as such (`CacheUnreadable`), never
as damaged: another user's healthy cache is no damaged one.

Nothing in a store can run code: every store is opened with `SafeDisk`, which keeps keys and values
as diskcache's raw modes (bytes, text, numbers; records as JSON, by their own codecs) and never
unpickles. A store holding a pickled key or value (an older isodyn's cache, or one someone crafted)
is refused on opening and on reading (`PickledStore`), and an entry that names a value file other
than diskcache's own inside the store is neither read nor deleted. The marker's format says which
layout a cache has: format 1 (and caches made before the marker) held pickles; a run refuses one
(`OlderCache`) until `exp cache migrate` has converted it.
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
from typing import Any

import diskcache
from diskcache.core import DEFAULT_SETTINGS, METADATA, MODE_PICKLE, UNKNOWN

from isodyn.cache.folder import MARKER, OTHER_NAMES, STORE_NAMES, Stores
from isodyn.errors import IsodynError

STORES = STORE_NAMES  # replies, the cell memo, drawings (`folder.Stores` names their paths)
FORMAT = 2  # 2: no pickles (bytes, text, numbers; records as JSON); 1: diskcache's pickles
PICKLED_FORMAT = 1  # the format of a cache made before the marker, too
DB_FILES = ("cache.db", "cache.db-wal", "cache.db-shm", "cache.db-journal")
SQLITE_HEADER = b"SQLite format 3\x00"
_HEX2 = re.compile(r"[0-9a-f]{2}")
_VALUE_FILE = re.compile(r"[0-9a-f]{28}\.val")  # diskcache: 32 hex digits, the first 4 as two dirs
_SET_ASIDE = re.compile(rf"({'|'.join(STORES)})\.damaged-[0-9x-]+")
_PERMISSION = (errno.EACCES, errno.EPERM)
_PLAIN = frozenset({bytes, str, int, float})  # what diskcache stores as itself (its raw modes)
_SETTINGS = frozenset(DEFAULT_SETTINGS) | frozenset(METADATA)
# diskcache's own defaults let each store's SQLite connection keep 32 MB of pages and map 64 MB of its
# file: a run has three stores, so a long run's memory grew with them. Reads go through the
# operating system's file cache instead (a cached rerun is no slower).
_MEMORY_SETTINGS = {"sqlite_mmap_size": 0, "sqlite_cache_size": 512}  # pages of 4 KB: 2 MB a store
# An index of the pickled entries (none in a store of ours): opening finds one without a full scan.
_PICKLED = "mode = 4 OR raw = 0"  # MODE_PICKLE, or a key pickled (not stored raw)
_PICKLED_INDEX = f"CREATE INDEX IF NOT EXISTS isodyn_pickled ON Cache(rowid) WHERE {_PICKLED}"


class CacheDamaged(IsodynError, RuntimeError):
    """A cache store that cannot be opened or read. `exp` turns this class (and its subclasses,
    which say other things) into one line and exit 2."""

    reason = ""  # why, in a few words (a subclass says it all in its message)

    def __init__(self, directory: Path, reason: str) -> None:
        root = directory.parent
        super().__init__(
            f"cache store {directory} is damaged ({reason}); run `exp cache repair cache_dir={root}` to set "
            f"it aside, or `exp cache clear cache_dir={root}`"
        )
        self.directory = directory
        self.reason = reason

    def __reduce__(self) -> tuple[Any, tuple[Any, ...]]:
        # Sent whole from a worker process (`exp generate` draws in several): the default rebuilds
        # an exception by calling its class with its message, which these constructors do not take.
        return _rebuilt, (type(self), str(self), self.directory, self.reason)


def _rebuilt(kind: type[CacheDamaged], message: str, directory: Path, reason: str) -> CacheDamaged:
    error = kind.__new__(kind)
    RuntimeError.__init__(error, message)
    error.directory, error.reason = directory, reason
    return error


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


class PickledStore(CacheDamaged):
    """A store holding a pickled key or value: isodyn never unpickles (a crafted pickle runs code)."""

    def __init__(self, directory: Path) -> None:
        RuntimeError.__init__(
            self,
            f"cache store {directory} holds pickled values, which isodyn does not read (they can run "
            f"code); use a fresh cache_dir=, or `exp cache migrate cache_dir={directory.parent}` if "
            "this cache is your own",
        )
        self.directory = directory


class OlderCache(CacheDamaged):
    """A cache written by an older isodyn (pickled values): a run refuses it until it is migrated."""

    def __init__(self, root: Path, found: int) -> None:
        RuntimeError.__init__(
            self,
            f"cache {root} was written by an older isodyn (format {found}: pickled values, which "
            f"isodyn no longer reads); run `exp cache migrate cache_dir={root}` once to convert it, "
            "or use a fresh cache_dir=",
        )
        self.directory = root


class SafeDisk(diskcache.Disk):
    """diskcache's serializer without pickle: keys and values are bytes, text or numbers (diskcache's
    raw modes); storing anything else is a TypeError, and reading a pickled key or value raises
    PickledStore. Value files are read and deleted only under diskcache's own names in the store.
    Its behaviour lives in its methods, never in attributes, which a store's settings can set."""

    def __init__(self, directory: str, min_file_size: int = 0, pickle_protocol: int = 0, **_: Any) -> None:
        super().__init__(directory, min_file_size, pickle_protocol)

    def __setattr__(self, name: str, value: Any) -> None:
        if name == "min_file_size" and type(value) is not int:
            value = DEFAULT_SETTINGS["disk_min_file_size"]  # a forged setting
        if name in ("_directory", "min_file_size", "pickle_protocol"):
            object.__setattr__(self, name, value)

    def put(self, key: Any) -> tuple[Any, bool]:
        if not _plain(key):  # diskcache would pickle it
            raise TypeError(f"isodyn's stores take text, bytes or numbers as keys, not {type(key).__name__}")
        return super().put(key)

    def get(self, key: Any, raw: bool) -> Any:
        if not raw:
            raise PickledStore(Path(self._directory))
        return super().get(key, raw)

    def store(self, value: Any, read: bool, key: Any = UNKNOWN) -> Any:
        if not read and not _plain(value):  # diskcache would pickle it
            raise TypeError(f"isodyn's stores take text, bytes or numbers, not {type(value).__name__}")
        return super().store(value, read, key)

    def fetch(self, mode: int, filename: str | None, value: Any, read: bool) -> Any:
        if mode == MODE_PICKLE:
            raise PickledStore(Path(self._directory))
        if filename is not None and not is_value_file(filename):
            raise CacheDamaged(Path(self._directory), f"an entry names {filename[:60]!r}, not a value file")
        return super().fetch(mode, filename, value, read)

    def remove(self, file_path: str) -> None:
        if is_value_file(file_path):  # a forged entry naming another file: that file is left alone
            super().remove(file_path)


def _plain(value: Any) -> bool:
    """What diskcache stores as itself: bytes, text, a float, an integer of 64 bits."""
    kind = type(value)
    return kind in _PLAIN and (kind is not int or -(2**63) <= value < 2**63)


def is_value_file(name: str) -> bool:
    """Whether `name` (relative, as a store's row holds it) is a value file diskcache makes."""
    parts = name.split(os.sep) if type(name) is str else []
    return (
        len(parts) == 3 and bool(_HEX2.fullmatch(parts[0])) and bool(_HEX2.fullmatch(parts[1]))
        and bool(_VALUE_FILE.fullmatch(parts[2]))
    )  # fmt: skip


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


def open_store(directory: Path | str, *, pickles: bool = False) -> diskcache.Cache:
    """The diskcache at `directory` (made when missing), or CacheDamaged naming it. PickledStore
    when it holds a pickled entry, unless `pickles` (for clear, migrate and a viewer: even then
    nothing pickled is ever read, `SafeDisk` refuses it entry by entry)."""
    path = Path(directory)
    if path.exists() and not path.is_dir():
        raise NotACache(path.parent, f"{path.name} is a file isodyn did not make")
    try:
        store = diskcache.Cache(str(path), disk=SafeDisk, **_MEMORY_SETTINGS)
    except (sqlite3.DatabaseError, OSError) as exc:
        if is_permission_problem(exc, path):
            raise CacheUnreadable(path, _reason(exc)) from None
        raise CacheDamaged(path, _reason(exc)) from None
    except (KeyError, TypeError, ValueError) as exc:  # a forged setting (an eviction policy, a size)
        raise CacheDamaged(path, f"a setting diskcache cannot use ({_reason(exc)})") from None
    try:
        _check(store, path, pickles)
    except BaseException:
        diskcache.Cache.close(store)
        raise
    return store


def _check(store: diskcache.Cache, path: Path, pickles: bool) -> None:
    """Refuse a store whose settings diskcache does not write (they become the store's attributes)
    or, unless `pickles`, one holding a pickled entry."""
    try:
        names = {name for (name,) in store._sql("SELECT key FROM Settings").fetchall()}
        unknown = sorted(str(n) for n in names - _SETTINGS)
        if unknown:
            raise CacheDamaged(path, f"a setting diskcache does not write ({unknown[0][:40]!r})")
        if not pickles and has_pickles(store):
            raise PickledStore(path)
    except sqlite3.DatabaseError as exc:
        raise CacheDamaged(path, _reason(exc)) from None


def has_pickles(store: diskcache.Cache) -> bool:
    """Whether any key or value of `store` is pickled (looked up by an index of such entries, made
    here when missing; a store this user may not write is scanned)."""
    with contextlib.suppress(sqlite3.OperationalError):  # read-only: no index, a full scan
        store._sql(_PICKLED_INDEX)
    return store._sql(f"SELECT 1 FROM Cache WHERE {_PICKLED} LIMIT 1").fetchone() is not None


def store_problem(directory: Path) -> str | None:
    """Why the store at `directory` cannot be used, or None when it opens and checks clean (or is
    not there). CacheUnreadable when it cannot be read for want of permission (that is no damage).
    Pickled entries are no damage here (`exp cache migrate` converts them)."""
    if not directory.is_dir():
        return None
    try:
        with open_store(directory, pickles=True) as store:
            found = store._sql("PRAGMA quick_check").fetchone()  # diskcache's own SQLite connection
            if not found or found[0] != "ok":
                return f"integrity check: {found[0] if found else 'no answer'}"
            len(store)
    except CacheUnreadable:
        raise
    except CacheDamaged as exc:
        return exc.reason or str(exc)
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


def marked_format(root: Path) -> int | None:
    """The format isodyn's marker in `root` names, or None when there is no marker of isodyn's (or
    it names a format this isodyn does not know)."""
    try:
        data = json.loads(Stores(root).marker.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    if not isinstance(data, dict) or data.get("made_by") != "isodyn":
        return None
    found = data.get("format")
    return found if type(found) is int and PICKLED_FORMAT <= found <= FORMAT else None


def is_marked(root: Path) -> bool:
    """Whether `root` carries isodyn's marker (a JSON file naming isodyn and a format it knows)."""
    return marked_format(root) is not None


def mark(root: Path, format_: int = FORMAT) -> None:
    """Write the marker; atomic, so two runs that claim one cache at once leave one whole marker."""
    root.mkdir(parents=True, exist_ok=True)
    text = json.dumps({"made_by": "isodyn", "format": format_, "what": "isodyn reply cache"}) + "\n"
    handle, temporary = tempfile.mkstemp(prefix=".marker-", dir=root)
    with os.fdopen(handle, "w", encoding="utf-8") as out:
        out.write(text)
    os.replace(temporary, Stores(root).marker)


def _foreign_in_store(store: Path) -> str | None:
    """The first name in a store directory that diskcache does not make, or None."""
    for entry in sorted(store.iterdir()):
        # SQLite deletes its -wal/-shm files when another process closes the store: one listed
        # a moment ago and gone now was SQLite's, not foreign.
        if entry.name in DB_FILES and (entry.is_file() or not os.path.lexists(entry)):
            continue
        if _HEX2.fullmatch(entry.name) and entry.is_dir():
            continue
        return entry.name
    return None


def store_conflict(root: Path) -> str | None:
    """Why a run may not make its stores in `root`: a store's name taken by a file, or by a
    directory holding what diskcache does not make. None when the run may go ahead."""
    for store in Stores(root).stores:
        name = store.name
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
    if not any(store.is_dir() for store in Stores(root).stores):
        return f"no {MARKER} and no store"
    conflict = store_conflict(root)
    if conflict:
        return conflict
    for store in Stores(root).stores:
        database = store / "cache.db"
        if database.is_file() and database.stat().st_size and not _starts_sqlite(database):
            return f"{store.name}/cache.db is not an SQLite file"
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
    # adopted: made by isodyn before the marker existed, with pickles (a cache we may read but not
    # write stays unmarked, and is adopted again next time)
    with contextlib.suppress(OSError):
        mark(root, PICKLED_FORMAT)
    return True


def _holds_pickles(root: Path) -> bool:
    """Whether any of the stores in `root` holds a pickled key or value (nothing is read)."""
    for directory in Stores(root).stores:
        if has_store(directory):
            store = open_store(directory, pickles=True)
            try:
                if has_pickles(store):
                    return True
            finally:
                store.close()
    return False


def claim(root: Path) -> None:
    """For a run, which asks for a cache: mark `root` (made when missing) as isodyn's, or raise
    NotACache when a store's name there is taken by something isodyn did not make, and OlderCache
    when an older isodyn's stores are there (`exp cache migrate` converts them)."""
    try:
        conflict = store_conflict(root) if root.is_dir() else None
        found = marked_format(root)
        stores = any(has_store(directory) for directory in Stores(root).stores)
    except PermissionError as exc:
        raise CacheUnreadable(root, _reason(exc)) from None
    if conflict:
        raise NotACache(root, conflict)
    # An older isodyn's stores hold pickles; stores made by a command that does not claim the cache
    # (`exp generate`, `exp judge`) or left empty hold none, and are simply marked.
    if stores and found != FORMAT and _holds_pickles(root):
        raise OlderCache(root, found or PICKLED_FORMAT)
    if found != FORMAT:
        try:
            mark(root)
        except PermissionError as exc:
            raise CacheUnreadable(root, _reason(exc)) from None
