"""Bounds on what grading computes: every number and expression read from a reply is sized before
anything evaluates it, so no reply can make grading slow or large (pure functions).

Big-number arithmetic runs in C (Python's integers, mpmath), where no timeout reaches: evaluating
`9^{9^{9^{9}}}`, `1000000!` or `\\binom{10^9}{10^8}` never ends, and simplifying it builds an integer of
billions of digits. So nothing is evaluated that could hold a value beyond 10^±MAX_LOG10:

- `exact_decimal`: a decimal number (`12345678901234567890`, `1.5e-3`) as an exact `Fraction`,
  refused when it has more than MAX_DIGITS digits or an exponent beyond MAX_LOG10;
- `tame_text`: whether a text may be parsed at all (math-verify's parser evaluates some numbers as it
  builds them: an interval's ends are compared): every exponent, factorial, binomial, Gamma or
  exponential written in numbers has an argument of at most MAX_OPERAND;
- `tame`: whether a parsed SymPy expression can be evaluated (`evalf`, `simplify`, math-verify's
  comparison) within the bounds, judged from its tree alone: an upper bound on the size (|log10|) of
  every value in it, powers and factorials included, on the terms its expansion has, on its depth
  and its nodes; sums, products, integrals and limits are not evaluated at all;
- `as_float`: a number as a float, infinite (not an OverflowError) beyond the float range;
- `bounded_call`: what the static bounds cannot limit, the time SymPy's simplification takes (pure
  Python, seconds on `\\frac{1}{\\sin((x+y+z)^2)}`), is limited by math-verify's own timeouts on the
  main thread (SIGALRM, as `exp` grades); on any other thread, where no alarm can be set, the
  comparison runs in a worker process that is killed past BOUNDED_SECONDS;
- `route_math_verify_logs`: math-verify's warnings (a timed-out parse or comparison) are counted in
  `EVENTS` and logged at debug level, not printed on the user's terminal.
"""

from __future__ import annotations

import atexit
import importlib
import logging
import math
import multiprocessing
import re
import threading
from collections import Counter
from collections.abc import Callable
from fractions import Fraction
from functools import lru_cache
from typing import Any, NamedTuple, TypeVar

from isodyn.scoring.fast_math import fast_value

MAX_DIGITS = 1_000  # a number written with more digits is no answer
MAX_LOG10 = 1_000.0  # no value an expression builds may exceed 10^1000 in size, or 1/10^1000
MAX_DEPTH = 100
MAX_NODES = 2_000
MAX_SYMBOLIC_EXPONENT = 100  # `x^{100}` may be simplified; `x^{10^{10}}` may not
MAX_TERMS = 100  # `(x + 1)^{50}` may be expanded (51 terms); `(x + y + z)^{100}` (5,151) may not
MAX_OPERAND = 10_000  # the largest exponent, factorial or binomial argument written in numbers
MAX_TEXT = 1_000  # a longer text is not parsed
BOUNDED_SECONDS = 2.0  # a comparison off the main thread, at most (math-verify's own timeout)
WORKER_START_SECONDS = 60.0  # its worker process's imports, at most

EVENTS: Counter[str] = Counter()  # math-verify's warnings, by kind (a timed-out parse, ...)
_log = logging.getLogger(__name__)
_DECIMAL = re.compile(r"[-+]?(\d*)\.?(\d*)(?:[eE]([-+]?\d+))?")
_LOG10_2 = math.log10(2)


def exact_decimal(text: str) -> Fraction | None:
    """A decimal number written `[-+]digits[.digits][e[-+]digits]`, exactly; None when it is not one
    or is beyond the bounds (more than MAX_DIGITS digits, an exponent beyond MAX_LOG10)."""
    match = _DECIMAL.fullmatch(text.strip())
    if not match or not (match.group(1) or match.group(2)):
        return None
    exponent = match.group(3)
    if len(match.group(1)) + len(match.group(2)) > MAX_DIGITS:
        return None
    if exponent is not None and (len(exponent) > 6 or abs(int(exponent)) > MAX_LOG10):
        return None
    return Fraction(text.strip())


