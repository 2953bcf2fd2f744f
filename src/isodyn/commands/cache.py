"""`exp cache`: the reply cache and the cell memo of one cache folder: stats, clear, prune, repair,
migrate.

Only isodyn's own cache is read or changed (`owned`): a folder isodyn did not make is refused as
it is, and no command here creates one. A store this user may not read is no damaged store:
nothing is deleted or set aside then. `migrate` converts an older isodyn's cache (pickled values,
which no command reads) to the current format (`cache.migrate`).
"""

from __future__ import annotations

import math
import sqlite3
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal, cast

import diskcache

from isodyn.cache import ResponseCache
from isodyn.cache.folder import Stores
from isodyn.cache.migrate import Migrated, migrate_cache
from isodyn.cache.stores import (
    CacheDamaged,
    CacheUnreadable,
    has_store,
    open_store,
    owned,
    remove_store,
    set_aside,
    store_problem,
)
from isodyn.errors import ConfigError, IsodynError
from isodyn.experiments.memo import memo_store
from isodyn.runs.config import default_cache_dir, parse_key_values
from isodyn.runs.results import read_json

CacheAction = Literal["stats", "clear", "prune", "repair", "migrate"]
ACTIONS = ("stats", "clear", "prune", "repair", "migrate")
_UNITS = {"s": 1, "m": 60, "h": 3600, "d": 86400}


class StoreForbidden(IsodynError):
    """A store clear may not open for want of permission: no damage, so nothing is deleted."""


def _age(value: str) -> float:
    """`30d` as seconds: a positive, finite number with s, m, h or d."""
    if not value or value[-1] not in _UNITS:
        raise ValueError("use a number with s, m, h or d, e.g. 30d")
    seconds = float(value[:-1]) * _UNITS[value[-1]]
    if not (math.isfinite(seconds) and seconds > 0):  # -30d would remove everything, nan nothing
        raise ValueError("must be a positive, finite age, e.g. 30d")
    return seconds


@dataclass(frozen=True)
class CacheRequest:
    action: CacheAction
    root: Path  # the cache folder
    older_than: float | None = None  # seconds; prune removes replies older than this

    @classmethod
    def from_words(cls, action: str, words: Sequence[str]) -> CacheRequest:
        """The request `exp cache ACTION key=value ...` makes (ConfigError on a bad word)."""
        chosen = parse_key_values(list(words), {"cache_dir": Path, "older_than": _age})
        if action not in ACTIONS:
            raise ConfigError(f"unknown cache action {action!r}; valid: {', '.join(ACTIONS)}")
        if action == "prune" and "older_than" not in chosen:
            raise ConfigError("prune needs older_than=DURATION, e.g. older_than=30d")
        root = chosen.get("cache_dir", default_cache_dir())
        return cls(cast(CacheAction, action), root, chosen.get("older_than"))


@dataclass(frozen=True)
class NoCache:
    """There is no cache in the folder yet: nothing was read or changed."""

    root: Path
    action: CacheAction


@dataclass(frozen=True)
class LastRun:
    """What the last run on this cache recorded (last_run.json), as it wrote it."""

    cache_hits: object
    calls_made: object
    hit_rate: float | None


@dataclass(frozen=True)
class CacheStats:
    root: Path
    replies: int
    reply_bytes: int
    memo_cells: int
    memo_bytes: int
    last_run: LastRun | None


@dataclass(frozen=True)
class Cleared:
    root: Path
    replies: int
    memo_cells: int
    deleted: tuple[str, ...]  # damaged stores whose files were deleted
    kept: tuple[str, ...]  # things in a store's place that isodyn did not make, left alone


@dataclass(frozen=True)
class Pruned:
    root: Path
    replies: int  # replies older than `older_than` removed
    memo_cells: int  # the memo is emptied: an entry may hold a pruned reply
    older_than: float


@dataclass(frozen=True)
class SetAside:
    store: Path
    problem: str
    moved_to: Path


@dataclass(frozen=True)
class Repaired:
    root: Path
    set_aside: tuple[SetAside, ...]  # empty: every store opens and checks clean


CacheOutcome = NoCache | CacheStats | Cleared | Pruned | Repaired | Migrated


def cache_command(request: CacheRequest) -> CacheOutcome:
    """Do the request's action on its cache folder. NotACache for a folder isodyn did not make,
    CacheUnreadable for one this user may not read."""
    root = request.root
    if not owned(root):
        return NoCache(root, request.action)
    if request.action == "clear":
        return clear_cache(root)
    if request.action == "repair":
        return repair_cache(root)
    if request.action == "migrate":
        return migrate_cache(root)
    stores = Stores(root)
    store = ResponseCache(stores.responses) if has_store(stores.responses) else None
    try:
        memo = memo_store(root) if has_store(stores.replays) else None  # it holds copies of replies
    except CacheDamaged:
        if store is not None:
            store.close()
        raise
    try:
        if request.action == "stats":
            return _stats(root, store, memo)
        assert request.older_than is not None  # from_words asks for it
        replies = store.prune(request.older_than) if store else 0
        cells = memo.clear() if memo else 0  # reruns rebuild what pruning left without its reply
        return Pruned(root, replies, cells, request.older_than)
    finally:
        for opened in (store, memo):
            if opened is not None:
                opened.close()


def _stats(root: Path, store: ResponseCache | None, memo: diskcache.Cache | None) -> CacheStats:
    last: Any = read_json(Stores(root).last_run)
    last_run = None
    if isinstance(last, dict) and last:
        last_run = LastRun(last.get("cache_hits"), last.get("calls_made"), last.get("hit_rate"))
    return CacheStats(
        root, len(store) if store else 0, store.volume() if store else 0,
        len(memo) if memo else 0, memo.volume() if memo else 0, last_run,
    )  # fmt: skip


def clear_cache(root: Path) -> Cleared:
    """Empty the reply cache and the cell memo of isodyn's cache `root`; a store that cannot even be
    opened has its own files deleted, so clear always works. Nothing isodyn did not make is removed,
    and a store it cannot read for want of permission is left as it is (StoreForbidden)."""
    stores = Stores(root)
    counts = dict.fromkeys(stores.cleared, 0)  # replies and the memo: drawings are no replies
    deleted: list[str] = []
    kept: list[str] = []
    for directory in stores.cleared:
        name = directory.name
        if not has_store(directory):
            kept += [name] if directory.exists() or directory.is_symlink() else []
            continue
        try:
            with open_store(directory, pickles=True) as store:  # clearing reads no value
                counts[directory] = store.clear()
        except CacheUnreadable:
            raise
        except PermissionError as exc:
            raise StoreForbidden(
                f"cannot read the cache: permission denied ({directory}: {exc.strerror})"
            ) from None
        except (CacheDamaged, sqlite3.DatabaseError, OSError):
            kept += [f"{name}/{left}" for left in remove_store(directory)]
            deleted.append(name)
    return Cleared(root, counts[stores.responses], counts[stores.replays], tuple(deleted), tuple(kept))


def repair_cache(root: Path) -> Repaired:
    """Check every store, then set each damaged one aside (renamed, kept) so the next run starts
    afresh. A store this user may not read is no damaged one: CacheUnreadable, nothing moved."""
    problems = {store: store_problem(store) for store in Stores(root).stores if has_store(store)}
    moved = tuple(
        SetAside(store, problem, set_aside(store)) for store, problem in problems.items() if problem
    )
    return Repaired(root, moved)
