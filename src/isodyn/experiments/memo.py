"""What each finished cell asked, so that a cached rerun replays it without rebuilding its prompts.

A strategy is a deterministic function of the code, a few settings, the variant and the replies it
gets: strategies touch neither the disk nor the network (strategies/base.py); and a generated
variant is a function of the code, its seed, its index and `base_seed`. So once a cell has run, its
variant, its transcript (requests with image-hashed messages, cache keys and replies), the text of
its final reply, its notes and the variant it was scored against are stored under a key built from
all of those inputs: the source of the whole package and the versions of the libraries that shape
prompts and variants, the settings that reach a request, and the cell. Seeds read from files
(`dataset=`) and strategies with side effects (dspy) are never memoized.

A rerun reads that one entry instead of drawing, prompting, hashing and reading each reply: one
disk read per cell. The reply is graded again and the row written again, so a change of grader
settings or grader code still takes effect. Editing any source file changes every key, so an entry
never outlives the code that made it. The entries hold copies of replies, so `exp cache clear` and
`exp cache prune` empty the memo along with the replies.

An entry is JSON (`Replay.to_json`, the form `cache.codecs.ReplayForm` checks); one that does not
fit that form (a forged or damaged entry) is a miss, and the cell runs as if it had never run.
"""

from __future__ import annotations

import hashlib
import sqlite3
from collections.abc import Mapping
from dataclasses import dataclass
from functools import cache
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path
from typing import Any

import diskcache

from isodyn.cache.codecs import REPLAY_CHECK, dumps, graded_from_row, known_labels, loads
from isodyn.cache.folder import Stores
from isodyn.cache.stores import open_store
from isodyn.core import JsonObject, Variant
from isodyn.models.requests import Reply
from isodyn.prompts import files_digest
from isodyn.runs.calls import Call
from isodyn.runs.config import ExperimentConfig
from isodyn.runs.record import Cell, CellResult

# Settings that reach a request or a strategy's choices; the rest (budget, concurrency...) do not.
REQUEST_SETTINGS = ("base_seed", "temperature", "max_tokens", "api_base", "describer", "vision")
# litellm: its capability table decides which image cells a model is asked at all.
SHAPING_LIBRARIES = ("jinja2", "numpy", "sympy", "matplotlib", "networkx", "chess", "litellm")


# What grading reads besides isodyn's own code: a graded row is reused only under the same versions.
GRADING_LIBRARIES = ("math-verify", "latex2sympy2_extended", "antlr4-python3-runtime", "sympy")


@cache
def grading_stamp(grader: str) -> str:
    """The grader's name and the versions of the libraries it reads replies with."""
    versions = []
    for name in GRADING_LIBRARIES:
        try:
            versions.append(f"{name}={version(name)}")
        except PackageNotFoundError:
            versions.append(f"{name}=absent")
    return "|".join([grader, *versions])


@cache
def code_digest() -> str:
    """SHA-256 of every source and template file of the package, and of the shaping libraries."""
    digest = files_digest(("",), (".py", ".j2"))
    for name in SHAPING_LIBRARIES:
        try:
            digest.update(f"{name}={version(name)}\0".encode())
        except PackageNotFoundError:
            digest.update(f"{name}=absent\0".encode())
    return digest.hexdigest()


def memo_store(cache_dir: Path) -> diskcache.Cache:
    """The memo's diskcache inside a cache directory (beside `responses` and `renders`)."""
    return open_store(Stores(cache_dir).replays)


