"""Running a search: rounds of proposals asked through the ordinary runner, confirmations, the trials.

Each round, every unit (model x strategy x modality x seed) with budget left asks its searchers for a
few variants, and every variant that was answered wrongly with a clear verdict in the last round is
asked again on `confirm` fresh repeats. The round's cells go through `runner.execute` like any run's
(the same cache, strategies, grading, budget and crash safety), into the search folder's
results.jsonl. A variant is a cell of the round's grid: the seeds of the plan are replaced by
`ProposedSeed`s that hand out the realized variants by number.

With `renders=` (issue 41) each variant of an image unit is also drawn under one of the render
profiles given, chosen beside the searcher (search/renders.py): the cell carries it, and the trial
records it. Without, every cell is drawn under the default profile, as before.

Everything here is deterministic given the outcomes, so a second search with the same settings asks
the same variants and replays every call from the cache.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from isodyn.core import DEFAULT_RENDER, DEMO_INDEX_START, JsonObject, Modality, Representation, Variant
from isodyn.experiments.grid import Grid
from isodyn.experiments.plan import Plan
from isodyn.experiments.runner import execute
from isodyn.generators.base import SeedProgram, StandInSeed
from isodyn.generators.tape import Genome, Realized, TapeError, realize
from isodyn.runs.folder import RunFolder
from isodyn.runs.record import Cell, CellResult, Status
from isodyn.search.guided import GuidedSearch
from isodyn.search.renders import RenderChooser
from isodyn.search.searchers import Baseline, FixedList, Proposal, RandomSearch, VariantSearch, searchable
from isodyn.search.trials import Asked, Searcher, Trial, TrialStatus, Unit, status_of

# A searcher that proposes this many variants in a row that its unit already tried has run out.
MAX_REPEATS_IN_A_ROW = 200
# A unit whose calls failed this many times in a row stops (the log says why); the others go on.
MAX_ERRORS_IN_A_ROW = 3


@dataclass(frozen=True)
class SearchSettings:
    """What `exp search` adds to a run's settings."""

    budget: int = 50  # calls per unit and searcher (confirmations included)
    searchers: tuple[Searcher, ...] = (Searcher.GUIDED,)
    confirm: int = 2  # fresh repeats a clear wrong answer must also get wrong
    baseline: int = 10  # DynaMath's variants 0..N-1 asked first (outside the budget); 0: none
    transfer: tuple[str, ...] = ()  # models the hard set is asked to afterwards
    search_seed: int = 0  # seeds the guided searcher's own choices
    per_round: int = 4  # variants a searcher proposes before it hears the outcomes

    def to_json(self) -> JsonObject:
        return {
            "budget": self.budget, "searchers": [s.value for s in self.searchers], "confirm": self.confirm,
            "baseline": self.baseline, "transfer": list(self.transfer), "search_seed": self.search_seed,
            "per_round": self.per_round,
        }  # fmt: skip


class ProposedSeed(StandInSeed):
    """A seed whose variant N is the Nth variant the search proposed for it (the demonstrations a
    strategy draws, at DEMO_INDEX_START and above, stay the seed's own)."""

    def __init__(self, seed: SeedProgram) -> None:
        super().__init__(seed, seed.seed_id, seed.variant_space)
        self.proposed: list[Variant] = []
        self._numbers: dict[str, int] = {}

    def number_of(self, realized: Realized) -> int:
        key = realized.genome.key()
        if key not in self._numbers:
            self._numbers[key] = len(self.proposed)
            self.proposed.append(replace(realized.variant, index=len(self.proposed)))
        return self._numbers[key]

    def variant(self, index: int, base_seed: int = 0) -> Variant:
        if index >= DEMO_INDEX_START or index >= len(self.proposed):
            return self.real.variant(index, base_seed)
        return self.proposed[index]

    def render(self, variant: Variant, modality: Modality) -> Representation:
        return self.real.render(variant, modality)


