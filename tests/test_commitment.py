"""Every invented example of issue 37 ("grading that transfers"), graded by `score` as a user would.

Each pattern is one the issue saw on replies from sources the rules were never developed on: the
committed answer (a bold value in the closing sentence, an answer line, a closing label, a JSON
answer key, plain-text math) must win over numbers and names in the working, and a reply whose
commitment is not clear must be `none found` or ambiguous, never a guess.
"""

from __future__ import annotations

import pytest

from isodyn.scoring import score
from isodyn.scoring.answer_match import Tolerance
from isodyn.scoring.extract import CLEAR, NONE_FOUND, SEVERAL_OPTIONS

CHESS = ("White wins", "Black wins", "Draw")
YES_NO = ("Yes", "No")


def _read(reply: str, truth: str, answer_type: str, choices: tuple[str, ...] = (), question: str = ""):
    return score(reply, truth, answer_type, choices, question=question)


# ---- 1. a bold final value wins over a number inside the sentence ----------------------------------


@pytest.mark.parametrize(
    "reply",
    [
        "The maximum flow from source (0) to sink (2) is **12**.",
        "Maximum flow value: 12\n\nReasoning: the path 0 -> 1 -> 2 carries 7 units and the path "
        "0 -> 2 carries 5, so the total is 12.",
        "### Step 1\nPush 7 along 0 -> 1 -> 2.\n\n### Step 2\nPush 5 along 0 -> 2.\n\n"
        "### Conclusion\nThe maximum flow from node 0 to node 2 is **12**.",
    ],
)
def test_a_bold_or_labelled_final_value_is_the_answer(reply: str) -> None:
    graded = _read(reply, "12", "int", question="What is the maximum flow from node 0 to node 2?")
    assert (graded.extracted, graded.correct) == ("12", True)


def test_a_first_answer_line_wins_over_a_path_in_the_reasoning_after_it() -> None:
    reply = "Maximum flow value: 6\n\nReasoning: the only augmenting path is 0 -> 1 -> 2, with capacity 6."
    graded = _read(reply, "6", "int", question="Find the maximum flow from node 0 to node 2.")
    assert (graded.extracted, graded.correct) == ("6", True)


def test_a_bold_value_on_the_closing_line_wins_over_the_words_around_it() -> None:
    table = "| Node | Degree |\n|---|---|\n| A | 3 |\n| B | 2 |"
    reply = f"{table}\n\nThe vertex with the highest degree is **A** with degree 3."
    graded = _read(reply, "A", "text", question="Which vertex has the highest degree?")
    assert (graded.extracted, graded.method, graded.correct) == ("A", "bold", True)


@pytest.mark.parametrize("closing", ["So **Black** is to move.", "We need **all** of them:", "Is it **12**?"])
def test_a_bold_word_that_is_no_answer_is_passed_over(closing: str) -> None:
    graded = _read(f"Working.\n\n{closing}", "12", "int", question="How many?")
    assert graded.method != "bold"


# ---- 2. the asked property, when the question is a task; polarity -----------------------------------

ISOMORPHIC = "Determine whether the two graphs G and H are isomorphic."


@pytest.mark.parametrize(
    ("reply", "truth"),
    [
        ("Comparing degree sequences, G has a vertex of degree 4 and H has none.\n\n"
         "The two graphs G and H are **not isomorphic**.", "B"),
        ("Both have degree sequence (3, 3, 2, 2, 2) and the map a->1, b->2 ... preserves every edge.\n\n"
         "Therefore G and H **are isomorphic**.", "A"),
    ],
)  # fmt: skip
def test_a_task_question_is_answered_by_stating_the_asked_property(reply: str, truth: str) -> None:
    graded = _read(reply, truth, "multiple_choice", YES_NO, ISOMORPHIC)
    assert graded.correct and graded.ambiguity == CLEAR


@pytest.mark.parametrize(
    ("reply", "question"),
    [
        ("Looking at the evidence, the claim cannot be asserted.", "Can the claim be asserted?"),
        ("Given the variance, this method should not be used.", "Should this method be used?"),
        ("The p-value is 0.003 < 0.05, so we reject the hypothesis.", "Should we accept the hypothesis?"),
    ],
)
def test_a_negated_or_opposite_statement_answers_no(reply: str, question: str) -> None:
    graded = _read(reply, "B", "multiple_choice", YES_NO, question)
    assert graded.extracted == "B" and graded.correct


def test_an_answer_that_denies_a_value_does_not_commit_to_it() -> None:
    graded = _read("The answer is not 5.", "5", "int", question="What is x?")
    assert not graded.correct
    assert graded.extracted != "5"


# ---- 3. JSON with LaTeX or raw line breaks; any key naming an answer --------------------------------


