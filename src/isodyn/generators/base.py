"""SeedProgram: one problem family that yields unlimited concrete variants with exact truth.

A seed is a class in a module of its own under `generators/<group>/`; defining the class registers it
in `SEEDS`, which finds the modules by importing its packages and the `isodyn.seeds` entry points
(see `isodyn.registry` and docs/extending.md). Everything about a variant follows from
`(seed_id, index, base_seed)`.
"""

from __future__ import annotations

import hashlib
import json
import sys
from abc import ABC, abstractmethod
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np

from isodyn.core import AnswerType, Level, Modality, Representation, Topic, Variant, VariationType
from isodyn.registry import Registry, first_line


def _seed_summary(cls: type[SeedProgram]) -> str:
    """`topic: what it asks`: the class's docstring, else its module's (a seed is one module)."""
    said = first_line(cls) or first_line(sys.modules.get(cls.__module__))
    return f"{cls.topic.value}: {said}" if said else cls.topic.value


# Every seed program by id, listed by id. A group of seeds is a package below; a seed outside them
# comes from a third-party package through the `isodyn.seeds` entry points.
SEEDS: Registry[type[SeedProgram]] = Registry(
    "seed",
    packages=("isodyn.generators.dynamath", "isodyn.generators.isobench"),
    group="isodyn.seeds",
    summary=_seed_summary,
)


def variant_rng(seed_id: str, index: int, base_seed: int) -> np.random.Generator:
    """A generator that depends only on its three arguments (never on Python's salted `hash`)."""
    digest = hashlib.sha256(f"{seed_id}\x00{index}\x00{base_seed}".encode()).digest()
    return np.random.default_rng(int.from_bytes(digest[:16], "little"))


@dataclass(frozen=True)
class Draw:
    """What a seed's `sample` returns: the variable part of a variant."""

    params: dict[str, Any]
    question: str
    answer: str
    solution: str
    choices: tuple[str, ...] = ()


