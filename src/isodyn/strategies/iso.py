"""IsoBench's two strategies (arXiv 2404.01266, Section 4, Figure 3).

- `isosp` (IsoScratchPad): step 1 sends the image and asks for a complete text description; step 2
  sends only that text with the question. The describer may be another model (`describer=MODEL`),
  so a vision model can describe for a text-only solver.
- `isocb` (IsoCombination): one prompt carrying the image and every text representation the seed
  can render.
"""

from __future__ import annotations

from isodyn.core import TEXT_MODALITIES, Modality, Representation, Variant
from isodyn.models.requests import Reply
from isodyn.prompts import render_template
from isodyn.strategies.base import NO_VISION, Ask, Strategy, register_base, user_message
from isodyn.strategies.context import CellContext, Service
from isodyn.strategies.zeroshot import answer_instruction, images_of


@register_base
class IsoScratchPad(Strategy):
    name = "isosp"
    summary = "describe the image as text (step 1), then solve from that text alone (step 2)"
    source = "IsoBench Section 4 (IsoScratchPad)"
    calls_per_cell = "2"
    modalities = frozenset(m for m in Modality if m.visual)
    needs = frozenset({Service.DESCRIBER})
    writes_reasoning = True  # a full description, then the solving from it

    def skip_reason(self, variant: Variant, modality: Modality, ctx: CellContext) -> str | None:
        if modality not in self.modalities:
            return f"{self.name} runs only on image cells"
        describer = ctx.describer.model
        reader = describer or ctx.solver
        if not reader.vision:
            return f"describer {reader.name} has no vision" if describer else NO_VISION
        return None

    async def run(
        self, variant: Variant, representation: Representation, ask: Ask, ctx: CellContext
    ) -> Reply:
        describe = user_message(render_template("isosp_describe.j2"), images_of(representation))
        describer = ctx.describer.model.name if ctx.describer.model else None
        description = await ask([describe], "describe", model=describer)
        prompt = render_template(
            "isosp_solve.j2",
            description=description.text.strip(),
            problem=representation.text,
            answer_instruction=answer_instruction(variant),
        )
        return await ask([user_message(prompt)], "answer")


@register_base
class IsoCombination(Strategy):
    name = "isocb"
    summary = "the image plus every text representation the seed renders, in one prompt"
    source = "IsoBench Section 4 (IsoCombination)"
    modalities = frozenset(m for m in Modality if m.visual)
    needs = frozenset({Service.MATERIALS})  # the seed's text renderings of the same variant

    def skip_reason(self, variant: Variant, modality: Modality, ctx: CellContext) -> str | None:
        seed = ctx.materials.seeds[variant.seed_id]
        if not any(m in TEXT_MODALITIES for m in seed.modalities):
            return f"seed {variant.seed_id} has no text representation to combine"
        return super().skip_reason(variant, modality, ctx)

    async def run(
        self, variant: Variant, representation: Representation, ask: Ask, ctx: CellContext
    ) -> Reply:
        seed = ctx.materials.seeds[variant.seed_id]
        texts = [
            {"label": m.label, "text": ctx.materials.render(variant, m).text}
            for m in seed.modalities
            if m in TEXT_MODALITIES
        ]
        ctx.notes["combined"] = [m.value for m in seed.modalities if m in TEXT_MODALITIES]
        prompt = render_template(
            "isocb.j2",
            problem=representation.text,
            texts=texts,
            answer_instruction=answer_instruction(variant),
        )
        return await ask([user_message(prompt, images_of(representation))], "answer")