@dataclass(eq=False)
class _Pending:
    """A trial being asked: its first ask, then its confirmations."""

    search: _UnitSearch
    number: int
    proposal: Proposal
    realized: Realized
    index: int  # its number in the round grid's seed
    render: str = DEFAULT_RENDER  # the render profile its pictures are drawn under
    reserved: int = 0  # calls set aside in its unit's budget for its ask and confirmations
    asks: list[Asked] = field(default_factory=list)


@dataclass
class _UnitSearch:
    unit: Unit
    searcher: VariantSearch
    budget: int | None  # None: no budget of its own (the baseline, a transfer)
    spent: int = 0
    numbers: int = 0
    fingerprints: set[str] = field(default_factory=set)
    repeats_in_a_row: int = 0
    errors_in_a_row: int = 0
    exhausted: bool = False
    calls_per_ask: int = 1  # the most calls one ask of this unit has made
    params_of: dict[int, dict[str, Any]] = field(default_factory=dict)  # by trial number (parents)
    chooser: RenderChooser | None = None  # None: the default profile only
    render_of: dict[int, str] = field(default_factory=dict)  # by trial number (parents)

    def render_for(self, proposal: Proposal) -> str:
        """The render profile of the proposal's variant: a transferred variant's own, a mutation's
        parent's, else the chooser's."""
        if self.chooser is None:
            return DEFAULT_RENDER
        kept = proposal.render
        if kept is None and proposal.parent is not None:
            kept = self.render_of.get(proposal.parent)
        return self.chooser.choose(kept)

    def room(self, confirm: int) -> bool:
        """Whether one more variant (its ask and confirmations, at the most calls an ask has made)
        fits the budget, with what the variants in flight set aside."""
        if self.budget is None:
            return True
        return self.spent + self.calls_per_ask * (1 + confirm) <= self.budget


TrialHook = Callable[[Trial], None]
# Told of each variant before it is asked, with its unit (a test's answerer learns what it will be asked).
VariantHook = Callable[[Unit, Variant], None]


