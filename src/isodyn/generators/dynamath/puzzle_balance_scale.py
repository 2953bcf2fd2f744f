"""Balanced scales with shapes and kilogram weights: how heavy is one of the shapes?

Three kinds of tokens (each a shape in a colour) and labelled kilogram weights sit on three balanced
scales that can be solved one after another (one scale has a single kind of token, the next adds one
new kind, ...), but the scales are drawn in a shuffled order and sides are swapped. Symbolic
substitution: which shapes stand for the unknowns; colour variation: their colours (named in the
question); numerical value: the weights. Multiple choice with plausible wrong weights.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from matplotlib.axes import Axes
from matplotlib.patches import Polygon, Rectangle

from isodyn.core import AnswerType, Level, Modality, Representation, Topic, Variant, VariationType
from isodyn.generators.base import Draw, SeedProgram, format_choices, letter
from isodyn.modalities.canvas import png
from isodyn.modalities.formatting import join_words
from isodyn.modalities.palette import PALETTE, pick_colors
from isodyn.modalities.shapes import SHAPES, draw_shape

TOKEN_COLORS = ("red", "blue", "green", "orange", "purple")


def token_name(tok: dict) -> str:
    return f"{tok['color']} {tok['shape']}"


def side_words(side: dict, tokens: list[dict]) -> str:
    parts = []
    for t, n in enumerate(side["tokens"]):
        if n:
            name = token_name(tokens[t])
            parts.append(f"{n} {name}{'s' if n > 1 else ''}")
    parts += [
        f"{'an' if str(w).startswith('8') or w in (11, 18) else 'a'} {w} kg weight" for w in side["weights"]
    ]
    return join_words(parts) if parts else "nothing"


def side_total(side: dict, w: list[int]) -> int:
    return sum(n * wt for n, wt in zip(side["tokens"], w, strict=True)) + sum(side["weights"])


def _split_weight(rng: np.random.Generator, total: int) -> list[int]:
    """A kilogram amount as one or two labelled weights."""
    if total <= 0:
        return []
    if total > 6 and rng.random() < 0.4:
        a = int(rng.integers(1, total))
        return sorted([a, total - a], reverse=True)
    return [total]


def _equation(side: dict, symbols: list[str]) -> str:
    terms = [f"{n}{symbols[t]}" if n > 1 else symbols[t] for t, n in enumerate(side["tokens"]) if n]
    terms += [str(w) for w in side["weights"]]
    return " + ".join(terms) if terms else "0"


def solution_text(p: dict) -> str:
    tokens, w = p["tokens"], p["weights"]
    symbols = ["x", "y", "z"]
    steps = [
        "Let "
        + join_words(
            [f"${symbols[i]}$ be the weight of one {token_name(t)} (in kg)" for i, t in enumerate(tokens)]
        )
        + ". A balanced scale means both pans weigh the same."
    ]
    for idx in p["solve_order"]:
        sc = p["scales"][idx]
        left, right = _equation(sc["left"], symbols), _equation(sc["right"], symbols)
        t = sc["new"]
        coef = sc["left"]["tokens"][t] - sc["right"]["tokens"][t]
        rest = side_total(
            {
                "tokens": [0 if i == t else n for i, n in enumerate(sc["right"]["tokens"])],
                "weights": sc["right"]["weights"],
            },
            w,
        ) - side_total(
            {
                "tokens": [0 if i == t else n for i, n in enumerate(sc["left"]["tokens"])],
                "weights": sc["left"]["weights"],
            },
            w,
        )
        if coef < 0:
            coef, rest = -coef, -rest
        lhs = symbols[t] if coef == 1 else f"{coef}{symbols[t]}"
        others = any(n for i, n in enumerate(sc["left"]["tokens"] + sc["right"]["tokens"]) if i % 3 != t)
        middle = (
            f" Put in the weights found so far: ${lhs} = {rest}$," if others else f" So ${lhs} = {rest}$,"
        )
        steps.append(
            f"Scale {idx + 1}: ${left} = {right}$.{middle} hence ${symbols[t]} = {w[t]}$ (one "
            f"{token_name(tokens[t])} weighs {w[t]} kg)."
        )
    asked = p["asked"]
    steps.append(f"Answer: ({p['answer_letter']}) {w[asked]} kg")
    return "\n".join(steps)


class BalanceScale(SeedProgram):
    seed_id = "dynamath_balance_scale"
    topic = Topic.PUZZLE_TEST
    level = Level.ELEMENTARY
    answer_type = AnswerType.MULTIPLE_CHOICE
    variation_types = (
        VariationType.NUMERICAL_VALUE,
        VariationType.COLOR,
        VariationType.SYMBOLIC_SUBSTITUTION,
    )
    param_variation = {
        "weights": VariationType.NUMERICAL_VALUE,
        "scales": VariationType.NUMERICAL_VALUE,
        "tokens": VariationType.COLOR,
    }
    modalities = (Modality.IMAGE, Modality.STORY)
    # weights x scale layouts x shape/colour assignments x order
    variant_space = 9 * 8 * 7 * 200 * 120 * 6

    def sample(self, rng: np.random.Generator) -> Draw:
        while True:
            w = [int(v) for v in rng.choice(np.arange(1, 10), size=3, replace=False)]
            scales: list[dict[str, Any]] = []
            ok = True
            for t in range(3):
                # The scale that introduces token t: some t's on the "main" pan, maybe older tokens on both.
                main = [0, 0, 0]
                other = [0, 0, 0]
                main[t] = int(rng.integers(1, 4)) if t else int(rng.integers(2, 5))
                for s in range(t):
                    if rng.random() < 0.6:
                        if rng.random() < 0.5:
                            main[s] = int(rng.integers(1, 3))
                        else:
                            other[s] = int(rng.integers(1, 3))
                diff = sum(m * x for m, x in zip(main, w, strict=True)) - sum(
                    o * x for o, x in zip(other, w, strict=True)
                )
                if diff <= 0 or diff > 20:
                    ok = False
                    break
                main_side = {"tokens": main, "weights": []}
                other_side = {"tokens": other, "weights": _split_weight(rng, diff)}
                if sum(main) > 5 or sum(other) + len(other_side["weights"]) > 5:
                    ok = False
                    break
                left, right = (main_side, other_side) if rng.random() < 0.5 else (other_side, main_side)
                scales.append({"left": left, "right": right, "new": t})
            if ok:
                break
        order = [int(i) for i in rng.permutation(3)]
        shown = [scales[i] for i in order]
        solve_order = [order.index(t) for t in range(3)]
        shapes = [str(s) for s in rng.choice(SHAPES, size=3, replace=False)]
        colors = pick_colors(rng, 3, TOKEN_COLORS)
        tokens = [{"shape": s, "color": c} for s, c in zip(shapes, colors, strict=True)]
        asked = 2 if rng.random() < 0.7 else 1
        truth = w[asked]
        pool = [w[i] for i in range(3) if i != asked] + [truth + 1, truth - 1, truth + 2, truth * 2]
        pool += [x for sc in scales for side in (sc["left"], sc["right"]) for x in side["weights"]]
        options = [truth]
        for cand in pool:
            if cand > 0 and cand not in options and len(options) < 4:
                options.append(int(cand))
        perm = rng.permutation(len(options))
        choices = tuple(f"{options[i]} kg" for i in perm)
        ans = letter(int(np.where(perm == 0)[0][0]))
        p = {
            "weights": w,
            "scales": shown,
            "solve_order": solve_order,
            "tokens": tokens,
            "asked": asked,
            "answer_letter": ans,
        }
        question = (
            f"All three scales are balanced. How much does one {token_name(tokens[asked])} weigh? "
            + format_choices(choices)
        )
        return Draw(params=p, question=question, answer=ans, solution=solution_text(p), choices=choices)

    def render(self, variant: Variant, modality: Modality) -> Representation:
        p = variant.params
        tokens = p["tokens"]
        if modality is Modality.IMAGE:

            def draw_pan(ax: Axes, side: dict, cx: float, y: float) -> None:
                items: list[tuple[str, int]] = []  # ("token", index) or ("weight", kilograms)
                for t, n in enumerate(side["tokens"]):
                    items += [("token", t)] * n
                items += [("weight", wt) for wt in side["weights"]]
                step = 0.62
                x0 = cx - step * (len(items) - 1) / 2
                for k, (kind, val) in enumerate(items):
                    x = x0 + k * step
                    if kind == "token":
                        tok = tokens[int(val)]
                        draw_shape(ax, tok["shape"], x, y + 0.3, 0.52, PALETTE[tok["color"]])
                    else:
                        ax.add_patch(
                            Polygon(
                                [
                                    (x - 0.29, y + 0.02),
                                    (x + 0.29, y + 0.02),
                                    (x + 0.2, y + 0.58),
                                    (x - 0.2, y + 0.58),
                                ],
                                facecolor="0.35",
                                edgecolor="black",
                                lw=1.2,
                            )
                        )
                        ax.text(
                            x,
                            y + 0.29,
                            f"{val}\nkg",
                            ha="center",
                            va="center",
                            fontsize=10,
                            color="white",
                            fontweight="bold",
                            linespacing=0.9,
                        )

            def draw(ax: Axes) -> None:
                ax.set_xlim(-0.1, 8.1)
                ax.set_ylim(-0.3, 7.4)
                ax.set_aspect("equal")
                ax.set_axis_off()
                for i, sc in enumerate(p["scales"]):
                    b = 5.0 - i * 2.5  # foot of this scale
                    ax.text(0.0, b + 2.15, f"Scale {i + 1}", fontsize=12, fontweight="bold", va="center")
                    # a pan balance: fulcrum, level beam, a short post at each end carrying a flat pan
                    ax.add_patch(
                        Polygon([(4.0, b + 0.8), (3.55, b), (4.45, b)], facecolor="0.65", edgecolor="black")
                    )
                    ax.add_patch(
                        Rectangle((3.1, b - 0.12), 1.8, 0.12, facecolor="0.4", edgecolor="black", lw=0.8)
                    )
                    ax.plot([1.9, 6.1], [b + 0.8, b + 0.8], color="black", lw=4, solid_capstyle="round")
                    for cx, side in ((1.9, sc["left"]), (6.1, sc["right"])):
                        ax.plot([cx, cx], [b + 0.8, b + 1.15], color="black", lw=3)
                        ax.plot(
                            [cx - 1.6, cx + 1.6],
                            [b + 1.18, b + 1.18],
                            color="black",
                            lw=4,
                            solid_capstyle="round",
                        )
                        draw_pan(ax, side, cx, b + 1.22)

            image = png(draw, size=(6.0, 5.6))
            names = join_words([token_name(t) + "s" for t in tokens])
            text = (
                f"The image shows three balanced scales (Scale 1 to 3) with {names} and labelled kilogram "
                "weights on their pans. All tokens of the same shape and colour weigh the "
                f"same.\n\n{variant.question}"
            )
            return Representation(modality, text, image_png=image)
        if modality is Modality.STORY:
            lines = [
                f"On scale {i + 1}, {side_words(sc['left'], tokens)} on the left pan "
                f"balance{'s' if _single(sc['left']) else ''} {side_words(sc['right'], tokens)} on the right "
                "pan."
                for i, sc in enumerate(p["scales"])
            ]
            story = (
                "A shopkeeper tests three balance scales with tokens; all tokens of the same shape and "
                "colour weigh the same. " + " ".join(lines)
            )
            return Representation(modality, f"{story}\n\n{variant.question}", extra={"story": story})
        raise AssertionError(f"unhandled modality {modality}")


def _single(side: dict) -> bool:
    return sum(side["tokens"]) + len(side["weights"]) == 1
