"""`exp cache migrate`: an older isodyn's cache (format 1: diskcache's pickles) brought to the
current format, once, by its owner's explicit action.

The replies are the paid part: each is read with an unpickler that refuses every global (no class,
no function: a crafted pickle that would call something fails instead) and kept only when it is
what isodyn stored, a plain object of a reply's fields; it is then stored again as JSON. Anything
else (a crafted pickle, a pickled key, another shape) is dropped and counted. The cell memo and
the drawings are derived data: they are emptied, not converted, and are rebuilt by the next run.
"""

from __future__ import annotations

import io
import pickle
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import diskcache
from diskcache.core import MODE_BINARY, MODE_PICKLE, MODE_RAW

from isodyn.cache import decode_reply, encode_reply, reply_from_fields
from isodyn.cache.folder import Stores
from isodyn.cache.stores import FORMAT, has_store, is_value_file, mark, marked_format, open_store

_BATCH = 500  # rows read and rewritten per transaction


class _NoGlobals(pickle.Unpickler):
    """An unpickler of plain data only: every global a pickle names (and so every call) is refused."""

    def find_class(self, module: str, name: str) -> Any:
        raise pickle.UnpicklingError(f"refused: {module}.{name}")


def plain_unpickle(data: bytes) -> Any:
    """`data` unpickled as plain data (dicts, lists, text, numbers), or None when it names anything
    else or is no pickle at all."""
    try:
        return _NoGlobals(io.BytesIO(data)).load()
    except Exception:  # a crafted or damaged pickle fails in many ways; each is a drop
        return None


@dataclass(frozen=True)
class RepliesMigrated:
    converted: int  # pickled replies stored again as JSON
    kept: int  # replies already in the current format
    dropped: int  # entries that are no reply isodyn stored (a crafted pickle among them)


@dataclass(frozen=True)
class Migrated:
    root: Path
    was_format: int | None  # the marker's format before (None: a cache from before the marker)
    replies: RepliesMigrated
    memo_cells: int  # emptied
    drawings: int  # emptied

    def line(self) -> str:
        r = self.replies
        was = f"format {self.was_format}" if self.was_format else "made before the format marker"
        return (
            f"cache {self.root} ({was}) is now format {FORMAT}: {r.converted} replies converted, "
            f"{r.kept} already current, {r.dropped} dropped (not a reply isodyn stored); "
            f"{self.memo_cells} memoized cells and {self.drawings} drawings emptied (rebuilt by the next run)"
        )


def migrate_cache(root: Path) -> Migrated:
    """Convert isodyn's own cache `root` (the caller checked it is isodyn's) to the current format."""
    was = marked_format(root)
    replies = RepliesMigrated(0, 0, 0)
    stores = Stores(root)
    if has_store(stores.responses):
        with open_store(stores.responses, pickles=True) as store:
            replies = migrate_replies(store)
    emptied = {}
    for directory in (stores.replays, stores.renders):  # derived data: emptied, rebuilt by the next run
        emptied[directory] = 0
        if has_store(directory):
            with open_store(directory, pickles=True) as store:
                emptied[directory] = int(store.clear())
    mark(root)
    return Migrated(root, was, replies, emptied[stores.replays], emptied[stores.renders])


def migrate_replies(store: diskcache.Cache) -> RepliesMigrated:
    """Every entry of a reply store as JSON, or dropped; read row by row, never through pickle."""
    converted = kept = dropped = 0
    last = 0
    while True:
        rows = store._sql(
            "SELECT rowid, key, raw, mode, filename, value FROM Cache WHERE rowid > ? ORDER BY rowid LIMIT ?",
            (last, _BATCH),
        ).fetchall()
        if not rows:
            return RepliesMigrated(converted, kept, dropped)
        with store.transact():
            for rowid, key, raw, mode, filename, value in rows:
                last = rowid
                outcome = _migrate_row(store, key, raw, mode, filename, value)
                if outcome is None:
                    _drop(store, rowid, filename)
                    dropped += 1
                elif outcome:
                    converted += 1
                else:
                    kept += 1


def _migrate_row(
    store: diskcache.Cache, key: Any, raw: int, mode: int, filename: Any, value: Any
) -> bool | None:
    """True when the row was converted, False when it was current already, None to drop it."""
    if not raw or type(key) is not str:  # isodyn's reply keys are hex text, stored as themselves
        return None
    data = _value_bytes(store, mode, filename, value)
    if data is None:
        return None
    if mode != MODE_PICKLE:
        return False if decode_reply(data) is not None else None
    decoded = reply_from_fields(plain_unpickle(data))
    if decoded is None:
        return None
    reply, stored_at = decoded
    store.set(key, encode_reply(reply, stored_at))
    return True


def _value_bytes(store: diskcache.Cache, mode: int, filename: Any, value: Any) -> bytes | None:
    """A row's stored bytes (inline, or its value file inside the store), without decoding them."""
    if mode not in (MODE_RAW, MODE_BINARY, MODE_PICKLE):
        return None
    if filename is None:
        return bytes(value) if isinstance(value, bytes | memoryview) else None
    if not is_value_file(filename):
        return None
    path = Path(store.directory) / filename
    try:
        if path.is_symlink() or not path.is_file():
            return None
        return path.read_bytes()
    except OSError:
        return None


def _drop(store: diskcache.Cache, rowid: int, filename: Any) -> None:
    store._sql("DELETE FROM Cache WHERE rowid = ?", (rowid,))
    if filename is not None and is_value_file(filename):
        store._disk.remove(filename)
