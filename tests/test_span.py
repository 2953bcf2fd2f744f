"""Where the viewer shows the answer in a reply (`scoring.span.answer_span`): on written replies of
each method, on arbitrary text (never out of bounds, never an error), and on real replies of released
models (tests/corpus/real), where the extraction's own method and answer are located."""

from __future__ import annotations

import random

from hypothesis import given
from hypothesis import strategies as st

from corpus.real import load_real
from isodyn.core import AnswerType
from isodyn.scoring.extract import extract_answer
from isodyn.scoring.span import answer_span


def shown(reply: str, method: str, extracted: str, choices: tuple[str, ...] = ()) -> str | None:
    span = answer_span(reply, method, extracted, choices)
    return None if span is None else reply[span[0] : span[1]]


def test_the_last_box_is_the_one_read() -> None:
    reply = r"First \boxed{3} was wrong; so $x = \boxed{\frac{1}{2}}$ and we are done."
    assert shown(reply, "boxed", "1/2") == r"\frac{1}{2}"  # written otherwise: the box's content
    assert shown(reply, "boxed", "3") is not None
    assert shown(reply.replace(r"\boxed{3}", "3"), "boxed", "0.5") == r"\frac{1}{2}"


def test_json_answer_value_not_the_solution_text() -> None:
    reply = '{"solution": "the area is 12 then 24", "short answer": "24"}'
    span = answer_span(reply, "json", "24")
    assert span is not None and span[0] == reply.rindex("24") and reply[span[0] : span[1]] == "24"


def test_answer_line_under_a_heading_and_a_marker() -> None:
    reply = "We add 7 and 5 to get 12 apples.\n\n## Final answer\n12\n"
    assert answer_span(reply, "answer_line", "12") == (reply.rindex("12"), reply.rindex("12") + 2)
    marked = "So 7 + 5 = 12.\nThe answer is 12, though 13 was close."
    span = answer_span(marked, "answer_line", "12")
    assert span is not None and marked[span[0] :].startswith("12, though")


def test_option_letter_found_as_its_text() -> None:
    reply = "Comparing the two bars, the larger one is the second.\nNo"
    assert shown(reply, "closing", "B", ("Yes", "No")) == "No"
    lettered = "Looking at the angles (A) cannot be right.\nThe answer is (C)."
    span = answer_span(lettered, "answer_line", "C", ("10", "20", "30", "40"))
    assert span is not None and lettered[span[0] : span[1]] == "C" and span[0] > lettered.index("(A)")


def test_a_number_written_as_a_word_or_with_trailing_zeros() -> None:
    assert shown("There are two cinnamon rolls on the plate.", "last_number", "2") == "two"
    assert shown("So the ratio is 0.50 in the end", "last_number", "0.5") == "0.50"
    assert shown("Seven.", "last_number", "7") == "Seven"


def test_nothing_to_show() -> None:
    assert answer_span("", "boxed", "1") is None
    assert answer_span("I cannot tell from the picture.", "none", None) is None
    assert answer_span("no number here", "last_number", "42") is None


@given(st.text(max_size=300), st.sampled_from(["boxed", "json", "answer_line", "closing", "leading",
                                               "choice", "last_number", "statement", "none"]),
       st.one_of(st.none(), st.text(max_size=12)))  # fmt: skip
def test_any_text_gives_a_span_inside_the_reply_or_none(
    reply: str, method: str, extracted: str | None
) -> None:
    span = answer_span(reply, method, extracted, ("Yes", "No"))
    assert span is None or 0 <= span[0] < span[1] <= len(reply)


def test_real_replies_show_where_their_answer_was_read() -> None:
    """On 1,500 real replies whose answer the rules read, a span is found for nearly all, and where it
    is, it holds the value read or its option's text (measured: 99.3% located on 8,000)."""
    rows = random.Random(7).sample(load_real(), 1500)
    located = holding = read = 0
    for row in rows:
        asked = row.asked
        choices = asked.choices or (("Yes", "No") if asked.answer_type == "text" else ())
        found = extract_answer(row.reply, AnswerType(asked.answer_type), asked.choices, asked.question)
        if found.answer is None:
            continue
        read += 1
        span = answer_span(row.reply, found.method, found.answer, choices)
        if span is None:
            continue
        located += 1
        text = row.reply[span[0] : span[1]].casefold()
        letter = found.answer.strip().upper()
        option = (
            choices["ABCDEFGH".index(letter)]
            if len(letter) == 1 and letter in "ABCDEFGH"[: len(choices)]
            else ""
        )
        holding += found.answer.strip().rstrip(".").casefold() in text or (
            bool(option) and option.casefold() in text
        )
    assert read > 1000
    assert located / read > 0.97, (located, read)
    assert holding / located > 0.9, (holding, located)
