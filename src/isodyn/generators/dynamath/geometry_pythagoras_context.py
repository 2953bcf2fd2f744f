"""The Pythagorean theorem in real-life scenes: a ladder, a kite, a ramp, a TV screen, a guy wire.

Real-life context variation: the same right triangle appears as a ladder against a wall, a kite string
pegged to the ground, a wheelchair ramp, the diagonal of a screen or a wire holding a pole. Two of the
three lengths are given and the third (a leg or the hypotenuse) is asked. Scenes are drawn to scale.
"""

from __future__ import annotations

import math

import numpy as np
from matplotlib.axes import Axes
from matplotlib.patches import Polygon, Rectangle

from isodyn.core import AnswerType, Level, Modality, Representation, Topic, Variant, VariationType
from isodyn.generators.base import Draw, SeedProgram
from isodyn.modalities.geometry import dimension_line, figure_png, fmt, right_angle_mark, side_label

UNIT_WORDS = {"m": "metres", "in": "inches"}

# For each scene: unit, what the hypotenuse / vertical / horizontal side is, and the question for each.
SCENES: dict[str, dict] = {
    "ladder": {
        "unit": "m",
        "names": {
            "hyp": "the ladder",
            "vert": "the height of the top of the ladder",
            "horiz": "the distance from the foot of the ladder to the wall",
        },
        "ask": {
            "hyp": "How long is the ladder",
            "vert": "How high up the wall does the top of the ladder reach",
            "horiz": "How far is the foot of the ladder from the wall",
        },
        "image": "a ladder leaning against a vertical wall on level ground",
    },
    "kite": {
        "unit": "m",
        "names": {
            "hyp": "the kite string",
            "vert": "the height of the kite",
            "horiz": "the distance from the peg to the point on the ground directly below the kite",
        },
        "ask": {
            "hyp": "How long is the kite string",
            "vert": "How high is the kite above the ground",
            "horiz": "How far is the peg from the point on the ground directly below the kite",
        },
        "image": "a kite whose straight string is tied to a peg in level ground",
    },
    "ramp": {
        "unit": "m",
        "names": {"hyp": "the sloping surface", "vert": "the rise", "horiz": "the horizontal run"},
        "ask": {
            "hyp": "How long is the sloping surface of the ramp",
            "vert": "How high does the ramp rise",
            "horiz": "How long is the horizontal run of the ramp",
        },
        "image": "the side view of a wheelchair ramp (a right triangle) on level ground",
    },
    "tv": {
        "unit": "in",
        "names": {"hyp": "the diagonal", "vert": "the height", "horiz": "the width"},
        "ask": {
            "hyp": "How long is the diagonal of the screen",
            "vert": "What is the height of the screen",
            "horiz": "What is the width of the screen",
        },
        "image": "a rectangular TV screen with its diagonal drawn",
    },
    "wire": {
        "unit": "m",
        "names": {
            "hyp": "the wire",
            "vert": "the height of the pole",
            "horiz": "the distance from the foot of the pole to the anchor",
        },
        "ask": {
            "hyp": "How long is the wire",
            "vert": "How tall is the pole",
            "horiz": "How far from the foot of the pole is the wire anchored",
        },
        "image": "a vertical pole held by a straight wire from its top to an anchor in level ground",
    },
}

# (hypotenuse range, the leg whose ratio to the hypotenuse is bounded, that ratio range, number step)
_SHAPES = {
    "ladder": ((3.0, 10.0), "horiz", (0.22, 0.45), 0.5),
    "kite": ((20.0, 80.0), "vert", (0.45, 0.85), 1.0),
    "ramp": ((3.0, 12.0), "vert", (0.08, 0.2), 0.1),
    "tv": ((30.0, 75.0), "vert", (0.45, 0.62), 1.0),
    "wire": ((5.0, 16.0), "horiz", (0.35, 0.7), 0.5),
}


def _nice(rng: np.random.Generator, lo: float, hi: float, step: float) -> float:
    """A multiple of `step` (0.1, 0.5 or 1) in [lo, hi] (the nearest one above lo if there is none)."""
    first = max(1, math.ceil(lo / step))
    value = round(float(rng.integers(first, max(first, math.floor(hi / step)) + 1)) * step, 1)
    return int(value) if value == int(value) else value


