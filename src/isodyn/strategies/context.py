"""What a strategy sees of its cell: the cell's own facts, its outputs, and the services it declared.

Every strategy gets the cell's facts (which seed, variant index, modality, repeat and base seed, the
solving model, and `rng(purpose)` for its seeded draws) and writes its outputs into the context
(`notes`, stored on the row, and `scored_variant`, when it changed the question). Anything more is a
service, and a strategy or modifier names the services it uses in its `needs`:

| service | record | who needs it |
| --- | --- | --- |
| `MATERIALS` | `Materials`: other variants and renderings | few-shot demos, isocb, permute, dspy |
| `DESCRIBER` | `Describer`: the model that describes images, if not the solver | isosp |
| `PREPARATION` | `Preparation`: a call outside the transcript, request settings, folders | dspy |
| `GRADING` | `Grading`: the run's grader, so a vote reads replies as the verdict will | sc@k |

The runner builds a context holding only the services the composed strategy declared (every part's
`needs`); reading any other one raises `UndeclaredService`, a programming error, so an undeclared
dependency fails the strategy's own tests instead of reaching into the runner unnoticed.
"""

from __future__ import annotations

import hashlib
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field, replace
from enum import Enum
from pathlib import Path
from typing import Any, Protocol, TypeVar

import numpy as np

from isodyn.core import Modality, Representation, Variant
from isodyn.generators.base import SeedProgram
from isodyn.models.requests import ModelRequest, Reply
from isodyn.scoring import DEFAULT_GRADER


class Service(Enum):
    """A service a strategy may declare in `needs`; the value names its field in `Services`."""

    MATERIALS = "materials"
    DESCRIBER = "describer"
    PREPARATION = "preparation"
    GRADING = "grading"


class UndeclaredService(RuntimeError):
    """A strategy read a service it did not declare in `needs` (a bug in the strategy, not the run)."""


@dataclass(frozen=True)
class ModelFacts:
    name: str
    vision: bool


class Materials(Protocol):
    """Other variants than the cell's own, and their renderings (demonstrations, other modalities)."""

    seeds: dict[str, SeedProgram]

    def variant(self, seed_id: str, index: int) -> Variant: ...

    def render(self, variant: Variant, modality: Modality) -> Representation: ...


@dataclass(frozen=True)
class Describer:
    """The model that turns an image into text: `describer=MODEL`, or None for the cell's own model."""

    model: ModelFacts | None = None


Complete = Callable[[ModelRequest], Awaitable[Reply]]


@dataclass(frozen=True)
class Preparation:
    """For a strategy that prepares something once per run (dspy compiles a program): a cached model
    call outside any cell's transcript, the settings every request of the run carries, and where to
    keep what it builds (`run_dir` for this run, `cache_dir` for later runs)."""

    complete: Complete
    api_base: str | None
    generation: dict[str, Any]
    run_dir: Path
    cache_dir: Path


@dataclass(frozen=True)
class Grading:
    """The run's grader, by name: whoever reads a reply before the verdict reads it the same way."""

    grader: str = DEFAULT_GRADER


@dataclass(frozen=True)
class Services:
    """The services a context holds; None: not granted."""

    materials: Materials | None = None
    describer: Describer | None = None
    preparation: Preparation | None = None
    grading: Grading | None = None

    def only(self, needs: frozenset[Service]) -> Services:
        """These services less every one not in `needs`."""
        return replace(self, **{s.value: None for s in Service if s not in needs})


T = TypeVar("T")


@dataclass
class CellContext:
    """One cell as its strategy sees it. The services are read through the properties below, each of
    which raises `UndeclaredService` when the strategy did not declare it."""

    seed_id: str
    index: int
    modality: Modality
    repeat: int
    base_seed: int
    solver: ModelFacts  # the cell's model: which cell it is, and whether it reads images
    services: Services = field(default_factory=Services)
    notes: dict[str, Any] = field(default_factory=dict)
    # The variant whose truth the final reply is scored against (permute changes it).
    scored_variant: Variant | None = None

    def rng(self, purpose: str) -> np.random.Generator:
        """Randomness for one decision of one cell, reproducible on any machine."""
        text = f"{purpose}\x00{self.seed_id}\x00{self.index}\x00{self.base_seed}\x00{self.repeat}"
        return np.random.default_rng(int.from_bytes(hashlib.sha256(text.encode()).digest()[:16], "little"))

    @property
    def materials(self) -> Materials:
        return _granted(Service.MATERIALS, self.services.materials)

    @property
    def describer(self) -> Describer:
        return _granted(Service.DESCRIBER, self.services.describer)

    @property
    def preparation(self) -> Preparation:
        return _granted(Service.PREPARATION, self.services.preparation)

    @property
    def grading(self) -> Grading:
        return _granted(Service.GRADING, self.services.grading)


def _granted(service: Service, value: T | None) -> T:
    if value is None:
        raise UndeclaredService(
            f"this cell's context holds no {service.value} service: "
            f"add Service.{service.name} to the `needs` of the strategy or modifier that reads it"
        )
    return value
