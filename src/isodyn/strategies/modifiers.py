"""Modifiers: wrap the rest of a strategy chain.

- `antimem`: DynaMath Appendix H.4's anti-memorization prompt: its system text before every solving
  call and its task line around the question.
- `sc@k`: self-consistency: k samples (each its own cached call), majority vote over the answers of
  the samples that were not cut off at the token limit.
- `permute`: rotates multiple-choice options by the repeat index and remaps the answer letter; with
  `repeats=n` every rotation is asked once, DynaMath Appendix H.8's circular-consistency setup.
"""

from __future__ import annotations

import asyncio
import re
from collections import Counter
from dataclasses import replace

from isodyn.core import AnswerType, Modality, Representation, Variant
from isodyn.generators.base import format_choices, letter
from isodyn.models.requests import CUT_OFF, Reply
from isodyn.prompts import render_template
from isodyn.scoring import score_reply
from isodyn.scoring.keys import answer_key
from isodyn.strategies.base import Ask, Inner, Message, Modifier, register_modifier
from isodyn.strategies.context import CellContext, Service


@register_modifier
class AntiMemorization(Modifier):
    name = "antimem"
    nesting = 2
    summary = "DynaMath's anti-memorization system text and task line (published wording)"
    source = "DynaMath Appendix H.4"

    async def run(
        self, variant: Variant, representation: Representation, ask: Ask, ctx: CellContext, inner: Inner
    ) -> Reply:
        image = ctx.modality.visual
        system: Message = {"role": "system", "content": render_template("antimem_system.j2", image=image)}
        task = render_template("antimem_task.j2", problem=representation.text, image=image)

        def with_system(messages: list[Message], step: str, *, model: str | None = None, sample: int = 0):
            # The describing call of IsoSP is a transcription, not reasoning: leave it alone.
            chosen = messages if step == "describe" else [system, *messages]
            return ask(chosen, step, model=model, sample=sample)

        return await inner(variant, replace(representation, text=task), with_system)


def vote_key(answer: str | None, variant: Variant) -> str | None:
    """What counts as 'the same answer' for the majority vote."""
    return answer_key(answer, variant.answer_type, variant.choices)


def _extracted(reply: str, variant: Variant, grader: str) -> str | None:
    """The answer the run's grader reads in a reply: the vote and the verdict read it alike."""
    return score_reply(reply, variant, grader=grader).extracted


def majority(keys: list[str | None]) -> int:
    """Index of the first sample carrying the most frequent readable answer (0 if none is readable)."""
    counts = Counter(k for k in keys if k is not None)
    if not counts:
        return 0
    top = max(counts.values())
    return next(i for i, k in enumerate(keys) if k is not None and counts[k] == top)


@register_modifier
class SelfConsistency(Modifier):
    summary = "k samples at the configured temperature, majority vote over the extracted answers"
    source = "Wang et al. 2022 (self-consistency); DynaMath's RC uses the same idea"
    name = "sc@k"
    nesting = 1
    calls_per_cell = "k x the base"
    needs = frozenset({Service.GRADING})  # the vote reads each sample as the verdict will
    writes_reasoning = True  # sampled reasoning paths (Wang et al.): each sample must finish to vote

    def __init__(self, k: int) -> None:
        if k < 2:
            raise ValueError("sc@k needs k >= 2")
        self.k = k

    @classmethod
    def from_spec(cls, part: str) -> SelfConsistency | None:
        match = re.fullmatch(r"sc@(\d+)", part)
        if match and int(match.group(1)) < 2:
            raise ValueError(f"{part}: self-consistency needs k >= 2")
        return cls(int(match.group(1))) if match else None

    @property
    def label(self) -> str:
        return f"sc@{self.k}"

    async def run(
        self, variant: Variant, representation: Representation, ask: Ask, ctx: CellContext, inner: Inner
    ) -> Reply:
        def sampled(i: int) -> Ask:
            def ask_sample(messages: list[Message], step: str, *, model: str | None = None, sample: int = 0):
                return ask(messages, step, model=model, sample=i)

            return ask_sample

        replies = await asyncio.gather(*(inner(variant, representation, sampled(i)) for i in range(self.k)))
        scored = ctx.scored_variant or variant
        # A sample cut off at the token limit has no vote (its key is None): the vote is over the
        # complete samples. When every sample was cut off, the first stands, and the cell is truncated.
        grader = ctx.grading.grader
        keys = [
            None if r.finish_reason == CUT_OFF else vote_key(_extracted(r.text, scored, grader), scored)
            for r in replies
        ]
        complete = [i for i, r in enumerate(replies) if r.finish_reason != CUT_OFF]
        winner = majority(keys) if any(k is not None for k in keys) else (complete or [0])[0]
        ctx.notes["votes"] = keys
        ctx.notes["vote_winner"] = winner
        if len(complete) < len(replies):
            ctx.notes["truncated_samples"] = len(replies) - len(complete)
        return replies[winner]


def rotate_choices(variant: Variant, shift: int) -> tuple[Variant, list[int]]:
    """The variant with its options rotated left by `shift`; returns it and the new order as indices
    into the original options. The question must end with DynaMath's inline choice list."""
    n = len(variant.choices)
    order = [(i + shift) % n for i in range(n)]
    old_list = format_choices(variant.choices)
    if not variant.question.endswith(old_list):
        raise ValueError(f"{variant.seed_id}: question does not end with its choice list")
    new_choices = tuple(variant.choices[i] for i in order)
    truth_index = "ABCDEFGHIJ".index(variant.answer)
    rotated = replace(
        variant,
        choices=new_choices,
        answer=letter(order.index(truth_index)),
        question=variant.question[: -len(old_list)] + format_choices(new_choices),
    )
    return rotated, order


@register_modifier
class Permute(Modifier):
    name = "permute"
    nesting = 0  # outermost: it changes the question the rest sees
    summary = "rotate multiple-choice options by the repeat index and remap the answer (circular eval)"
    source = "DynaMath Appendix H.8 (circular consistency, Liu et al. 2023)"
    needs = frozenset({Service.MATERIALS})  # the rotated variant, rendered again

    def skip_reason(self, variant: Variant, modality: Modality, ctx: CellContext) -> str | None:
        if variant.answer_type is not AnswerType.MULTIPLE_CHOICE:
            return "permute needs a multiple-choice question"
        return None

    async def run(
        self, variant: Variant, representation: Representation, ask: Ask, ctx: CellContext, inner: Inner
    ) -> Reply:
        rotated, order = rotate_choices(variant, ctx.repeat)
        ctx.scored_variant = rotated
        ctx.notes["choice_order"] = order
        return await inner(rotated, ctx.materials.render(rotated, ctx.modality), ask)
