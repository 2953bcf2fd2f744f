"""Zero-shot: the problem, DynaMath's answer-type instruction and its JSON response format.

Wording from DynaMath (arXiv 2411.00836), Appendix C.1, Table 5 and "Response Instruction".
"""

from __future__ import annotations

from isodyn.core import AnswerType, Representation, Variant
from isodyn.models.requests import Reply
from isodyn.prompts import render_template
from isodyn.strategies.base import Ask, Strategy, register_base, user_message
from isodyn.strategies.context import CellContext

# DynaMath Table 5. The integer line is ours (DynaMath has no integer type).
_ANSWER_INSTRUCTIONS = {
    AnswerType.MULTIPLE_CHOICE: "If the problem is a multiple choice problem, just provide the corresponding "
    "choice option, such as 'A', 'B', 'C', or 'D'.",
    AnswerType.FLOAT: "If the answer is a numerical value, format it as a three-digit floating-point number.",
    AnswerType.INT: "If the answer is a whole number, give it as an integer.",
    AnswerType.TEXT: "Please answer the question in the following form: {form}.",
}


def answer_instruction(variant: Variant) -> str:
    text = _ANSWER_INSTRUCTIONS[variant.answer_type]
    if variant.answer_type is AnswerType.TEXT:
        text = text.format(form=variant.params.get("answer_format", "the form the question asks for"))
    return text


def images_of(representation: Representation) -> list[bytes]:
    return [representation.image_png] if representation.image_png else []


@register_base
class ZeroShot(Strategy):
    name = "zeroshot"
    summary = "the problem, DynaMath's answer-type instruction and JSON response format"
    source = "DynaMath Appendix C.1"

    async def run(
        self, variant: Variant, representation: Representation, ask: Ask, ctx: CellContext
    ) -> Reply:
        prompt = render_template(
            "zeroshot.j2", problem=representation.text, answer_instruction=answer_instruction(variant)
        )
        return await ask([user_message(prompt, images_of(representation))], "answer")
