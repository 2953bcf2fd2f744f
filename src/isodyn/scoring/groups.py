"""Groups of numbers (tuples, intervals, sets, unions, simple inequalities) compared by value, and
math-verify's symbolic comparison with such groups compared under the tolerance (pure functions)."""

from __future__ import annotations

import math
import re
from typing import Any

from isodyn.scoring.numbers import Tolerance, parse_number
from isodyn.scoring.symbolic import _as_math, _timeout


def _numeric_shape(expr: object) -> tuple[Any, ...] | None:
    """A tuple, interval or finite set of plain numbers as (kind, values, flags), else None."""
    import sympy

    def values(items) -> list[float] | None:
        out = []
        for item in items:
            if not isinstance(item, sympy.Basic) or item.free_symbols or not item.is_number:
                return None
            value = complex(item.evalf())
            if abs(value.imag) > 1e-12:
                return None
            out.append(value.real)
        return out

    if isinstance(expr, sympy.Tuple):
        found = values(expr.args)
        return None if found is None else ("tuple", found, ())
    if isinstance(expr, sympy.Interval):
        found = values([expr.start, expr.end])
        return None if found is None else ("interval", found, (expr.left_open, expr.right_open))
    if isinstance(expr, sympy.FiniteSet):
        found = values(expr.args)
        return None if found is None else ("set", sorted(found), ())
    return None


def _shapes_close(gold: object, guess: object, tolerance: Tolerance) -> bool | None:
    """Tuples/intervals/sets of numbers compared elementwise with the tolerance; None if not both."""
    try:
        a, b = _numeric_shape(gold), _numeric_shape(guess)
    except (TypeError, ValueError, AttributeError, ArithmeticError):
        return None
    if a is None or b is None:
        return None
    kind_a, values_a, flags_a = a
    kind_b, values_b, flags_b = b
    if kind_a == "set" and kind_b == "tuple":  # a bare list truth is a set: `[3, 1, 2]` for `1, 2, 3`
        kind_b, values_b = "set", sorted(values_b)
    # `(1, 2)` reads as an open interval or as a point: the two agree when the numbers do.
    if {kind_a, kind_b} == {"tuple", "interval"}:
        interval = flags_a if kind_a == "interval" else flags_b
        if interval != (True, True):
            return False
    elif kind_a != kind_b or flags_a != flags_b:
        return False
    if len(values_a) != len(values_b):
        return False
    return all(x == t or tolerance.close(x, t) for x, t in zip(values_b, values_a, strict=True))


_GROUP = re.compile(r"^\s*([\[({]?)\s*([^\[\](){}]*?)\s*([\])}]?)\s*$")
_INFINITY = {"∞": math.inf, "\\infty": math.inf, "inf": math.inf, "infinity": math.inf, "oo": math.inf}
_UNION = re.compile(r"\s*(?:\\cup|∪|\bU\b)\s*")
_BOUND = r"([-+]?\s*(?:\d+(?:\.\d+)?|\.\d+))"
_LESS = r"(<=|≤|\\leq?(?:slant)?(?![a-z])|\\lt(?![a-z])|<)"
_GREATER = r"(>=|≥|\\geq?(?:slant)?(?![a-z])|\\gt(?![a-z])|>)"
_STRICT = ("<", ">", "\\lt", "\\gt")
_VARIABLE = r"(?:[a-z]|[a-z]\s*\(\s*[a-z]\s*\))"  # `x`, or a function's value `f(x)`
_BETWEEN = re.compile(rf"^\s*{_BOUND}\s*{_LESS}\s*{_VARIABLE}\s*{_LESS}\s*{_BOUND}\s*$")
_ABOVE = re.compile(rf"^\s*{_VARIABLE}\s*{_GREATER}\s*{_BOUND}\s*$")
_BELOW = re.compile(rf"^\s*{_VARIABLE}\s*{_LESS}\s*{_BOUND}\s*$")
_NOT_EQUAL = re.compile(rf"^\s*{_VARIABLE}\s*(?:\\neq?(?![a-z])|≠|!=)\s*{_BOUND}\s*$")


def _group_value(text: str) -> float | None:
    text = text.strip()
    sign = -1.0 if text.startswith(("-", "−")) else 1.0
    bare = text.lstrip("+-−").strip()
    if bare in _INFINITY:
        return sign * _INFINITY[bare]
    return parse_number(text)