class SearchRounds:
    """The search loop over a checked plan (`plan.grid` gives the units' models, strategies,
    modalities and seeds); `run` returns every trial, in the order they finished."""

    def __init__(
        self,
        plan: Plan,
        settings: SearchSettings,
        folder: Path,
        on_trial: TrialHook | None = None,
        on_variant: VariantHook | None = None,
    ) -> None:
        self.plan = plan
        self.settings = settings
        self.folder = folder
        self.on_trial = on_trial
        self.on_variant = on_variant
        self.seeds = {seed_id: ProposedSeed(seed) for seed_id, seed in plan.seeds.items()}
        self.trials: list[Trial] = []
        self.undone = 0  # trials max_cost left unasked
        self.calls_made = 0  # calls sent to a model, over every round
        self.answers: dict[Cell, Asked] = {}  # every cell asked so far
        self.cost_usd = 0.0
        self.renders = plan.config.renders  # the profiles image units' variants are drawn under

    # --- the units ------------------------------------------------------------------------------------

    def units(self) -> list[Unit]:
        seen: dict[Unit, None] = {}
        for cell in self.plan.grid.cells:
            seen.setdefault(Unit(cell.model, cell.strategy, cell.modality, cell.seed_id), None)
        return list(seen)

    def searches(self, units: list[Unit]) -> list[_UnitSearch]:
        base_seed = self.plan.config.base_seed
        made: list[_UnitSearch] = []
        for unit in units:
            seed = self.plan.seeds[unit.seed_id]
            if self.settings.baseline:
                baseline = Baseline(seed, base_seed, self.settings.baseline)
                made.append(_UnitSearch(unit, baseline, None, chooser=self._chooser(unit, baseline.kind)))
            for kind in self.settings.searchers:
                searcher = self._searcher(kind, seed, unit)
                made.append(
                    _UnitSearch(unit, searcher, self.settings.budget, chooser=self._chooser(unit, kind))
                )
        return made

    def fixed_searches(self, variants: dict[Unit, list[tuple[Genome, str]]]) -> list[_UnitSearch]:
        """Units that ask exactly the given variants, each under its render profile (the hard set,
        to a transfer model)."""
        return [
            _UnitSearch(
                unit, FixedList([g for g, _ in asked], [r for _, r in asked]), None,
                chooser=self._chooser(unit, Searcher.TRANSFER),
            )
            for unit, asked in variants.items()
        ]  # fmt: skip

    def _chooser(self, unit: Unit, kind: Searcher) -> RenderChooser:
        return RenderChooser.for_unit(unit, kind, self.renders, self.settings.search_seed)

    def _searcher(self, kind: Searcher, seed: SeedProgram, unit: Unit) -> VariantSearch:
        base_seed = self.plan.config.base_seed
        limit = None if searchable(seed) else seed.variant_space
        if kind is Searcher.GUIDED and searchable(seed):
            digest = hashlib.sha256(json.dumps([unit.seed_id, unit.model, unit.strategy, unit.modality.value,
                                                self.settings.search_seed]).encode()).digest()  # fmt: skip
            return GuidedSearch(seed, base_seed, int.from_bytes(digest[:8], "little"))
        return RandomSearch(seed, base_seed, 0, limit)

    # --- the loop -------------------------------------------------------------------------------------

    async def run(self, searches: list[_UnitSearch]) -> list[Trial]:
        confirming: list[_Pending] = []
        first_round = True
        while True:
            asking = self._proposals(searches, 1 if first_round else self.settings.per_round)
            first_round = False
            if not asking and not confirming:
                break
            jobs = [(p, 0) for p in asking] + [
                (p, r) for p in confirming for r in range(1, self.settings.confirm + 1)
            ]
            results = await self._ask(jobs)
            if results is None:  # max_cost: what was not asked stays undone
                self.undone += len(asking) + len(confirming)
                break
            still: list[_Pending] = []
            for pending in confirming:
                pending.asks.extend(results[(id(pending), r)] for r in range(1, self.settings.confirm + 1))
                self._finish(pending)
            for pending in asking:
                first = results[(id(pending), 0)]
                pending.asks.append(first)
                if first.clearly_wrong and self.settings.confirm > 0:
                    still.append(pending)
                else:
                    self._finish(pending)
            confirming = still
        return self.trials

    def _proposals(self, searches: list[_UnitSearch], per_round: int) -> list[_Pending]:
        asking: list[_Pending] = []
        for search in searches:
            for _ in range(per_round):
                if search.exhausted or not search.room(self.settings.confirm):
                    break
                pending = self._next(search)
                if pending is None:
                    break
                # set aside for its ask and confirmations; corrected when its calls are counted
                pending.reserved = search.calls_per_ask * (1 + self.settings.confirm)
                search.spent += pending.reserved
                asking.append(pending)
        return asking

    def _next(self, search: _UnitSearch) -> _Pending | None:
        """The searcher's next variant the unit has not tried (a repeat costs nothing and is passed)."""
        seed = self.seeds[search.unit.seed_id]
        while search.repeats_in_a_row < MAX_REPEATS_IN_A_ROW:
            proposal = search.searcher.propose()
            if proposal is None:
                break
            try:
                realized = proposal.realized or (
                    realize(seed.real, proposal.genome)
                    if searchable(seed.real)
                    else _plain(seed.real, proposal.genome)
                )
            except TapeError:  # a seed that cannot take these values: passed over like a repeat
                search.repeats_in_a_row += 1
                continue
            render = search.render_for(proposal)
            # the same question under another profile is another picture: another variant to ask
            fingerprint = _question_print(realized.variant)
            if render != DEFAULT_RENDER:
                fingerprint += f"|{render}"
            if fingerprint in search.fingerprints:
                search.repeats_in_a_row += 1
                continue
            search.fingerprints.add(fingerprint)
            search.repeats_in_a_row = 0
            number = search.numbers
            search.numbers += 1
            index = seed.number_of(realized)
            if self.on_variant:
                self.on_variant(search.unit, seed.proposed[index])
            return _Pending(search, number, proposal, realized, index, render)
        search.exhausted = True
        return None

    async def _ask(self, jobs: list[tuple[_Pending, int]]) -> dict[tuple[int, int], Asked] | None:
        """Ask every (trial, repeat) through the runner; their asks, or None when max_cost stopped it.
        A cell two searchers share (the baseline's variant 3 is random search's too) is asked once."""
        cells = {(id(pending), repeat): _cell(pending, repeat) for pending, repeat in jobs}
        new = tuple(dict.fromkeys(c for c in cells.values() if c not in self.answers))
        if new:
            grid = Grid(new, ())
            plan = replace(self.plan, seeds=dict[str, SeedProgram](self.seeds), grid=grid)
            outcome = await execute(plan, RunFolder(self.folder))  # its rows in the search folder
            this_round = outcome.summary.this_process or outcome.summary  # later rounds: theirs
            self.calls_made += this_round.calls_made
            self.cost_usd += this_round.cost_usd
            for result in outcome.results:
                self.answers[result.cell] = _asked(result)
        if any(c not in self.answers for c in cells.values()):
            return None
        return {job: self.answers[cell] for job, cell in cells.items()}

    def _finish(self, pending: _Pending) -> None:
        asks = tuple(pending.asks)
        status = status_of(asks)
        variant = pending.realized.variant
        search = pending.search
        parent = pending.proposal.parent
        before = None if parent is None else search.params_of.get(parent)
        trial = Trial(
            search.unit, search.searcher.kind, pending.number, pending.realized.genome, variant.params,
            variant.answer, asks, status, parent, _changed(before, variant.params), pending.render,
        )  # fmt: skip
        search.params_of[pending.number] = variant.params
        search.render_of[pending.number] = pending.render
        if search.chooser is not None:
            search.chooser.observe(pending.render, status)
        search.calls_per_ask = max(search.calls_per_ask, *(a.calls for a in asks))
        # an ask that made no call (a failed one) still uses the budget: a search never loops for free
        search.spent += sum(max(1, a.calls) for a in asks) - pending.reserved
        search.errors_in_a_row = search.errors_in_a_row + 1 if status is TrialStatus.ERROR else 0
        if status is TrialStatus.SKIPPED or search.errors_in_a_row >= MAX_ERRORS_IN_A_ROW:
            search.exhausted = True  # a unit's cells are skipped alike (no vision, ...), or its calls fail
        search.searcher.observe(pending.number, pending.proposal, pending.realized, status)
        self.trials.append(trial)
        if self.on_trial:
            self.on_trial(trial)


