"""The grid: models x strategies x modalities x seeds x variants x repeats, as a list of cells."""

from __future__ import annotations

from dataclasses import dataclass

from isodyn.core import Modality
from isodyn.generators import SeedProgram
from isodyn.runs.record import Cell


@dataclass(frozen=True)
class Grid:
    cells: tuple[Cell, ...]
    # (seed, modality) pairs the seed cannot render isomorphically: never run, reported.
    not_renderable: tuple[tuple[str, Modality], ...]


MAX_CELLS = 2_000_000  # beyond this a grid is a typo (repeats=1000000000), not an experiment


def grid_size(
    models: int,
    strategies: int,
    modalities: tuple[Modality, ...],
    seeds: dict[str, SeedProgram],
    variants: int,
    repeats: int,
) -> int:
    """How many cells `expand_grid` would build, counted without building them."""
    renderable = sum(m in seed.modalities for seed in seeds.values() for m in modalities)
    return models * strategies * renderable * variants * repeats


def expand_grid(
    models: tuple[str, ...],
    strategies: tuple[str, ...],
    modalities: tuple[Modality, ...],
    seeds: dict[str, SeedProgram],
    variants: int,
    repeats: int,
) -> Grid:
    cells: list[Cell] = []
    not_renderable = []
    for seed_id, seed in seeds.items():
        for modality in modalities:
            if modality not in seed.modalities:
                not_renderable.append((seed_id, modality))
                continue
            cells.extend(
                Cell(model, strategy, modality, seed_id, index, repeat)
                for model in models
                for strategy in strategies
                for index in range(variants)
                for repeat in range(repeats)
            )
    return Grid(tuple(cells), tuple(not_renderable))
