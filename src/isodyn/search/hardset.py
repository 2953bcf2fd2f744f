"""The hard set a search leaves: its confirmed failing variants, as a dataset another run reads.

`write_hardset(folder, trials, seeds)` keeps the CONFIRMED trials, one item per distinct genome
(the units that confirmed it merged in `found_by`), and writes `folder/hardset.jsonl` (the format is
`datasets.hardset`'s, which reads it back) and a short `folder/README.md`. Then

    exp run dataset=FOLDER models=OTHER strategies=...

asks exactly those variants again, so another model or strategy is tested on them.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from isodyn.atomic import write_atomic
from isodyn.datasets.hardset import HARDSET_FILE, FoundBy, HardItem, item_id
from isodyn.generators.base import SeedProgram
from isodyn.generators.tape import realize
from isodyn.search.trials import Trial

README = "README.md"


@dataclass(frozen=True)
class HardSetSummary:
    """What was written: how many hard variants, of how many seeds, and where."""

    items: int
    seeds: int
    path: Path  # the hardset.jsonl written

    @property
    def empty(self) -> bool:
        return self.items == 0

    def line(self) -> str:
        if self.empty:
            return f"hard set: empty, no variant was confirmed as failing ({self.path})"
        return f"hard set: {self.items} confirmed failing variants of {self.seeds} seeds in {self.path}"


def found_by(trial: Trial) -> FoundBy:
    return FoundBy(trial.unit.model, trial.unit.strategy, trial.unit.modality.value, trial.searcher.value)


def _confirmed_by_genome(trials: Sequence[Trial]) -> dict[str, list[Trial]]:
    """The confirmed trials grouped by the variant they asked (its genome's key), first seen first."""
    groups: dict[str, list[Trial]] = {}
    for trial in trials:
        if trial.confirmed:
            groups.setdefault(trial.genome.key(), []).append(trial)
    return groups


def _item(group: list[Trial], seeds: Mapping[str, SeedProgram]) -> HardItem:
    """One hard variant: realized afresh at its genome's index (the reader checks the same)."""
    genome = group[0].genome
    seed = seeds.get(genome.seed_id)
    if seed is None:
        raise ValueError(f"a confirmed trial names seed {genome.seed_id!r}, not among the seeds given")
    variant = realize(seed, genome).variant
    units = tuple(sorted({found_by(trial) for trial in group}))
    return HardItem(item_id(genome), genome, variant.question, variant.answer, variant.fingerprint(), units)


def hard_items(trials: Sequence[Trial], seeds: Mapping[str, SeedProgram]) -> list[HardItem]:
    """The hard set's items in a stable order: by seed id, then by item id."""
    items = [_item(group, seeds) for group in _confirmed_by_genome(trials).values()]
    return sorted(items, key=lambda item: (item.seed_id, item.id))


def readme(items: int, seeds: int) -> str:
    held = f"{items} variants of {seeds} seeds" if items else "no variants (the search confirmed no failure)"
    return f"""# Hard set

`{HARDSET_FILE}` holds the variants a worst-variant search (`exp search`) confirmed as failures:
{held}. Each line is one variant: `id`, `genome` (the seed, variant index, base seed and the random
draws the search changed), `seed_id`, `question`, `answer` (the exact truth), `fingerprint` and
`found_by` (the model, strategy, modality and searcher that confirmed it).

Ask exactly these variants of another model or strategy:

    exp run dataset=<this folder> models=MODEL strategies=STRATEGY

Each variant is one item (variant 0 of its id); `repeats=` asks each again, `seeds=` picks items by
id or by seed, and `base_seed=` does not change them. The variants are remade from their genomes by
the seed programs when read: if a seed program changed since this file was written, it is refused.
"""


def write_hardset(folder: Path, trials: Sequence[Trial], seeds: Mapping[str, SeedProgram]) -> HardSetSummary:
    """Write `folder/hardset.jsonl` (atomically; an empty file when nothing was confirmed) and its README."""
    items = hard_items(trials, seeds)
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / HARDSET_FILE
    lines = "".join(json.dumps(item.to_json(), allow_nan=False) + "\n" for item in items)
    write_atomic(path, lines.encode())
    seed_count = len({item.seed_id for item in items})
    write_atomic(folder / README, readme(len(items), seed_count).encode())
    return HardSetSummary(len(items), seed_count, path)
