"""Opening, checking and setting aside the diskcache stores of a cache directory.

A store is a directory holding an SQLite file. A damaged one (a disk error, a copy cut short, a
file written over it) must not turn every command into a traceback: opening names the store and the
way out, `exp cache clear` removes what it cannot open, and `exp cache repair` sets a damaged store
aside (renamed, nothing deleted) so the next run starts a fresh one.
"""

from __future__ import annotations

import shutil
import sqlite3
from datetime import UTC, datetime
from pathlib import Path

import diskcache

STORES = ("responses", "replays", "renders")  # replies, the cell memo, drawings


class CacheDamaged(RuntimeError):
    """A cache store that cannot be opened or read."""

    def __init__(self, directory: Path, reason: str) -> None:
        root = directory.parent
        super().__init__(
            f"cache store {directory} is damaged ({reason}); run `exp cache repair cache_dir={root}` to set "
            f"it aside, or `exp cache clear cache_dir={root}`"
        )
        self.directory = directory


def open_store(directory: Path | str) -> diskcache.Cache:
    """The diskcache at `directory`, or CacheDamaged naming it."""
    path = Path(directory)
    try:
        return diskcache.Cache(str(path))
    except (sqlite3.DatabaseError, OSError) as exc:
        raise CacheDamaged(path, str(exc).splitlines()[0] if str(exc) else type(exc).__name__) from None


def store_problem(directory: Path) -> str | None:
    """Why the store at `directory` cannot be used, or None when it opens and checks clean."""
    if not directory.exists():
        return None
    try:
        with diskcache.Cache(str(directory)) as store:
            found = store._sql("PRAGMA quick_check").fetchone()  # diskcache's own SQLite connection
            if not found or found[0] != "ok":
                return f"integrity check: {found[0] if found else 'no answer'}"
            len(store)
    except (sqlite3.DatabaseError, OSError) as exc:
        return str(exc).splitlines()[0] if str(exc) else type(exc).__name__
    return None


def set_aside(directory: Path) -> Path:
    """Rename a store out of the way (kept for a person to look at); returns its new path."""
    stamp = datetime.now(UTC).strftime("%Y%m%d-%H%M%S")
    target = directory.with_name(f"{directory.name}.damaged-{stamp}")
    while target.exists():
        target = target.with_name(target.name + "x")
    directory.rename(target)
    return target


def remove_store(directory: Path) -> None:
    """Delete a store that cannot be opened (what `clear` does when clearing it fails)."""
    if directory.is_dir():
        shutil.rmtree(directory)
    elif directory.exists():
        directory.unlink()
