"""A fast path for comparing short mathematical answers, ahead of math-verify (pure functions).

math-verify parses LaTeX with an ANTLR grammar: 20-40 ms per new string, which would cap grading at a
few hundred replies per second. Most answers are simple: `2\\sqrt{3}`, `\\frac{3}{4}\\pi`, `x^2 + 2x + 1`,
`(x+1)^2`. Such an expression is translated into a small arithmetic language (numbers, one-letter
variables, + - * / **, a few functions), checked against a whitelist, and evaluated as floats:

- `fast_value`: the number a closed form stands for;
- `fast_equivalent`: two expressions in the same variables compared at fixed random points
  (polynomial identity testing: different expressions almost never agree at all of them).

Anything outside the language (relations, sets, logarithms with a base, absolute values, unknown
names) returns None, and the caller asks math-verify. Evaluation is of floats only, so no input can
build huge integers; the translated text is at most 200 characters.
"""

from __future__ import annotations

import math
import re
from functools import lru_cache

from isodyn.scoring.text import unicode_math

_FUNCTIONS = {"sqrt": math.sqrt, "sin": math.sin, "cos": math.cos, "tan": math.tan, "log": math.log,
              "exp": math.exp, "abs": abs}  # fmt: skip
_LOG_BASE = re.compile(r"\\log_\{?(\d+)\}?\s*(?:\(([^()]*)\)|([a-z0-9]))")
_ABS = re.compile(r"\|([^|]+)\|")
_CONSTANTS = {"pi": math.pi}
_MAX_CHARS = 200
_POINTS = ((0.7312, 1.3779, 2.1131), (1.9137, 0.4421, 1.2657), (2.6021, 1.7709, 0.3183))
_NAME = re.compile(r"[A-Za-z]+")
# an argument in braces, or a lone digit or letter (`\\frac38`, `\\frac{3\\sqrt{33}}5`, `\\sqrt3`)
_FRAC = re.compile(r"\\[dtc]?frac\s*(?:\{([^{}]*)\}|([0-9a-z]))\s*(?:\{([^{}]*)\}|([0-9a-z]))")
_SQRT = re.compile(r"\\sqrt\s*(?:\{([^{}]*)\}|\(([^()]*)\)|([0-9a-z]))")  # `\\sqrt(3)` from `sqrt(3)`
_ROOT = re.compile(r"\\sqrt\s*\[(\d+)\]\s*\{([^{}]*)\}")  # `\\sqrt[4]{9}`
# `\\cos^2 x`, `sin^{2}(x)`: the function's value to a power
_FUNCTION_POWER = re.compile(r"\b(sin|cos|tan)\s*\^\s*\{?\s*(\d)\s*\}?\s*(\([^()]*\)|\{[^{}]*\}|[a-z0-9.]+)")
_EULER = re.compile(r"\\(?:mathrm|operatorname|text|mathit)\s*\{\s*e\s*\}")
_ALLOWED = re.compile(r"^[0-9a-z_+\-*/(). ]*$")


def _latex_to_plain(text: str) -> str | None:
    text = unicode_math(text).replace("$", " ").replace("\\(", "(").replace("\\)", ")").strip()
    for command in ("\\left", "\\right", "\\,", "\\!", "\\ ", "\\displaystyle"):
        text = text.replace(command, "")
    text = _EULER.sub(" exp(1) ", text)  # `\\mathrm{e}` is Euler's number, not a variable
    text = text.replace("\\cdot", "*").replace("\\times", "*").replace("\\pi", " pi ").replace("π", " pi ")
    text = _LOG_BASE.sub(lambda m: f"(log({m.group(2) or m.group(3)})/log({m.group(1)}))", text)
    text = re.sub(
        r"\\(sin|cos|tan|exp|ln|log)\b", lambda m: f" {'log' if m.group(1) == 'ln' else m.group(1)} ", text
    )
    text = _FUNCTION_POWER.sub(lambda m: f"(({m.group(1)}({m.group(3).strip('{}()')}))**{m.group(2)})", text)
    text = _ABS.sub(r"abs(\1)", text.replace("\\lvert", "|").replace("\\rvert", "|").replace("\\mid", "|"))
    for _ in range(6):  # nested fractions and roots, innermost first
        before = text
        text = _ROOT.sub(r"((\2)**(1/\1))", text)
        text = _FRAC.sub(lambda m: f"(({m.group(1) or m.group(2)})/({m.group(3) or m.group(4)}))", text)
        text = _SQRT.sub(lambda m: f"sqrt({m.group(1) or m.group(2) or m.group(3)})", text)
        if text == before:
            break
    text = text.replace("√", "sqrt")
    if "\\" in text or "|" in text or "_" in text:
        return None  # a command or notation outside the language (`\log_2`, `|x|`)
    return text.replace("{", "(").replace("}", ")").replace("[", "(").replace("]", ")")


