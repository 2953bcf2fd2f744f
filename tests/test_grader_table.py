"""A table of (reply, truth, answer type, expected verdict) cases for `isodyn.scoring.score`.

The verdicts are what a careful human grader decides, written before looking at what the code returns.
The replies imitate what real models produce: verbose chains of thought, JSON wrapped in Markdown,
units, closed forms next to decimals, option text instead of a letter, refusals, empty replies.

Rules this table fixes (where a human could hesitate, the rule is chosen here and the grader follows it):

- The reply's *final* answer counts. Several JSON objects: the last one with a short answer. Several
  `\\boxed{}`: the last box ("12 ... wait ... 14" is graded as 14). Several "the answer is" lines: the
  last one. The cascade order is JSON, boxed, answer line, choice, last number.
- An answer that cannot be read as the answer type (a letter outside the options, "2 or 3", a letter
  that contradicts the option text next to it, "unknown") is wrong with reason `extraction_failed`.
- A refusal ("I cannot determine ...") is never graded from a stray number or option word in it.
- Multiple choice: an option text preceded by a negation ("not even", "neither even nor odd") is not
  a mention of that option; a numeric reply matches the one option within the float tolerance.
- Percent: when the question asks for a percentage, `45%` reads as 45; otherwise `45%` (and
  `45 percent`) reads as 0.45, and `45` is never read as 0.45 nor `0.5` as 50.
- Thousands: a comma followed by exactly three digits is a thousands separator (`1,234.5`).
- Lists: a truth in brackets `[1, 2, 3]` is ordered; a bare `1, 2, 3` is compared as a set.
- In text answers, two plain numbers (or tuples of numbers) compare with the same tolerance as floats.
"""

from __future__ import annotations

import threading

import pytest

from isodyn.core import AnswerType
from isodyn.scoring import Tolerance, score

MC, FLOAT, INT, TEXT = AnswerType.MULTIPLE_CHOICE, AnswerType.FLOAT, AnswerType.INT, AnswerType.TEXT
OK, FAILED = "ok", "extraction_failed"

YES_NO = ("Yes", "No")
PARITY = ("even", "odd", "neither")
NUMS = ("3", "5", "7", "9")
SURDS = ("2\\sqrt{3}", "3\\sqrt{2}", "4", "6")


def case(
    id: str,
    reply: str,
    truth: str,
    answer_type: AnswerType,
    correct: bool,
    reason: str = OK,
    *,
    choices: tuple[str, ...] = (),
    method: str | None = None,
    extracted: str | None = None,
    tolerance: Tolerance | None = None,
    percent: bool = False,
):
    return pytest.param(
        reply, truth, answer_type, choices, tolerance, percent, correct, reason, method, extracted, id=id
    )


