"""The searchers: what variant of a seed to try next, given what the earlier ones gave.

Both are deterministic state machines (the same outcomes give the same proposals, so a rerun replays
its calls from the cache) and never call a model:

- `RandomSearch` tries variant indices 0, 1, 2, ...: each index is an independent draw of the seed,
  so this is DynaMath's 10 variants, continued.
- `GuidedSearch` (search/guided.py) uses the seed's own draws (`generators/tape.py`).

The engine asks a searcher for a `Proposal`, asks the model, and tells the searcher the outcome
(`observe`) with the realized variant (its params and the draws that made it).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

from isodyn.generators.base import SeedProgram
from isodyn.generators.tape import Genome, Realized
from isodyn.search.trials import Searcher, TrialStatus


@dataclass(frozen=True)
class Proposal:
    genome: Genome
    parent: int | None = None  # the trial (its number) this variant was made from, if any
    arm: str | None = None  # what the guided searcher changed (for its bandit and the report)
    realized: Realized | None = None  # the variant, when the searcher already drew it (not drawn twice)
    render: str | None = None  # the render profile it must be drawn under (a transferred variant's)


class VariantSearch(Protocol):
    kind: Searcher

    def propose(self) -> Proposal | None:
        """The next variant to try; None when this searcher has nothing new to try."""

    def observe(self, number: int, proposal: Proposal, realized: Realized, status: TrialStatus) -> None:
        """The outcome of the proposal the engine numbered `number` (its trial)."""


class RandomSearch:
    kind = Searcher.RANDOM

    def __init__(
        self, seed: SeedProgram, base_seed: int, first_index: int = 0, limit: int | None = None
    ) -> None:
        self._seed_id = seed.seed_id
        self._base_seed = base_seed
        self._next = first_index
        self._limit = limit  # a seed read from files has only its own trials

    def propose(self) -> Proposal | None:
        if self._limit is not None and self._next >= self._limit:
            return None
        genome = Genome(self._seed_id, self._next, self._base_seed)
        self._next += 1
        return Proposal(genome)

    def observe(self, number: int, proposal: Proposal, realized: Realized, status: TrialStatus) -> None:
        return None  # random search learns nothing


class Baseline(RandomSearch):
    """DynaMath's own draw: variants 0..count-1, asked once each (its 10-variant worst case)."""

    kind = Searcher.BASELINE

    def __init__(self, seed: SeedProgram, base_seed: int, count: int) -> None:
        super().__init__(seed, base_seed, 0, count)


def searchable(seed: SeedProgram) -> bool:
    """Whether the seed draws its variants through `sample` from the variant's generator (a generated
    seed), so its draws can be recorded and tweaked; a seed read from files cannot be."""
    return type(seed).variant is SeedProgram.variant and type(seed).variant_from is SeedProgram.variant_from


class FixedList:
    """The hard set asked to another model: exactly these variants, in this order."""

    kind = Searcher.TRANSFER

    def __init__(self, genomes: list[Genome], renders: list[str] | None = None) -> None:
        # each variant's render profile (the one it was confirmed under); None: the unit's choice
        kept: list[str | None] = list(renders) if renders is not None else [None] * len(genomes)
        self._left = list(reversed(list(zip(genomes, kept, strict=True))))

    def propose(self) -> Proposal | None:
        if not self._left:
            return None
        genome, render = self._left.pop()
        return Proposal(genome, render=render)

    def observe(self, number: int, proposal: Proposal, realized: Realized, status: TrialStatus) -> None:
        return None
