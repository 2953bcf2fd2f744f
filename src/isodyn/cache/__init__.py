"""Content-addressed store of model replies, in front of litellm.

The key is the SHA-256 of a canonical JSON document holding everything that shapes a reply:

- `model` (the litellm id, provider prefix included) and `api_base` (replicas: the set as configured);
- `params`: every generation parameter sent (temperature, max_tokens, top_p, seed, ...);
- `messages`: the exact message list, except that each inline image (a `data:` URI) is replaced by
  the SHA-256 of its decoded bytes, so keys stay small and depend on pixels, not on encoding;
- `repeat`: the repeat index, so K repeats are K distinct calls;
- `sample`: the sample index within a cell (self-consistency draws k samples per cell);
- `step`: the strategy step that made the call (a multi-step strategy makes several);
- `version`: bumped when the key layout changes.

API keys are never part of a request, a key or a stored value.

The request and reply types (`ModelRequest`, `Reply`) and the image hashing live in
`isodyn.models.requests`, which strategies and the model edge share; this package only stores.
A reply is stored as `clean_reply` makes it (text UTF-8 can encode), and read back cleaned too.
A reply that cannot be stored (a full disk, a read-only folder) is not lost: `put` says so once, on
stderr, counts it, and the caller keeps the reply (the runner writes it to the cell's row).

A reply is stored as a JSON object (`encode_reply`): the `Reply` fields and `stored_at`, the time
`exp cache prune` reads. An entry stored before the finish reason was kept has none: it reads as
unknown (None), never as cut off. Nothing stored is ever unpickled (`stores.SafeDisk`); an entry that is no
such object (a forged one) is a miss, said once.
"""

from __future__ import annotations

import hashlib
import json
import math
import sqlite3
import sys
import time
from pathlib import Path
from typing import Any

import orjson

from isodyn.cache.stores import open_store
from isodyn.models.requests import (
    ModelRequest,
    Reply,
    clean_reply,
    clean_text,
    finish_reason_of,
    hash_images,
)

KEY_VERSION = 2


# json.dumps with these settings, built once: dumps builds a new encoder per call when given options.
_CANONICAL = json.JSONEncoder(sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def cache_key(request: ModelRequest, hashed_messages: Any = None) -> str:
    """`hashed_messages`: `hash_images(request.messages)` when the caller has it already."""
    document = {
        "version": KEY_VERSION,
        "model": request.model,
        # Replicas (`URL1,URL2`) key as the configured string, constant for a run: which replica
        # answered is never known here (litellm's Router picks it), so a rerun with one of them down
        # replays every reply. One string, not each address alone: isodyn cannot tell that two
        # addresses serve the same weights, so a set is its own server, and a single api_base keeps
        # the key it always had.
        "api_base": request.api_base,
        "params": request.params,
        "messages": hashed_messages if hashed_messages is not None else hash_images(request.messages),
        "repeat": request.repeat,
        "sample": request.sample,
        "step": request.step,
    }
    return hashlib.sha256(_CANONICAL.encode(document).encode()).hexdigest()


def encode_reply(reply: Reply, stored_at: float) -> bytes:
    """A reply as the store keeps it: a JSON object of its fields and the time it was stored."""
    reply = clean_reply(reply)
    return orjson.dumps(
        {
            "text": reply.text, "prompt_tokens": reply.prompt_tokens,
            "completion_tokens": reply.completion_tokens, "cost_usd": _finite(reply.cost_usd),
            "latency_s": _finite(reply.latency_s), "finish_reason": reply.finish_reason,
            "stored_at": stored_at,
        }
    )  # fmt: skip


def _finite(number: float) -> float:
    return number if math.isfinite(number) else 0.0  # orjson would write NaN as null


def decode_reply(value: Any) -> tuple[Reply, float] | None:
    """The reply and its `stored_at` from a stored entry, or None when it is no reply `encode_reply`
    wrote (not JSON, or a field missing or of another type)."""
    try:
        data = orjson.loads(value) if type(value) is bytes else None
    except orjson.JSONDecodeError:
        return None
    return reply_from_fields(data)


def reply_from_fields(data: Any) -> tuple[Reply, float] | None:
    """The reply and its `stored_at` from an object of `encode_reply`'s fields, or None when a
    field is missing or of another type."""
    if type(data) is not dict:
        return None
    text, prompt, completion = data.get("text"), data.get("prompt_tokens"), data.get("completion_tokens")
    cost, latency = _number(data.get("cost_usd")), _number(data.get("latency_s"))
    stored_at = _number(data.get("stored_at", 0.0))
    if type(text) is not str or type(prompt) is not int or type(completion) is not int:
        return None
    if cost is None or latency is None or stored_at is None:
        return None
    # cleaned here too: a reply migrated from an older store may hold a lone surrogate
    finish = finish_reason_of(data.get("finish_reason"))  # absent in older entries: unknown
    return Reply(clean_text(text), prompt, completion, cost, latency, finish), stored_at


def _number(value: Any) -> float | None:
    """A finite JSON number as it is, else None (true and false are no numbers here)."""
    return value if type(value) in (int, float) and math.isfinite(value) else None


class ResponseCache:
    """diskcache-backed reply store; safe to share between processes (SQLite underneath)."""

    def __init__(self, directory: Path | str) -> None:
        self.directory = Path(directory)
        self._store = open_store(self.directory)
        self.unstored = 0  # replies that could not be stored
        self.write_error: str | None = None  # why the first of them could not
        self.unreadable = 0  # entries that are no reply isodyn wrote: misses

    def get(self, key: str) -> Reply | None:
        value = self._store.get(key)
        if value is None:
            return None
        decoded = decode_reply(value)
        if decoded is None:
            self._unreadable(key)
            return None
        return decoded[0]

    def _unreadable(self, key: str) -> None:
        self.unreadable += 1
        if self.unreadable == 1:
            sys.stderr.write(
                f"warning: the cache {self.directory} holds an entry that is no reply isodyn wrote "
                f"(key {key[:16]}...); it is taken as missing (said once)\n"
            )

    def put(self, key: str, reply: Reply) -> bool:
        """Store a reply; False when the store cannot take it (said once per cache, not per reply):
        the reply was paid for, so failing to keep a copy must not cost the caller the reply."""
        # `stored_at` lets `exp cache prune` drop old replies; it is not part of the reply.
        try:
            self._store.set(key, encode_reply(reply, time.time()))
        except (OSError, sqlite3.Error) as exc:
            self._failed(exc)
            return False
        return True

    def _failed(self, exc: BaseException) -> None:
        self.unstored += 1
        if self.write_error is None:
            self.write_error = f"{type(exc).__name__}: {str(exc).splitlines()[0] if str(exc) else ''}"
            sys.stderr.write(
                f"warning: cannot store replies in the cache {self.directory} ({self.write_error}); "
                "each reply received is kept with its result instead (said once)\n"
            )

    def __contains__(self, key: str) -> bool:
        return key in self._store

    def volume(self) -> int:
        return self._store.volume()

    def clear(self) -> int:
        return self._store.clear()

    def prune(self, older_than_s: float) -> int:
        cutoff = time.time() - older_than_s
        removed = 0
        for key in list(self._store.iterkeys()):
            value = self._store.get(key)
            decoded = decode_reply(value) if value is not None else None
            if value is not None and (decoded is None or decoded[1] < cutoff):  # no reply: no use
                removed += self._store.delete(key)
        return removed

    def __len__(self) -> int:
        return len(self._store)

    def close(self) -> None:
        self._store.close()