def as_float(value: Fraction | float | int) -> float:
    """The value as a float: ±inf beyond the float range (a huge Fraction raises OverflowError)."""
    try:
        return float(value)
    except OverflowError:
        return math.inf if value > 0 else -math.inf


# ---- what a text may denote, before it is parsed ------------------------------------------------------

# What makes a number grow past its digits: powers, factorials, binomials, Gamma, exponentials.
_GROWTH = re.compile(r"\^|\*\*|!+(?!=)|\\(?:[dt]?binom|choose|Gamma|exp|sinh|cosh)(?![A-Za-z])")
_CLOSE = {"{": "}", "(": ")", "[": "]"}
_OPEN = {v: k for k, v in _CLOSE.items()}
# Commands that stand for numbers or arithmetic, and Euler's e: what is left of an operand without
# them is a variable (an operand in variables is not evaluated while parsing)
_EULER = re.compile(r"(?<![A-Za-z\\])e(?![A-Za-z])")
_NUMERIC_NOTATION = re.compile(
    r"\\(?:[dt]?frac|sqrt|pi|cdot|times|div|pm|mp|Gamma|exp|ln|lg|log|a?r?c?(?:sin|cos|tan|cot|sec|csc)h?"
    r"|[dt]?binom|choose|gcd|lcm|max|min|[lr](?:floor|ceil)|operatorname|mathrm|text|bmod|pmod|mod)(?![A-Za-z])"
    rf"|{_EULER.pattern}"
)


def tame_text(text: str) -> bool:
    """Whether `text` may be parsed: every exponent, factorial, binomial, Gamma or exponential
    argument written in numbers (with π, e, fractions and roots) is at most MAX_OPERAND in size
    (`2^{10}`, `5!`, `\\binom{10}{3}`, `e^{-x^2}`; not `10^{10^{10}}`, `(10^{100})!`,
    `\\binom{10^9}{10^8}`)."""
    if len(text) > MAX_TEXT:
        return False
    text = text.replace("\\left", "").replace("\\right", "")
    for match in _GROWTH.finditer(text):
        operator = match.group()
        if operator.startswith("!"):  # `9!!` is read as (9!)!: its last factorial is of 9!
            operands = [f"({_operand_before(text, match.start())})" + "!" * (len(operator) - 1)]
        elif operator == "\\choose":
            operands = [_operand_before(text, match.start()), _operand_after(text, match.end())]
        elif operator.endswith("binom"):
            top, end = _atom_after(text, match.end())
            operands = [top, _atom_after(text, end)[0]]
        elif operator.startswith("\\"):  # a function: `\Gamma(a)^{b}` is Γ(a) to the b
            operands = [_atom_after(text, match.end())[0]]
        else:
            operands = [_operand_after(text, match.end())]
        if not all(_small(operand) for operand in operands):
            return False
    return True


def _small(operand: str) -> bool:
    """An operand in numbers whose value is at most MAX_OPERAND, or one in variables (or empty)."""
    if not operand.strip() or re.search(r"[A-Za-z]", _NUMERIC_NOTATION.sub("", operand)):
        return True
    value = fast_value(_factorials_of_small_numbers(_EULER.sub(f"({math.e!r})", operand)))
    return value is not None and abs(value) <= MAX_OPERAND


_SMALL_FACTORIAL = re.compile(r"(?<![\w.])\(?(\d{1,2})\)?!(?!!)")


def _factorials_of_small_numbers(text: str) -> str:
    """`(3)!` as 6, innermost first (`((3)!)!` is 720), for numbers up to 99; larger ones stay."""
    for _ in range(4):
        text, found = _SMALL_FACTORIAL.subn(lambda m: str(math.factorial(int(m.group(1)))), text)
        if not found:
            break
    return text


def _operand_after(text: str, start: int) -> str:
    """What an operator at `start` applies to: a group, a command with its groups or a token; `a^b^c`
    raises a to b^c."""
    operand, end = _atom_after(text, start)
    chained = re.match(r"\s*(?:\^|\*\*)", text[end:])
    exponent = _operand_after(text, end + chained.end()) if chained else ""
    return f"{operand}^({exponent})" if exponent.strip() else operand


