import pytest

from isodyn.core import AnswerType, Level, Topic, Variant
from isodyn.scoring import extract_short_answer, score_reply
from isodyn.scoring.answer_match import choice_letter, is_correct, parse_number


def variant(answer: str, answer_type: AnswerType, choices: tuple[str, ...] = ()) -> Variant:
    return Variant(
        seed_id="t",
        index=0,
        base_seed=0,
        topic=Topic.ALGEBRA,
        level=Level.HIGH_SCHOOL,
        answer_type=answer_type,
        question="q",
        answer=answer,
        params={},
        choices=choices,
    )


@pytest.mark.parametrize(
    ("reply", "expected", "method"),
    [
        ('{"solution": "x", "short answer": "B"}', "B", "json"),
        (
            '```json\n{\n  "solution": "steps",\n  "short answer": "3.142"\n}\n```\nHope this helps!',
            "3.142",
            "json",
        ),
        ('Sure! Here it is: {"solution": "a {b} c", "short answer": "(A)"} Done.', "(A)", "json"),
        ("{'solution': 'x', 'short answer': 'C'}", "C", "json_lenient"),
        ('{"solution": "x", "short answer": "D",}', "D", "json_lenient"),
        ('{"short answer": "A"} then I changed my mind {"short answer": "B"}', "B", "json"),
        ('{"solution": "unterminated, "short answer": "7"', "7", "json_key_regex"),
        ('{"solution": "x", "short answer": 2.5}', "2.5", "json"),
    ],
)
def test_extracts_short_answer_from_messy_replies(reply: str, expected: str, method: str) -> None:
    extraction = extract_short_answer(reply)
    assert extraction.answer == expected
    assert extraction.method == method


@pytest.mark.parametrize("reply", ["I cannot tell from the picture.", "", "{}", '{"solution": "only"}'])
def test_reply_without_short_answer_is_extraction_failure(reply: str) -> None:
    score = score_reply(reply, variant("A", AnswerType.MULTIPLE_CHOICE, ("Yes", "No")))
    assert score == score.__class__(False, None, "extraction_failed", "none")


def test_multiple_choice_by_letter_or_option_text() -> None:
    choices = ("even", "odd", "neither")
    assert choice_letter("B", choices) == "B"
    assert choice_letter("(c)", choices) == "C"
    assert choice_letter("A. even", choices) == "A"
    assert choice_letter("Odd", choices) == "B"
    assert choice_letter("E", choices) is None  # not an option
    assert choice_letter("maybe", choices) is None


def test_float_uses_dynamath_absolute_tolerance() -> None:
    assert is_correct("3.1416", "3.14159", AnswerType.FLOAT)
    assert is_correct("3.141", "3.14159", AnswerType.FLOAT)  # off by 0.00059, inside 0.001
    assert is_correct("3.139", "3.14159", AnswerType.FLOAT) is False  # off by 0.00259
    assert is_correct("0.75", "3/4", AnswerType.FLOAT)
    assert is_correct("3/4", "0.75", AnswerType.FLOAT)
    assert is_correct("1,000.0005", "1000", AnswerType.FLOAT)
    assert is_correct("1.002", "1.0", AnswerType.FLOAT) is False
    assert is_correct("about 2 or 3", "2", AnswerType.FLOAT) is None  # ambiguous, not silently the first


def test_parse_number() -> None:
    assert parse_number("x = -2.5") == -2.5
    assert parse_number("1e-3") == 0.001
    assert parse_number("no number") is None


def test_score_reply_marks_wrong_answers_ok_but_incorrect() -> None:
    v = variant("A", AnswerType.MULTIPLE_CHOICE, ("Yes", "No"))
    assert score_reply('{"short answer": "No"}', v).correct is False
    assert score_reply('{"short answer": "No"}', v).reason == "ok"
    assert score_reply('{"short answer": "Yes"}', v).correct is True
    assert score_reply('{"short answer": "perhaps"}', v).reason == "extraction_failed"
