"""A model call as a cell records it (`Call`, one shape for the runner, the replay memo and the record),
and what a cell's calls cost together (`Usage`)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, fields
from typing import Any


@dataclass(frozen=True, slots=True, kw_only=True)
class Call:
    """One model call of a cell, in call order: the request (images replaced by their hashes) and,
    once it returned, the reply, its cache key and what it cost. A call that failed has no reply."""

    step: str
    model: str
    sample: int = 0
    messages: Sequence[dict[str, Any]] = ()
    key: str | None = None
    cache_hit: bool | None = None
    response: str | None = None
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cost_usd: float = 0.0
    latency_s: float = 0.0

    @property
    def returned(self) -> bool:
        return self.key is not None

    def to_json(self) -> dict[str, Any]:
        data = {name: getattr(self, name) for name in CALL_FIELDS}
        data["messages"] = list(self.messages)
        return data

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Call:
        values = {k: v for k, v in data.items() if v is not None and k in CALL_FIELDS}
        if "step" in values and "model" in values:
            return cls(**values)
        return cls(**{"step": "answer", "model": "", **values})


CALL_FIELDS = tuple(f.name for f in fields(Call))


@dataclass(frozen=True, slots=True)
class Usage:
    """What a cell's returned calls cost; `cache_hit` when every one came from the cache."""

    cache_hit: bool | None = None
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cost_usd: float = 0.0
    latency_s: float = 0.0

    @classmethod
    def of(cls, calls: Sequence[Call]) -> Usage:
        returned = [c for c in calls if c.returned]
        return cls(
            all(c.cache_hit for c in returned),
            sum(c.prompt_tokens for c in returned),
            sum(c.completion_tokens for c in returned),
            sum(c.cost_usd for c in returned),
            round(sum(c.latency_s for c in returned), 4),
        )  # fmt: skip