# ---- DynaMath's JSON format and the ways models mangle it -----------------------------------------
JSON_CASES = [
    case(
        "json-plain",
        '{"solution": "Area = 6*8/2 = 24.", "short answer": "24"}',
        "24",
        FLOAT,
        True,
        method="json",
        extracted="24",
    ),
    case(
        "json-in-markdown-fence",
        'Here is my solution.\n```json\n{\n  "solution": "pi to three places",\n'
        '  "short answer": "3.142"\n}\n```',
        "3.14159",
        FLOAT,
        True,
        method="json",
    ),
    case(
        "json-with-prose-around",
        'Sure! Here is my answer:\n{"solution": "f(-x) = -f(x)", "short answer": "B"}\n'
        "Let me know if you need more.",
        "B",
        MC,
        True,
        choices=PARITY,
        method="json",
    ),
    case(
        "json-single-quotes",
        "{'solution': 'the angles of a triangle', 'short answer': '180'}",
        "180",
        INT,
        True,
        method="json_lenient",
        extracted="180",
    ),
    case(
        "json-trailing-comma",
        '{"solution": "count the edges", "short answer": "7",}',
        "7",
        INT,
        True,
        method="json_lenient",
    ),
    case(
        "json-mixed-quotes-key-regex",
        "{'solution': \"It's symmetric about the y-axis\", 'short answer': 'A'}",
        "A",
        MC,
        True,
        choices=PARITY,
        method="json_key_regex",
    ),
    case(
        "json-two-objects-last-wins",
        '{"solution": "first try", "short answer": "12"}\nWait, I made an arithmetic error.\n'
        '{"solution": "redo: 6 + 8", "short answer": "14"}',
        "14",
        INT,
        True,
        method="json",
        extracted="14",
    ),
    case(
        "json-two-objects-first-is-not-final",
        '{"solution": "first try", "short answer": "12"}\nWait, I made an arithmetic error.\n'
        '{"solution": "redo: 6 + 8", "short answer": "14"}',
        "12",
        INT,
        False,
    ),
    case(
        "json-wrong-key-final_answer",
        '{"solution": "f(-x) = -f(x) for all x", "final_answer": "B"}',
        "B",
        MC,
        True,
        choices=PARITY,
        method="json",
        extracted="B",
    ),
    case(
        "json-wrong-key-answer-capitalised",
        '{"Solution": "f(-x) = -f(x)", "Short Answer": "odd"}',
        "B",
        MC,
        True,
        choices=PARITY,
        method="json",
    ),
    case(
        "json-result-key-is-an-answer-key",  # issue 37: any key naming an answer is tried
        '{"solution": "The sum of the three numbers is 14.", "result": "15"}',
        "15",
        FLOAT,
        True,
        method="json",
    ),
    case(
        "json-empty-short-answer-answer-line-elsewhere",
        'The answer is 5.\n{"solution": "x + 2 = 7", "short answer": ""}',
        "5",
        INT,
        True,
        method="answer_line",
        extracted="5",
    ),
    case(
        "json-empty-short-answer-boxed-in-solution",
        '{"solution": "x + 2 = 7, so $\\\\boxed{5}$", "short answer": ""}',
        "5",
        INT,
        True,
        method="boxed",
        extracted="5",
    ),
    case(
        "json-number-value",
        '{"solution": "half of five", "short answer": 2.5}',
        "2.5",
        FLOAT,
        True,
        method="json",
        extracted="2.5",
    ),
    case(
        "json-unescaped-latex-frac",  # `\f` of `\frac` is a valid JSON escape (form feed): not what was meant
        r'{"solution": "sin 60 degrees", "short answer": "\frac{\sqrt{3}}{2}"}',
        "0.866",
        FLOAT,
        True,
        extracted=r"\frac{\sqrt{3}}{2}",
    ),
    case(
        "json-unescaped-latex-times",  # `\t` of `\times` is a tab
        r'{"solution": "Avogadro", "short answer": "6.02 \times 10^{23}"}',
        "6.02e23",
        FLOAT,
        True,
        extracted=r"6.02 \times 10^{23}",
    ),
    case(
        "json-escaped-latex",
        r'{"solution": "the diagonal", "short answer": "2\\sqrt{3}"}',
        "3.4641",
        FLOAT,
        True,
        method="json",
        extracted=r"2\sqrt{3}",
    ),
    case(
        "json-set-answer",
        r'{"solution": "roots", "short answer": "\\{1, 2, 3\\}"}',
        r"\{1, 2, 3\}",
        TEXT,
        True,
        method="json",
    ),
    case(
        "json-short-answer-is-option-text",
        '```json\n{"solution": "f(-x) = -f(x)", "short answer": "odd"}\n```',
        "B",
        MC,
        True,
        choices=PARITY,
        method="json",
        extracted="odd",
    ),
    case(
        "json-short-answer-is-wrong-option-text",
        '{"solution": "f(-x) = f(x)", "short answer": "even"}',
        "B",
        MC,
        False,
        choices=PARITY,
    ),
    case(
        "json-short-answer-letter-and-text",
        '{"solution": "f(-x) = -f(x)", "short answer": "B. odd"}',
        "B",
        MC,
        True,
        choices=PARITY,
    ),
    case(
        "json-short-answer-neither-even-nor-odd",
        '{"solution": "no symmetry", "short answer": "Neither even nor odd"}',
        "C",
        MC,
        True,
        choices=PARITY,
    ),
    case(
        "json-truncated-answer-line-inside",
        '{"solution": "The slope is rise over run, 4/2, so the answer is 2',
        "2",
        FLOAT,
        True,
        method="answer_line",
    ),
    case(
        "json-unterminated-string-key-regex",
        '{"solution": "unterminated, "short answer": "7"',
        "7",
        INT,
        True,
        method="json_key_regex",
    ),
    case(
        "json-braces-inside-solution",
        '{"solution": "the set {1, 2} has two elements", "short answer": "2"}',
        "2",
        INT,
        True,
        method="json",
    ),
    case(
        "json-then-chatter-with-other-numbers",
        '{"solution": "legs 6 and 8", "short answer": "24"}\n\nNote: the hypotenuse is 10 cm.',
        "24",
        FLOAT,
        True,
        method="json",
    ),
    case("json-answer-with-unit", '{"solution": "l*w", "short answer": "12 cm^2"}', "12", FLOAT, True),
    case("json-answer-x-equals", '{"solution": "solve", "short answer": "x = 5"}', "5", INT, True),
    case(
        "json-null-short-answer",
        '{"solution": "I could not read the figure", "short answer": null}',
        "3",
        FLOAT,
        False,
        FAILED,
        method="none",
    ),
    case(
        "json-unknown-short-answer",
        '{"solution": "The image is too blurry.", "short answer": "unknown"}',
        "3",
        FLOAT,
        False,
        FAILED,
        extracted="unknown",
    ),
    case(
        "json-list-value",
        '{"solution": "in order", "short answer": [1, 2, 3]}',
        "[1, 2, 3]",
        TEXT,
        True,
        method="json",
    ),
]