@pytest.mark.parametrize(
    "reply",
    [
        '{"reasoning": "since \\(x>0\\) we have 3x = 36", "answer": "12"}',
        '{"reasoning": "first line\nsecond line with 7 apples", "final_answer": 12}',
        '```json\n{"steps": "\\frac{24}{2} = 12", "result": "12"}\n```',
        '{"solution": "3 \\times 4 = 12",\n "short answer": "12"}',
    ],
)
def test_a_json_answer_key_is_read_even_when_the_json_is_not_strict(reply: str) -> None:
    graded = _read(reply, "12", "int", question="How many apples are left?")
    assert (graded.extracted, graded.correct) == ("12", True)


# ---- 4. plain-text math against LaTeX truths and options --------------------------------------------


@pytest.mark.parametrize(
    ("reply", "truth"),
    [
        ("The value is sqrt(3)/2.", "\\frac{\\sqrt3}{2}"),
        ("So the angle is 5pi/6.", "\\frac{5\\pi}{6}"),
        ("Differentiating, the answer is 3 cos(2x).", "3\\cos(2x)"),
    ],
)
def test_plain_text_math_matches_a_latex_truth(reply: str, truth: str) -> None:
    assert _read(reply, truth, "text").correct


def test_plain_text_math_does_not_match_a_different_latex_truth() -> None:
    assert not _read("The value is sqrt(3)/3.", "\\frac{\\sqrt3}{2}", "text").correct


def test_an_equation_option_is_matched_whatever_its_spacing() -> None:
    choices = ("y=2(x-1)", "y=2(x+1)", "y=x-1", "y=-2(x-1)")
    graded = _read("The tangent line is y = 2(x - 1).", "A", "multiple_choice", choices)
    assert (graded.extracted, graded.correct) == ("A", True)


def test_an_option_inside_a_longer_expression_is_not_named() -> None:
    choices = ("\\cos^2 x", "-\\cos^2 x", "\\sin^2 x", "-\\sin^2 x")
    graded = _read("Simplifying, the expression equals -cos^2 x.", "B", "multiple_choice", choices)
    assert graded.ambiguity != SEVERAL_OPTIONS
    assert (graded.extracted, graded.correct) == ("B", True)


def test_a_value_matches_the_option_written_as_a_fraction() -> None:
    choices = ("\\frac12", "\\frac13", "\\frac14", "\\frac15")
    graded = _read("The probability is 0.25.", "C", "multiple_choice", choices)
    assert (graded.correct, graded.ambiguity) == (True, CLEAR)


def test_an_answer_given_as_named_values_is_read() -> None:
    graded = _read("Solving the system gives {a: 3, d: -2}.", "a=3, d=-2", "text")
    assert graded.correct


# ---- 5. a closing label names the side, whatever the reasoning named --------------------------------


def test_a_closing_label_wins_over_the_side_named_in_the_reasoning() -> None:
    reply = ("White threatens Qh7, but after 1...Rxe1+ White's king is exposed and White cannot defend "
             "the back rank.\n\n**Winner:** **Black**")  # fmt: skip
    graded = _read(reply, "B", "multiple_choice", CHESS, "Who wins with best play?")
    assert (graded.extracted, graded.correct) == ("B", True)


def test_an_outcome_line_is_not_overturned_by_the_winning_move_after_it() -> None:
    reply = "Optimal outcome: White wins by checkmate.\n\nThe winning move is 1. Qxg6#"
    graded = _read(reply, "A", "multiple_choice", CHESS, "What is the outcome with best play?")
    assert (graded.extracted, graded.correct) == ("A", True)


# ---- 6. a stated final amount, not a year or a document name; scale words ---------------------------

MILLIONS = "What was the company's FY2021 EBITDA (in USD millions)? Use the 10-K."


@pytest.mark.parametrize(
    "reply",
    [
        "From the 10-K, operating income was $1,532 million and D&A $300 million, so FY2021 EBITDA "
        "is $1,832 million.",
        "Adding back depreciation, EBITDA for FY2021 comes to $1,832,000,000.",
        "EBITDA (FY2021) = $1.832 billion.",
    ],
)
def test_a_stated_amount_is_read_with_its_scale(reply: str) -> None:
    graded = _read(reply, "1832", "float", question=MILLIONS)
    assert graded.correct, graded


def test_a_wrong_amount_is_wrong_whatever_its_scale() -> None:
    graded = _read("FY2021 EBITDA is $1,832 thousand.", "1832", "float", question=MILLIONS)
    assert not graded.correct


# ---- the judge's domain: nothing committed, nothing accepted -----------------------------------------


