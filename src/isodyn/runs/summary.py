"""summary.json, the one type: what a run folder's summary holds, whoever wrote it (`exp run`, `exp rescore`,
`exp merge`), and its reading and writing.

Its keys and their order are the file's format: each writer names its layout (`RUN_KEYS`, `RESCORE_KEYS`,
`MERGE_KEYS`) and the summary writes the keys of its layout in that order, each whose value is not None
(only the fields typed `... | None` can be None: the keys a writer writes only at times).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import Any

from isodyn.core import JsonObject
from isodyn.runs.files import SUMMARY

SUMMARY_FILE = SUMMARY

# `exp run` (the last five only at times: a resumed run, a budget, a model that cannot be called, and
# what failed on this machine)
RUN_KEYS = (
    "cells", "complete", "left_undone", "calls_made", "cache_hits", "retries", "cost_usd", "skipped",
    "errors", "extraction_failed", "truncated", "graded", "judged", "decided_by_judge", "correct",
    "not_renderable", "seconds", "this_process", "results_digest", "max_cost", "stopped", "local_failures",
    "not_cached", "not_perturbable",
)  # fmt: skip
# `exp rescore` (audit only with audit=N)
RESCORE_KEYS = (
    "cells", "graded", "extraction_failed", "truncated", "correct", "changed_verdicts", "judged", "judge",
    "rescored_from", "audit",
)  # fmt: skip
# `exp merge`
MERGE_KEYS = (
    "cells", "complete", "left_undone", "calls_made", "cache_hits", "retries", "cost_usd", "skipped",
    "errors", "extraction_failed", "graded", "correct", "not_renderable", "seconds", "shards", "merged_from",
    "not_cached",
)  # fmt: skip


@dataclass(frozen=True)
class Spending:
    """What a run's processes spent (summary.json's `this_process`: the last process alone)."""

    calls_made: int = 0
    cache_hits: int = 0
    retries: int = 0
    cost_usd: float = 0.0

    def to_json(self) -> JsonObject:
        return {"calls_made": self.calls_made, "cache_hits": self.cache_hits, "retries": self.retries,
                "cost_usd": self.cost_usd}  # fmt: skip

    @classmethod
    def from_json(cls, data: Any) -> Spending:
        found = _object(data, "this_process")
        return cls(
            _int(found.get("calls_made", 0), "calls_made"), _int(found.get("cache_hits", 0), "cache_hits"),
            _int(found.get("retries", 0), "retries"), _number(found.get("cost_usd", 0.0), "cost_usd"),
        )  # fmt: skip


@dataclass(frozen=True)
class JudgeCalls:
    """The judge's calls of a rescore (summary.json's `judge`)."""

    calls_made: int = 0
    cache_hits: int = 0
    cost_usd: float = 0.0

    def to_json(self) -> JsonObject:
        return {"calls_made": self.calls_made, "cache_hits": self.cache_hits, "cost_usd": self.cost_usd}

    @classmethod
    def from_json(cls, data: Any) -> JudgeCalls:
        found = _object(data, "judge")
        return cls(
            _int(found.get("calls_made", 0), "calls_made"), _int(found.get("cache_hits", 0), "cache_hits"),
            _number(found.get("cost_usd", 0.0), "cost_usd"),
        )  # fmt: skip


@dataclass(frozen=True)
class MergedShards:
    """The shards a merged run joined (summary.json's `shards`)."""

    of: int  # N
    merged: tuple[int, ...]  # shard numbers merged
    missing: tuple[int, ...]  # shard numbers not given
    unfinished: tuple[int, ...]  # shards given whose cells are not all in

    def to_json(self) -> JsonObject:
        return {"of": self.of, "merged": list(self.merged), "missing": list(self.missing),
                "unfinished": list(self.unfinished)}  # fmt: skip

    @classmethod
    def from_json(cls, data: Any) -> MergedShards:
        found = _object(data, "shards")
        numbers = {name: _ints(found.get(name, []), name) for name in ("merged", "missing", "unfinished")}
        return cls(_int(found.get("of", 0), "of"), **numbers)


@dataclass(frozen=True)
class RunSummary:
    """summary.json of a run folder: a run's counts and spending (earlier processes of a resumed run
    included), a rescore's or a merged run's. A writer fills the fields its layout (`keys`) names;
    the others keep their defaults and are not written."""

    cells: int = 0
    complete: bool = True  # absent (a rescore, an older release): complete
    left_undone: int = 0  # refused by max_cost: the same command with a larger one finishes them
    calls_made: int = 0
    cache_hits: int = 0
    retries: int = 0
    cost_usd: float = 0.0
    skipped: int = 0
    errors: int = 0
    extraction_failed: int = 0
    truncated: int = 0  # cut off at the token limit: graded, never read
    graded: int = 0
    judged: int = 0  # cells the judge was asked about (a rescore: replies the judge read)
    decided_by_judge: int = 0
    correct: int = 0
    changed_verdicts: int = 0  # a rescore's verdicts that differ from the run's
    not_renderable: tuple[str, ...] = ()  # "seed:modality" never run
    seconds: float = 0.0  # a merged run: the shards' seconds added up (machine time, not wall time)
    this_process: Spending | None = None  # a resumed run: what its last process spent
    results_digest: str | None = None  # of the rows (`ResultsFingerprint`)
    max_cost: float | None = None
    stopped: str | None = None  # why no model could be called
    local_failures: int | None = None  # cells that failed on this machine
    not_cached: int | None = None  # replies the cache could not take (kept in results.jsonl)
    not_perturbable: tuple[str, ...] | None = None  # "seed:perturbation" never run (a seed without it)
    judge: JudgeCalls | None = None  # a rescore's judge calls
    rescored_from: str | None = None
    audit: Mapping[str, Any] | None = None  # a rescore's audit of the rules (`exp rescore audit=N`)
    shards: MergedShards | None = None
    merged_from: tuple[str, ...] | None = None
    keys: tuple[str, ...] = RUN_KEYS  # the keys written, in order (read: the file's, in its order)
    extra: Mapping[str, Any] = field(default_factory=dict)  # keys read that no field holds, kept

    @property
    def attempted(self) -> int:
        """Cells not skipped."""
        return self.cells - self.skipped

    @property
    def all_failed(self) -> bool:
        """Every cell that was not skipped ended in an error (there was at least one)."""
        return bool(self.attempted) and self.errors == self.attempted

    def spending(self) -> Spending:
        """The totals this summary counts (of every process of a resumed run)."""
        return Spending(self.calls_made, self.cache_hits, self.retries, self.cost_usd)

    def has(self, key: str) -> bool:
        """Whether summary.json holds `key` (as `to_json` writes it)."""
        return key in self.keys and self._value(key) is not None

    def to_json(self) -> JsonObject:
        """The keys of `keys`, in order, each whose value is not None."""
        out: JsonObject = {}
        for key in self.keys:
            value = self._value(key)
            if value is not None:
                out[key] = _json_value(value)
        return out

    def to_text(self) -> str:
        """summary.json's text."""
        return json.dumps(self.to_json(), indent=2, allow_nan=False) + "\n"

    @classmethod
    def from_json(cls, data: Any) -> RunSummary:
        """The summary of a summary.json object, whichever writer and release wrote it: a key it lacks
        keeps its field's default (and is not written again by `to_json`); a key no field holds is
        kept in `extra` and written again in its place. ValueError for what is not an object, or a
        known key whose value is not of its type (a damaged or hand-edited file)."""
        found = _object(data, "summary")
        known: JsonObject = {}
        for key, value in found.items():
            if key in _READERS:
                known[key] = None if value is None and key in _OPTIONAL else _READERS[key](value, key)
        extra = {key: value for key, value in found.items() if key not in known}
        return cls(**known, keys=tuple(found), extra=extra)

    def _value(self, key: str) -> Any:
        return getattr(self, key) if key in _READERS else self.extra.get(key)


def read_summary(run_dir: Path) -> RunSummary | None:
    """The summary of `run_dir`, or None when it has none or it is damaged (cut by a crash, not an
    object, a value of the wrong type)."""
    try:
        return RunSummary.from_json(json.loads((run_dir / SUMMARY_FILE).read_text()))
    except (OSError, ValueError, RecursionError):
        return None


def _json_value(value: Any) -> Any:
    if isinstance(value, tuple):
        return list(value)
    if isinstance(value, Spending | JudgeCalls | MergedShards):
        return value.to_json()
    return value


def _object(data: Any, what: str) -> Mapping[str, Any]:
    if not isinstance(data, dict):
        raise ValueError(f"{what} is not a JSON object")
    return data


def _int(value: Any, key: str) -> int:
    if type(value) is not int:
        raise ValueError(f"{key} is {value!r}, not a whole number")
    return value


def _ints(value: Any, key: str) -> tuple[int, ...]:
    if not isinstance(value, list):
        raise ValueError(f"{key} is not a list")
    return tuple(_int(item, key) for item in value)


def _number(value: Any, key: str) -> float:
    if type(value) not in (int, float):
        raise ValueError(f"{key} is {value!r}, not a number")
    return float(value)


def _bool(value: Any, key: str) -> bool:
    if type(value) is not bool:
        raise ValueError(f"{key} is {value!r}, not true or false")
    return bool(value)


def _text(value: Any, key: str) -> str:
    if not isinstance(value, str):
        raise ValueError(f"{key} is {value!r}, not text")
    return value


def _texts(value: Any, key: str) -> tuple[str, ...]:
    if not isinstance(value, list):
        raise ValueError(f"{key} is not a list")
    return tuple(_text(item, key) for item in value)


def _mapping(value: Any, key: str) -> Mapping[str, Any]:
    return _object(value, key)


def _reader(kind: Any) -> Callable[[Any, str], Any]:
    """How a field's JSON value is read, by its type's name (annotations are strings here)."""
    name = str(kind).removesuffix(" | None")
    readers: dict[str, Callable[[Any, str], Any]] = {
        "int": _int, "float": _number, "bool": _bool, "str": _text, "tuple[str, ...]": _texts,
        "Mapping[str, Any]": _mapping, "Spending": lambda v, _k: Spending.from_json(v),
        "JudgeCalls": lambda v, _k: JudgeCalls.from_json(v),
        "MergedShards": lambda v, _k: MergedShards.from_json(v),
    }  # fmt: skip
    return readers[name]


_READERS = {f.name: _reader(f.type) for f in fields(RunSummary) if f.name not in ("keys", "extra")}
_OPTIONAL = frozenset(f.name for f in fields(RunSummary) if str(f.type).endswith("| None"))
