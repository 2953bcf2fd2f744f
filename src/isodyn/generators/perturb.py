"""Text perturbations (issue 41): the same variant with a clause that changes nothing, its numbers
scaled, or its names changed, each with its truth recomputed by the seed itself.

A perturbation is a registered kind (`PERTURBATIONS`, `exp list perturbations`); a seed says which
it supports (`SeedProgram.perturbations`) and implements their hooks (`redraw`, `noop_clause`,
`scaled`, `numbers`, `renamed`). A perturbed variant keeps its seed, index and base seed, so it is
paired with the unperturbed one; only its params, question, answer, solution and choices may differ.

- `noop`: one sentence of the seed's own vocabulary (GSM-Symbolic's "NoOp", arXiv 2410.05229) put
  before the question. It is kept in `params["noop"]`, a key the truth never reads
  (`truth_reads`), and the truth is asked again with it: a changed answer is an error.
- `magnitude` (`magnitude:100`, `magnitude:1000`, `magnitude:digits=5`): the seed's quantities
  multiplied by a power of ten, the truth recomputed from the new params.
- `rename`: entities and labels renamed; the truth asked again must be the same.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable
from dataclasses import dataclass, replace

import numpy as np

from isodyn.core import Variant
from isodyn.errors import IsodynError
from isodyn.generators.base import Draw, SeedProgram, variant_rng
from isodyn.registry import Registry

NONE = "none"
NOOP_KEY = "noop"  # where a noop clause is kept in params (never one of `truth_reads`)


@dataclass(frozen=True)
class Perturbation:
    """One perturbation as a run names it: a kind and, for magnitude, its factor or digits."""

    kind: str = NONE
    factor: int = 10  # magnitude: the power of ten the quantities are multiplied by
    digits: int | None = None  # magnitude: scale so the largest quantity has this many digits

    @property
    def label(self) -> str:
        """The name a row, a report and `exp compare by=perturbation` use."""
        if self.kind != "magnitude":
            return self.kind
        if self.digits is not None:
            return f"magnitude:digits={self.digits}"
        return "magnitude" if self.factor == 10 else f"magnitude:{self.factor}"


class PerturbationError(IsodynError, ValueError):
    """A perturbation name that is none of the registered ones, or a bad magnitude."""


def parse_perturbation(text: str) -> Perturbation:
    """`none`, `noop`, `rename`, `magnitude`, `magnitude:1000`, `magnitude:digits=5`."""
    kind, _, argument = text.strip().partition(":")
    if kind not in PERTURBATIONS:
        raise PerturbationError(f"unknown perturbation {text!r}; valid: {', '.join(PERTURBATIONS)}")
    if not argument:
        return Perturbation(kind)
    if kind != "magnitude":
        raise PerturbationError(f"perturbation {kind!r} takes no argument (got {text!r})")
    if (found := re.fullmatch(r"digits=(\d{1,2})", argument)) is not None:
        digits = int(found.group(1))
        if not 1 <= digits <= 12:
            raise PerturbationError(f"{text!r}: digits must be 1 to 12")
        return Perturbation(kind, digits=digits)
    if not re.fullmatch(r"10*", argument) or argument == "1":
        raise PerturbationError(f"{text!r}: the factor must be a power of ten (10, 100, 1000, ...)")
    return Perturbation(kind, factor=int(argument))


def supports(seed: SeedProgram, perturbation: Perturbation) -> bool:
    return perturbation.kind == NONE or perturbation.kind in seed.perturbations


def number_digits(seed: SeedProgram, params: dict) -> int | None:
    """Digits of the integer part of the seed's largest quantity (None: the seed declares none)."""
    try:
        found = seed.numbers(params)
    except NotImplementedError:
        return None
    largest = max((abs(x) for x in found), default=0.0)
    return 1 if largest < 1 else math.floor(math.log10(largest)) + 1


def perturb(seed: SeedProgram, variant: Variant, perturbation: Perturbation) -> Variant:
    """`variant` under `perturbation` (itself for `none`). The random choices (which clause, which
    names) depend only on the variant's identity and the perturbation, so a rerun asks the same."""
    if perturbation.kind == NONE:
        return variant
    if perturbation.kind not in seed.perturbations:
        raise PerturbationError(f"seed {seed.seed_id!r} does not support {perturbation.kind!r}")
    rng = variant_rng(f"{seed.seed_id}|{perturbation.label}", variant.index, variant.base_seed)
    return PERTURBATIONS[perturbation.kind](seed, variant, perturbation, rng)


Apply = Callable[[SeedProgram, Variant, Perturbation, np.random.Generator], Variant]

PERTURBATIONS: Registry[Apply] = Registry("perturbation", group="isodyn.perturbations")


def _asked_again(variant: Variant, params: dict, draw: Draw) -> Variant:
    return replace(
        variant, params=params, question=draw.question, answer=draw.answer, solution=draw.solution,
        choices=draw.choices,
    )  # fmt: skip


def _same_truth(seed: SeedProgram, variant: Variant, draw: Draw, what: str) -> None:
    if draw.answer != variant.answer:
        changed = f"{variant.answer!r} -> {draw.answer!r}"
        raise AssertionError(f"{seed.seed_id}/{variant.index}: {what} changed the truth ({changed})")


@PERTURBATIONS.register(NONE, order=0, summary="the variant as drawn")
def _none(
    seed: SeedProgram, variant: Variant, perturbation: Perturbation, rng: np.random.Generator
) -> Variant:
    return variant


@PERTURBATIONS.register(NOOP_KEY, order=1, summary="an irrelevant clause before the question (GSM-NoOp)")
def _noop(
    seed: SeedProgram, variant: Variant, perturbation: Perturbation, rng: np.random.Generator
) -> Variant:
    clause = seed.noop_clause(variant.params, rng).strip()
    if NOOP_KEY in seed.truth_reads:
        raise AssertionError(f"{seed.seed_id}: the truth may not read params[{NOOP_KEY!r}]")
    params = {**variant.params, NOOP_KEY: clause}
    draw = seed.redraw(params)
    _same_truth(seed, variant, draw, "a noop clause")
    return _asked_again(variant, params, replace(draw, question=f"{clause} {draw.question}"))


@PERTURBATIONS.register(
    "magnitude", order=2, summary="the quantities times 10 (magnitude:1000, magnitude:digits=5)"
)
def _magnitude(
    seed: SeedProgram, variant: Variant, perturbation: Perturbation, rng: np.random.Generator
) -> Variant:
    factor = perturbation.factor
    if perturbation.digits is not None:
        now = number_digits(seed, variant.params) or 1
        factor = 10 ** max(0, perturbation.digits - now)
    params = seed.scaled(variant.params, factor)
    return _asked_again(variant, params, seed.redraw(params))


@PERTURBATIONS.register("rename", order=3, summary="entities and labels renamed, some misleadingly")
def _rename(
    seed: SeedProgram, variant: Variant, perturbation: Perturbation, rng: np.random.Generator
) -> Variant:
    params = seed.renamed(variant.params, rng)
    draw = seed.redraw(params)
    _same_truth(seed, variant, draw, "renaming")
    return _asked_again(variant, params, draw)
