"""Content-addressed store of model replies, in front of litellm.

The key is the SHA-256 of a canonical JSON document holding everything that shapes a reply:

- `model` (the litellm id, provider prefix included) and `api_base`;
- `params`: every generation parameter sent (temperature, max_tokens, top_p, seed, ...);
- `messages`: the exact message list, except that each inline image (a `data:` URI) is replaced by
  the SHA-256 of its decoded bytes, so keys stay small and depend on pixels, not on encoding;
- `repeat`: the repeat index, so K repeats are K distinct calls;
- `sample`: the sample index within a cell (self-consistency draws k samples per cell);
- `step`: the strategy step that made the call (a multi-step strategy makes several);
- `version`: bumped when the key layout changes.

API keys are never part of a request, a key or a stored value.
"""

from __future__ import annotations

import base64
import hashlib
import json
import time
from dataclasses import asdict, dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any

from isodyn.cache.stores import open_store

KEY_VERSION = 2


@dataclass(frozen=True)
class ModelRequest:
    model: str
    messages: list[dict[str, Any]]
    params: dict[str, Any] = field(default_factory=dict)
    api_base: str | None = None
    repeat: int = 0
    step: str = "answer"
    sample: int = 0


@dataclass(frozen=True)
class Reply:
    text: str
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cost_usd: float = 0.0
    latency_s: float = 0.0


def hash_images(value: Any) -> Any:
    """A copy of a message structure with each inline image replaced by `sha256:<hex of its bytes>`."""
    if isinstance(value, dict):
        out = {k: hash_images(v) for k, v in value.items()}
        url = out.get("url")
        if isinstance(url, str) and url.startswith("data:"):
            out["url"] = _data_uri_digest(url)
        return out
    if isinstance(value, list):
        return [hash_images(v) for v in value]
    return value


@lru_cache(maxsize=4096)
def _data_uri_digest(url: str) -> str:
    return "sha256:" + hashlib.sha256(base64.b64decode(url.split(",", 1)[1])).hexdigest()


# json.dumps with these settings, built once: dumps builds a new encoder per call when given options.
_CANONICAL = json.JSONEncoder(sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def cache_key(request: ModelRequest, hashed_messages: Any = None) -> str:
    """`hashed_messages`: `hash_images(request.messages)` when the caller has it already."""
    document = {
        "version": KEY_VERSION,
        "model": request.model,
        "api_base": request.api_base,
        "params": request.params,
        "messages": hashed_messages if hashed_messages is not None else hash_images(request.messages),
        "repeat": request.repeat,
        "sample": request.sample,
        "step": request.step,
    }
    return hashlib.sha256(_CANONICAL.encode(document).encode()).hexdigest()


class ResponseCache:
    """diskcache-backed reply store; safe to share between processes (SQLite underneath)."""

    def __init__(self, directory: Path | str) -> None:
        self.directory = Path(directory)
        self._store = open_store(self.directory)

    def get(self, key: str) -> Reply | None:
        value = self._store.get(key)
        if value is None:
            return None
        return Reply(value["text"], value["prompt_tokens"], value["completion_tokens"], value["cost_usd"],
                     value["latency_s"])  # fmt: skip

    def put(self, key: str, reply: Reply) -> None:
        # `stored_at` lets `exp cache prune` drop old replies; it is not part of the reply.
        self._store.set(key, {**asdict(reply), "stored_at": time.time()})

    def volume(self) -> int:
        return self._store.volume()

    def clear(self) -> int:
        return self._store.clear()

    def prune(self, older_than_s: float) -> int:
        cutoff = time.time() - older_than_s
        removed = 0
        for key in list(self._store.iterkeys()):
            value = self._store.get(key)
            if value is not None and value.get("stored_at", 0) < cutoff:
                removed += self._store.delete(key)
        return removed

    def __len__(self) -> int:
        return len(self._store)

    def close(self) -> None:
        self._store.close()
