"""The grid: models x strategies x modalities x seeds x variants x repeats, as a list of cells."""

from __future__ import annotations

from dataclasses import dataclass

from isodyn.core import DEFAULT_RENDER, Modality
from isodyn.generators import SeedProgram
from isodyn.generators.perturb import Perturbation, supports
from isodyn.runs.record import Cell


@dataclass(frozen=True)
class Grid:
    cells: tuple[Cell, ...]
    # (seed, modality) pairs the seed cannot render isomorphically: never run, reported.
    not_renderable: tuple[tuple[str, Modality], ...]
    # (seed, perturbation) pairs the seed does not support: never run, reported.
    not_perturbable: tuple[tuple[str, str], ...] = ()


@dataclass(frozen=True)
class Showings:
    """How each variant is shown besides its modality (issue 41): the render profiles of its picture
    (text modalities are drawn under none, so they take the default only) and the perturbations of
    its question, by the names rows carry."""

    renders: tuple[str, ...] = (DEFAULT_RENDER,)
    perturbations: tuple[Perturbation, ...] = (Perturbation(),)

    def renders_of(self, modality: Modality) -> tuple[str, ...]:
        return self.renders if modality is Modality.IMAGE else (DEFAULT_RENDER,)

    def supported(self, seed: SeedProgram) -> tuple[Perturbation, ...]:
        return tuple(p for p in self.perturbations if supports(seed, p))


MAX_CELLS = 2_000_000  # beyond this a grid is a typo (repeats=1000000000), not an experiment


def grid_size(
    models: int,
    strategies: int,
    modalities: tuple[Modality, ...],
    seeds: dict[str, SeedProgram],
    variants: int,
    repeats: int,
    showings: Showings = Showings(),
) -> int:
    """How many cells `expand_grid` would build, counted without building them."""
    shown = sum(
        len(showings.renders_of(m)) * len(showings.supported(seed))
        for seed in seeds.values()
        for m in modalities
        if m in seed.modalities
    )
    return models * strategies * shown * variants * repeats


def expand_grid(
    models: tuple[str, ...],
    strategies: tuple[str, ...],
    modalities: tuple[Modality, ...],
    seeds: dict[str, SeedProgram],
    variants: int,
    repeats: int,
    showings: Showings = Showings(),
) -> Grid:
    cells: list[Cell] = []
    not_renderable = []
    not_perturbable = [
        (seed_id, p.label)
        for seed_id, seed in seeds.items()
        for p in showings.perturbations
        if not supports(seed, p)
    ]
    for seed_id, seed in seeds.items():
        perturbations = showings.supported(seed)
        for modality in modalities:
            if modality not in seed.modalities:
                not_renderable.append((seed_id, modality))
                continue
            cells.extend(
                Cell(model, strategy, modality, seed_id, index, repeat, render, perturbation.label)
                for render in showings.renders_of(modality)
                for perturbation in perturbations
                for model in models
                for strategy in strategies
                for index in range(variants)
                for repeat in range(repeats)
            )
    return Grid(tuple(cells), tuple(not_renderable), tuple(not_perturbable))
