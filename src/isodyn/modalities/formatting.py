"""Numbers and text forms shared by the seeds: how numbers are written, LaTeX tables, code blocks.

Two number styles: `fmt_number` (exact up to three decimals, else rounded half up, from the exact
value) and `fmt_num` (a float printed as a textbook would, exact for terminating fractions). The
image and the text forms of a seed use the same one, so they print numbers identically.
"""

from __future__ import annotations

from collections.abc import Sequence
from decimal import ROUND_HALF_UP, Decimal, localcontext
from fractions import Fraction

import sympy as sp
from sympy.printing.str import StrPrinter

# ---------------------------------------------------------------------------------------------- numbers


def fmt_number(value: Fraction | int | float | str, places: int = 3) -> str:
    """A number written plainly: exact when it has at most `places` decimals, else rounded half up.

    `Fraction(7, 2)` -> `3.5`, `Fraction(1, 3)` -> `0.333`, `4.0` -> `4`, `-0.25` -> `-0.25`.
    """
    q = value if isinstance(value, Fraction) else Fraction(str(value))
    if q.denominator == 1:
        return str(q.numerator)
    with localcontext() as ctx:
        ctx.prec = 50
        d = (Decimal(q.numerator) / Decimal(q.denominator)).quantize(
            Decimal(1).scaleb(-places), rounding=ROUND_HALF_UP
        )
    text = format(d, "f").rstrip("0").rstrip(".")
    return "0" if text in ("-0", "") else text


def terminates(q: Fraction) -> bool:
    """Whether `q` has a finite decimal expansion (its denominator has no prime factor but 2 and 5)."""
    d = q.denominator
    while d % 2 == 0:
        d //= 2
    while d % 5 == 0:
        d //= 5
    return d == 1


def fmt_exact(value: Fraction | int) -> str:
    """A fraction as `a/b` unless it is a short decimal: `60/13`, `4.5`, `7`."""
    q = Fraction(value)
    if q.denominator == 1:
        return str(q.numerator)
    if terminates(q) and len(fmt_number(q, 6).split(".")[-1]) <= 3:
        return fmt_number(q)
    return f"{q.numerator}/{q.denominator}"


def fmt_num(value: float | int | Fraction, places: int = 3) -> str:
    """A number as written in a textbook: `3`, `-2.5`, `0.125` (exact fractions with a terminating
    decimal expansion print exactly; others round to `places`)."""
    if isinstance(value, Fraction):
        if value.denominator == 1:
            return str(value.numerator)
        if terminates(value):  # print it exactly
            text = f"{float(value):.12f}".rstrip("0").rstrip(".")
            return "0" if text in ("-0", "") else text
        value = float(value)
    if isinstance(value, int) or (isinstance(value, float) and float(value).is_integer()):
        return str(int(value))
    text = f"{value:.{places}f}".rstrip("0").rstrip(".")
    return "0" if text == "-0" else text


def fmt_money(cents: int, symbol: str = "$") -> str:
    """`1234` -> `$12.34`; negative amounts keep the sign in front: `-$3.05`."""
    sign = "-" if cents < 0 else ""
    cents = abs(int(cents))
    return f"{sign}{symbol}{cents // 100}.{cents % 100:02d}"


def cents_answer(cents: int) -> str:
    """An amount of money as a plain float answer: `1234` -> `12.34`, `500` -> `5`."""
    return fmt_num(Fraction(int(cents), 100))


# ------------------------------------------------------------------------------------------------- text


def latex_quantity(value: object, unit: str, symbol: str | None = None) -> str:
    """A measured quantity in LaTeX math mode, unit upright: `$8\\,\\text{cm}$`, `$h = 8\\,\\text{cm}$`."""
    equation = f"{symbol} = " if symbol else ""
    return f"${equation}{value}\\,\\text{{{unit}}}$"


def article(word: str) -> str:
    """The indefinite article before a word spelled with a leading vowel or not: "an orange", "a red"."""
    return "an" if word[:1].lower() in ("a", "e", "i", "o", "u") else "a"


def join_words(items: Sequence[str]) -> str:
    """`a`, `a and b`, `a, b, and c`."""
    items = list(items)
    if len(items) <= 2:
        return " and ".join(items)
    return ", ".join(items[:-1]) + ", and " + items[-1]


def latex_table(headers: Sequence[str], rows: Sequence[Sequence[object]], align: str | None = None) -> str:
    """A `tabular` with a header row, one source line per row."""
    align = align or "l" + "r" * (len(headers) - 1)
    lines = [f"\\begin{{tabular}}{{{align}}}", "\\hline", " & ".join(headers) + r" \\", "\\hline"]
    lines += [" & ".join(str(c) for c in row) + r" \\" for row in rows]
    lines += ["\\hline", "\\end{tabular}"]
    return "\n".join(lines)


def latex_array(
    rows: Sequence[Sequence[str]], hline_after: Sequence[int] = (0,), first_col_rule: bool = True
) -> str:
    """A LaTeX `array` of strings (math mode), e.g. a value table; horizontal rules after the given rows."""
    ncols = max(len(r) for r in rows)
    spec = ("c|" + "c" * (ncols - 1)) if first_col_rule else "c" * ncols
    lines = []
    for i, row in enumerate(rows):
        line = " & ".join(row) + r" \\"
        if i in hline_after:
            line += r" \hline"
        lines.append(line)
    return "\\begin{array}{" + spec + "}\n" + "\n".join(lines) + "\n\\end{array}"


def code_block(code: str) -> str:
    return f"```python\n{code.rstrip()}\n```"


class _ExactPrinter(StrPrinter):
    def _print_Rational(self, expr: sp.Rational) -> str:
        return f"Rational({expr.p}, {expr.q})"


def sympy_code(expr: sp.Expr, name: str = "f", var: str = "x") -> str:
    """A runnable SymPy definition of a function of one variable, importing every function it uses
    (`exp`, `sin`, `Abs`, `sqrt`, `pi`, ...), so `exec` of it gives `expr` back."""
    names = sorted(
        {type(f).__name__ for f in expr.atoms(sp.Function)} | ({"pi"} if expr.has(sp.pi) else set())
    )
    if any(isinstance(a, sp.Pow) and a.exp == sp.Rational(1, 2) for a in expr.atoms(sp.Pow)):
        names = sorted({*names, "sqrt"})
    body = _ExactPrinter().doprint(expr)  # a bare 9/2 would be the float 4.5 in Python
    imports = ", ".join(["Rational", "Symbol", *names] if "Rational(" in body else ["Symbol", *names])
    return f'from sympy import {imports}\n\n{var} = Symbol("{var}", real=True)\n{name} = {body}\n'
