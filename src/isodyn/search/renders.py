"""Which render profile a search's next variant is drawn under (`exp search renders=...`, issue 41).

A render profile changes how a picture looks, never what it shows (docs/render-profiles.md), so for
an image unit it is one more dimension of a variant: the worst case is taken over renders too. The
searchers propose what the seed draws; the profile is chosen beside them, per unit and searcher:

- the baseline (DynaMath's variants 0..N-1) is drawn under the first profile given, the figure the
  search is set against;
- random search takes the profiles in turn (variant k under profile k mod n): each equally often;
- guided search explores the profiles in turn too until a failure is confirmed, then draws each new
  variant's profile by Thompson sampling over the profiles (Beta(1 + confirmed failures, 1 + passes)),
  so profiles the model fails under are searched more; a mutation of a failing variant keeps its
  parent's profile, so the change of one draw is what its outcome measures;
- a transfer asks each hard variant under the profile it was confirmed under.

Text modalities are drawn under no profile: their units only ever take the default. Every choice is
seeded, so a second search asks the same cells and replays them from the cache.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field

import numpy as np

from isodyn.core import DEFAULT_RENDER, Modality
from isodyn.search.trials import Searcher, TrialStatus, Unit


@dataclass
class _Tally:
    failures: int = 0
    passes: int = 0


@dataclass
class RenderChooser:
    """The profiles one unit's searcher draws its variants under (a single one: always that)."""

    renders: tuple[str, ...]
    searcher: Searcher
    rng_seed: int = 0
    _turn: int = field(init=False, default=0)
    _tallies: dict[str, _Tally] = field(init=False, default_factory=dict)
    _rng: np.random.Generator = field(init=False)

    def __post_init__(self) -> None:
        if not self.renders:
            raise ValueError("a render chooser needs at least one profile")
        self._rng = np.random.default_rng([self.rng_seed, 0x4E2D])

    @classmethod
    def for_unit(
        cls, unit: Unit, searcher: Searcher, renders: tuple[str, ...], search_seed: int
    ) -> RenderChooser:
        """The chooser of `unit`'s searcher: the profiles for an image unit, the default otherwise."""
        shown = renders if unit.modality is Modality.IMAGE and renders else (DEFAULT_RENDER,)
        words = [unit.model, unit.strategy, unit.modality.value, unit.seed_id, searcher.value, search_seed]
        digest = hashlib.sha256(json.dumps(words).encode()).digest()
        return cls(shown, searcher, int.from_bytes(digest[:8], "little"))

    @property
    def varies(self) -> bool:
        return len(self.renders) > 1

    def choose(self, kept: str | None = None) -> str:
        """The profile of the next variant; `kept`: a profile it must keep (a guided mutation's
        parent's, a transferred variant's), when it is one of this unit's."""
        if not self.varies or self.searcher is Searcher.BASELINE:
            return self.renders[0]
        if kept is not None and kept in self.renders:
            return kept
        if self.searcher is Searcher.GUIDED and any(t.failures for t in self._tallies.values()):
            return max(self.renders, key=self._sampled_rate)
        chosen = self.renders[self._turn % len(self.renders)]
        self._turn += 1
        return chosen

    def observe(self, render: str, status: TrialStatus) -> None:
        """A trial's outcome under `render` (undecided ones, errors and skips, teach nothing)."""
        tally = self._tallies.setdefault(render, _Tally())
        if status is TrialStatus.CONFIRMED:
            tally.failures += 1
        elif status in (TrialStatus.PASSED, TrialStatus.FLUKE, TrialStatus.UNCLEAR):
            tally.passes += 1

    def _sampled_rate(self, render: str) -> float:
        tally = self._tallies.get(render, _Tally())
        return float(self._rng.beta(1 + tally.failures, 1 + tally.passes))