# ---- \boxed{}, "the answer is" lines, revised answers, chains of thought --------------------------
BOXED_AND_LINES = [
    case(
        "boxed-simple",
        "We compute 6 * 8 / 2. Therefore the area is $\\boxed{24}$.",
        "24",
        FLOAT,
        True,
        method="boxed",
        extracted="24",
    ),
    case(
        "boxed-nested-braces",
        "Using sin 60°, the ratio is $\\boxed{\\frac{\\sqrt{3}}{2}}$.",
        "0.866",
        FLOAT,
        True,
        method="boxed",
        extracted="\\frac{\\sqrt{3}}{2}",
    ),
    case(
        "boxed-two-boxes-last-wins",  # rule: the last box is the final answer
        "First attempt: $\\boxed{12}$. Wait, I forgot the second triangle; adding it gives $\\boxed{14}$.",
        "14",
        INT,
        True,
        method="boxed",
        extracted="14",
    ),
    case(
        "boxed-two-boxes-first-is-not-final",
        "First attempt: $\\boxed{12}$. Wait, I forgot the second triangle; adding it gives $\\boxed{14}$.",
        "12",
        INT,
        False,
    ),
    case("boxed-with-unit", "The area is $\\boxed{12 \\text{ cm}^2}$.", "12", FLOAT, True),
    case("boxed-equation", "Solving gives $\\boxed{x = 5}$.", "5", INT, True),
    case("fbox", "So the count is \\fbox{7}.", "7", INT, True, method="boxed"),
    case(
        "boxed-letter",
        "The function is odd, so the answer is $\\boxed{B}$.",
        "B",
        MC,
        True,
        choices=PARITY,
        method="boxed",
    ),
    case(
        "boxed-text-letter",
        "Checking symmetry... $\\boxed{\\text{(B)}}$",
        "B",
        MC,
        True,
        choices=PARITY,
        method="boxed",
    ),
    case(
        "boxed-text-option",
        "Checking symmetry... $\\boxed{\\text{odd}}$",
        "B",
        MC,
        True,
        choices=PARITY,
        method="boxed",
    ),
    case(
        "answer-line-colon",
        "Step 1: count the rows.\nStep 2: multiply by the columns.\nAnswer: 42",
        "42",
        INT,
        True,
        method="answer_line",
        extracted="42",
    ),
    case(
        "answer-line-bold-markdown",
        "Let me work it out...\n**Final Answer:** 3.5",
        "3.5",
        FLOAT,
        True,
        method="answer_line",
        extracted="3.5",
    ),
    case(
        "answer-line-revised-two-lines",
        "The answer is 12. Wait, recomputing with the correct height, the answer is 14.",
        "14",
        INT,
        True,
        method="answer_line",
        extracted="14",
    ),
    case(
        "answer-line-revised-so-12-wait",
        "Adding the edges gives 5 + 7, so 12. Wait, recomputing... I double-counted the diagonal, "
        "so the answer is 14",
        "14",
        INT,
        True,
        method="answer_line",
        extracted="14",
    ),
    case(
        "answer-line-revised-first-value-wrong",
        "Adding the edges gives 5 + 7, so 12. Wait, recomputing... I double-counted the diagonal, "
        "so the answer is 14",
        "12",
        INT,
        False,
    ),
    case(
        "answer-in-the-middle-of-cot",
        "Using the Pythagorean theorem, the hypotenuse is sqrt(9 + 16). The answer is 5. To check: "
        "3, 4, 5 is a well known triple, and 2 times 5 is 10.",
        "5",
        INT,
        True,
        method="answer_line",
        extracted="5",
    ),
    case(
        "answer-line-with-explanation-after-comma",
        "The answer is 14, because the two rectangles overlap in a 2 by 3 region.",
        "14",
        INT,
        True,
        method="answer_line",
    ),
    case("answer-line-latex-fraction", "The final answer is: $\\frac{3}{4}$", "0.75", FLOAT, True),
    case("answer-line-negative", "Final answer: -2.5", "-2.5", FLOAT, True, method="answer_line"),
    case("answer-line-next-line", "Answer:\n7", "7", INT, True, method="answer_line"),
    case(
        "answer-line-decimal-then-period",
        "So the answer is 3.5.",
        "3.5",
        FLOAT,
        True,
        method="answer_line",
        extracted="3.5",
    ),
    case(
        "answer-line-interval",
        "The inequality holds from 1 up to but not including 3. The answer is [1, 3).",
        "[1, 3)",
        TEXT,
        True,
        method="answer_line",
        extracted="[1, 3)",
    ),
    case(
        "answer-line-prose-then-number",  # "the answer is determined by ..." is prose, not an answer
        "The answer is determined by the Pythagorean theorem. The legs are 6 and 8, so the hypotenuse is 10.",
        "10",
        INT,
        True,
        method="last_number",
    ),
    case(
        "cot-no-marker-last-number",
        "The base is 6 and the height is 4, so the area is 6*4/2 = 12.",
        "12",
        FLOAT,
        True,
        method="last_number",
        extracted="12",
    ),
    case(
        "cot-last-number-ignores-unit-exponent",
        "The rectangle is 3 cm by 4 cm, so the area is 12 cm^2.",
        "12",
        FLOAT,
        True,
        method="last_number",
        extracted="12",
    ),
    case(
        "cot-last-number-unicode-square",
        "The rectangle is 3 m by 4 m, so the area is 12 m².",
        "12",
        FLOAT,
        True,
        method="last_number",
    ),
    case(
        "cot-last-number-thousands",
        "The population grows by 1,000 a year and reaches 1,234,567 by then.",
        "1234567",
        INT,
        True,
        method="last_number",
        extracted="1,234,567",
    ),
    case(
        "boxed-beats-earlier-answer-line",
        "The answer is 12.\nHmm, I misread the scale. Actually $\\boxed{14}$",
        "14",
        INT,
        True,
        method="boxed",
    ),
]

