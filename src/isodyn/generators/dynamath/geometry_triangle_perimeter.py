"""A triangle whose sides are labelled with expressions in a variable; the perimeter is given, find one side.

Symbolic substitution: the variable's letter and the way each expression is written (`3x + 2`,
`2 + 3x`, `2(x + 3)`, a plain number) change from variant to variant. Geometric transformation: the
triangle (drawn to scale from its true side lengths) is rotated and possibly mirrored, so the asked
side is anywhere in the picture.
"""

from __future__ import annotations

import math

import numpy as np
from matplotlib.axes import Axes

from isodyn.core import AnswerType, Level, Modality, Representation, Topic, Variant, VariationType
from isodyn.generators.base import Draw, SeedProgram
from isodyn.modalities.geometry import bounds_of, figure_png, side_label, vertex_label

_LETTERS = ("x", "n", "t", "k", "m", "z")
_SIDES = ("AB", "BC", "CA")


def _expr(coef: int, const: int, var: str, form: str) -> str:
    """An expression in plain text: `3x + 2`, `2 + 3x`, `3(x + 1)`, `x - 4`, or just `7`."""
    if coef == 0:
        return str(const)
    term = var if coef == 1 else f"{coef}{var}"
    if const == 0:
        return term
    if form == "factored" and coef > 1 and const % coef == 0:
        inner = const // coef
        return f"{coef}({var} {'+' if inner > 0 else '-'} {abs(inner)})"
    if form == "const_first" and const > 0:
        return f"{const} + {term}"
    return f"{term} {'+' if const > 0 else '-'} {abs(const)}"


def _form_of(label: str, coef: int, const: int, var: str) -> str:
    """The written form `_expr` gave `label` (the forms it can tell apart; `plain` otherwise)."""
    return next((f for f in ("factored", "const_first") if _expr(coef, const, var, f) == label), "plain")


def _linear(coef: int, const: int, var: str) -> str:
    return _expr(coef, const, var, "plain")


def _angles_ok(a: float, b: float, c: float) -> bool:
    if a + b <= c or b + c <= a or c + a <= b:
        return False
    angles = [
        math.degrees(math.acos((y * y + z * z - x * x) / (2 * y * z)))
        for x, y, z in ((a, b, c), (b, c, a), (c, a, b))
    ]
    return min(angles) >= 28 and max(angles) <= 125


def _coords(lengths: dict[str, int], rotation: float, mirror: bool) -> list[list[float]]:
    """Vertices A, B, C drawn to scale: B at the origin, C on a ray, then rotated (and mirrored)."""
    c, a, b = lengths["AB"], lengths["BC"], lengths["CA"]
    bx, by = 0.0, 0.0
    cx, cy = float(a), 0.0
    ax_ = (a * a + c * c - b * b) / (2 * a)
    ay = math.sqrt(max(c * c - ax_ * ax_, 0.0))
    pts = np.array([[ax_, ay], [bx, by], [cx, cy]])
    if mirror:
        pts[:, 0] = -pts[:, 0]
    t = math.radians(rotation)
    rot = np.array([[math.cos(t), -math.sin(t)], [math.sin(t), math.cos(t)]])
    pts = pts @ rot.T
    pts -= pts.mean(axis=0)
    return [[round(float(x), 4), round(float(y), 4)] for x, y in pts]


