"""The share of one model's hard set that also fails on a second model: `transfer_share`, from the
TRANSFER searcher's trials.
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass

from isodyn.core import Modality
from isodyn.search.analysis import OWN, Arm
from isodyn.search.trials import Searcher, Trial, TrialStatus


@dataclass(frozen=True)
class Transfer:
    """The hard set found on `source` asked to `target` (TRANSFER trials of `target`'s units).

    `source` is inferred: the other model(s) of the same strategy and modality with a confirmed
    failure on the same genome; None when no such trial is in the trials given. `asked`: transferred
    variants answered; `failed`: confirmed on `target`; `share` = failed / asked. When `target` was
    searched itself (its own trials here), `target_failing_seeds` counts the seeds its own search
    found a confirmed failure on and `covered_seeds` those where a transferred variant failed too;
    both are None otherwise."""

    source: str | None
    target: str
    strategy: str
    modality: Modality
    asked: int
    failed: int
    flukes: int
    unclear: int
    seeds: int  # seeds in the transferred set (answered)
    target_failing_seeds: int | None
    covered_seeds: int | None

    @property
    def share(self) -> float:
        return self.failed / self.asked if self.asked else math.nan

    @property
    def coverage(self) -> float | None:
        """The share of `target`'s own failing seeds the transferred set also failed on."""
        if self.target_failing_seeds is None or self.covered_seeds is None or not self.target_failing_seeds:
            return None
        return self.covered_seeds / self.target_failing_seeds


def _sources(trials: Sequence[Trial]) -> dict[tuple[str, Modality, str], set[str]]:
    """(strategy, modality, genome key) -> the models whose own search confirmed that variant."""
    found: dict[tuple[str, Modality, str], set[str]] = defaultdict(set)
    for t in trials:
        if t.searcher in OWN and t.confirmed:
            found[t.unit.strategy, t.unit.modality, t.genome.key()].add(t.unit.model)
    return found


def transfer_share(trials: Sequence[Trial]) -> list[Transfer]:
    sources = _sources(trials)
    groups: dict[tuple[str | None, str, str, Modality], list[Trial]] = defaultdict(list)
    for t in trials:
        if t.searcher is not Searcher.TRANSFER or not t.answered:
            continue
        models = sources.get((t.unit.strategy, t.unit.modality, t.genome.key()), set()) - {t.unit.model}
        named: list[str | None] = [*sorted(models)]
        for source in named or [None]:
            groups[source, t.unit.model, t.unit.strategy, t.unit.modality].append(t)
    own_seeds: dict[Arm, set[str]] = defaultdict(set)  # arm -> seeds searched
    own_failing: dict[Arm, set[str]] = defaultdict(set)  # arm -> seeds with a confirmed failure
    for t in trials:
        if t.searcher in OWN and t.answered:
            own_seeds[Arm.of(t.unit)].add(t.unit.seed_id)
            if t.confirmed:
                own_failing[Arm.of(t.unit)].add(t.unit.seed_id)
    found = []
    for (source, target, strategy, modality), group in sorted(
        groups.items(), key=lambda g: (str(g[0][0]), *g[0][1:])
    ):
        arm = Arm(target, strategy, modality)
        searched = arm in own_seeds
        failing = own_failing.get(arm, set())
        failed_seeds = {t.unit.seed_id for t in group if t.confirmed}
        found.append(
            Transfer(
                source=source,
                target=target,
                strategy=strategy,
                modality=modality,
                asked=len(group),
                failed=sum(t.confirmed for t in group),
                flukes=sum(t.status is TrialStatus.FLUKE for t in group),
                unclear=sum(t.status is TrialStatus.UNCLEAR for t in group),
                seeds=len({t.unit.seed_id for t in group}),
                target_failing_seeds=len(failing) if searched else None,
                covered_seeds=len(failing & failed_seeds) if searched else None,
            )
        )
    return found