# ---- multiple choice -------------------------------------------------------------------------------
MULTIPLE_CHOICE = [
    case("mc-bare-letter", "B", "B", MC, True, choices=PARITY, method="choice", extracted="B"),
    case("mc-bold-letter", "**B**", "B", MC, True, choices=PARITY, method="choice", extracted="B"),
    case("mc-parenthesised-letter", "(B)", "B", MC, True, choices=PARITY, method="choice"),
    case("mc-lowercase-letter", "b", "B", MC, True, choices=PARITY),
    case("mc-bold-letter-wrong", "**A**", "B", MC, False, choices=PARITY),
    case(
        "mc-answer-letter-and-text",
        "Answer: (C) neither",
        "C",
        MC,
        True,
        choices=PARITY,
        method="answer_line",
        extracted="(C) neither",
    ),
    case(
        "mc-letter-contradicts-text",  # (C) is "neither", the text says "odd": no readable answer
        "Answer: (C) odd",
        "C",
        MC,
        False,
        FAILED,
        choices=PARITY,
    ),
    case(
        "mc-answer-line-option-text",
        "The answer is odd.",
        "B",
        MC,
        True,
        choices=PARITY,
        method="answer_line",
        extracted="odd",
    ),
    case(
        "mc-neither-even-nor-odd-sentence",
        "f(-1) = 3 while f(1) = 1 and -f(1) = -1. The function is neither even nor odd.",
        "C",
        MC,
        True,
        choices=PARITY,
        method="choice",
    ),
    case(
        "mc-even-sentence",
        "Since f(-x) = f(x) for all x, the function is even.",
        "A",
        MC,
        True,
        choices=PARITY,
        method="choice",
    ),
    case(
        "mc-odd-not-even",
        "Since f(-x) = -f(x), f is odd, not even.",
        "B",
        MC,
        True,
        choices=PARITY,
        method="choice",
    ),
    case(
        "mc-option-text-then-pleasantry",
        "f(-x) = -f(x), so the function is odd.\nHope this helps!",
        "B",
        MC,
        True,
        choices=PARITY,
        method="choice",
    ),
    case(
        "mc-lists-all-options-then-answer-line",
        "Let's check each option.\n(A) even: f(-1) = 3 but f(1) = 1, so no.\n"
        "(B) odd: f(-1) = 3 but -f(1) = -1, so no.\n(C) neither: this remains.\nTherefore the answer is C.",
        "C",
        MC,
        True,
        choices=PARITY,
        method="answer_line",
        extracted="C",
    ),
    case(
        "mc-lists-all-options-then-picks",
        "Option A (even) fails because f(-1) differs from f(1). Option B (odd) fails because f(-1) "
        "differs from -f(1). Option C (neither) is therefore the only one left. I choose option C.",
        "C",
        MC,
        True,
        choices=PARITY,
        method="choice",
        extracted="C",
    ),
    case(
        "mc-lists-all-options-then-picks-wrong",
        "(A) even: no. (B) odd: maybe. (C) neither: no.\nLooking at the graph again, it is symmetric "
        "about the origin, so I pick (B).",
        "C",
        MC,
        False,
        choices=PARITY,
        method="choice",
        extracted="B",
    ),
    case(
        "mc-options-listed-then-picked-by-text",
        "Option A says even, option B says odd, option C says neither.\nSince f(-x) = -f(x), the "
        "function is odd.",
        "B",
        MC,
        True,
        choices=PARITY,
        method="choice",
    ),
    case(
        "mc-yes-sentence",
        "Node 1 connects to 2, 2 to 3, and 3 to 4, so every pair is joined by a path. Yes, the graph "
        "is connected.",
        "A",
        MC,
        True,
        choices=YES_NO,
        method="choice",
        extracted="A",
    ),
    case("mc-answer-is-no-wrong", "The answer is No.", "A", MC, False, choices=YES_NO),
    case("mc-bare-no", "No.", "B", MC, True, choices=YES_NO),
    case(
        "mc-yes-no-answer-line",
        "Yes or no? Vertex 4 has no edges at all, so the graph is not connected. The answer is No.",
        "B",
        MC,
        True,
        choices=YES_NO,
        method="answer_line",
    ),
    case(  # a committed answer outside the options is an answer, and wrong (ambiguity "not an option")
        "mc-letter-outside-two-options",
        "The answer is C.",
        "A",
        MC,
        False,
        choices=YES_NO,
    ),
    case(
        "mc-letter-outside-four-options",
        "The answer is (E).",
        "B",
        MC,
        False,
        choices=NUMS,
    ),
    case(
        "mc-json-numeric-option-text",
        '{"solution": "2 + 3", "short answer": "5"}',
        "B",
        MC,
        True,
        choices=NUMS,
        method="json",
    ),
    case(
        "mc-json-numeric-option-with-unit",
        '{"solution": "2 + 3", "short answer": "5 cm"}',
        "B",
        MC,
        True,
        choices=NUMS,
    ),
    case(
        "mc-json-numeric-option-as-decimal",
        '{"solution": "2 + 3", "short answer": "5.0"}',
        "B",
        MC,
        True,
        choices=NUMS,
    ),
    case(
        "mc-json-number-not-an-option",  # the requested short answer, none of the options: wrong
        '{"solution": "2 + 4", "short answer": "6"}',
        "B",
        MC,
        False,
        choices=NUMS,
    ),
    case(
        "mc-json-decimal-close-to-surd-option",
        '{"solution": "the diagonal", "short answer": "3.4641"}',
        "A",
        MC,
        True,
        choices=SURDS,
    ),
    case(
        "mc-latex-surd-option-text",
        "The diagonal is $2\\sqrt{3}$.\nAnswer: $2\\sqrt{3}$",
        "A",
        MC,
        True,
        choices=SURDS,
    ),
    case("mc-equivalent-surd", "Answer: $\\sqrt{12}$", "A", MC, True, choices=SURDS),
    case("mc-surd-wrong-option", "Answer: $3\\sqrt{2}$", "A", MC, False, choices=SURDS),
    case(
        "mc-numeric-option-in-last-sentence",
        "Counting the triangles one by one: 1, 2, 3, 4, 5. So there are 5 triangles.",
        "B",
        MC,
        True,
        choices=NUMS,
        method="choice",
    ),
    case("mc-bold-option-text", "The function is **odd**.", "B", MC, True, choices=PARITY),
    case("mc-answer-line-letter-dot-text", "Answer: B. odd", "B", MC, True, choices=PARITY),
    case(
        "mc-json-letter-dot-other-text",  # B is "odd": "B. even" names two options, no readable answer
        '{"short answer": "B. even"}',
        "B",
        MC,
        False,
        FAILED,
        choices=PARITY,
    ),
    case(
        "mc-should-be-letter",
        "Comparing f(-x) with f(x), I think the answer should be B",
        "B",
        MC,
        True,
        choices=PARITY,
        method="answer_line",
    ),
    case(
        "mc-option-letter-with-explanation",
        "The correct answer is option (C), since the function is neither even nor odd.",
        "C",
        MC,
        True,
        choices=PARITY,
    ),
    case("mc-json-lowercase-parenthesised", '{"short answer": "(b)"}', "B", MC, True, choices=PARITY),
    case("mc-bold-answer-wrong", "**Answer: (D)**", "B", MC, False, choices=NUMS),
    case(
        "mc-markdown-heading-then-bold-letter",
        "### Reasoning\nf(1) = 1, f(-1) = 3.\n### Final answer\n**C**",
        "C",
        MC,
        True,
        choices=PARITY,
        method="answer_line",  # a "Final answer" heading marks the line under it
    ),
    case("mc-json-two-letters", '{"short answer": "A or B"}', "A", MC, False, FAILED, choices=PARITY),
    case(
        "mc-two-options-final-sentence",
        "It could be even or odd depending on the domain.",
        "A",
        MC,
        False,
        FAILED,
        choices=PARITY,
    ),
    case(
        "mc-reasoning-without-conclusion",
        "To decide, compute f(-x) and compare it with f(x) and with -f(x).",
        "B",
        MC,
        False,
        FAILED,
        choices=PARITY,
        method="none",
    ),
]

