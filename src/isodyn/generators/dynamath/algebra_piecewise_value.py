"""Read a value of a piecewise function from its graph, where open and closed dots matter.

Two or three pieces (linear, constant or quadratic: function-type variation) meet at integer breakpoints
with a jump; at each jump a filled dot marks the value the function takes and a hollow dot the value
it does not. The question asks f at a breakpoint most of the time (the trap is the hollow dot) and at
an ordinary integer otherwise. Multiple choice: the distractors are the hollow-dot value, neighbouring
values and the other piece's formula.
"""

from __future__ import annotations

import numpy as np
from matplotlib.axes import Axes

from isodyn.core import AnswerType, Level, Modality, Representation, Topic, Variant, VariationType
from isodyn.generators.base import Draw, SeedProgram, format_choices, letter
from isodyn.modalities.canvas import png
from isodyn.modalities.functions import integer_ticks

LO, HI = -6, 6
YMAX = 7
COLOR = "#1f5fbf"


def piece_value(piece: dict, x: int) -> int:
    if piece["kind"] == "quadratic":
        return piece["s"] * (x - piece["h"]) ** 2 + piece["k"]
    return piece["m"] * x + piece["c"]


def piece_latex(piece: dict) -> str:
    if piece["kind"] == "quadratic":
        h, k, s = piece["h"], piece["k"], piece["s"]
        inner = "x" if h == 0 else f"x {'-' if h > 0 else '+'} {abs(h)}"
        body = f"({inner})^2" if s == 1 else f"-({inner})^2"
        return body + ("" if k == 0 else f" {'+' if k > 0 else '-'} {abs(k)}")
    m, c = piece["m"], piece["c"]
    if m == 0:
        return str(c)
    head = "x" if m == 1 else "-x" if m == -1 else f"{m}x"
    return head + ("" if c == 0 else f" {'+' if c > 0 else '-'} {abs(c)}")


def intervals(p: dict) -> list[tuple[int, int, bool, bool]]:
    """(left, right, left_included, right_included) for each piece."""
    edges = [LO, *p["breaks"], HI]
    out = []
    for i in range(len(edges) - 1):
        left_in = True if i == 0 else not p["closed_left"][i - 1]
        right_in = True if i == len(edges) - 2 else p["closed_left"][i]
        out.append((edges[i], edges[i + 1], left_in, right_in))
    return out


def value_at(p: dict, x: int) -> tuple[int, int]:
    """(f(x), index of the piece that defines it)."""
    for i, (a, b, li, ri) in enumerate(intervals(p)):
        if (a < x < b) or (x == a and li) or (x == b and ri):
            return piece_value(p["pieces"][i], x), i
    raise ValueError(x)


def condition_latex(a: int, b: int, li: bool, ri: bool) -> str:
    le, lt = "\\le", "<"
    return f"{a} {le if li else lt} x {le if ri else lt} {b}"


def cases_latex(p: dict) -> str:
    rows = [
        f"{piece_latex(piece)} & \\text{{if }} {condition_latex(*iv)}"
        for piece, iv in zip(p["pieces"], intervals(p), strict=True)
    ]
    return "f(x) = \\begin{cases}\n" + " \\\\\n".join(rows) + "\n\\end{cases}"


def _random_piece(rng: np.random.Generator, a: int, b: int) -> dict:
    kind = str(rng.choice(["linear", "linear", "constant", "quadratic"]))
    if kind == "quadratic":
        return {
            "kind": "quadratic",
            "s": int(rng.choice([-1, 1])),
            "h": int(rng.integers(a, b + 1)),
            "k": int(rng.integers(-4, 5)),
        }
    m = 0 if kind == "constant" else int(rng.choice([-2, -1, 1, 2]))
    return {"kind": "linear" if m else "constant", "m": m, "c": int(rng.integers(-5, 6))}


def _ok(p: dict) -> bool:
    for piece, (a, b, _, _) in zip(p["pieces"], intervals(p), strict=True):
        if any(abs(piece_value(piece, x)) > YMAX - 1 for x in range(a, b + 1)):
            return False
    for i, bx in enumerate(p["breaks"]):
        left, right = piece_value(p["pieces"][i], bx), piece_value(p["pieces"][i + 1], bx)
        if abs(left - right) < 2:
            return False
    return True


def solution_text(p: dict, x: int) -> tuple[int, str]:
    value, idx = value_at(p, x)
    a, b, li, ri = intervals(p)[idx]
    steps = []
    if x in p["breaks"]:
        j = p["breaks"].index(x)
        left, right = piece_value(p["pieces"][j], x), piece_value(p["pieces"][j + 1], x)
        closed, hollow = (left, right) if p["closed_left"][j] else (right, left)
        side = "left" if p["closed_left"][j] else "right"
        steps.append(
            f"$x = {x}$ is a breakpoint: the graph jumps there, with a filled dot at $y = {closed}$ and a "
            f"hollow dot at $y = {hollow}$."
        )
        steps.append(
            "A hollow dot means the point is not on the graph; the filled dot belongs to the piece on the "
            f"{side}, $y = {piece_latex(p['pieces'][idx])}$ for ${condition_latex(a, b, li, ri)}$."
        )
    else:
        steps.append(
            f"$x = {x}$ lies inside the piece $y = {piece_latex(p['pieces'][idx])}$ for "
            f"${condition_latex(a, b, li, ri)}$; no jump happens there."
        )
    formula = piece_latex(p["pieces"][idx])
    if "x" in formula:
        steps.append(f"So $f({x}) = {formula.replace('x', f'({x})')} = {value}$.")
    else:
        steps.append(f"So $f({x}) = {value}$.")
    return value, "\n".join(steps)