def _atom_after(text: str, start: int) -> tuple[str, int]:
    """The group, command (with its groups) or token from `start`, and where it ends."""
    i = len(text) - len(text[start:].lstrip())
    if i < len(text) and text[i] in _CLOSE:
        end = _matching(text, i)
        return text[i + 1 : end], end + 1
    command = re.match(r"\\[A-Za-z]+", text[i:])
    if command:
        end = i + command.end()
        while end < len(text) and text[end] == "{":
            end = _matching(text, end) + 1
        return text[i:end], end
    token = re.match(r"[-+]?\s*[\w.]*", text[i:])
    return (token.group(), i + token.end()) if token else ("", i)


def _matching(text: str, start: int) -> int:
    """Where the bracket opened at `start` closes (the end of the text if it never does)."""
    opening, closing, depth = text[start], _CLOSE[text[start]], 0
    for i in range(start, len(text)):
        depth += (text[i] == opening) - (text[i] == closing)
        if depth == 0:
            return i
    return len(text)


def _operand_before(text: str, end: int) -> str:
    """What a factorial at `end` applies to: the token or group before it, with any base or
    exponent it is part of (`10^{10}!` is (10^10)!)."""
    start = end
    while True:
        i = len(text[:start].rstrip())
        if i and text[i - 1] in _OPEN:
            depth, j = 0, i - 1
            while j >= 0:
                depth += (text[j] == text[i - 1]) - (text[j] == _OPEN[text[i - 1]])
                if depth == 0:
                    break
                j -= 1
            start = max(j, 0)
        else:
            token = re.search(r"[\w.\\]*$", text[:i])
            start = token.start() if token else i
        joint = re.search(r"(?:\^|\*\*|_)\s*$", text[:start])
        if not joint or start == 0:
            return text[start:end]
        start = joint.start()


# ---- the size of an expression, without evaluating it ---------------------------------------------


class _Unbounded(Exception):
    """The expression may build a value beyond the bounds."""


class Size(NamedTuple):
    """Upper bounds for one expression: on log10|x| (negative for a small x), on |log10|x||, and on
    the terms of its expansion."""

    high: float
    scale: float
    terms: float = 1.0


_MODERATE = Size(1.0, 1.0)  # a variable, π, e, i, ∞


def tame(expr: object) -> bool:
    """Whether evaluating `expr` (a math-verify parse: a SymPy object, a string, a list of them) keeps
    every value within 10^±MAX_LOG10 and its expansion within MAX_TERMS terms, with at most MAX_NODES
    nodes MAX_DEPTH deep."""
    try:
        _Sizer().size(expr, 0)
    except _Unbounded:
        return False
    return True


@lru_cache(maxsize=1)
def _classes() -> dict[str, tuple[type, ...]]:
    """SymPy's classes by how their value grows with their arguments (imported once, when needed)."""
    import sympy
    from sympy.functions.combinatorial import factorials, numbers

    def functions(module: Any) -> tuple[type, ...]:
        """The functions a module defines (not those it imports: `numbers` imports sin)."""
        found = (getattr(module, name) for name in dir(module))
        return tuple(
            c
            for c in found
            if isinstance(c, type) and issubclass(c, sympy.Function) and c.__module__ == module.__name__
        )

    return {
        # exp(x) is about 10^(0.43 x): sized from the argument's value
        "exponential": (sympy.exp, sympy.sinh, sympy.cosh),
        # n!, binomial(n, k), gamma(n): at most n!, sized from n's value
        "factorial": (
            sympy.factorial,
            sympy.factorial2,
            sympy.subfactorial,
            sympy.binomial,
            sympy.gamma,
            sympy.loggamma,
            sympy.lowergamma,
            sympy.uppergamma,
        ),
        # the other integer sequences (Euler and Bell numbers, rising factorials, ...): at most (2n)!
        "combinatorial": (*functions(factorials), *functions(numbers), sympy.polygamma),
        # evaluating a sum, product, integral or limit is open-ended: never attempted
        "operator": (sympy.Sum, sympy.Product, sympy.Integral, sympy.Limit, sympy.Derivative),
    }