# ---- numbers: closed forms, notation, units, tolerance ----------------------------------------------
NUMBERS = [
    case("float-decimal-vs-surd", "Answer: 3.4641", "2\\sqrt{3}", FLOAT, True),
    case("float-surd-vs-decimal", '{"short answer": "2\\\\sqrt{3}"}', "3.4641", FLOAT, True),
    case("float-surd-rounded-too-far", "Answer: 3.46", "2\\sqrt{3}", FLOAT, False),
    case("float-latex-frac-sqrt", "So the ratio is $\\frac{\\sqrt{3}}{2}$", "0.866", FLOAT, True),
    case("float-latex-frac-sqrt-boxed", "$\\boxed{\\frac{\\sqrt{3}}{2}}$", "0.866", FLOAT, True),
    case("float-two-places-vs-surd", "Answer: 0.87", "\\frac{\\sqrt{3}}{2}", FLOAT, False),
    case("float-frac", "Answer: $\\frac{3}{4}$", "0.75", FLOAT, True),
    case("float-dfrac", "Answer: $\\dfrac{1}{3}$", "0.3333", FLOAT, True),
    case("float-slash-fraction", "Answer: 3/4", "0.75", FLOAT, True),
    case("float-negative-fraction", "Answer: -3/4", "-0.75", FLOAT, True),
    case("float-sign-dropped", "Answer: 3/4", "-0.75", FLOAT, False),
    case("float-fraction-vs-decimal-truth", "Answer: 0.5", "1/2", FLOAT, True),
    case("float-two-pi", "Answer: $2\\pi$", "6.2832", FLOAT, True),
    case("float-pi-over-two", "Answer: $\\frac{\\pi}{2}$", "1.5708", FLOAT, True),
    case("float-unicode-pi", "Answer: π/2", "1.5708", FLOAT, True),
    case("float-three-pi-over-four", "Answer: $3\\pi/4$", "2.3562", FLOAT, True),
    case("float-pi-rounded-too-far", "Answer: 3.14", "\\pi", FLOAT, False),
    case("float-sqrt", "Answer: $\\sqrt{2}$", "1.4142", FLOAT, True),
    case("float-unicode-sqrt", "Answer: 2√3", "3.4641", FLOAT, True),
    case("float-scientific-e", "Answer: 1.2e3", "1200", FLOAT, True),
    case("float-scientific-capital-e-negative", "Answer: 1.2E-3", "0.0012", FLOAT, True),
    case("float-scientific-times-ten", "Answer: $1.2 \\times 10^{3}$", "1200", FLOAT, True),
    case("float-scientific-large", "Answer: $6.02 \\times 10^{23}$", "6.02e23", FLOAT, True),
    case("float-scientific-wrong-exponent", "Answer: 1.2e4", "1200", FLOAT, False),
    case("float-thousands", "The total is 1,234.5 dollars.\nAnswer: 1,234.5", "1234.5", FLOAT, True),
    case("float-thousands-not-decimal-comma", "Answer: 1,234.5", "1.2345", FLOAT, False),
    case("int-thousands-millions", "Answer: 12,345,678", "12345678", INT, True),
    case("int-negative", "Answer: -7", "-7", INT, True),
    case("int-sign-dropped", "Answer: 7", "-7", INT, False),
    case("int-unicode-minus", "Answer: −7", "-7", INT, True),
    case("float-x-equals-negative", "Answer: x = -2.5", "-2.5", FLOAT, True),
    case("int-x-equals", "Solving 2x = 10 gives x = 5.\nAnswer: x = 5", "5", INT, True),
    case("float-unit-cm", "Answer: 5 cm", "5", FLOAT, True),
    case("float-unit-text", "Answer: $5\\text{ cm}$", "5", FLOAT, True),
    case("float-unit-after-math", "Answer: $5$ cm", "5", FLOAT, True),
    case("float-unit-speed", "Answer: 5 m/s", "5", FLOAT, True),
    case("float-unit-acceleration", "Answer: 9.8 m/s^2", "9.8", FLOAT, True),
    case("float-unit-square-units", "The answer is 24 square units.", "24", FLOAT, True),
    case("float-wrong-number-with-unit", "Answer: 13 cm", "12", FLOAT, False),
    case("float-degrees-circ", "Answer: $30^\\circ$", "30", FLOAT, True),
    case("float-degrees-circ-braces", "Answer: $30^{\\circ}$", "30", FLOAT, True),
    case("float-degrees-symbol", "Answer: 30°", "30", FLOAT, True),
    case("float-degrees-word", "Answer: 30 degrees", "30", FLOAT, True),
    case("float-degrees-wrong", "Answer: $60^\\circ$", "30", FLOAT, False),
    case("int-decimal-point-zero", "Answer: 5.0", "5", INT, True),
    case("int-not-an-integer", "Answer: 4.9", "5", INT, False),
    case("int-scientific", "Answer: 1e3", "1000", INT, True),
    case("float-inside-tolerance", "Answer: 3.1416", "3.14159", FLOAT, True),
    case("float-outside-tolerance", "Answer: 3.139", "3.14159", FLOAT, False),
    case("float-just-inside-tolerance", "Answer: 2.0009", "2", FLOAT, True),
    case("float-just-outside-tolerance", "Answer: 2.0011", "2", FLOAT, False),
    case("float-approximately", "Answer: approximately 3.464", "2\\sqrt{3}", FLOAT, True),
    case("float-approx-latex", "Answer: $\\approx 3.464$", "2\\sqrt{3}", FLOAT, True),
    case("float-x-approx", "Answer: $x \\approx 3.464$", "2\\sqrt{3}", FLOAT, True),
    case("float-money", "Answer: \\$12.50", "12.5", FLOAT, True),
    case("float-leading-dot", "Answer: .5", "0.5", FLOAT, True),
    case("float-plus-sign", "Answer: +3", "3", FLOAT, True),
    case("int-python-power", "Answer: 2**3", "8", INT, True),
    case("float-two-candidates", "The answer is 2 or 3.", "2", FLOAT, False, FAILED),
    case("float-division-by-zero", "Answer: 1/0", "1", FLOAT, False, FAILED),
]