class PiecewiseValue(SeedProgram):
    seed_id = "dynamath_piecewise_value"
    topic = Topic.ALGEBRA
    level = Level.HIGH_SCHOOL
    answer_type = AnswerType.MULTIPLE_CHOICE
    variation_types = (VariationType.FUNCTION_TYPE, VariationType.NUMERICAL_VALUE)
    param_variation = {
        "pieces": VariationType.FUNCTION_TYPE,
        "breaks": VariationType.NUMERICAL_VALUE,
        "x": VariationType.NUMERICAL_VALUE,
    }
    modalities = (Modality.IMAGE, Modality.LATEX)
    # breakpoints x piece formulas (about 40 each, 2-3 pieces) x dot sides x query point
    variant_space = 60 * 40**2 * 4 * 5

    def sample(self, rng: np.random.Generator) -> Draw:
        while True:
            nb = int(rng.choice([1, 2, 2]))
            breaks = sorted(int(b) for b in rng.choice(np.arange(LO + 2, HI - 1), size=nb, replace=False))
            if nb == 2 and breaks[1] - breaks[0] < 3:
                continue
            edges = [LO, *breaks, HI]
            pieces = [_random_piece(rng, edges[i], edges[i + 1]) for i in range(nb + 1)]
            closed_left = [bool(rng.random() < 0.5) for _ in breaks]
            p = {"breaks": breaks, "pieces": pieces, "closed_left": closed_left}
            if _ok(p):
                break
        if rng.random() < 0.7:
            x = int(rng.choice(breaks))
        else:
            x = int(rng.choice([t for t in range(LO + 1, HI) if t not in breaks]))
        value, solution = solution_text(p, x)
        _, idx = value_at(p, x)
        # Distractors: the other piece's value at x (the hollow dot at a breakpoint), then neighbours.
        pool = [piece_value(q, x) for i, q in enumerate(pieces) if i != idx]
        pool += [value_at(p, x - 1)[0], value_at(p, x + 1)[0], value + 1, value - 1, value + 2, -value]
        options = [value]
        for cand in pool:
            if cand not in options and abs(cand) <= 12 and len(options) < 4:
                options.append(int(cand))
        order = rng.permutation(len(options))
        choices = tuple(str(options[i]) for i in order)
        ans = letter(int(np.where(order == 0)[0][0]))
        p["x"] = x
        question = f"What is the value of $f({x})$? " + format_choices(choices)
        solution += f"\nAnswer: ({ans}) {value}"
        return Draw(params=p, question=question, answer=ans, solution=solution, choices=choices)

    def render(self, variant: Variant, modality: Modality) -> Representation:
        p = variant.params
        if modality is Modality.IMAGE:

            def draw(ax: Axes) -> None:
                integer_ticks(ax, (LO - 0.5, HI + 0.5), (-YMAX - 0.5, YMAX + 0.5))
                for piece, (a, b, li, ri) in zip(p["pieces"], intervals(p), strict=True):
                    xs = np.linspace(a, b, 200)
                    if piece["kind"] == "quadratic":
                        ys = piece["s"] * (xs - piece["h"]) ** 2 + piece["k"]
                    else:
                        ys = piece["m"] * xs + piece["c"]
                    if not np.any(ys):  # a piece on the x axis: a band under it, axis and ticks visible
                        ax.plot(xs, ys, color=COLOR, lw=5, alpha=0.8, zorder=1)
                    else:
                        ax.plot(xs, ys, color=COLOR, lw=2.4, zorder=3)
                    for x, inc in ((a, li), (b, ri)):
                        if x in (LO, HI) and inc:
                            ax.plot([x], [piece_value(piece, x)], "o", color=COLOR, markersize=7, zorder=4)
                        elif x not in (LO, HI):
                            ax.plot(
                                [x],
                                [piece_value(piece, x)],
                                "o",
                                markersize=9,
                                markerfacecolor=COLOR if inc else "white",
                                markeredgecolor=COLOR,
                                markeredgewidth=2,
                                zorder=5,
                            )
                ax.set_title("$y = f(x)$", fontsize=12)

            image = png(draw, size=(5.6, 5.2))
            text = (
                f"The image shows the graph of a piecewise function $y = f(x)$ defined for $x$ from {LO} to "
                f"{HI}; a filled dot marks a point on the graph and a hollow dot a point that is not on "
                f"it.\n\n{variant.question}"
            )
            return Representation(modality, text, image_png=image)
        if modality is Modality.LATEX:
            latex = cases_latex(p)
            text = f"Consider the piecewise function\n\n$$\n{latex}\n$$\n\n{variant.question}"
            return Representation(modality, text, extra={"latex": latex})
        raise AssertionError(f"unhandled modality {modality}")