@pytest.mark.parametrize("reply", [":", "Thought process:", "", "   \n  "])
def test_a_reply_that_commits_to_nothing_is_none_found(reply: str) -> None:
    graded = score(reply, "12", "int", question="How many?", tolerance=Tolerance())
    assert not graded.correct and graded.ambiguity == NONE_FOUND


@pytest.mark.parametrize(
    ("reply", "truth", "answer_type"),
    [
        ("3^2 - 2^3 = 1.\n\nTherefore, the answer is [[1]].", "1", "int"),
        ("So C = 1.\n\nThus, the answer is:\n\\[\n\\boxed{[[1]]}\n\\]", "1", "int"),
        ("Combining, 5 + 5i.\n\n### Final Answer:\n\\[\n[[ 5 + 5i ]]\n\\]", "5+5i", "text"),
    ],
)
def test_an_answer_in_the_double_brackets_a_prompt_asks_for_is_read(
    reply: str, truth: str, answer_type: str
) -> None:
    assert _read(reply, truth, answer_type).correct


def test_a_nested_list_is_not_double_bracketed() -> None:
    graded = _read("The matrix is [[1, 2], [3, 4]], so its trace is 5.", "5", "int")
    assert (graded.extracted, graded.correct) == ("5", True)


@pytest.mark.parametrize(
    ("reply", "truth", "answer_type"),
    [
        ('```json\n{\n  "reasoning": "The area is \\(\\pi r^2 = 9\\pi\\).\nSo the answer is 9π.",\n'
         '  "answer": "9\\pi"\n}\n```', "9\\pi", "text"),
        ('{"reasoning": "The sum is 1+2+...+10 = 55", "answer": "55"', "55", "int"),
        ('{"reasoning": "x \\, y and \\{1\\}", "final_answer": "\\{1, 2\\}"}', "\\{1,2\\}", "text"),
    ],
)  # fmt: skip
def test_json_with_latex_escapes_or_left_open_is_read(reply: str, truth: str, answer_type: str) -> None:
    graded = _read(reply, truth, answer_type, question="What is it?")
    assert graded.correct and graded.method.startswith("json")


@pytest.mark.parametrize(
    ("reply", "truth", "answer_type"),
    [
        ("Both roots work.\n\nSo the answer is \\boxed{5 \\text{ or } -25}.", "5or-25", "text"),
        ("Checking both, the answer is [[-12 or 4]].", "4or-12", "text"),
        ("Squaring the entries:\n\\[\\boxed{\\left[[1]\\right]}\\]", "1", "int"),
        ("The product is\n\\[\\boxed{[357857]}\\]", "357857", "int"),
    ],
)
def test_a_marked_answer_of_math_alone_is_read_whole(reply: str, truth: str, answer_type: str) -> None:
    assert _read(reply, truth, answer_type).correct


def test_an_interval_keeps_its_brackets() -> None:
    assert not _read("So x lies in \\boxed{[1, 3]}.", "(1,3)", "text").correct


LABELS_SHUFFLED = ("D", "B", "A", "C")  # options that are labels in a picture, in shuffled order


@pytest.mark.parametrize("reply", ["Answer: C", "C"])
def test_a_bare_letter_that_is_also_another_options_label_is_ambiguous(reply: str) -> None:
    graded = _read(reply, "D", "multiple_choice", LABELS_SHUFFLED)  # C by place is "A"; "C" by text is D
    assert (graded.correct, graded.ambiguity) == (False, SEVERAL_OPTIONS)


def test_a_letter_whose_option_is_its_own_label_is_clear() -> None:
    graded = _read("Answer: B", "B", "multiple_choice", LABELS_SHUFFLED)
    assert (graded.correct, graded.ambiguity) == (True, CLEAR)


def test_lower_case_labels_leave_a_capital_letter_its_place() -> None:
    graded = _read("C", "C", "multiple_choice", ("(e)", "(d)", "(b)", "(a)", "(c)"))
    assert (graded.correct, graded.ambiguity) == (True, CLEAR)


def test_a_final_answer_after_the_boxes_is_the_last_commitment() -> None:
    reply = ("Interest on the first CD: $\\boxed{200}$. On the second: $\\boxed{255}$, so she has $10,455. "
             "Final Answer: The final answer is $10,455$. I hope it is correct.")  # fmt: skip
    assert _read(reply, "10455", "int").correct


def test_a_turn_the_model_invented_after_its_answer_is_not_read() -> None:
    reply = "So the ordered pair is $(7, 6)$. <|im_start|>user\nNow solve (2, 3)"
    assert _read(reply, "(7,6)", "text").correct


def test_a_form_feed_is_read_as_the_frac_it_was() -> None:
    assert _read("The answer is $\x0crac{7}{4}$.", "\\frac{7}{4}", "text").correct
