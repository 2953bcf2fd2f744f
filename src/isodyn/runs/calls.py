"""A model call as a cell records it (`Call`, one shape for the runner, the replay memo and the record),
and what a cell's calls cost together (`Usage`)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, fields
from typing import Any

from isodyn.core import JsonObject


@dataclass(frozen=True, slots=True, kw_only=True)
class Call:
    """One model call of a cell, in call order: the request (images replaced by their hashes) and,
    once it returned, the reply, its cache key, what it cost and why the model stopped. A call that
    failed has no reply."""

    step: str
    model: str
    sample: int = 0
    messages: Sequence[JsonObject] = ()
    key: str | None = None
    cache_hit: bool | None = None
    response: str | None = None
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cost_usd: float = 0.0
    latency_s: float = 0.0
    finish_reason: str | None = None  # the reply's ("length": cut off at the token limit); None: unknown

    @property
    def returned(self) -> bool:
        return self.key is not None

    # Pickling (the replay memo holds calls) by a tuple of values in field order: dataclasses' own
    # way for a frozen class with slots looks its fields up again for every call it unpickles.
    def __getstate__(self) -> tuple[Any, ...]:
        return tuple(getattr(self, name) for name in CALL_FIELDS)

    def __setstate__(self, state: tuple[Any, ...]) -> None:
        for name, value in zip(CALL_FIELDS, state, strict=True):
            object.__setattr__(self, name, value)

    def to_json(self) -> JsonObject:
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
        # sums start at 0 as `sum` does, so a cell with no returned call writes the same 0 it did
        hit, prompt, completion = True, 0, 0
        cost: float = 0
        latency: float = 0
        for call in calls:  # one pass: this runs for every cell of a replay
            if call.key is None:
                continue  # a call that failed returned nothing and cost nothing
            hit = hit and bool(call.cache_hit)
            prompt += call.prompt_tokens
            completion += call.completion_tokens
            cost += call.cost_usd
            latency += call.latency_s
        return cls(hit, prompt, completion, cost, round(latency, 4))