def solution_text(p: dict) -> str:
    var, labels, coefs, consts = p["var"], p["labels"], p["coefs"], p["consts"]
    total_c, total_k = sum(coefs.values()), sum(consts.values())
    value = p["value"]
    asked = p["asked"]
    summed = " + ".join(f"({labels[s]})" for s in _SIDES)
    steps = [
        f"The perimeter is the sum of the three sides: {summed} = {_linear(total_c, total_k, var)}.",
        f"Set it equal to the perimeter: {_linear(total_c, total_k, var)} = {p['perimeter']}.",
    ]
    rhs = p["perimeter"] - total_k
    if total_k:
        steps.append(
            f"Then {_linear(total_c, 0, var)} = {p['perimeter']} {'-' if total_k > 0 else '+'} "
            f"{abs(total_k)} = {rhs}, so {var} = {rhs} / {total_c} = {value}."
        )
    else:
        steps.append(f"So {var} = {rhs} / {total_c} = {value}.")
    length = coefs[asked] * value + consts[asked]
    if coefs[asked]:
        steps.append(f"Side {asked} = {labels[asked]} with {var} = {value}: {length} cm.")
    else:
        steps.append(f"Side {asked} is labelled with the number {labels[asked]}, so it is {length} cm.")
    steps.append(f"Answer: {length}")
    return "\n".join(steps)