# ---- percent and configurable tolerance ------------------------------------------------------------
PERCENT_AND_TOLERANCE = [
    case("pct-question-percent-sign", "Answer: 45%", "45", FLOAT, True, percent=True),
    case("pct-question-bare-number", "Answer: 45", "45", FLOAT, True, percent=True),
    case("pct-question-word", "Answer: 45 percent", "45", FLOAT, True, percent=True),
    case("pct-question-latex-percent", '{"short answer": "45\\\\%"}', "45", FLOAT, True, percent=True),
    case("pct-question-truth-with-sign", "Answer: 45", "45%", FLOAT, True, percent=True),
    case("pct-question-fraction-is-wrong", "Answer: 0.45", "45", FLOAT, False, percent=True),
    case("no-pct-question-percent-sign", "Answer: 45%", "0.45", FLOAT, True),
    case("no-pct-question-bare-45-wrong", "Answer: 45", "0.45", FLOAT, False),
    case("no-pct-question-fraction", "Answer: 0.45", "0.45", FLOAT, True),
    case("no-pct-question-percent-word", "Answer: 45 percent", "0.45", FLOAT, True),
    case("no-pct-question-50-for-half-wrong", "Answer: 50", "0.5", FLOAT, False),
    case(
        "relative-inside",
        "Answer: 1009",
        "1000",
        FLOAT,
        True,
        tolerance=Tolerance(absolute=0.0, relative=0.01),
    ),
    case(
        "relative-outside",
        "Answer: 1011",
        "1000",
        FLOAT,
        False,
        tolerance=Tolerance(absolute=0.0, relative=0.01),
    ),
    case(
        "relative-surd",
        "Answer: 3.46",
        "2\\sqrt{3}",
        FLOAT,
        True,
        tolerance=Tolerance(absolute=0.0, relative=0.01),
    ),
    case(
        "relative-beats-absolute",
        "Answer: 504",
        "500",
        FLOAT,
        True,
        tolerance=Tolerance(absolute=0.001, relative=0.01),
    ),
    case("absolute-loose-inside", "Answer: 3.1", "3.14159", FLOAT, True, tolerance=Tolerance(absolute=0.1)),
    case("absolute-loose-outside", "Answer: 3.0", "3.14159", FLOAT, False, tolerance=Tolerance(absolute=0.1)),
    case("exact-fraction", "Answer: 0.75", "3/4", FLOAT, True, tolerance=Tolerance(absolute=0.0)),
    case("exact-off", "Answer: 0.7501", "3/4", FLOAT, False, tolerance=Tolerance(absolute=0.0)),
]