@dataclass(frozen=True)
class Replay:
    """One cell as it ran: its variant, its transcript, and what the strategy concluded."""

    # A variant read back from the memo stays JSON (checked) until a regrade asks for it: a replay
    # that takes its graded row, as most do, never does.
    variant: Variant | JsonObject
    calls: tuple[Call, ...]  # in call order: request (images hashed), key, reply; each a cache hit
    response: str  # the final reply's text (a vote or a remapped letter may not be any call's text)
    notes: JsonObject
    scored: JsonObject | None  # Variant.to_json() when the strategy scored another variant
    # The row as a replay gives it, graded as `grader` says (`grading_stamp`): a rerun with the same
    # stamp takes it as it is (grading is a function of the code, which is in the key, the grader,
    # the libraries it reads with, and the reply).
    graded: CellResult | None = None
    grader: str = ""
    finish_reason: str | None = None  # the final reply's (a truncated one is graded so again)

    @property
    def final(self) -> Reply:
        """The final reply as grading reads it: its text and why the model stopped."""
        return Reply(self.response, finish_reason=self.finish_reason)

    def scored_variant(self) -> Variant:
        if self.scored is not None:
            return Variant.from_json(self.scored)
        return self.variant if isinstance(self.variant, Variant) else Variant.from_json(self.variant)

    def to_json(self) -> JsonObject:
        """The stored form (`codecs.ReplayForm`): the graded row's transcript is left out when it
        is `calls`, as it is for every cell the runner remembers."""
        row = self.graded.to_row() if self.graded is not None else None
        if row is not None and self.graded is not None and self.graded.calls == self.calls:
            del row["transcript"]
        variant = self.variant.to_json() if isinstance(self.variant, Variant) else self.variant
        return {
            "variant": variant, "calls": [call.to_json() for call in self.calls], "response": self.response,
            "notes": self.notes, "scored": self.scored, "graded": row, "grader": self.grader,
            "finish_reason": self.finish_reason,
        }  # fmt: skip

    @classmethod
    def from_json(cls, data: Any) -> Replay | None:
        """The inverse of `to_json`; None for anything not of its form (a forged or damaged entry)."""
        if not REPLAY_CHECK.test(data) or not known_labels(data["variant"]):
            return None
        scored, row, finish = data["scored"], data["graded"], data.get("finish_reason")
        if scored is not None and not known_labels(scored):
            return None
        if row is None:
            calls = tuple(Call.from_json(call) for call in data["calls"])
            return cls(
                data["variant"], calls, data["response"], data["notes"], scored, None, data["grader"], finish
            )
        shared = "transcript" not in row  # the graded row's calls are the entry's
        graded = graded_from_row(row, data["calls"])
        if graded is None:
            return None
        calls = graded.calls if shared else tuple(Call.from_json(call) for call in data["calls"])
        return cls(
            data["variant"], calls, data["response"], data["notes"], scored, graded, data["grader"], finish
        )


class ReplayMemo:
    """diskcache of Replay entries; safe to share between processes like the response cache."""

    def __init__(
        self, cache_dir: Path, config: ExperimentConfig, render_digests: Mapping[str, str] | None = None
    ) -> None:
        self._store = memo_store(cache_dir)
        self._prefix = f"{code_digest()}|{config.digest(REQUEST_SETTINGS)}"
        # a profile by its drawing choices, not its name: one edited in isodyn.toml is another cell
        self._render_digests = dict(render_digests or {})

    def key(self, cell: Cell) -> str:
        text = (
            f"{self._prefix}|{cell.model}|{cell.strategy}|{cell.modality.value}|{cell.seed_id}|"
            f"{cell.variant}|{cell.repeat}"
        )
        if not cell.is_plain:
            drawn = self._render_digests.get(cell.render, cell.render)
            text += f"|{drawn}|{cell.perturbation}"
        return hashlib.sha256(text.encode()).hexdigest()

    def get(self, cell: Cell) -> Replay | None:
        found = self._store.get(self.key(cell))
        return Replay.from_json(loads(found)) if found is not None else None

    def put(self, cell: Cell, replay: Replay) -> bool:
        """Remember a cell; False when the store cannot take it (a full disk, a read-only folder).
        The memo only saves time (the replies are in the reply cache or the row), so a failed
        write costs nothing and is not an error."""
        stored = dumps(replay.to_json())
        if stored is None:  # a note JSON cannot hold: the cell is not remembered
            return False
        try:
            self._store.set(self.key(cell), stored)
        except (OSError, sqlite3.Error):
            return False
        return True

    def clear(self) -> int:
        return int(self._store.clear())

    def __len__(self) -> int:
        return len(self._store)

    def close(self) -> None:
        self._store.close()
