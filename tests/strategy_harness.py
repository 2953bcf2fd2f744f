"""Run a strategy on one variant with a scripted `ask`, capturing every call's messages.

The strategy's context holds only the services it declares, as in a run, so a strategy reading an
undeclared service fails here too."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from isodyn.core import Modality, Representation, Variant
from isodyn.generators import SeedProgram, all_seeds
from isodyn.models.requests import Reply, hash_images
from isodyn.strategies import (
    CellContext,
    Describer,
    Grading,
    ModelFacts,
    Service,
    Services,
    parse_strategy,
)


class PlainMaterials:
    def __init__(self) -> None:
        self.seeds: dict[str, SeedProgram] = all_seeds()

    def variant(self, seed_id: str, index: int) -> Variant:
        return self.seeds[seed_id].variant(index)

    def render(self, variant: Variant, modality: Modality) -> Representation:
        return self.seeds[variant.seed_id].representation(variant, modality)


@dataclass
class Captured:
    calls: list[dict[str, Any]] = field(default_factory=list)
    reply: Reply | None = None
    ctx: CellContext | None = None


def default_answer(messages: list[dict], step: str, sample: int) -> str:
    if step == "describe":
        return "DESCRIPTION OF THE IMAGE"
    return '{"solution": "...", "short answer": "A"}'


def cell_context(
    seed_id: str,
    index: int,
    modality: Modality,
    repeat: int = 0,
    vision: bool = True,
    describer: ModelFacts | None = None,
    needs: frozenset[Service] | None = None,
) -> CellContext:
    """A cell's context with the services a test can offer (no preparation: that is dspy's, tested
    through a run), all of them or only `needs`."""
    services = Services(materials=PlainMaterials(), describer=Describer(describer), grading=Grading())
    return CellContext(
        seed_id=seed_id,
        index=index,
        modality=modality,
        repeat=repeat,
        base_seed=0,
        solver=ModelFacts("solver", vision),
        services=services if needs is None else services.only(needs),
    )


def run_strategy(
    spec: str,
    seed_id: str,
    index: int,
    modality: Modality,
    repeat: int = 0,
    answer: Callable[[list[dict], str, int], str] = default_answer,
    vision: bool = True,
    describer: ModelFacts | None = None,
) -> Captured:
    materials = PlainMaterials()
    strategy = parse_strategy(spec)
    variant = materials.variant(seed_id, index)
    ctx = cell_context(seed_id, index, modality, repeat, vision, describer, needs=strategy.needs)
    captured = Captured(ctx=ctx)

    async def ask(messages: list[dict], step: str, *, model: str | None = None, sample: int = 0) -> Reply:
        captured.calls.append(
            {"step": step, "model": model, "sample": sample, "messages": hash_images(messages)}
        )
        return Reply(text=answer(messages, step, sample))

    reason = strategy.skip_reason(variant, modality, ctx)
    assert reason is None, reason
    representation = materials.render(variant, modality)
    captured.reply = asyncio.run(strategy.run(variant, representation, ask, ctx))
    return captured


def text_of(message: dict) -> str:
    content = message["content"]
    if isinstance(content, str):
        return content
    return "\n".join(p["text"] for p in content if p["type"] == "text")


def image_count(message: dict) -> int:
    content = message["content"]
    return 0 if isinstance(content, str) else sum(p["type"] == "image_url" for p in content)
