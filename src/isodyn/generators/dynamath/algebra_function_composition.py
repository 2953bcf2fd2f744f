"""Composition of two functions given by a value table.

Two functions on a small set of integers are tabulated; the question asks for a composition such as
f(g(3)), (g∘f)(2), f(f(g(5))), f^{-1}(g(4)) or a sum of two compositions. The first function is a
bijection of the set, so its inverse is defined. Symbolic substitution varies the function names and
the notation (nested brackets or the ∘ operator); the tables vary numerically.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from isodyn.core import AnswerType, Level, Modality, Representation, Topic, Variant, VariationType
from isodyn.generators.base import Draw, SeedProgram
from isodyn.modalities.formatting import latex_array
from isodyn.modalities.tables import table_png

NAME_PAIRS = (("f", "g"), ("g", "h"), ("p", "q"), ("u", "v"))
KINDS = ("nested2", "nested3", "inverse", "sum")


def term_latex(chain: list[str], arg: int, names: dict[str, str], notation: str) -> str:
    """`f(g(3))` or `(f \\circ g)(3)`; `finv` prints as `f^{-1}`."""
    shown = [f"{names[c[:-3]]}^{{-1}}" if c.endswith("inv") else names[c] for c in chain]
    if notation == "circ" and len(chain) > 1:
        return "(" + " \\circ ".join(shown) + f")({arg})"
    return "".join(f"{s}(" for s in shown) + str(arg) + ")" * len(shown)


def term_code(chain: list[str], arg: int) -> str:
    return "".join(f"{c}(" for c in chain) + str(arg) + ")" * len(chain)


def evaluate(
    chain: list[str], arg: int, tables: dict[str, dict[int, int]]
) -> tuple[int, list[tuple[str, int, int]]]:
    """Apply the chain right to left; also return the lookups as (function, input, output)."""
    value = arg
    said = []
    for c in reversed(chain):
        if c.endswith("inv"):
            base = c[:-3]
            pre = [x for x, y in tables[base].items() if y == value]
            said.append((c, value, pre[0]))
            value = pre[0]
        else:
            new = tables[c][value]
            said.append((c, value, new))
            value = new
    return value, said


class FunctionComposition(SeedProgram):
    seed_id = "dynamath_function_composition"
    topic = Topic.ALGEBRA
    level = Level.HIGH_SCHOOL
    answer_type = AnswerType.INT
    variation_types = (VariationType.NUMERICAL_VALUE, VariationType.SYMBOLIC_SUBSTITUTION)
    param_variation = {
        "xs": VariationType.NUMERICAL_VALUE,
        "f": VariationType.NUMERICAL_VALUE,
        "g": VariationType.NUMERICAL_VALUE,
        "names": VariationType.SYMBOLIC_SUBSTITUTION,
        "notation": VariationType.SYMBOLIC_SUBSTITUTION,
    }
    modalities = (Modality.IMAGE, Modality.LATEX, Modality.CODE)
    # 720 bijections x 6^6 maps x query kinds/arguments x names x notation
    variant_space = 720 * 6**6 * 40 * 4 * 2

    def sample(self, rng: np.random.Generator) -> Draw:
        start = int(rng.choice([0, 1, -2]))
        xs = list(range(start, start + 6))
        f = dict(zip(xs, (int(v) for v in rng.permutation(xs)), strict=True))
        g = {x: int(rng.choice(xs)) for x in xs}
        names_pair = NAME_PAIRS[int(rng.integers(len(NAME_PAIRS)))]
        notation = "circ" if rng.random() < 0.4 else "nested"
        kind = KINDS[int(rng.integers(len(KINDS)))]

        def pick(n: int) -> list[str]:
            return [str(c) for c in rng.choice(["f", "g"], size=n)]

        if kind == "nested2":
            terms = [(pick(2), int(rng.choice(xs)))]
        elif kind == "nested3":
            terms = [(pick(3), int(rng.choice(xs)))]
        elif kind == "inverse":
            chain = ["finv", "g"] if rng.random() < 0.5 else ["g", "finv"]
            terms = [(chain, int(rng.choice(xs)))]
        else:
            terms = [(pick(2), int(rng.choice(xs))), (pick(2), int(rng.choice(xs)))]
        params = {
            "xs": xs,
            "f": [f[x] for x in xs],
            "g": [g[x] for x in xs],
            "names": list(names_pair),
            "notation": notation,
            "kind": kind,
            "terms": [[chain, arg] for chain, arg in terms],
            "query": " + ".join(term_code(chain, arg) for chain, arg in terms),
        }
        return self.redraw(params)

    # --- perturbations -----------------------------------------------------------------------------
    perturbations = frozenset({"noop", "magnitude", "rename"})
    truth_reads = ("xs", "f", "g", "terms")

    def redraw(self, params: dict[str, Any]) -> Draw:
        fn, gn = params["names"]
        names = {"f": fn, "g": gn}
        expr = " + ".join(term_latex(chain, arg, names, params["notation"]) for chain, arg in params["terms"])
        question = f"Using the values of ${fn}$ and ${gn}$ given above, what is ${expr}$?"
        total, solution = self._solve(params)
        return Draw(params=params, question=question, answer=str(total), solution=solution)

    def noop_clause(self, params: dict[str, Any], rng: np.random.Generator) -> str:
        fn, gn = params["names"]
        x = int(rng.choice(params["xs"]))
        n = int(rng.integers(2, 10))
        said = (
            f"Both ${fn}$ and ${gn}$ were recorded by a student during a lab session lasting {n} hours.",
            f"The table of ${gn}$ was typed in first, {n} minutes before the one of ${fn}$.",
            f"A classmate looked up ${fn}({x})$ first, just to get used to reading the table.",
            f"The same two functions appear again in exercise {n}, with a longer table.",
            f"The graphs of ${fn}$ and ${gn}$ were drawn on the board {n} days ago.",
        )
        return said[int(rng.integers(len(said)))]

    def scaled(self, params: dict[str, Any], factor: int) -> dict[str, Any]:
        # Every input and value times factor: the lookups are the same cells, each result times factor.
        terms = [[chain, arg * factor] for chain, arg in params["terms"]]
        return {
            **params,
            "xs": [x * factor for x in params["xs"]],
            "f": [y * factor for y in params["f"]],
            "g": [y * factor for y in params["g"]],
            "terms": terms,
            "query": " + ".join(term_code(chain, arg) for chain, arg in terms),
        }

    def numbers(self, params: dict[str, Any]) -> tuple[float, ...]:
        return tuple(float(v) for v in (*params["xs"], *params["f"], *params["g"]))

    def renamed(self, params: dict[str, Any], rng: np.random.Generator) -> dict[str, Any]:
        # Another pair of names, sometimes the swapped pair (the first table then is called g).
        pool = [list(pair) for pair in NAME_PAIRS] + [list(reversed(pair)) for pair in NAME_PAIRS]
        others = [pair for pair in pool if pair != params["names"]]
        return {**params, "names": others[int(rng.integers(len(others)))]}

    @staticmethod
    def _solve(p: dict) -> tuple[int, str]:
        tables = {"f": dict(zip(p["xs"], p["f"], strict=True)), "g": dict(zip(p["xs"], p["g"], strict=True))}
        names = {"f": p["names"][0], "g": p["names"][1]}
        steps = []
        if p["notation"] == "circ":
            steps.append("$(a \\circ b)(x)$ means $a(b(x))$: apply the right-most function first.")
        else:
            steps.append("Evaluate from the inside out, reading each value from the table.")
        if any(c.endswith("inv") for chain, _ in p["terms"] for c in chain):
            steps.append(
                f"${names['f']}^{{-1}}(y)$ is the $x$ in the table whose ${names['f']}(x)$ equals $y$ (every "
                f"value of ${names['f']}$ appears exactly once, so it is unique)."
            )
        values = []
        for chain, arg in p["terms"]:
            value, said = evaluate(chain, arg, tables)
            for c, inp, out in said:
                if c.endswith("inv"):
                    steps.append(
                        f"${names[c[:-3]]}^{{-1}}({inp}) = {out}$, because ${names[c[:-3]]}({out}) = {inp}$."
                    )
                else:
                    steps.append(f"${names[c]}({inp}) = {out}$.")
            steps.append(f"So ${term_latex(chain, arg, names, p['notation'])} = {value}$.")
            values.append(value)
        total = sum(values)
        if len(values) > 1:
            steps.append(f"Adding: ${' + '.join(map(str, values))} = {total}$.".replace("+ -", "- "))
        steps.append(f"Answer: {total}")
        return total, "\n".join(steps)

    def render(self, variant: Variant, modality: Modality) -> Representation:
        p = variant.params
        fn, gn = p["names"]
        rows = [["x", *map(str, p["xs"])], [f"{fn}(x)", *map(str, p["f"])], [f"{gn}(x)", *map(str, p["g"])]]
        if modality is Modality.IMAGE:
            image = table_png(rows, header_rows=1, header_cols=1, fontsize=14)
            text = (
                f"The image shows a table of the values of two functions ${fn}$ and ${gn}$ for $x$ = "
                f"{p['xs'][0]}, ..., {p['xs'][-1]}.\n\n{variant.question}"
            )
            return Representation(modality, text, image_png=image)
        if modality is Modality.LATEX:
            table = latex_array(rows)
            text = (
                f"Two functions ${fn}$ and ${gn}$ are given by this "
                f"table:\n\n$$\n{table}\n$$\n\n{variant.question}"
            )
            return Representation(modality, text, extra={"latex": table})
        if modality is Modality.CODE:
            lines = [
                f"{name} = {{{', '.join(f'{x}: {y}' for x, y in zip(p['xs'], vals, strict=True))}}}  # x: "
                f"{name}(x)"
                for name, vals in ((fn, p["f"]), (gn, p["g"]))
            ]
            code = "\n".join(lines) + "\n"
            text = (
                f"The Python dictionaries below give the values of two functions ${fn}$ and "
                f"${gn}$.\n\n```python\n{code}```\n\n{variant.question}"
            )
            return Representation(modality, text, extra={"code": code})
        raise AssertionError(f"unhandled modality {modality}")