def _inequality_groups(text: str) -> list[tuple[str, list[float], str]] | None:
    """`1 \\le x < 3` as [1, 3); `x > 2` as (2, ∞); `x \\neq 0` as (-∞, 0) ∪ (0, ∞)."""

    def closed(op: str) -> bool:
        return op not in _STRICT

    if m := _BETWEEN.match(text):
        low, op1, op2, high = (
            float(m.group(1).replace(" ", "")),
            m.group(2),
            m.group(3),
            float(m.group(4).replace(" ", "")),
        )
        return [("[" if closed(op1) else "(", [low, high], "]" if closed(op2) else ")")]
    if m := _ABOVE.match(text):
        return [("[" if closed(m.group(1)) else "(", [float(m.group(2).replace(" ", "")), math.inf], ")")]
    if m := _BELOW.match(text):
        return [("(", [-math.inf, float(m.group(2).replace(" ", ""))], "]" if closed(m.group(1)) else ")")]
    if m := _NOT_EQUAL.match(text):
        point = float(m.group(1).replace(" ", ""))
        return [("(", [-math.inf, point], ")"), ("(", [point, math.inf], ")")]
    return None


def _numeric_groups(text: str) -> list[tuple[str, list[float], str]] | None:
    """`(2, -1)`, `[1, 3)`, `{1, 2, 3}`, a bare `1, 2, 3`, a union of intervals or a simple inequality,
    as (opening, values, closing) groups; None for anything else."""
    text = text.replace("\\left", "").replace("\\right", "").replace("\\{", "{").replace("\\}", "}")
    text = text.replace("$", "").strip()
    if (inequality := _inequality_groups(text)) is not None:
        return inequality
    if (both := re.fullmatch(r"\s*(?:±|\\pm)\s*(.+?)\s*", text)) and (
        value := parse_number(both.group(1))
    ) is not None:
        return [("{", [-value, value], "}")]  # `±3` is the set {-3, 3}
    groups = []
    for part in _UNION.split(text):
        match = _GROUP.match(part)
        named = re.search(r"[=a-hj-zA-Z]", match.group(2).replace("inf", "")) if match else None
        if not match or "," not in match.group(2) or (named and "\\infty" not in match.group(2)):
            return None  # named values (`x = 1, y = 2`) are math-verify's to compare
        values = [_group_value(value) for value in match.group(2).split(",")]
        if any(v is None for v in values):
            return None
        groups.append((match.group(1), values, match.group(3)))
    return groups  # type: ignore[return-value]


def _groups_equal(candidate: str, truth: str, tolerance: Tolerance) -> bool | None:
    """Groups of numbers compared without a symbolic parse: a set truth (braces or bare) ignores order;
    a tuple or interval truth keeps order and its brackets, and no set says it (`{1, 3}` is not the
    pair `(3, 1)`); a bare list against it is read in order; None when either is no such group."""
    a, b = _numeric_groups(candidate), _numeric_groups(truth)
    if a is None or b is None:
        return None
    if len(a) != len(b):
        return False
    return all(
        _group_equal(x, y, tolerance)
        for x, y in zip(sorted(a, key=_start), sorted(b, key=_start), strict=True)
    )


def _start(group: tuple[str, list[float], str]) -> float:
    return group[1][0]


def _group_equal(
    a: tuple[str, list[float], str], b: tuple[str, list[float], str], tolerance: Tolerance
) -> bool:
    (open_a, values_a, close_a), (open_b, values_b, close_b) = a, b
    if len(values_a) != len(values_b):
        return False
    if open_b in ("{", ""):  # a set truth: any order
        values_a, values_b = sorted(values_a), sorted(values_b)
    elif open_a == "{" or (open_a and (open_a, close_a) != (open_b, close_b)):
        return False
    return all(x == y or tolerance.close(x, y) for x, y in zip(values_a, values_b, strict=True))


def _symbolic_equal(candidate: str, truth: str, tolerance: Tolerance) -> bool | None:
    """math-verify's comparison of two parses (pure Python once the bounds have passed, but SymPy's
    simplification may take seconds: `bounded_call` limits it)."""
    from math_verify import verify

    gold, guess = _as_math(truth), _as_math(candidate)
    if gold is None or guess is None:
        return None  # beyond the bounds: not evaluated, so neither right nor wrong
    if not gold or not guess:
        return False
    shapes = _shapes_close(gold[0], guess[0], tolerance)
    if shapes is not None:
        return shapes
    return bool(
        verify(
            gold,
            guess,
            float_rounding=6,
            numeric_precision=15,
            strict=True,
            allow_set_relation_comp=False,
            timeout_seconds=_timeout(2),
        )
    )