def story_text(p: dict) -> str:
    s, u, g = p["scene"], p["unit"], p["given"]
    singular = {"m": "metre", "in": "inch"}[u]

    def amount(key: str) -> str:
        value = g.get(key, 0)
        return f"{fmt(value)} {singular if value == 1 else UNIT_WORDS[u]}"

    facts = {
        "ladder": {
            "hyp": f"A ladder {amount('hyp')} long leans against a vertical wall on level ground.",
            "vert": f"The top of the ladder touches the wall {amount('vert')} above the ground.",
            "horiz": f"The foot of the ladder stands {amount('horiz')} from the wall.",
        },
        "kite": {
            "hyp": f"The kite's straight string is {amount('hyp')} long and is tied to a peg "
            "in "
            "level ground.",
            "vert": f"The kite flies {amount('vert')} above the ground.",
            "horiz": f"The point on the ground directly below the kite is {amount('horiz')} from the peg.",
        },
        "ramp": {
            "hyp": f"The sloping surface of a wheelchair ramp is {amount('hyp')} long.",
            "vert": f"The ramp rises {amount('vert')} from level ground to a doorway.",
            "horiz": f"The ramp covers a horizontal run of {amount('horiz')} along the ground.",
        },
        "tv": {
            "hyp": f"A rectangular TV screen has a diagonal of {amount('hyp')}.",
            "vert": f"The screen is {amount('vert')} high.",
            "horiz": f"The screen is {amount('horiz')} wide.",
        },
        "wire": {
            "hyp": f"A straight wire {amount('hyp')} long runs from the top of a vertical "
            "pole to "
            "an anchor in the level ground.",
            "vert": f"The pole stands {amount('vert')} tall.",
            "horiz": f"The anchor is {amount('horiz')} from the foot of the pole.",
        },
    }[s]
    intro = {
        "ladder": "Maya is cleaning the windows of her house.",
        "kite": "Leo is flying a kite on a windy afternoon at the beach.",
        "ramp": "A library is building a wheelchair ramp up to its side entrance.",
        "tv": "Nina is comparing TV screens in a shop.",
        "wire": "A worker is setting up a pole for a banner.",
    }[s]
    order = [k for k in ("hyp", "vert", "horiz") if k in g]
    if s in ("ladder", "wire") and "hyp" not in g:
        order = ["vert", "horiz"]
    body = " ".join(facts[k] for k in order)
    if s == "ladder" and "hyp" not in g:
        body = "A ladder leans against a vertical wall on level ground. " + body
    if s == "wire" and "hyp" not in g:
        body = (
            "A straight wire runs from the top of a vertical pole to an anchor in the level ground. " + body
        )
    if s == "kite" and "hyp" not in g:
        body = "The kite's straight string is tied to a peg in level ground. " + body
    return f"{intro} {body}"


def solution_text(p: dict, value: float) -> str:
    g, unknown, s = p["given"], p["unknown"], p["scene"]
    names = SCENES[s]["names"]
    u = p["unit"]
    steps = [
        f"{names['vert'].capitalize()} and {names['horiz']} are perpendicular, so they are the legs of a "
        "right "
        f"triangle whose hypotenuse is {names['hyp']}."
    ]
    if unknown == "hyp":
        a, b = g["vert"], g["horiz"]
        steps.append(
            f"Hypotenuse$^2$ = {fmt(a)}$^2$ + {fmt(b)}$^2$ = {fmt(a * a)} + {fmt(b * b)} = "
            f"{fmt(a * a + b * b)}."
        )
        steps.append(f"Hypotenuse = $\\sqrt{{{fmt(a * a + b * b)}}}$ ≈ {fmt(value)} {u}.")
    else:
        c = g["hyp"]
        other = g["horiz"] if unknown == "vert" else g["vert"]
        steps.append(
            f"Leg$^2$ = hypotenuse$^2$ - other leg$^2$ = {fmt(c)}$^2$ - {fmt(other)}$^2$ = {fmt(c * c)} - "
            f"{fmt(other * other)} = {fmt(c * c - other * other)}."
        )
        steps.append(f"Leg = $\\sqrt{{{fmt(c * c - other * other)}}}$ ≈ {fmt(value)} {u}.")
    steps.append(f"Answer: {fmt(value)}")
    return "\n".join(steps)