class SeedProgram(ABC):
    # What a seed is: a registered seed sets these as class attributes, a seed read from files
    # (`release.ReleasedItem`) sets them per instance, so they are not ClassVars.
    seed_id: str
    topic: Topic
    level: Level
    answer_type: AnswerType
    # Rough count of distinct variants the seed can produce (DynaMath Figure 4a).
    variant_space: int
    variation_types: ClassVar[tuple[VariationType, ...]]
    modalities: ClassVar[tuple[Modality, ...]]
    # Classification seeds list their possible answers here and implement `sample_for`; variant i
    # then has answer classes[i % len(classes)], so any n consecutive variants are balanced by
    # construction (IsoBench's sets are balanced per class).
    classes: ClassVar[tuple[str, ...]] = ()
    # Optional, for `exp search`: the variation type of each top-level key of a variant's params the
    # guided searcher may vary (DynaMath's types: a corner's position is a numerical value, the function's
    # form a function type, ...). It then spreads its changes over these types by how often each has
    # produced failures, leaves alone the draws that change no listed key, and the report says which
    # types the failures' changes touched. A seed without it is searched draw by draw.
    param_variation: ClassVar[Mapping[str, VariationType]] = {}
    # False: the render cache neither stores nor replays this seed's variants and renderings
    # (seeds read from files that may change under the same id).
    memoizable: ClassVar[bool] = True
    # Text perturbations (issue 41, `generators.perturb`): the ones this seed supports, of "noop",
    # "magnitude" and "rename". Each needs `redraw`; noop needs `noop_clause` and `truth_reads`,
    # magnitude `scaled` and `numbers`, rename `renamed`.
    perturbations: ClassVar[frozenset[str]] = frozenset()
    # The keys of `params` the truth reads: a noop clause is stored under none of them.
    truth_reads: ClassVar[tuple[str, ...]] = ()

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        if getattr(cls, "seed_id", None) is None:
            return  # an abstract intermediate class, or items read from files (ids per instance)
        SEEDS.add(cls.seed_id, cls)  # a second class with the same id is an error

    def sample(self, rng: np.random.Generator) -> Draw:
        """Draw the variable part of one variant. Must use only `rng` for randomness."""
        raise NotImplementedError(f"{type(self).__name__} implements neither sample nor sample_for")

    def sample_for(self, rng: np.random.Generator, answer: str) -> Draw:
        """Draw a variant whose answer is `answer` (one of `classes`). Only `rng` may be random."""
        raise NotImplementedError(f"{type(self).__name__} lists classes but does not implement sample_for")

    # --- perturbations (optional; see `perturbations`) -------------------------------------------
    def redraw(self, params: dict[str, Any]) -> Draw:
        """The question, answer, solution and choices of `params` alone (pure, no randomness): what
        `sample` returned with these params. A perturbation changes params and asks again."""
        raise NotImplementedError(f"{self.seed_id} supports no perturbation")

    def noop_clause(self, params: dict[str, Any], rng: np.random.Generator) -> str:
        """One plausible sentence in the seed's own vocabulary that changes nothing the truth reads."""
        raise NotImplementedError(f"{self.seed_id} does not support noop")

    def scaled(self, params: dict[str, Any], factor: int) -> dict[str, Any]:
        """`params` with the seed's quantities multiplied by `factor` (a power of ten); the truth is
        then recomputed by `redraw`."""
        raise NotImplementedError(f"{self.seed_id} does not support magnitude")

    def numbers(self, params: dict[str, Any]) -> tuple[float, ...]:
        """The quantities `scaled` multiplies (the covariate "number size" is the largest)."""
        raise NotImplementedError(f"{self.seed_id} does not support magnitude")

    def renamed(self, params: dict[str, Any], rng: np.random.Generator) -> dict[str, Any]:
        """`params` with entities and labels renamed (some to names that suggest a wrong answer);
        the truth is unchanged."""
        raise NotImplementedError(f"{self.seed_id} does not support rename")

    @abstractmethod
    def render(self, variant: Variant, modality: Modality) -> Representation:
        """Show `variant` in `modality` (one of `self.modalities`)."""

    def variant(self, index: int, base_seed: int = 0) -> Variant:
        return self.variant_from(variant_rng(self.seed_id, index, base_seed), index, base_seed)

    def variant_from(self, rng: np.random.Generator, index: int, base_seed: int) -> Variant:
        """The variant drawn from `rng` (a search passes a recording one, `generators.tape`)."""
        draw = (
            self.sample_for(rng, self.classes[index % len(self.classes)])
            if self.classes
            else self.sample(rng)
        )
        if self.classes and draw.answer != self.classes[index % len(self.classes)]:
            raise AssertionError(f"{self.seed_id}: sample_for returned answer {draw.answer!r}")
        json.dumps(draw.params, allow_nan=False)  # fail early on numpy scalars or NaN in params
        return Variant(
            seed_id=self.seed_id,
            index=index,
            base_seed=base_seed,
            topic=self.topic,
            level=self.level,
            answer_type=self.answer_type,
            question=draw.question,
            answer=draw.answer,
            params=draw.params,
            choices=draw.choices,
            solution=draw.solution,
            variation_types=self.variation_types,
        )

    def representation(self, variant: Variant, modality: Modality) -> Representation:
        if modality not in self.modalities:
            raise UnsupportedModality(self.seed_id, modality)
        return self.render(variant, modality)


class StandInSeed(SeedProgram):
    """A seed that shows another seed's variants under an id of its own (a search's proposals, a hard
    set's items): it is what the real seed is (topic, level, answer type, modalities, variation types,
    classes, declared params); how it numbers and renders its variants is the subclass's."""

    memoizable = False  # its numbers do not name the real seed's variants

    def __init__(self, real: SeedProgram, seed_id: str, variant_space: int) -> None:
        self.real = real
        self.seed_id = seed_id
        self.variant_space = variant_space
        self.topic, self.level, self.answer_type = real.topic, real.level, real.answer_type
        # per instance: each stand-in is of its own real seed
        self.modalities = real.modalities  # type: ignore[misc]
        self.variation_types = real.variation_types  # type: ignore[misc]
        self.classes = real.classes  # type: ignore[misc]
        self.param_variation = real.param_variation  # type: ignore[misc]


# Not an IsodynError: isodyn only asks a seed for the modalities it lists, so one reaching `exp`
# is a bug and shows its traceback; a library caller catches it as the LookupError it is.
class UnsupportedModality(LookupError):
    def __init__(self, seed_id: str, modality: Modality) -> None:
        super().__init__(f"seed {seed_id!r} cannot render {modality.value!r} isomorphically")
        self.seed_id = seed_id
        self.modality = modality


def registered() -> dict[str, type[SeedProgram]]:
    """The seed classes registered so far, by id, without discovering the others."""
    return SEEDS.registered()


def letter(i: int) -> str:
    return "ABCDEFGHIJ"[i]


def format_choices(choices: tuple[str, ...]) -> str:
    """DynaMath's inline choice list: `choices: (A) Yes, (B) No`."""
    return "choices: " + ", ".join(f"({letter(i)}) {c}" for i, c in enumerate(choices))