# ---- free-form text: expressions, equations, sets, intervals, tuples, lists, times, units ----------
TEXT_CASES = [
    case("expr-factored-vs-expanded", '{"short answer": "(x+1)^2"}', "x^2 + 2x + 1", TEXT, True),
    case("expr-expanded-vs-factored", "Answer: $x^2 + 2x + 1$", "(x+1)^2", TEXT, True),
    case("expr-wrong-constant", '{"short answer": "(x+1)^2"}', "x^2 + 2x + 2", TEXT, False),
    case("expr-reordered", "Answer: 3x + 2y", "2y + 3x", TEXT, True),
    case("expr-latex-frac", "Answer: $\\frac{x}{2}$", "x/2", TEXT, True),
    case("expr-decimal-coefficient", "Answer: 0.5x", "x/2", TEXT, True),
    case("equation-reordered", "Answer: y = 3 + 2x", "y = 2x + 3", TEXT, True),
    case("equation-wrong-sign", "Answer: y = 2x - 3", "y = 2x + 3", TEXT, False),
    case("equation-boxed", "The line is $\\boxed{y = -x + 4}$.", "y = 4 - x", TEXT, True),
    case("set-reordered", "Answer: $\\{3, 1, 2\\}$", "\\{1, 2, 3\\}", TEXT, True),
    case("set-missing-element", "Answer: $\\{1, 2\\}$", "\\{1, 2, 3\\}", TEXT, False),
    case("interval-inequality", "Answer: $1 \\le x < 3$", "[1, 3)", TEXT, True),
    case("interval-inequality-leq", "The solution set is\n$$\\boxed{1 \\leq x < 3}$$", "[1, 3)", TEXT, True),
    case("interval-inequality-truth", "Answer: [1, 3)", "1 \\le x < 3", TEXT, True),
    case("interval-closed-vs-half-open", "Answer: [1, 3]", "[1, 3)", TEXT, False),
    case("interval-open-vs-half-open", "Answer: $1 < x < 3$", "[1, 3)", TEXT, False),
    case("interval-unbounded", "Answer: $x \\ge 2$", "[2, \\infty)", TEXT, True),
    case("interval-negative-ends", "Answer: $-3 \\le x < -1$", "[-3, -1)", TEXT, True),
    case("tuple-same", "The intersection point is (1, 2).\nAnswer: (1, 2)", "(1, 2)", TEXT, True),
    case("tuple-swapped", "Answer: (2, 1)", "(1, 2)", TEXT, False),
    case("tuple-decimal-vs-surd", "Answer: (1.732, 1)", "(\\sqrt{3}, 1)", TEXT, True),
    case("tuple-decimal-outside-tolerance", "Answer: (1.74, 1)", "(\\sqrt{3}, 1)", TEXT, False),
    case("tuple-coordinates-as-equations", "Answer: x = 1, y = 2", "(1, 2)", TEXT, True),
    case("list-brackets-vs-bare", "Answer: [1, 2, 3]", "1, 2, 3", TEXT, True),
    case("list-ordered-truth-reordered", "Answer: [3, 1, 2]", "[1, 2, 3]", TEXT, False),
    case("system-of-equations", "Answer: x = 2, y = 3", "x=2, y=3", TEXT, True),
    case("system-of-equations-swapped", "Answer: x = 3, y = 2", "x=2, y=3", TEXT, False),
    case("time-same", '{"solution": "short hand near 5", "short answer": "4:45"}', "4:45", TEXT, True),
    case("time-leading-zero", "Answer: 04:45", "4:45", TEXT, True),
    case("time-wrong-minutes", "Answer: 4:50", "4:45", TEXT, False),
    case("time-pm-vs-24h", "Answer: 4:45 PM", "16:45", TEXT, True),
    case("time-not-a-ratio", "Answer: 8:90", "4:45", TEXT, False),
    case("text-unit-stripped", "Answer: 12 cm", "12", TEXT, True),
    case("text-unit-latex", "Answer: $12\\text{ cm}$", "12", TEXT, True),
    case("text-unit-wrong-number", "Answer: 13 cm", "12", TEXT, False),
    case("text-decimal-vs-surd", "Answer: 3.4641", "2\\sqrt{3}", TEXT, True),
    case("text-decimal-vs-surd-outside", "Answer: 3.46", "2\\sqrt{3}", TEXT, False),
    case("text-x-equals", "Answer: x = 5", "5", TEXT, True),
]