def _changed(before: dict[str, Any] | None, after: dict[str, Any]) -> tuple[str, ...]:
    """The params that differ from the parent's (none without a parent)."""
    if before is None:
        return ()
    return tuple(sorted(k for k in before.keys() | after.keys() if before.get(k) != after.get(k)))


def _cell(pending: _Pending, repeat: int) -> Cell:
    u = pending.search.unit
    return Cell(u.model, u.strategy, u.modality, u.seed_id, pending.index, repeat, pending.render)


def _plain(seed: SeedProgram, genome: Genome) -> Realized:
    """A seed read from files: its own variant, no draws to record (random search only)."""
    if genome.tweaks:
        raise TapeError(f"{seed.seed_id} is read from files; its variants cannot be changed")
    return Realized(genome, seed.variant(genome.index, genome.base_seed), ())


def _question_print(variant: Variant) -> str:
    """Two variants with the same question, truth and object are the same variant to ask."""
    payload = json.dumps([variant.question, variant.answer, variant.params, variant.choices], sort_keys=True,
                         default=str)  # fmt: skip
    return hashlib.sha256(payload.encode()).hexdigest()


def _asked(result: CellResult) -> Asked:
    calls = len(result.calls)
    return Asked(
        repeat=result.cell.repeat,
        correct=result.correct if result.outcome.graded else None,
        clear=result.ambiguity == "clear" and result.outcome.status is Status.OK,
        extracted=result.extracted,
        calls=calls,
        cached=calls > 0 and all(bool(c.cache_hit) for c in result.calls),
        status=result.outcome.reason,
    )
