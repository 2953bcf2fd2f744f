"""The guided searcher: cover each of the seed's draws evenly, then search around the failures found.

What it may vary is what the seed itself draws (`generators/tape.py`): every value a draw can return is
a legitimate variant, and the seed computes the truth from it. Two moves:

- **Explore** (until a failure is found, and a quarter of the time after): a fresh variant index whose
  first `DIMENSIONS` tweakable values (one per value of a draw, in the order the designed variant
  draws them) are set from one point of a scrambled Sobol sequence, after two
  points at the ends of every range (all draws at their lowest, then at their highest). Each draw's
  range is then covered evenly rather than by independent luck: a failure region that depends on one or
  two of the seed's parameters (a number past some size, a slope's sign, an interval) is met sooner
  than by random draws, and a region with no such structure as soon as by them.
- **Mutate** (three quarters of the time once a confirmed failure exists): change one draw of a failing
  variant (a small step, a jump within its range, or another option) to find its neighbours. Which
  draw to change is a bandit (Thompson sampling over draws, Beta(1 + failures, 1 + passes) of the
  mutations of that draw), so draws whose changes keep producing failures are changed more. A seed
  that declares `param_variation` gets the bandit over its variation types first (which params a
  draw's changes touch is learned as the search goes), then over the draws of the chosen type.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from isodyn.core import VariationType
from isodyn.generators.base import SeedProgram
from isodyn.generators.tape import DrawRecord, Genome, Realized, TapeError, Value, realize, tweakable
from isodyn.search.searchers import Proposal
from isodyn.search.trials import Searcher, TrialStatus

DIMENSIONS = 64  # values set by the design; later draws of a variant stay as its index drew them
DESIGN_PASSES = 4  # re-draws of a designed variant until its draws take their coordinates
VECTOR_LIMIT = 12  # a draw of more values than this (a layout, a list of edges) stays as drawn
EXPLOIT_SHARE = 0.75
BLOCK = 1024  # Sobol points made at a time (a power of two keeps their balance)
EXPLORE = "explore"


@dataclass
class _Arm:
    failures: int = 0
    passes: int = 0


@dataclass(frozen=True)
class _Failure:
    number: int
    genome: Genome
    draws: tuple[DrawRecord, ...]
    params: dict[str, Any]


@dataclass
class GuidedSearch:
    seed: SeedProgram
    base_seed: int
    rng_seed: int
    kind: Searcher = Searcher.GUIDED
    _rng: np.random.Generator = field(init=False)
    _points: list[np.ndarray] = field(init=False, default_factory=list)
    _sobol: Any = field(init=False, default=None)
    _explored: int = field(init=False, default=0)
    _failures: list[_Failure] = field(init=False, default_factory=list)
    _arms: dict[int, _Arm] = field(init=False, default_factory=dict)  # by draw position
    _type_arms: dict[VariationType, _Arm] = field(init=False, default_factory=dict)
    _failure_of: dict[int, _Failure] = field(init=False, default_factory=dict)  # by trial number
    _touched: dict[int, frozenset[str]] = field(
        init=False, default_factory=dict
    )  # declared params a draw changed
    _changes_tried: dict[int, int] = field(init=False, default_factory=dict)
    _proposed: set[str] = field(init=False, default_factory=set)

    def __post_init__(self) -> None:
        self._rng = np.random.default_rng([self.rng_seed, 0x5EA2C4])

    # --- the two moves -------------------------------------------------------------------------------

    def propose(self) -> Proposal | None:
        if self._failures and self._rng.random() < EXPLOIT_SHARE:
            mutated = self._mutation()
            if mutated is not None:
                return self._remember(mutated)
        for _ in range(100):  # an exploration point the seed cannot draw is passed over
            explored = self._exploration()
            if explored is not None and explored.genome.key() not in self._proposed:
                return self._remember(explored)
        return None

    def observe(self, number: int, proposal: Proposal, realized: Realized, status: TrialStatus) -> None:
        failed = status is TrialStatus.CONFIRMED
        decided = failed or status in (TrialStatus.PASSED, TrialStatus.FLUKE, TrialStatus.UNCLEAR)
        if proposal.arm is not None and proposal.arm != EXPLORE and decided:
            position = int(proposal.arm)
            _count(self._arms.setdefault(position, _Arm()), failed)
            for kind in self._learn_types(position, proposal.parent, realized.variant.params):
                _count(self._type_arms.setdefault(kind, _Arm()), failed)
        if failed:
            found = _Failure(number, proposal.genome, realized.draws, realized.variant.params)
            self._failures.append(found)
            self._failure_of[number] = found

    def _learn_types(self, position: int, parent: int | None, params: dict[str, Any]) -> set[VariationType]:
        """The declared variation types a change of draw `position` touched (params of the seed's
        `param_variation` that differ from the failing parent's), remembered per draw."""
        declared = self.seed.param_variation
        if not declared or parent is None or parent not in self._failure_of:
            return set()
        before = self._failure_of[parent].params
        changed = {k for k in declared if before.get(k) != params.get(k)}
        self._touched[position] = self._touched.get(position, frozenset()) | changed
        self._changes_tried[position] = self._changes_tried.get(position, 0) + 1
        return {declared[k] for k in changed}

    def _remember(self, proposal: Proposal) -> Proposal:
        self._proposed.add(proposal.genome.key())
        return proposal

    # --- explore -------------------------------------------------------------------------------------

    def _next_point(self) -> np.ndarray:
        m = self._explored
        self._explored += 1
        if m == 0:
            return np.zeros(DIMENSIONS)
        if m == 1:
            return np.full(DIMENSIONS, 1.0 - 1e-9)
        if not self._points:
            if self._sobol is None:
                from scipy.stats import qmc  # seconds to import: only when a guided search runs

                self._sobol = qmc.Sobol(d=DIMENSIONS, scramble=True, seed=self._rng)
            self._points = list(self._sobol.random(BLOCK))
            self._points.reverse()  # popped from the end
        return self._points.pop()

    def _exploration(self) -> Proposal | None:
        index = self._explored
        point = self._next_point()
        genome = Genome(self.seed.seed_id, index, self.base_seed)
        # The point's coordinates go to the draws the designed variant itself makes, in order: a draw
        # whose range or presence depends on earlier values (a branch, a rejection loop) gets its
        # coordinate in the range it has there. Re-drawn until the design stops changing.
        tweaks: dict[int, Value] = {}
        for attempt in range(DESIGN_PASSES + 1):
            try:
                drawn = realize(self.seed, genome.with_tweaks(tweaks))
            except TapeError:
                return None
            designed = design(drawn.draws, point) if attempt < DESIGN_PASSES else tweaks
            if designed == tweaks:
                break
            tweaks = designed
        return Proposal(drawn.genome, arm=EXPLORE, realized=drawn)  # drawn: this design, realized

    # --- mutate --------------------------------------------------------------------------------------

    def _mutation(self) -> Proposal | None:
        for _ in range(20):
            parent = self._failures[int(self._rng.integers(len(self._failures)))]
            candidates = self._changeable(tweakable(parent.draws))
            if not candidates:
                return None
            draw = max(self._by_variation_type(candidates), key=self._sampled_rate)
            value = mutate(draw, self._rng)
            if value is None:
                continue
            genome = parent.genome.with_tweaks({draw.position: value})
            if genome.key() not in self._proposed:
                return Proposal(genome, parent=parent.number, arm=str(draw.position))
        return None

    def _changeable(self, draws: list[DrawRecord]) -> list[DrawRecord]:
        """With declared params: not the draws whose changes (three or more tried) never touched one."""
        if not self.seed.param_variation:
            return draws
        return [
            d for d in draws if self._changes_tried.get(d.position, 0) < 3 or self._touched.get(d.position)
        ]

    def _by_variation_type(self, draws: list[DrawRecord]) -> list[DrawRecord]:
        """With declared params, the draws of one variation type, chosen by Thompson sampling over the
        types (Beta(1 + failures, 1 + passes) of the changes that touched each); draws whose type is not
        yet known form a group of their own, sampled from Beta(1, 1). Without, every draw."""
        declared = self.seed.param_variation
        if not declared:
            return draws
        groups: dict[VariationType | None, list[DrawRecord]] = {}
        for draw in draws:
            touched = self._touched.get(draw.position)
            for kind in {declared[k] for k in touched} if touched else {None}:
                groups.setdefault(kind, []).append(draw)
        chosen = max(groups, key=lambda kind: self._sampled_type_rate(kind))
        return groups[chosen]

    def _sampled_type_rate(self, kind: VariationType | None) -> float:
        arm = self._type_arms.get(kind, _Arm()) if kind is not None else _Arm()
        return float(self._rng.beta(1 + arm.failures, 1 + arm.passes))

    def _sampled_rate(self, draw: DrawRecord) -> float:
        arm = self._arms.get(draw.position, _Arm())
        return float(self._rng.beta(1 + arm.failures, 1 + arm.passes))


def _count(arm: _Arm, failed: bool) -> None:
    if failed:
        arm.failures += 1
    else:
        arm.passes += 1


def design(draws: tuple[DrawRecord, ...], point: np.ndarray) -> dict[int, Value]:
    """The tweaks that set the draws from the point's coordinates, taken in the order drawn: one per
    value of each draw with more than one possible value (a draw of several values takes as many;
    permutations and draws of more than VECTOR_LIMIT values stay as drawn), until they run out."""
    tweaks: dict[int, Value] = {}
    at = 0
    for draw in draws:
        if draw.high <= draw.low or draw.kind == "permutation" or draw.size > VECTOR_LIMIT:
            continue
        if at + draw.size > len(point):
            break
        us = [float(u) for u in point[at : at + draw.size]]
        at += draw.size
        value = design_value(draw, us[0]) if draw.size == 1 else design_values(draw, us)
        if value is not None:
            tweaks[draw.position] = value
    return tweaks


def design_values(draw: DrawRecord, us: list[float]) -> Value | None:
    """The values of a draw of several at the coordinates `us`, each in the draw's range; for a choice
    without replacement each among the options not yet taken. None when a value is not allowed."""
    if draw.kind == "choice" and draw.distinct:
        options = [i for i in range(int(draw.low), int(draw.high) + 1) if _allowed(draw, i)]
        if len(options) < len(us):
            return None
        return [options.pop(min(int(u * len(options)), len(options) - 1)) for u in us]
    values = [design_value(draw, u) for u in us]
    if draw.kind in ("random", "uniform"):
        return [float(v) for v in values if isinstance(v, float)]
    picked = [v for v in values if isinstance(v, int)]
    return picked if len(picked) == len(us) else None


def design_value(draw: DrawRecord, u: float) -> Value | None:
    """The value at quantile `u` (0 <= u < 1) of the draw's range; None when that value is not allowed."""
    if draw.kind in ("random", "uniform"):
        return min(draw.low + u * (draw.high - draw.low), math.nextafter(draw.high, -math.inf))
    span = int(draw.high) - int(draw.low) + 1
    value = int(draw.low) + min(int(u * span), span - 1)
    if draw.kind == "choice" and draw.weights is not None and draw.weights[value] <= 0:
        return None
    return value


def mutate(draw: DrawRecord, rng: np.random.Generator) -> Value | None:
    """A neighbouring value of the draw: one of its values changed (a small step, a jump within the
    range, or another option); None when the draw has no other value to give."""
    values: list[Any] = draw.values
    at = int(rng.integers(len(values)))
    if draw.kind == "permutation" or (draw.kind == "choice" and draw.distinct and len(values) > 1):
        if draw.kind == "choice":
            unused = [
                i for i in range(int(draw.low), int(draw.high) + 1) if i not in values and _allowed(draw, i)
            ]
            if not unused:
                return None
            values[at] = unused[int(rng.integers(len(unused)))]
        else:
            other = int(rng.integers(len(values)))
            values[at], values[other] = values[other], values[at]
    elif draw.kind in ("random", "uniform"):
        width = draw.high - draw.low
        step = rng.normal(0.0, 0.1 * width) if rng.random() < 0.7 else rng.uniform(-width, width)
        values[at] = float(min(max(values[at] + step, draw.low), math.nextafter(draw.high, -math.inf)))
    else:
        values[at] = _integer_step(draw, int(values[at]), rng)
        if draw.kind == "choice" and not _allowed(draw, values[at]):
            return None
    mutated: Value = values if draw.size > 1 or isinstance(draw.value, list) else values[0]
    return None if json.dumps(mutated) == json.dumps(draw.value) else mutated


def _integer_step(draw: DrawRecord, value: int, rng: np.random.Generator) -> int:
    low, high = int(draw.low), int(draw.high)
    roll = rng.random()
    if draw.kind == "choice" or roll < 0.2:  # options have no order: any other one; or a jump
        step = int(rng.integers(low, high + 1)) - value
    elif roll < 0.7:
        step = int(rng.choice((-1, 1)))
    else:
        reach = max(2, math.ceil(0.15 * (high - low)))
        step = int(rng.integers(1, reach + 1)) * int(rng.choice((-1, 1)))
    return min(max(value + step, low), high)


def _allowed(draw: DrawRecord, index: int) -> bool:
    return draw.weights is None or draw.weights[index] > 0