class _Sizer:
    """The `Size` of an expression from its tree, node by node; raises _Unbounded past the bounds."""

    def __init__(self) -> None:
        self.nodes = 0

    def size(self, node: object, depth: int) -> Size:
        self.nodes += 1
        if depth > MAX_DEPTH or self.nodes > MAX_NODES:
            raise _Unbounded
        if isinstance(node, str | bool | None):
            return Size(0.0, 0.0)
        if isinstance(node, int | Fraction | float):
            return _number_size(node)
        if isinstance(node, list | tuple):
            return self._widest([self.size(n, depth + 1) for n in node])
        import sympy

        if not isinstance(node, sympy.Basic):
            return self._widest([self.size(n, depth + 1) for n in getattr(node, "args", ())])
        found = self._node_size(node, depth)
        if found.scale > MAX_LOG10 or found.high > MAX_LOG10 or found.terms > MAX_TERMS:
            raise _Unbounded
        return found

    @staticmethod
    def _widest(sizes: list[Size]) -> Size:
        return Size(
            max((s.high for s in sizes), default=0.0),
            max((s.scale for s in sizes), default=0.0),
            max((s.terms for s in sizes), default=1.0),
        )

    def _node_size(self, node: Any, depth: int) -> Size:
        import sympy

        if isinstance(node, sympy.Rational):
            return _ratio_size(int(node.p), int(node.q))
        if isinstance(node, sympy.Float):
            return _float_size(node)
        if node.is_Atom:
            return _MODERATE
        classes = _classes()
        if isinstance(node, classes["operator"]):
            raise _Unbounded
        args = [self.size(arg, depth + 1) for arg in node.args]
        if isinstance(node, sympy.Pow):
            return _power(node, args[0], args[1])
        if isinstance(node, sympy.Add):
            spread, widest = math.log10(len(args)), self._widest(args)
            return Size(widest.high + spread, widest.scale + spread, sum(a.terms for a in args))
        if isinstance(node, sympy.Mul):
            high, scale = sum(a.high for a in args), sum(a.scale for a in args)
            return Size(high, scale, math.prod(a.terms for a in args))
        largest = max((a.high for a in args), default=0.0)
        if isinstance(node, classes["exponential"]):
            grown = _value_bound(largest) * math.log10(math.e) + 1
            return Size(grown, grown)
        for kind, doubled in (("factorial", 1), ("combinatorial", 2)):
            if isinstance(node, classes[kind]):
                n = doubled * _value_bound(largest)
                grown = math.lgamma(n + 1) / math.log(10) + max(a.scale for a in args) + 1
                return Size(grown, grown)
        # anything else (trigonometry, logarithms, |x|, relations, sets, tuples): no larger than its
        # arguments (a logarithm is smaller)
        widest = self._widest(args)
        return Size(max(largest, 1.0), max(widest.scale, 1.0), widest.terms)


def _power(node: Any, base: Size, exponent: Size) -> Size:
    """b^e: |log10| at most |e| times b's; expanded, (t terms)^n has C(n + t - 1, t - 1) terms."""
    n = _value_bound(exponent.high)
    if not node.base.free_symbols:
        return Size(n * base.scale, n * base.scale)
    if n > MAX_SYMBOLIC_EXPONENT:
        raise _Unbounded  # `x^{10^{10}}`: a polynomial of that degree
    whole = node.exp.is_Integer and node.exp >= 0
    terms = math.comb(int(node.exp) + int(base.terms) - 1, int(base.terms) - 1) if whole else base.terms
    return Size(n * base.scale, n * base.scale, terms)


def _value_bound(high: float) -> float:
    """An upper bound on |x| from one on log10|x|; _Unbounded past any size worth evaluating."""
    if high > math.log10(MAX_LOG10) + 3:  # a value past 10^6 as an exponent or a factorial's n
        raise _Unbounded
    return float(10.0**high)


