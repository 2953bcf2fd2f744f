"""Property tests for the grader: equivalent forms are accepted, perturbed ones rejected.

Numbers are drawn as exact decimals (an integer mantissa and up to four decimal places) so that a
rendering never rounds and a perturbation is never near the tolerance's edge.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from decimal import Decimal

import sympy
from hypothesis import given, settings
from hypothesis import strategies as st

from isodyn.core import AnswerType
from isodyn.scoring import Tolerance, score

FLOAT, TEXT, MC = AnswerType.FLOAT, AnswerType.TEXT, AnswerType.MULTIPLE_CHOICE

decimals = st.builds(
    lambda mantissa, places: Decimal(mantissa).scaleb(-places),
    st.integers(min_value=-(10**9), max_value=10**9),
    st.integers(min_value=0, max_value=4),
)


def plain(d: Decimal) -> str:
    return format(d, "f")


def scientific(d: Decimal) -> str:
    return format(d, "e")  # exact: Decimal keeps every digit


def latex_scientific(d: Decimal) -> str:
    mantissa, exponent = format(d, "e").split("e")
    return f"${mantissa} \\times 10^{{{int(exponent)}}}$"


def thousands(d: Decimal) -> str:
    return format(d, ",f")


# Each rendering is a whole reply, as a model would write it.
RENDERINGS: dict[str, Callable[[Decimal], str]] = {
    "json-plain": lambda d: json.dumps({"solution": "see above", "short answer": plain(d)}),
    "json-fenced-scientific": lambda d: (
        "```json\n" + json.dumps({"solution": "s", "short answer": scientific(d)}) + "\n```"
    ),
    "answer-line-latex-scientific": lambda d: f"Multiplying out.\nAnswer: {latex_scientific(d)}",
    "answer-line-unit": lambda d: f"Answer: {plain(d)} cm",
    "answer-line-thousands": lambda d: f"The final answer is {thousands(d)}",
    "answer-line-dollars": lambda d: f"Answer: ${plain(d)}$",
    "boxed-in-prose": lambda d: (
        f"Let me compute carefully, step by step. The value is therefore $\\boxed{{{plain(d)}}}$. Done."
    ),
    "boxed-with-unit": lambda d: f"So $\\boxed{{{thousands(d)} \\text{{ m}}}}$",
    "x-equals": lambda d: json.dumps({"solution": "solve", "short answer": f"x = {plain(d)}"}),
}


@settings(max_examples=150, deadline=None)
@given(decimals, st.sampled_from(sorted(RENDERINGS)))
def test_equivalent_renderings_of_a_number_are_accepted(value: Decimal, rendering: str) -> None:
    reply = RENDERINGS[rendering](value)
    result = score(reply, plain(value), FLOAT)
    assert (result.correct, result.reason) == (True, "ok"), (reply, result)


@settings(max_examples=40, deadline=None)
@given(
    st.integers(min_value=-999, max_value=999),
    st.integers(min_value=1, max_value=999),
    st.sampled_from(["{p}/{q}", "$\\frac{{{p}}}{{{q}}}$", "\\boxed{{\\dfrac{{{p}}}{{{q}}}}}"]),
)
def test_fraction_of_integers_is_accepted(p: int, q: int, template: str) -> None:
    reply = "Answer: " + template.format(p=p, q=q)
    result = score(reply, f"{p / q:.6f}", FLOAT)
    assert (result.correct, result.reason) == (True, "ok"), (reply, result)


perturbations = st.builds(
    lambda size, sign: sign * Decimal(size).scaleb(-4),
    st.integers(min_value=15, max_value=10**8),  # 0.0015 .. 10,000: well beyond 0.001
    st.sampled_from([-1, 1]),
)


@settings(max_examples=150, deadline=None)
@given(decimals, perturbations, st.sampled_from(sorted(RENDERINGS)))
def test_numbers_outside_the_tolerance_are_rejected(value: Decimal, delta: Decimal, rendering: str) -> None:
    reply = RENDERINGS[rendering](value + delta)
    result = score(reply, plain(value), FLOAT)
    assert (result.correct, result.reason) == (False, "ok"), (reply, result)


@settings(max_examples=100, deadline=None)
@given(decimals, st.integers(min_value=-9, max_value=9))
def test_numbers_inside_the_absolute_tolerance_are_accepted(value: Decimal, tenths_of_milli: int) -> None:
    near = value + Decimal(tenths_of_milli).scaleb(-4)  # at most 0.0009 away
    result = score(f"Answer: {plain(near)}", plain(value), FLOAT)
    assert result.correct, (plain(near), plain(value), result)


@settings(max_examples=100, deadline=None)
@given(
    st.integers(min_value=100, max_value=10**7),
    st.integers(min_value=-90, max_value=90),
    st.integers(min_value=110, max_value=5000),
    st.sampled_from([-1, 1]),
)
def test_relative_tolerance(truth: int, inside: int, outside: int, sign: int) -> None:
    tolerance = Tolerance(absolute=0.0, relative=0.01)
    near = Decimal(truth) * (1 + Decimal(inside).scaleb(-4))  # within 0.9 %
    far = Decimal(truth) * (1 + sign * Decimal(outside).scaleb(-4))  # 1.1 % or more away
    assert score(f"Answer: {plain(near)}", str(truth), FLOAT, tolerance=tolerance).correct
    result = score(f"Answer: {plain(far)}", str(truth), FLOAT, tolerance=tolerance)
    assert (result.correct, result.reason) == (False, "ok"), (plain(far), truth, result)


# ---- polynomials ------------------------------------------------------------------------------------

X = sympy.Symbol("x")


def render_terms(terms: list[tuple[int, int]]) -> str:
    """`[(3, 2), (-1, 0)]` -> `3x^2 - 1`, in the order given."""
    out = []
    for coefficient, power in terms:
        if coefficient == 0:
            continue
        size = abs(coefficient)
        body = {0: f"{size}", 1: "x", 2: "x^2", 3: "x^3"}[power]
        if power and size != 1:
            body = f"{size}{body}"
        sign = "-" if coefficient < 0 else "+"
        out.append(("-" if sign == "-" else "") + body if not out else f" {sign} {body}")
    return "".join(out) or "0"


def expanded_terms(leading: int, roots: list[int]) -> list[tuple[int, int]]:
    coefficients = sympy.Poly(leading * sympy.prod([X - r for r in roots]), X).all_coeffs()
    degree = len(coefficients) - 1
    return [(int(c), degree - i) for i, c in enumerate(coefficients)]


def factored(leading: int, roots: list[int]) -> str:
    zeros = roots.count(0)  # x^2(x - 3), as a person writes it, not xx(x - 3)
    factors = {0: "", 1: "x"}.get(zeros, f"x^{zeros}")
    factors += "".join(f"(x {'-' if r > 0 else '+'} {abs(r)})" for r in roots if r)
    prefix = {1: "", -1: "-"}.get(leading, str(leading))
    return prefix + factors


polynomials = st.tuples(
    st.integers(min_value=-5, max_value=5).filter(bool),
    st.lists(st.integers(min_value=-9, max_value=9), min_size=2, max_size=3),
)


@settings(max_examples=30, deadline=None)
@given(polynomials, st.randoms(use_true_random=False), st.booleans())
def test_expanded_and_factored_polynomials_are_accepted(poly, rng, factored_truth: bool) -> None:
    leading, roots = poly
    terms = expanded_terms(leading, roots)
    shuffled = terms[:]
    rng.shuffle(shuffled)
    truth, reply = (factored(leading, roots), render_terms(shuffled))
    if not factored_truth:
        truth, reply = render_terms(terms), factored(leading, roots)
    result = score(f"Expanding and collecting terms.\nAnswer: ${reply}$", truth, TEXT)
    assert (result.correct, result.reason) == (True, "ok"), (reply, truth, result)


@settings(max_examples=30, deadline=None)
@given(polynomials, st.integers(min_value=1, max_value=3), st.sampled_from([-1, 1]), st.integers(0, 3))
def test_a_perturbed_coefficient_is_rejected(poly, size: int, sign: int, which: int) -> None:
    leading, roots = poly
    terms = expanded_terms(leading, roots)
    index = which % len(terms)
    perturbed = [(c + sign * size, p) if i == index else (c, p) for i, (c, p) in enumerate(terms)]
    reply = json.dumps({"solution": "expand", "short answer": render_terms(perturbed)})
    result = score(reply, factored(leading, roots), TEXT)
    assert (result.correct, result.reason) == (False, "ok"), (reply, result)


# ---- intervals --------------------------------------------------------------------------------------

intervals = st.tuples(
    st.integers(min_value=-50, max_value=50),
    st.integers(min_value=1, max_value=40),
    st.booleans(),
    st.booleans(),
)


def as_interval(a: int, b: int, left_closed: bool, right_closed: bool) -> str:
    return f"{'[' if left_closed else '('}{a}, {b}{']' if right_closed else ')'}"


def as_inequality(a: int, b: int, left_closed: bool, right_closed: bool) -> str:
    left, right = ("\\le" if left_closed else "<"), ("\\le" if right_closed else "<")
    return f"{a} {left} x {right} {b}"


@settings(max_examples=40, deadline=None)
@given(intervals, st.booleans())
def test_interval_and_inequality_are_accepted(interval, inequality_truth: bool) -> None:
    a, length, left, right = interval
    written = (a, a + length, left, right)
    truth, reply = as_interval(*written), as_inequality(*written)
    if inequality_truth:
        truth, reply = reply, truth
    result = score(f"Answer: ${reply}$", truth, TEXT)
    assert (result.correct, result.reason) == (True, "ok"), (reply, truth, result)


@settings(max_examples=40, deadline=None)
@given(intervals, st.sampled_from(["left", "right", "end"]))
def test_an_interval_with_another_end_is_rejected(interval, change: str) -> None:
    a, length, left, right = interval
    b = a + length
    truth = as_interval(a, b, left, right)
    wrong = {
        "left": (a, b, not left, right),
        "right": (a, b, left, not right),
        "end": (a, b + 1, left, right),
    }[change]
    result = score(f"Answer: ${as_inequality(*wrong)}$", truth, TEXT)
    assert (result.correct, result.reason) == (False, "ok"), (wrong, truth, result)


# ---- multiple choice: option permutations ----------------------------------------------------------

WORDS = ["circle", "square", "triangle", "hexagon", "pentagon", "rhombus", "trapezoid", "ellipse"]
option_sets = st.one_of(
    st.lists(st.sampled_from(WORDS), min_size=2, max_size=5, unique=True),
    st.lists(st.integers(min_value=-20, max_value=120).map(str), min_size=2, max_size=5, unique=True),
)
REPLIES = [
    lambda text: json.dumps({"solution": "compare the options", "short answer": text}),
    lambda text: f"Looking at each option in turn, the answer is {text}.",
    lambda text: f"I compared all of them.\n**Answer:** {text}",
    lambda text: f"Checking the figure again, the result is {text}.",
]


@settings(max_examples=120, deadline=None)
@given(option_sets, st.data())
def test_the_text_of_the_right_option_is_accepted_and_another_rejected(choices, data) -> None:
    choices = tuple(choices)
    right = data.draw(st.integers(min_value=0, max_value=len(choices) - 1), label="right")
    other = data.draw(st.sampled_from([i for i in range(len(choices)) if i != right]), label="other")
    render = data.draw(st.sampled_from(REPLIES), label="reply")
    truth = "ABCDEFGHIJ"[right]
    accepted = score(render(choices[right]), truth, MC, choices)
    assert (accepted.correct, accepted.reason) == (True, "ok"), (choices, truth, accepted)
    rejected = score(render(choices[other]), truth, MC, choices)
    assert (rejected.correct, rejected.reason) == (False, "ok"), (choices, truth, rejected)
    lettered = score(f"The answer is ({truth}).", truth, MC, choices)
    assert (lettered.correct, lettered.reason) == (True, "ok"), (choices, truth, lettered)


def reference_balanced_objects(text: str) -> list[str]:
    """The top-level `{...}` of `text`, one character at a time (strings and escapes respected)."""
    found, depth, start, in_string, escaped = [], 0, -1, False, False
    for i, ch in enumerate(text):
        if in_string:
            if escaped:
                escaped = False
            elif ch == "\\":
                escaped = True
            elif ch == '"':
                in_string = False
        elif ch == '"' and depth > 0:
            in_string = True
        elif ch == "{":
            start = i if depth == 0 else start
            depth += 1
        elif ch == "}" and depth > 0:
            depth -= 1
            if depth == 0:
                found.append(text[start : i + 1])
    return found


@settings(max_examples=3000)
@given(st.text(alphabet='{}"\\ab :,x\n', max_size=40))
def test_brace_scanner_matches_a_character_by_character_scan(text: str) -> None:
    from isodyn.scoring.json_answer import _balanced_objects

    assert _balanced_objects(text) == reference_balanced_objects(text)
