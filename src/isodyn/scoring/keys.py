"""When are two extracted answers 'the same answer'? (for votes, consistency and memorization)"""

from __future__ import annotations

from isodyn.core import AnswerType
from isodyn.scoring.answer_match import choice_letter, parse_number


def answer_key(
    answer: str | None, answer_type: AnswerType | str, choices: tuple[str, ...] = ()
) -> str | None:
    """A canonical form: the option letter, the number to 3 decimals, or folded text; None if unreadable."""
    if answer is None:
        return None
    answer_type = AnswerType(answer_type)
    if answer_type is AnswerType.MULTIPLE_CHOICE:
        return choice_letter(answer, tuple(choices))
    if answer_type in (AnswerType.FLOAT, AnswerType.INT):
        value = parse_number(answer)
        return None if value is None else f"{value:.3f}"
    return " ".join(answer.split()).casefold()