class PythagorasContext(SeedProgram):
    seed_id = "dynamath_pythagoras_context"
    topic = Topic.PLANE_GEOMETRY
    level = Level.HIGH_SCHOOL
    answer_type = AnswerType.FLOAT
    variation_types = (VariationType.REAL_LIFE_CONTEXT, VariationType.NUMERICAL_VALUE)
    param_variation = {
        "scene": VariationType.REAL_LIFE_CONTEXT,
        "given": VariationType.NUMERICAL_VALUE,
    }
    modalities = (Modality.IMAGE, Modality.STORY)
    # 5 scenes x 3 unknowns x ~300 pairs of given lengths
    variant_space = 5 * 3 * 300

    def sample(self, rng: np.random.Generator) -> Draw:
        scene = str(rng.choice(list(SCENES)))
        (lo, hi), leg_key, (r0, r1), step = _SHAPES[scene]
        unknown = str(rng.choice(["hyp", "vert", "horiz"]))
        other_key = "vert" if leg_key == "horiz" else "horiz"
        while True:
            if unknown == "hyp":
                guess = float(rng.uniform(lo, hi))
                leg = _nice(rng, guess * r0, guess * r1, step)
                other = _nice(rng, guess * math.sqrt(1 - r1 * r1), guess * math.sqrt(1 - r0 * r0), step)
                hyp = math.hypot(leg, other)
                given = {leg_key: leg, other_key: other}
            else:
                hyp = _nice(rng, lo, hi, step)
                known = "vert" if unknown == "horiz" else "horiz"
                if known == leg_key:
                    leg = _nice(rng, hyp * r0, hyp * r1, step)
                    if leg >= hyp:
                        continue
                    other = math.sqrt(hyp * hyp - leg * leg)
                else:
                    other = _nice(rng, hyp * math.sqrt(1 - r1 * r1), hyp * math.sqrt(1 - r0 * r0), step)
                    if other >= hyp:
                        continue
                    leg = math.sqrt(hyp * hyp - other * other)
                given = {"hyp": hyp, known: leg if known == leg_key else other}
            if r0 <= leg / hyp <= r1:
                break
        legs = {leg_key: leg, other_key: other}
        params = {
            "scene": scene,
            "unit": SCENES[scene]["unit"],
            "given": given,
            "unknown": unknown,
            "vert": round(float(legs["vert"]), 6),
            "horiz": round(float(legs["horiz"]), 6),
        }
        return self.redraw(params)

    # --- perturbations -----------------------------------------------------------------------------
    perturbations = frozenset({"noop", "magnitude"})
    truth_reads = ("given", "unknown")

    def redraw(self, params: dict) -> Draw:
        g, unknown = params["given"], params["unknown"]
        if unknown == "hyp":
            value = math.hypot(g["vert"], g["horiz"])
        else:
            known = g["vert"] if "vert" in g else g["horiz"]
            value = math.sqrt(g["hyp"] * g["hyp"] - known * known)
        word = UNIT_WORDS[params["unit"]]
        question = f"{SCENES[params['scene']]['ask'][unknown]}, in {word}?"
        return Draw(
            params=params, question=question, answer=fmt(value), solution=solution_text(params, value)
        )

    def noop_clause(self, params: dict, rng: np.random.Generator) -> str:
        n = int(rng.integers(2, 10))
        said = {
            "ladder": (
                f"The ladder has {n + 6} rungs and is painted {rng.choice(['grey', 'yellow', 'red'])!s}.",
                f"A painter has used this ladder for {n} years.",
                f"The wall belongs to a house built {n * 10} years ago.",
            ),
            "kite": (
                f"The kite's tail has {n} bows tied to it.",
                f"The kite has been flying for {n * 5} minutes.",
                f"The kite is {rng.choice(['red', 'blue', 'green'])!s} and was a birthday present.",
            ),
            "ramp": (
                f"The ramp was built in {n} days.",
                f"The ramp leads to a library that opens at {n} o'clock.",
                f"The surface of the ramp is painted {rng.choice(['grey', 'green', 'blue'])!s}.",
            ),
            "tv": (
                f"The TV was bought {n} years ago.",
                f"The TV has {n} HDMI ports on its back.",
                f"The TV is switched to channel {n}.",
            ),
            "wire": (
                f"The pole has a small sign with the number {n} on it.",
                f"The pole was painted {n} years ago.",
                f"The wire is made of {n} twisted steel strands.",
            ),
        }[params["scene"]]
        general = "The ground around it is level and dry."
        options = (*said, general) if params["scene"] != "tv" else said
        return options[int(rng.integers(len(options)))]

    def scaled(self, params: dict, factor: int) -> dict:
        def times(x: float) -> float:
            y = round(x * factor, 6)  # 0.1-steps times a power of ten, without float noise
            return int(y) if y == int(y) else y

        given = {k: times(v) for k, v in params["given"].items()}
        return {
            **params,
            "given": given,
            "vert": round(float(params["vert"]) * factor, 6),
            "horiz": round(float(params["horiz"]) * factor, 6),
        }

    def numbers(self, params: dict) -> tuple[float, ...]:
        return tuple(float(v) for v in params["given"].values())

    def render(self, variant: Variant, modality: Modality) -> Representation:
        p = variant.params
        if modality is Modality.IMAGE:
            text = (
                f"The image shows {SCENES[p['scene']]['image']}, drawn to scale. Lengths are in "
                f"{UNIT_WORDS[p['unit']]}; the unknown length is marked '?'.\n\n{variant.question}"
            )
            return Representation(modality, text, image_png=_draw(p))
        if modality is Modality.STORY:
            text = f"{story_text(p)}\n\n{variant.question}"
            return Representation(modality, text)
        raise AssertionError(f"unhandled modality {modality}")