# ---- refusals, empty replies, nothing to grade -------------------------------------------------------
NOTHING_TO_GRADE = [
    case("empty-float", "", "3", FLOAT, False, FAILED, method="none", extracted=None),
    case("whitespace-int", "   \n ", "3", INT, False, FAILED, method="none"),
    case("empty-mc", "", "A", MC, False, FAILED, choices=YES_NO, method="none"),
    case("empty-text", "", "x + 1", TEXT, False, FAILED, method="none"),
    case(
        "refusal-float",
        "I cannot determine the length from the figure.",
        "3",
        FLOAT,
        False,
        FAILED,
        method="none",
    ),
    case(
        "refusal-with-stray-number",  # the 2 is not an answer, even though it equals the truth
        "I can't determine the value, since the 2 labels in the image are unreadable.",
        "2",
        FLOAT,
        False,
        FAILED,
        method="none",
    ),
    case(
        "refusal-mc",
        "I cannot determine whether the function is even or odd from the image.",
        "A",
        MC,
        False,
        FAILED,
        choices=PARITY,
    ),
    case(
        "refusal-mc-with-option-word",  # "No edges" is not the option "No"
        "I'm unable to determine whether the graph is connected. No edges are clearly visible.",
        "B",
        MC,
        False,
        FAILED,
        choices=YES_NO,
    ),
    case(
        "refusal-sorry", "Sorry, I am unable to answer this question.", "C", MC, False, FAILED, choices=PARITY
    ),
    case("refusal-text", "I cannot determine the equation of the line.", "y = 2x", TEXT, False, FAILED),
    case(
        "hedge-is-not-a-refusal",  # unsure about the image, but an answer is given
        "I am not able to see the image clearly, but the count appears to be 4.",
        "4",
        INT,
        True,
        method="last_number",
    ),
    case(
        "cot-cannot-determine-directly-is-not-a-refusal",
        "We cannot determine x directly, so we use the Pythagorean theorem: the hypotenuse is 10.",
        "10",
        INT,
        True,
        method="last_number",
    ),
    case("empty-json-fence", "```json\n{}\n```", "3", FLOAT, False, FAILED, method="none"),
    case("answer-is-unclear", "The answer is unclear from the image.", "3", FLOAT, False, FAILED),
    case("not-applicable", "N/A", "3", FLOAT, False, FAILED),
]

ALL_CASES = JSON_CASES + BOXED_AND_LINES + MULTIPLE_CHOICE + NUMBERS + PERCENT_AND_TOLERANCE + TEXT_CASES
ALL_CASES += NOTHING_TO_GRADE


def test_table_is_large_enough() -> None:
    assert len(ALL_CASES) >= 150
    assert len({c.id for c in ALL_CASES}) == len(ALL_CASES)


@pytest.mark.parametrize(
    (
        "reply",
        "truth",
        "answer_type",
        "choices",
        "tolerance",
        "percent",
        "correct",
        "reason",
        "method",
        "extracted",
    ),
    ALL_CASES,
)
def test_grader_table(
    reply: str,
    truth: str,
    answer_type: AnswerType,
    choices: tuple[str, ...],
    tolerance: Tolerance | None,
    percent: bool,
    correct: bool,
    reason: str,
    method: str | None,
    extracted: str | None,
) -> None:
    result = score(reply, truth, answer_type, choices, tolerance or Tolerance(), percent_question=percent)
    assert (result.correct, result.reason) == (correct, reason), result
    if method is not None:
        assert result.method == method, result
    if extracted is not None or method == "none":
        assert result.extracted == extracted, result


def test_grading_works_off_the_main_thread() -> None:
    """math-verify's timeouts use SIGALRM; the DSPy optimiser grades in a worker thread."""
    results: list[object] = []

    def grade() -> None:
        try:
            results.append(score("Answer: (x+1)^2", "x^2 + 2x + 1", TEXT).correct)
            results.append(score("Answer: 3.4641", "A", MC, SURDS).correct)
            results.append(score("$\\frac{\\sqrt{3}}{2}$", "0.866", FLOAT).correct)
        except Exception as error:  # reported by the assertion below
            results.append(error)

    worker = threading.Thread(target=grade)
    worker.start()
    worker.join()
    assert results == [True, True, True]