def _implicit_products(text: str) -> str | None:
    """`2x` as `2*x`, `(x+1)(x-1)` as `(x+1)*(x-1)`, `2sqrt(3)` as `2*sqrt(3)`; None for a name
    that is neither a function, a constant nor a one-letter variable (`xy` is ambiguous)."""
    tokens = re.findall(r"\d+\.?\d*|\.\d+|[A-Za-z]+|\*\*|\^|[-+*/(),]|\S", text)
    out: list[str] = []
    previous = ""
    for token in tokens:
        if token.isalpha() and token not in _FUNCTIONS and token not in _CONSTANTS and len(token) > 1:
            return None
        if previous in _FUNCTIONS and token != "(":  # `sin x` is `sin(x)`
            if not (token[0].isalnum() or token[0] == "."):
                return None
            out += ["(", token, ")"]
            previous = ")"
            continue
        if token == "^":
            token = "**"
        starts_operand = token[0].isalnum() or token[0] in "(." or token in _FUNCTIONS
        ends_operand = bool(previous) and (previous[-1].isalnum() or previous[-1] in ").")
        ends_operand = ends_operand and previous not in _FUNCTIONS
        if starts_operand and ends_operand:
            out.append("*")
        out.append(token)
        previous = token
    return " ".join(out)


@lru_cache(maxsize=16384)
def translate(text: str) -> tuple[str, tuple[str, ...]] | None:
    """The expression in the arithmetic language and its variables, or None when it is outside it."""
    if len(text) > _MAX_CHARS or re.search(r"[=<>≤≥≠,;]|\\[lg]eq?|\\neq|\\in\b|\\cup", text):
        return None
    plain = _latex_to_plain(text)
    if plain is None:
        return None
    code = _implicit_products(plain)
    if code is None or not _ALLOWED.match(code) or "__" in code or re.search(r"[a-z_]\s*\.", code):
        return None
    code = re.sub(r"(?<![\w.])(\d+)(?![\d.])", r"\1.0", code)  # floats only: no huge integers
    names = {n for n in _NAME.findall(code) if n not in _FUNCTIONS and n not in _CONSTANTS}
    if len(names) > len(_POINTS[0]):
        return None
    try:
        compiled = compile(code, "<answer>", "eval")
    except (SyntaxError, ValueError):
        return None
    known = set(_FUNCTIONS) | set(_CONSTANTS) | names
    if any(name not in known for name in compiled.co_names):
        return None
    return code, tuple(sorted(names))


def _evaluate(code: str, names: tuple[str, ...], point: tuple[float, ...]) -> float | None:
    scope = {**_FUNCTIONS, **_CONSTANTS, **dict(zip(names, point, strict=False))}
    try:
        value = eval(code, {"__builtins__": {}}, scope)
    except (ArithmeticError, ValueError, TypeError):
        return None
    if isinstance(value, complex) or not isinstance(value, float | int) or not math.isfinite(value):
        return None
    return float(value)


def fast_value(text: str) -> float | None:
    """The number a closed form without variables stands for (`2\\sqrt{3}`, `\\frac{3}{4}\\pi`)."""
    found = translate(text)
    if found is None or found[1]:
        return None
    return _evaluate(found[0], (), ())


def fast_equivalent(candidate: str, truth: str) -> bool | None:
    """True or False when both are expressions in the language with the same variables; else None."""
    a, b = translate(candidate), translate(truth)
    if a is None or b is None or a[1] != b[1]:
        return None
    agreed = 0
    for point in _POINTS:
        x, y = _evaluate(a[0], a[1], point), _evaluate(b[0], b[1], point)
        if x is None or y is None:
            continue
        if not math.isclose(x, y, rel_tol=1e-9, abs_tol=1e-12):
            return False
        agreed += 1
    return True if agreed >= 2 else None


def fast_equation_equivalent(candidate: str, truth: str) -> bool | None:
    """Two equations `l = r` are the same when `l - r` of one is a constant non-zero multiple of the
    other's (`y = 2x + 3` and `2x - y + 3 = 0`); None when either is outside the language."""
    sides = [text.split("=") for text in (candidate, truth)]
    if any(len(parts) != 2 for parts in sides):
        return None
    a, b = (translate(f"({left})-({right})") for left, right in sides)
    if a is None or b is None or a[1] != b[1]:
        return None
    ratios = []
    for point in _POINTS:
        x, y = _evaluate(a[0], a[1], point), _evaluate(b[0], b[1], point)
        if x is None or y is None:
            continue
        if abs(y) < 1e-12 or abs(x) < 1e-12:
            if abs(x) > 1e-9 or abs(y) > 1e-9:
                return False
            continue
        ratios.append(x / y)
    if len(ratios) < 2:
        return None
    return all(math.isclose(r, ratios[0], rel_tol=1e-9) for r in ratios)
