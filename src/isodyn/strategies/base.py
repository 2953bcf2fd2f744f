"""Strategies turn one variant, shown in one modality, into one or more model calls.

Two kinds compose into what a grid cell runs (see `compose.py`):

- a **base strategy** builds the messages and makes the calls (zeroshot, cot3, isosp, isocb, ...);
- a **modifier** wraps whatever runs inside it (antimem adds its system text, sc@k samples k
  times and votes, permute reorders the options), so `antimem+cot3` is the 3-shot prompt with the
  anti-memorization text in front.

Strategies never touch the network or the disk: they receive `ask` (one cached model call) and a
`CellContext` (the cell, the models, the seeds and a renderer), and they write what they chose
(demonstrations, votes, option order) into `ctx.notes`, which the runner stores on the row.
"""

from __future__ import annotations

import base64
import hashlib
from abc import ABC, abstractmethod
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any, ClassVar, Protocol

import numpy as np

from isodyn.cache import ModelRequest, Reply
from isodyn.core import Modality, Representation, Variant
from isodyn.generators.base import SeedProgram
from isodyn.registry import Registry
from isodyn.scoring import DEFAULT_GRADER

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


class Materials(Protocol):
    """What a strategy may look up besides its own variant: other variants and their renderings."""

    seeds: dict[str, SeedProgram]

    def variant(self, seed_id: str, index: int) -> Variant: ...

    def render(self, variant: Variant, modality: Modality) -> Representation: ...


@dataclass(frozen=True)
class ModelFacts:
    name: str
    vision: bool


Complete = Callable[[ModelRequest], Awaitable[Reply]]


@dataclass
class CellContext:
    seed_id: str
    index: int
    modality: Modality
    repeat: int
    base_seed: int
    materials: Materials
    solver: ModelFacts
    describer: ModelFacts | None = None
    notes: dict[str, Any] = field(default_factory=dict)
    # The variant whose truth the final reply is scored against (permute changes it).
    scored_variant: Variant | None = None
    # For strategies that prepare once per run (dspy): a cached model call outside the cell's
    # transcript, the settings every request must carry, and where to keep what they build.
    complete: Complete | None = None
    api_base: str | None = None
    generation: dict[str, Any] = field(default_factory=dict)
    run_dir: Path | None = None
    cache_dir: Path | None = None
    grader: str = DEFAULT_GRADER  # the run's grader: a vote reads replies as the verdict will

    def rng(self, purpose: str) -> np.random.Generator:
        """Randomness for one decision of one cell, reproducible on any machine."""
        text = f"{purpose}\x00{self.seed_id}\x00{self.index}\x00{self.base_seed}\x00{self.repeat}"
        return np.random.default_rng(int.from_bytes(hashlib.sha256(text.encode()).digest()[:16], "little"))


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


BASES: Registry[type[Strategy]] = Registry("strategy")
MODIFIERS: Registry[type[Modifier]] = Registry("modifier")


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
