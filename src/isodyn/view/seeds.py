"""A seed's page: every variant of the seed in every arm, which failed, and the worst case at a
glance (DynaMath's worst case: an arm solves a seed only when it gets every variant right)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from isodyn.core import DEFAULT_RENDER, NO_PERTURBATION
from isodyn.view.index import CellIndex, natural_key
from isodyn.view.scan import NOT_GRADED, RIGHT


@dataclass(frozen=True)
class Square:
    """One variant of one arm (and repeat): the cell, or None when the run has no such cell."""

    variant: int
    cell: int | None
    verdict: str  # right, wrong, not graded, or "missing"
    reason: str


@dataclass(frozen=True)
class ArmRow:
    model: str
    strategy: str
    modality: str
    render: str
    perturbation: str
    repeat: int
    squares: list[Square]
    right: int
    wrong: int
    not_graded: int

    @property
    def solved(self) -> bool:
        return self.wrong == 0 and self.right > 0


@dataclass(frozen=True)
class SeedView:
    seed_id: str
    topic: str
    variants: list[int]
    arms: list[ArmRow]
    solved: int  # arms that got every graded variant right (the worst case holds)
    worst_variant: int | None  # the variant most arms got wrong
    worst_failures: int


Arm = tuple[str, str, str, str, str, int]  # model, strategy, modality, render, perturbation, repeat


def _arm_of(index: CellIndex, cell: int) -> Arm:
    value = index.value
    return (
        value("model", cell),
        value("strategy", cell),
        value("modality", cell),
        value("render", cell),
        value("perturbation", cell),
        int(index.numbers["repeat"][cell]),
    )


def _arm_order(arm: Arm) -> tuple[Any, ...]:
    """Arms in natural order, an arm's default render and unperturbed variants before the others."""
    model, strategy, modality, render, perturbation, repeat = arm
    return (
        *map(natural_key, (model, strategy, modality)),
        render != DEFAULT_RENDER, natural_key(render),
        perturbation != NO_PERTURBATION, natural_key(perturbation), repeat,
    )  # fmt: skip


def seed_view(index: CellIndex, seed_id: str) -> SeedView | None:
    cells = index.of_seed(seed_id)
    if not len(cells):
        return None
    variants = sorted({int(index.numbers["variant"][c]) for c in cells})
    # a render profile or a perturbation is an arm of its own: its cells share the variant numbers
    by_arm: dict[Arm, dict[int, int]] = {}
    for c in map(int, cells):
        by_arm.setdefault(_arm_of(index, c), {})[int(index.numbers["variant"][c])] = c
    rows = []
    failures = dict.fromkeys(variants, 0)
    for arm in sorted(by_arm, key=_arm_order):
        squares = []
        for variant in variants:
            cell = by_arm[arm].get(variant)
            if cell is None:
                squares.append(Square(variant, None, "missing", ""))
                continue
            squares.append(Square(variant, cell, index.verdict(cell), index.value("reason", cell)))
            if index.verdict(cell) == "wrong":
                failures[variant] += 1
        codes = [int(index.numbers["verdict"][s.cell]) for s in squares if s.cell is not None]
        right = codes.count(RIGHT)
        not_graded = codes.count(NOT_GRADED)
        rows.append(ArmRow(*arm, squares, right, len(codes) - right - not_graded, not_graded))
    worst = max(variants, key=lambda v: (failures[v], -v))
    return SeedView(
        seed_id, index.value("topic", int(cells[0])), variants, rows, sum(r.solved for r in rows),
        worst if failures[worst] else None, failures[worst],
    )  # fmt: skip