def _text(p: dict, key: str) -> str:
    return f"{fmt(p['given'][key])} {p['unit']}" if key in p["given"] else "?"


def _draw(p: dict) -> bytes:
    v, h = p["vert"], p["horiz"]
    s = p["scene"]
    size = max(v, h)
    mark = 0.06 * min(v, h) if s != "ramp" else 0.25 * v
    ground_color = "#8c6d46"

    def ground(ax: Axes, x0: float, x1: float) -> None:
        ax.plot([x0, x1], [0, 0], color=ground_color, lw=2.5, zorder=1)
        for x in np.linspace(x0, x1, 28):
            ax.plot([x, x - 0.02 * size], [0, -0.03 * size], color=ground_color, lw=1, zorder=1)

    def draw(ax: Axes) -> None:
        if s == "ladder":
            wall_w = 0.12 * size
            ax.add_patch(
                Rectangle((-wall_w, 0), wall_w, v * 1.12, facecolor="#c9c9c9", edgecolor="black", lw=1.2)
            )
            ground(ax, -wall_w, h * 1.35)
            # Two rails and rungs.
            d = np.array([-h, v]) / math.hypot(h, v)
            n = np.array([d[1], -d[0]]) * 0.018 * size
            foot, top = np.array([h, 0.0]), np.array([0.0, v])
            for sgn in (-1, 1):
                ax.plot(
                    [foot[0] + sgn * n[0], top[0] + sgn * n[0]],
                    [foot[1] + sgn * n[1], top[1] + sgn * n[1]],
                    color="#8b4513",
                    lw=2.2,
                    zorder=3,
                )
            for t in np.linspace(0.08, 0.92, 9):
                c = foot + t * (top - foot)
                ax.plot(
                    [c[0] - n[0], c[0] + n[0]], [c[1] - n[1], c[1] + n[1]], color="#8b4513", lw=1.6, zorder=3
                )
            right_angle_mark(ax, (0, 0), (1, 0), (0, 1), mark)
            side_label(ax, foot, top, _text(p, "hyp"), (0, 0), gap=8)
            dimension_line(ax, (0, 0), top, _text(p, "vert"), (-wall_w - 0.06 * size, 0))
            side_label(ax, (0, 0), foot, _text(p, "horiz"), (0, 1), gap=10)
        elif s == "kite":
            ground(ax, -0.08 * size, h * 1.15)
            kite = np.array([h, v])
            ax.plot([0, h], [0, v], color="black", lw=1.5, zorder=3)
            k = 0.05 * size
            ax.add_patch(
                Polygon(
                    [kite + np.array(d) for d in ((0, k * 1.3), (k * 0.7, 0), (0, -k), (-k * 0.7, 0))],
                    closed=True,
                    facecolor="#d62728",
                    edgecolor="black",
                    zorder=4,
                )
            )
            ax.plot([h, h], [0, v], color="0.3", lw=1.4, ls="--", zorder=2)
            ax.plot(0, 0, "s", color="black", ms=5)
            right_angle_mark(ax, (h, 0), (0, 0), (h, 1), mark)
            side_label(ax, (0, 0), kite, _text(p, "hyp"), (h, 0), at=0.45, gap=8)
            side_label(ax, (h, 0), kite, _text(p, "vert"), (0, 0), gap=8)
            side_label(ax, (0, 0), (h, 0), _text(p, "horiz"), (0, 1), gap=10)
        elif s == "ramp":
            ground(ax, -0.08 * size, h * 1.2)
            ax.add_patch(
                Polygon(
                    [(0, 0), (h, 0), (h, v)],
                    closed=True,
                    facecolor="#d9d9d9",
                    edgecolor="black",
                    lw=2,
                    zorder=2,
                )
            )
            right_angle_mark(ax, (h, 0), (0, 0), (h, 1), min(mark, 0.04 * size))
            side_label(ax, (0, 0), (h, v), _text(p, "hyp"), (h, 0), gap=8)
            side_label(ax, (h, 0), (h, v), _text(p, "vert"), (0, 0), gap=8)
            side_label(ax, (0, 0), (h, 0), _text(p, "horiz"), (0, 1), gap=10)
        elif s == "tv":
            frame = 0.03 * size
            ax.add_patch(
                Rectangle((-frame, -frame), h + 2 * frame, v + 2 * frame, facecolor="#222222", zorder=1)
            )
            ax.add_patch(Rectangle((0, 0), h, v, facecolor="#9ec5e8", edgecolor="black", zorder=2))
            ax.plot([0, h], [0, v], color="black", lw=1.6, ls="--", zorder=3)
            right_angle_mark(ax, (h, 0), (0, 0), (h, 1), mark)
            side_label(ax, (0, 0), (h, v), _text(p, "hyp"), (h, 0), gap=4)
            side_label(ax, (0, 0), (0, v), _text(p, "vert"), (1, 0), gap=10)
            side_label(ax, (0, 0), (h, 0), _text(p, "horiz"), (0, 1), gap=10)
        else:  # wire
            ground(ax, -0.15 * size, h * 1.2)
            ax.plot([0, 0], [0, v], color="#555555", lw=6, solid_capstyle="butt", zorder=2)
            ax.plot([0, h], [v, 0], color="black", lw=1.5, zorder=3)
            ax.plot(h, 0, "^", color="black", ms=7, zorder=4)
            right_angle_mark(ax, (0, 0), (1, 0), (0, 1), mark)
            side_label(ax, (0, v), (h, 0), _text(p, "hyp"), (0, 0), gap=8)
            side_label(ax, (0, 0), (0, v), _text(p, "vert"), (1, 0), gap=10)
            side_label(ax, (0, 0), (h, 0), _text(p, "horiz"), (0, 1), gap=10)

    pad = 0.12 * size
    left = {"ladder": 0.35 * size, "wire": 0.12 * size}.get(s, 0.0)
    bounds = (-pad - left, -pad, h + pad * 1.5, v + pad)
    return figure_png(draw, bounds, margin=0.05)
