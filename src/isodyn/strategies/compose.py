"""Parse a strategy spec such as `antimem+cot3` or `permute+sc@5+zeroshot` into one runnable chain.

A spec is `+`-joined parts: at most one base strategy (zeroshot when none is named) and any
modifiers, each at most once. Modifiers always nest in one order, whatever order they are typed in:
permute (outermost: it changes the question) > sc@k (samples the rest) > antimem > the base.
"""

from __future__ import annotations

from dataclasses import dataclass

from isodyn.core import Modality, Representation, Variant
from isodyn.errors import IsodynError
from isodyn.models.requests import Reply
from isodyn.strategies.base import BASES, MODIFIERS, Ask, Modifier, Strategy
from isodyn.strategies.context import CellContext, Service
from isodyn.strategies.zeroshot import ZeroShot


class StrategyError(IsodynError, ValueError):
    """A spec that cannot be run; the message is one line naming the valid choices."""


def _base_named(part: str) -> str | None:
    """The canonical name of the base strategy `part` names, by its name or another spelling."""
    if part in BASES:
        return part
    return next((name for name, cls in BASES.items() if part in cls.spellings), None)


def valid_names() -> str:
    return ", ".join([*sorted(BASES), *sorted(MODIFIERS)])


def _modifier(part: str) -> Modifier | None:
    for kind in MODIFIERS.values():
        try:
            found = kind.from_spec(part)
        except ValueError as exc:
            raise StrategyError(str(exc)) from None
        if found is not None:
            return found
    return None


@dataclass(frozen=True)
class ComposedStrategy:
    modifiers: tuple[Modifier, ...]
    base: Strategy

    @property
    def name(self) -> str:
        return "+".join([*(m.label for m in self.modifiers), self.base.name])

    @property
    def modalities(self) -> frozenset[Modality] | None:
        return self.base.modalities

    @property
    def parts(self) -> tuple[Modifier | Strategy, ...]:
        return (*self.modifiers, self.base)

    @property
    def memoizable(self) -> bool:
        return all(part.memoizable for part in self.parts)

    @property
    def writes_reasoning(self) -> bool:
        """Whether some part of the chain writes out a chain of thought (or samples several)."""
        return any(part.writes_reasoning for part in self.parts)

    @property
    def needs(self) -> frozenset[Service]:
        """Every service some part of the chain declared: what the cell's context must hold."""
        return frozenset().union(*(part.needs for part in self.parts))

    def skip_reason(self, variant: Variant, modality: Modality, ctx: CellContext) -> str | None:
        for part in self.parts:
            reason = part.skip_reason(variant, modality, ctx)
            if reason:
                return reason
        return None

    async def run(
        self, variant: Variant, representation: Representation, ask: Ask, ctx: CellContext
    ) -> Reply:
        async def step(depth: int, v: Variant, rep: Representation, a: Ask) -> Reply:
            if depth == len(self.modifiers):
                return await self.base.run(v, rep, a, ctx)
            return await self.modifiers[depth].run(
                v, rep, a, ctx, lambda v2, rep2, a2: step(depth + 1, v2, rep2, a2)
            )

        return await step(0, variant, representation, ask)


def parse_strategy(spec: str) -> ComposedStrategy:
    parts = [p.strip() for p in spec.split("+") if p.strip()]
    if not parts:
        raise StrategyError(f"empty strategy {spec!r}; valid: {valid_names()}")
    bases: list[Strategy] = []
    modifiers: list[Modifier] = []
    for part in parts:
        modifier = _modifier(part)
        if modifier is not None:
            modifiers.append(modifier)
        elif (canonical := _base_named(part)) is not None:
            bases.append(BASES[canonical]())
        else:
            raise StrategyError(f"unknown strategy {part!r}; valid: {valid_names()}")
    if len(bases) > 1:
        names = " and ".join(b.name for b in bases)
        raise StrategyError(f"{spec!r} combines two base strategies ({names}); use at most one")
    kinds = [m.name.split("@")[0] for m in modifiers]
    repeated = {k for k in kinds if kinds.count(k) > 1}
    if repeated:
        raise StrategyError(f"{spec!r} names {repeated.pop()} twice")
    modifiers.sort(key=lambda m: m.nesting)
    return ComposedStrategy(tuple(modifiers), bases[0] if bases else ZeroShot())
