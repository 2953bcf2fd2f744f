"""Few-shot chain of thought with worked solutions from our own seed programs.

- `cot3`: DynaMath's topic-specific 3-shot CoT (Section 4.1, Appendix C.3): a pool of five
  demonstrations per topic, three drawn per question with a seeded RNG.
- `variantdemo`: DynaMath Appendix H.6's leakage probe: three other variants of the *same* seed.
- `selfdemo`: H.6's controlled version: the test question itself, solved, as the demonstration.

Demonstrations use variant indices from `DEMO_INDEX_START` on; evaluation variants are always below
it (the config refuses more variants), so a demonstration is never an evaluation question.
"""

from __future__ import annotations

from dataclasses import dataclass

from isodyn.core import DEMO_INDEX_START, AnswerType, Modality, Representation, Variant
from isodyn.models.requests import Reply
from isodyn.prompts import render_template
from isodyn.strategies.base import Ask, Strategy, register_base, user_message
from isodyn.strategies.context import CellContext, Service
from isodyn.strategies.zeroshot import answer_instruction, images_of

POOL_SIZE = 5
SHOTS = 3


@dataclass(frozen=True)
class Demo:
    seed_id: str
    index: int

    @property
    def label(self) -> str:
        return f"{self.seed_id}/{self.index}"


def topic_pool(ctx: CellContext, variant: Variant) -> list[Demo]:
    """Five demonstrations for the variant's topic, spread over the topic's seeds that can render the
    cell's modality. Seeds other than the question's own come first, so a question is shown its own
    seed only when its topic has too few others."""
    renderable = [
        seed_id
        for seed_id, seed in sorted(ctx.materials.seeds.items())
        if seed.topic == variant.topic and ctx.modality in seed.modalities
    ]
    others = [s for s in renderable if s != variant.seed_id]
    ordered = others if len(others) >= SHOTS else others + [s for s in renderable if s == variant.seed_id]
    if not ordered:
        return []
    return [Demo(ordered[i % len(ordered)], DEMO_INDEX_START + i) for i in range(POOL_SIZE)]


def demo_answer(variant: Variant) -> str:
    if variant.answer_type is AnswerType.MULTIPLE_CHOICE:
        return f"({variant.answer})"
    return variant.answer


async def ask_with_demos(
    variant: Variant, representation: Representation, demos: list[Variant], ask: Ask, ctx: CellContext
) -> Reply:
    shown = [ctx.materials.render(demo, ctx.modality) for demo in demos]
    prompt = render_template(
        "fewshot.j2",
        image=ctx.modality.visual,
        demos=[
            {"problem": rep.text, "answer": demo_answer(demo), "solution": demo.solution}
            for demo, rep in zip(demos, shown, strict=True)
        ],
        problem=representation.text,
        answer_instruction=answer_instruction(variant),
    )
    images = [png for rep in shown for png in images_of(rep)] + images_of(representation)
    return await ask([user_message(prompt, images)], "answer")


@register_base
class ChainOfThought3(Strategy):
    name = "cot3"
    spellings = ("cot", "cot-3", "cot3shot")  # the papers' "CoT" is the topic 3-shot chain of thought
    summary = "topic-specific 3-shot chain of thought: 3 of a 5-demonstration topic pool, seeded draw"
    source = "DynaMath Section 4.1, Appendix C.3"
    needs = frozenset({Service.MATERIALS})  # the topic's other seeds, their demos and renderings
    writes_reasoning = True  # after worked solutions, the reply works its own out

    def skip_reason(self, variant: Variant, modality: Modality, ctx: CellContext) -> str | None:
        if not topic_pool(ctx, variant):
            return f"no seed of topic {variant.topic.value} renders {modality.value} for demonstrations"
        return super().skip_reason(variant, modality, ctx)

    async def run(
        self, variant: Variant, representation: Representation, ask: Ask, ctx: CellContext
    ) -> Reply:
        pool = topic_pool(ctx, variant)
        rng = ctx.rng("cot3-demos")
        picked = [pool[i] for i in sorted(rng.choice(len(pool), size=min(SHOTS, len(pool)), replace=False))]
        ctx.notes["demos"] = [d.label for d in picked]
        demos = [ctx.materials.variant(d.seed_id, d.index) for d in picked]
        return await ask_with_demos(variant, representation, demos, ask, ctx)


@register_base
class VariantDemo(Strategy):
    name = "variantdemo"
    summary = "leakage probe: three other variants of the same seed, solved, as demonstrations"
    source = "DynaMath Appendix H.6"
    needs = frozenset({Service.MATERIALS})  # the seed's other variants and their renderings
    writes_reasoning = True

    async def run(
        self, variant: Variant, representation: Representation, ask: Ask, ctx: CellContext
    ) -> Reply:
        picked = [Demo(variant.seed_id, DEMO_INDEX_START + i) for i in range(SHOTS)]
        ctx.notes["demos"] = [d.label for d in picked]
        demos = [ctx.materials.variant(d.seed_id, d.index) for d in picked]
        return await ask_with_demos(variant, representation, demos, ask, ctx)


@register_base
class SelfDemo(Strategy):
    name = "selfdemo"
    summary = "controlled leakage probe: the test question itself, solved, as the demonstration"
    source = "DynaMath Appendix H.6"
    needs = frozenset({Service.MATERIALS})  # the question rendered again as its own demonstration
    writes_reasoning = True

    async def run(
        self, variant: Variant, representation: Representation, ask: Ask, ctx: CellContext
    ) -> Reply:
        ctx.notes["demos"] = [variant.variant_id]
        return await ask_with_demos(variant, representation, [variant], ask, ctx)
