"""Strategies turn one variant, shown in one modality, into one or more model calls.

Two kinds compose into what a grid cell runs (see `compose.py`):

- a **base strategy** builds the messages and makes the calls (zeroshot, cot3, isosp, isocb, ...);
- a **modifier** wraps whatever runs inside it (antimem adds its system text, sc@k samples k
  times and votes, permute reorders the options), so `antimem+cot3` is the 3-shot prompt with the
  anti-memorization text in front.

Strategies never touch the network or the disk: they receive `ask` (one cached model call) and a
`CellContext` (the cell's facts plus the services they declare in `needs`, see `context.py`), and
they write what they chose (demonstrations, votes, option order) into `ctx.notes`, which the runner
stores on the row.
"""

from __future__ import annotations

import base64
from abc import ABC, abstractmethod
from collections.abc import Awaitable, Callable
from functools import lru_cache
from typing import Any, ClassVar, Protocol

from isodyn.core import Modality, Representation, Variant
from isodyn.models.requests import Reply
from isodyn.registry import Registry, first_line
from isodyn.strategies.context import CellContext, Service

Message = dict[str, Any]
NO_VISION = "model has no vision"


class Ask(Protocol):
    """One model call for the cell, replayed from the cache when it was made before.

    `model` overrides the cell's model (IsoSP's describer); `sample` distinguishes otherwise equal
    calls (self-consistency); `step` names the call in the transcript and the cache key.
    """

    def __call__(
        self, messages: list[Message], step: str, *, model: str | None = None, sample: int = 0
    ) -> Awaitable[Reply]: ...


class Strategy(ABC):
    """A base strategy. Class attributes describe it for `exp list strategies`."""

    name: ClassVar[str]
    summary: ClassVar[str]
    source: ClassVar[str]
    # Other spellings a user may type (`cot` for `cot3`); rows and reports always hold `name`.
    spellings: ClassVar[tuple[str, ...]] = ()
    calls_per_cell: ClassVar[str] = "1"
    # False for a strategy with effects beyond its calls (files it writes): a rerun must run it.
    memoizable: ClassVar[bool] = True
    # None: every modality; otherwise the only modalities the strategy makes sense on.
    modalities: ClassVar[frozenset[Modality] | None] = None
    # The services its context must hold besides the cell's facts (see `context.py`).
    needs: ClassVar[frozenset[Service]] = frozenset()
    # True when its replies write out a chain of thought (worked demonstrations, a scratchpad): they
    # need room (`max_tokens`), and a run with a small limit is warned before it starts.
    writes_reasoning: ClassVar[bool] = False

    def skip_reason(self, variant: Variant, modality: Modality, ctx: CellContext) -> str | None:
        """Why this cell cannot run (recorded as `skipped: <reason>`), or None."""
        if self.modalities is not None and modality not in self.modalities:
            allowed = ", ".join(sorted(m.value for m in self.modalities))
            return f"{self.name} runs only on {allowed} cells"
        if modality.visual and not ctx.solver.vision:
            return NO_VISION
        return None

    @abstractmethod
    async def run(
        self, variant: Variant, representation: Representation, ask: Ask, ctx: CellContext
    ) -> Reply:
        """Make the calls and return the reply that is scored."""


Inner = Callable[[Variant, Representation, Ask], Awaitable[Reply]]


class Modifier(ABC):
    """Wraps the rest of the chain; may change the variant, the representation or `ask`."""

    name: ClassVar[str]
    summary: ClassVar[str]
    source: ClassVar[str]
    calls_per_cell: ClassVar[str] = "same as the base"
    memoizable: ClassVar[bool] = True
    # Modifiers nest in this order whatever order they are typed in (lower: further out).
    nesting: ClassVar[int]
    needs: ClassVar[frozenset[Service]] = frozenset()  # as a base strategy's
    writes_reasoning: ClassVar[bool] = False  # as a base strategy's

    @classmethod
    def from_spec(cls, part: str) -> Modifier | None:
        """This modifier, when one `+`-part of a strategy spec names it (sc@k overrides: it takes k)."""
        return cls() if part == cls.name else None

    @property
    def label(self) -> str:
        """The modifier as a spec names it."""
        return self.name

    def skip_reason(self, variant: Variant, modality: Modality, ctx: CellContext) -> str | None:
        return None

    @abstractmethod
    async def run(
        self, variant: Variant, representation: Representation, ask: Ask, ctx: CellContext, inner: Inner
    ) -> Reply: ...


def _summary_attribute(cls: type[Strategy] | type[Modifier]) -> str:
    return getattr(cls, "summary", "") or first_line(cls)


# Found on first read: every module of this package, then the entry points of the groups, so a
# strategy or modifier is one decorated class in any module here (or in a third-party package).
# Listed by name.
BASES: Registry[type[Strategy]] = Registry(
    "strategy", packages=("isodyn.strategies",), group="isodyn.strategies", summary=_summary_attribute
)
MODIFIERS: Registry[type[Modifier]] = Registry(
    "modifier", packages=("isodyn.strategies",), group="isodyn.modifiers", summary=_summary_attribute
)


def register_base(cls: type[Strategy]) -> type[Strategy]:
    """Class decorator: a base strategy, named in specs by its `name`."""
    return BASES.register(cls.name)(cls)


def register_modifier(cls: type[Modifier]) -> type[Modifier]:
    """Class decorator: a modifier, named in specs by its `name` (or its `from_spec`)."""
    return MODIFIERS.register(cls.name)(cls)


@lru_cache(maxsize=4096)
def png_data_uri(png: bytes) -> str:
    """Memoized: a replayed cell re-sends the same image object, and encoding it costs ~0.1 ms."""
    return "data:image/png;base64," + base64.b64encode(png).decode("ascii")


def user_message(text: str, images: list[bytes] | tuple[bytes, ...] = ()) -> Message:
    """An OpenAI-style user message: images first as data URIs, then the text."""
    if not images:
        return {"role": "user", "content": text}
    parts: list[dict[str, Any]] = [
        {"type": "image_url", "image_url": {"url": png_data_uri(i)}} for i in images
    ]
    parts.append({"type": "text", "text": text})
    return {"role": "user", "content": parts}