class TrianglePerimeter(SeedProgram):
    seed_id = "dynamath_triangle_perimeter"
    topic = Topic.PLANE_GEOMETRY
    level = Level.ELEMENTARY
    answer_type = AnswerType.INT
    variation_types = (
        VariationType.SYMBOLIC_SUBSTITUTION,
        VariationType.NUMERICAL_VALUE,
        VariationType.GEOMETRIC_TRANSFORMATION,
    )
    param_variation = {
        "var": VariationType.SYMBOLIC_SUBSTITUTION,
        "labels": VariationType.SYMBOLIC_SUBSTITUTION,
        "value": VariationType.NUMERICAL_VALUE,
        "coefs": VariationType.NUMERICAL_VALUE,
        "consts": VariationType.NUMERICAL_VALUE,
        "coords": VariationType.GEOMETRIC_TRANSFORMATION,
    }
    modalities = (Modality.IMAGE, Modality.LATEX)
    # 6 letters x ~2000 coefficient/constant triples x 8 values x 3 asked sides x 3 forms (rotation aside)
    variant_space = 6 * 2000 * 8 * 3 * 3

    def sample(self, rng: np.random.Generator) -> Draw:
        var = _LETTERS[int(rng.integers(len(_LETTERS)))]
        while True:
            value = int(rng.integers(2, 10))
            coefs = {s: int(rng.choice([1, 1, 2, 2, 3, 4])) for s in _SIDES}
            if rng.random() < 0.3:  # one side is a plain number
                coefs[_SIDES[int(rng.integers(3))]] = 0
            consts = {s: int(rng.integers(-6, 11)) for s in _SIDES}
            lengths = {s: coefs[s] * value + consts[s] for s in _SIDES}
            if min(lengths.values()) < 3 or max(lengths.values()) > 40:
                continue
            if any(coefs[s] == 0 and consts[s] <= 0 for s in _SIDES):
                continue
            if _angles_ok(lengths["BC"], lengths["CA"], lengths["AB"]):
                break
        forms = {s: str(rng.choice(["plain", "plain", "const_first", "factored"])) for s in _SIDES}
        labels = {s: _expr(coefs[s], consts[s], var, forms[s]) for s in _SIDES}
        asked = [s for s in _SIDES if coefs[s] != 0][
            int(rng.integers(sum(1 for s in _SIDES if coefs[s] != 0)))
        ]
        perimeter = sum(lengths.values())
        params = {
            "var": var,
            "value": value,
            "coefs": coefs,
            "consts": consts,
            "labels": labels,
            "asked": asked,
            "perimeter": perimeter,
            "coords": _coords(lengths, float(rng.integers(0, 360)), bool(rng.random() < 0.5)),
        }
        return self.redraw(params)

    # --- perturbations -----------------------------------------------------------------------------
    perturbations = frozenset({"noop", "magnitude", "rename"})
    truth_reads = ("value", "coefs", "consts", "asked", "perimeter")

    def redraw(self, params: dict) -> Draw:
        asked = params["asked"]
        length = params["coefs"][asked] * params["value"] + params["consts"][asked]
        question = (
            f"The perimeter of triangle ABC is {params['perimeter']} cm. What is the length of side {asked}, "
            "in cm?"
        )
        return Draw(params=params, question=question, answer=str(length), solution=solution_text(params))

    def noop_clause(self, params: dict, rng: np.random.Generator) -> str:
        n = int(rng.integers(2, 10))
        side = _SIDES[int(rng.integers(3))]
        said = (
            f"Triangle ABC was cut out of {rng.choice(['red', 'blue', 'green', 'yellow'])} card.",
            f"This is exercise {n} on a worksheet about perimeters.",
            f"The variable ${params['var']}$ stands for a whole number.",
            f"Side {side} was drawn first, with a ruler.",
            f"The triangle is one of {n} triangles in a pupil's notebook.",
        )
        return said[int(rng.integers(len(said)))]

    def scaled(self, params: dict, factor: int) -> dict:
        # Every coefficient and constant times the factor: the variable keeps its value, the sides
        # and the perimeter are multiplied; each label keeps its written form.
        var, coefs, consts = params["var"], params["coefs"], params["consts"]
        forms = {s: _form_of(params["labels"][s], coefs[s], consts[s], var) for s in _SIDES}
        new_coefs = {s: coefs[s] * factor for s in _SIDES}
        new_consts = {s: consts[s] * factor for s in _SIDES}
        labels = {s: _expr(new_coefs[s], new_consts[s], var, forms[s]) for s in _SIDES}
        coords = [[round(x * factor, 4), round(y * factor, 4)] for x, y in params["coords"]]
        return {
            **params,
            "coefs": new_coefs,
            "consts": new_consts,
            "labels": labels,
            "perimeter": params["perimeter"] * factor,
            "coords": coords,
        }

    def numbers(self, params: dict) -> tuple[float, ...]:
        return (
            *(float(params["coefs"][s]) for s in _SIDES),
            *(float(params["consts"][s]) for s in _SIDES),
            float(params["perimeter"]),
        )

    def renamed(self, params: dict, rng: np.random.Generator) -> dict:
        # Another letter for the variable, sometimes P or a (which read like the perimeter or a side).
        letters = [v for v in (*_LETTERS, "P", "a", "y") if v != params["var"]]
        var = str(rng.choice(letters))
        labels = {s: text.replace(params["var"], var) for s, text in params["labels"].items()}
        return {**params, "var": var, "labels": labels}

    def render(self, variant: Variant, modality: Modality) -> Representation:
        p = variant.params
        if modality is Modality.IMAGE:
            text = (
                "The image shows triangle ABC; each side is labelled with its length in centimetres, "
                f"written in terms of ${p['var']}$.\n\n{variant.question}"
            )
            return Representation(modality, text, image_png=_draw(p))
        if modality is Modality.LATEX:
            lab = p["labels"]
            eqs = ", ".join(f"${s} = {lab[s]}$" for s in _SIDES)
            text = f"In triangle $ABC$ the side lengths, in centimetres, are {eqs}.\n\n{variant.question}"
            return Representation(modality, text)
        raise AssertionError(f"unhandled modality {modality}")


def _draw(p: dict) -> bytes:
    pts = np.asarray(p["coords"], dtype=float)
    centre = pts.mean(axis=0)
    names = "ABC"
    ends = {"AB": (0, 1), "BC": (1, 2), "CA": (2, 0)}

    def draw(ax: Axes) -> None:
        closed = np.vstack([pts, pts[:1]])
        ax.fill(closed[:, 0], closed[:, 1], color="#e8f1fb", zorder=0)
        ax.plot(closed[:, 0], closed[:, 1], color="black", lw=2, zorder=2)
        for i, name in enumerate(names):
            vertex_label(ax, pts[i], name, centre, distance=13, size=14)
        for s, (i, j) in ends.items():
            text = p["labels"][s]
            shown = f"${text}$" if any(ch.isalpha() for ch in text) else text  # mathtext: italic variable
            side_label(ax, pts[i], pts[j], shown, centre, gap=5)

    return figure_png(draw, bounds_of(pts), margin=0.2)