def _number_size(value: int | Fraction | float) -> Size:
    if isinstance(value, float):
        log = math.log10(abs(value)) if value and math.isfinite(value) else 0.0
        return Size(log, abs(log))
    fraction = Fraction(value)
    return _ratio_size(fraction.numerator, fraction.denominator)


def _ratio_size(numerator: int, denominator: int) -> Size:
    if not numerator:
        return Size(0.0, 0.0)
    log = _int_log10(abs(numerator)) - _int_log10(denominator)
    return Size(log, abs(log))


def _int_log10(n: int) -> float:
    """log10 of a positive integer of any size (math.log10 of an int beyond floats is an error)."""
    bits = n.bit_length()
    if bits < 1000:
        return math.log10(n)
    return math.log10(n >> (bits - 53)) + (bits - 53) * _LOG10_2


def _float_size(node: Any) -> Size:
    """A SymPy Float's |log10| from its binary exponent (its value may be beyond a float's range)."""
    _, mantissa, exponent, bits = node._mpf_[:4]
    if not mantissa:
        return Size(0.0, 0.0)
    log = (exponent + bits) * _LOG10_2
    return Size(log, abs(log))


# ---- math-verify's messages -------------------------------------------------------------------------


class _Counted(logging.Handler):
    """math-verify's warnings, counted and kept at debug level: a parse or comparison that timed out
    is graded like any unreadable answer, and is no message for the person running `exp`."""

    def emit(self, record: logging.LogRecord) -> None:
        message = record.getMessage()
        EVENTS[message.split(":")[0][:60]] += 1
        _log.debug("math-verify: %s", message[:200])


@lru_cache(maxsize=1)
def route_math_verify_logs() -> None:
    """Once per process: math-verify's loggers report to `EVENTS`, not to the terminal."""
    logger = logging.getLogger("math_verify")
    logger.addHandler(_Counted())
    logger.propagate = False


# ---- what only a clock can bound ----------------------------------------------------------------------

T = TypeVar("T")
_WORKER: Any = None  # a one-process pool, started on first use off the main thread
_WARM: Any = None  # its imports, done before any comparison is timed
_WORKER_LOCK = threading.Lock()
_NO_WORKER: list[str] = []  # why no worker process can start here, once found


def bounded_call(function: Callable[..., T], *args: Any) -> T | None:
    """`function(*args)`: here on the main thread, where math-verify's alarms bound it; on any other
    thread in a worker process, None (and the worker replaced) past BOUNDED_SECONDS. `function` must
    be a module-level function of picklable arguments and result."""
    if threading.current_thread() is threading.main_thread():
        return function(*args)
    with _WORKER_LOCK:  # one comparison at a time: the worker is one process
        if _NO_WORKER or (_WORKER is None and not _start_worker(function.__module__)):
            return function(*args)
        _WARM.wait(WORKER_START_SECONDS)
        if not _WARM.ready():  # it cannot start (a script that starts processes when imported)
            _unavailable("its worker process did not start")
            _stop_worker()
            return function(*args)
        pending = _WORKER.apply_async(function, args)
        try:
            result: T = pending.get(BOUNDED_SECONDS)
        except multiprocessing.TimeoutError:
            EVENTS["comparison stopped after its time"] += 1
            _stop_worker()
            _start_worker(function.__module__)  # its imports begin now, not at the next comparison
            return None
        return result


def _start_worker(module: str) -> bool:
    global _WORKER, _WARM
    try:
        _WORKER = multiprocessing.get_context("spawn").Pool(1)
    except (OSError, RuntimeError) as error:
        _unavailable(str(error))
        return False
    _WARM = _WORKER.apply_async(_load, (module,))
    return True


def _unavailable(why: str) -> None:
    _NO_WORKER.append(why)
    _log.warning("comparisons off the main thread run unbounded in this process: %s", why[:200])


def _load(module: str) -> None:
    """The module of the functions the worker will run, and what they compare with."""
    import math_verify  # noqa: F401
    import sympy  # noqa: F401

    importlib.import_module(module)


@atexit.register
def _stop_worker() -> None:
    global _WORKER
    if _WORKER is not None:
        _WORKER.terminate()
        _WORKER = None
