"""Place value with base-ten blocks: which number do the flats, rods and unit cubes show?

Sometimes there are ten or more rods or cubes (regrouping: 13 rods are 130), and the groups are not
always in hundreds-tens-ones order (geometric transformation: a different arrangement), so reading the
counts as digits from left to right fails. The block colours vary (colour variation, cosmetic). The
distractors are exactly those misreadings: counts written side by side, groups read in picture order,
tens and ones swapped, and off-by-ten.
"""

from __future__ import annotations

import numpy as np
from matplotlib.axes import Axes
from matplotlib.collections import LineCollection
from matplotlib.patches import Rectangle

from isodyn.core import AnswerType, Level, Modality, Representation, Topic, Variant, VariationType
from isodyn.generators.base import Draw, SeedProgram, format_choices, letter
from isodyn.modalities.canvas import png
from isodyn.modalities.formatting import join_words
from isodyn.modalities.palette import PALETTE

GROUPS = ("hundreds", "tens", "ones")
SCHEMES = (
    ("blue", "blue", "blue"),
    ("orange", "green", "blue"),
    ("green", "green", "green"),
    ("purple", "orange", "green"),
    ("red", "blue", "orange"),
)
NAMES = {
    "hundreds": ("hundred-flat", "hundred-flats"),
    "tens": ("ten-rod", "ten-rods"),
    "ones": ("unit cube", "unit cubes"),
}


def value(p: dict) -> int:
    return 100 * p["hundreds"] + 10 * p["tens"] + p["ones"]


def count_words(kind: str, n: int) -> str:
    one, many = NAMES[kind]
    return f"{n} {one if n == 1 else many}"


def _distractors(p: dict) -> list[int]:
    h, t, o = p["hundreds"], p["tens"], p["ones"]
    counts = {"hundreds": h, "tens": t, "ones": o}
    side_by_side = int(f"{h}{t}{o}")
    picture_order = int("".join(str(counts[g]) for g in p["order"] if counts[g] or g != p["order"][0]) or "0")
    swapped = 100 * h + 10 * o + t
    return [side_by_side, picture_order, swapped, value(p) + 10, value(p) - 10, value(p) + 100, value(p) - 1]


def solution_text(p: dict) -> str:
    h, t, o = p["hundreds"], p["tens"], p["ones"]
    steps = [
        f"Count each kind of block, whatever order they are drawn in: {count_words('hundreds', h)}, "
        f"{count_words('tens', t)} and {count_words('ones', o)}.",
        f"Each flat is 100, each rod is 10 and each cube is 1: {h} x 100 = {100 * h}, {t} x 10 = {10 * t}, "
        f"{o} x 1 = {o}.",
    ]
    if t >= 10 or o >= 10:
        steps.append(
            "There are ten or more of a kind, so the counts are not simply the digits; regroup by adding."
        )
    steps.append(f"Total: {100 * h} + {10 * t} + {o} = {value(p)}.")
    return "\n".join(steps)


class BaseTenBlocks(SeedProgram):
    seed_id = "dynamath_base_ten_blocks"
    topic = Topic.ARITHMETIC
    level = Level.ELEMENTARY
    answer_type = AnswerType.MULTIPLE_CHOICE
    variation_types = (
        VariationType.NUMERICAL_VALUE,
        VariationType.GEOMETRIC_TRANSFORMATION,
        VariationType.COLOR,
    )
    param_variation = {
        "hundreds": VariationType.NUMERICAL_VALUE,
        "tens": VariationType.NUMERICAL_VALUE,
        "ones": VariationType.NUMERICAL_VALUE,
        "order": VariationType.GEOMETRIC_TRANSFORMATION,
        "colors": VariationType.COLOR,
    }
    modalities = (Modality.IMAGE, Modality.STORY)
    # counts x group orders x colour schemes
    variant_space = 4 * 15 * 15 * 6 * 5

    def sample(self, rng: np.random.Generator) -> Draw:
        regroup = rng.random() < 0.4
        h = int(rng.integers(1, 5))
        if regroup:
            t, o = (
                (int(rng.integers(10, 15)), int(rng.integers(0, 10)))
                if rng.random() < 0.5
                else (int(rng.integers(0, 10)), int(rng.integers(10, 15)))
            )
        else:
            t, o = int(rng.integers(0, 10)), int(rng.integers(1, 10))
        order = list(GROUPS) if rng.random() < 0.5 else [GROUPS[int(i)] for i in rng.permutation(3)]
        scheme = list(SCHEMES[int(rng.integers(len(SCHEMES)))])
        p = {"hundreds": h, "tens": t, "ones": o, "order": order, "colors": scheme}
        truth = value(p)
        options = [truth]
        for cand in _distractors(p):
            if cand > 0 and cand not in options and len(options) < 4:
                options.append(cand)
        perm = rng.permutation(4)
        choices = tuple(str(options[i]) for i in perm)
        ans = letter(int(np.where(perm == 0)[0][0]))
        question = "What number do the base-ten blocks show? " + format_choices(choices)
        solution = solution_text(p) + f"\nAnswer: ({ans}) {truth}"
        return Draw(params=p, question=question, answer=ans, solution=solution, choices=choices)

    def render(self, variant: Variant, modality: Modality) -> Representation:
        p = variant.params
        if modality is Modality.IMAGE:
            colors = dict(zip(GROUPS, (PALETTE[c] for c in p["colors"]), strict=True))

            def draw_group(ax: Axes, kind: str, x: float) -> float:
                n = p[kind]
                c = colors[kind]
                if kind == "hundreds":
                    for k in range(n):
                        x0 = x + k * 11
                        ax.add_patch(Rectangle((x0, 0), 10, 10, facecolor=c, edgecolor="black", lw=1.4))
                        grid = [[(x0 + j, 0), (x0 + j, 10)] for j in range(1, 10)]
                        grid += [[(x0, j), (x0 + 10, j)] for j in range(1, 10)]
                        ax.add_collection(LineCollection(grid, colors="black", linewidths=0.5), autolim=False)
                    return x + n * 11 - 1 if n else x
                if kind == "tens":
                    for k in range(n):
                        x0 = x + k * 1.6
                        ax.add_patch(Rectangle((x0, 0), 1, 10, facecolor=c, edgecolor="black", lw=1.2))
                        rungs = LineCollection(
                            [[(x0, j), (x0 + 1, j)] for j in range(1, 10)], colors="black", linewidths=0.5
                        )
                        ax.add_collection(rungs, autolim=False)
                    return x + n * 1.6 - 0.6 if n else x
                for k in range(n):
                    col, row = divmod(k, 5)
                    ax.add_patch(
                        Rectangle((x + col * 1.6, row * 1.6), 1, 1, facecolor=c, edgecolor="black", lw=1.2)
                    )
                return x + ((n - 1) // 5 + 1) * 1.6 - 0.6 if n else x

            widths = {
                "hundreds": p["hundreds"] * 11 - 1,
                "tens": max(0, p["tens"] * 1.6 - 0.6),
                "ones": ((p["ones"] - 1) // 5 + 1) * 1.6 - 0.6 if p["ones"] else 0,
            }
            total = sum(widths.values()) + 3 * 2

            def draw(ax: Axes) -> None:
                ax.set_xlim(-1, total + 1)
                ax.set_ylim(-1, 11)
                ax.set_aspect("equal")
                ax.set_axis_off()
                x = 0.0
                for kind in p["order"]:
                    if p[kind]:
                        x = draw_group(ax, kind, x) + 3

            width = min(10.0, max(5.0, 0.15 * (total + 2)))
            image = png(draw, size=(width, max(1.9, width * 12 / (total + 2) + 0.3)))
            text = (
                "The image shows base-ten blocks: flats (10 by 10 squares, worth 100 each), rods (columns "
                f"of 10, worth 10 each) and small unit cubes (worth 1 each).\n\n{variant.question}"
            )
            return Representation(modality, text, image_png=image)
        if modality is Modality.STORY:
            present = [g for g in p["order"] if p[g]]
            groups = join_words([count_words(g, p[g]) for g in present])
            story = (
                f"A pupil lays out base-ten blocks on the table, from left to right: {groups}. A "
                "hundred-flat is worth 100, a ten-rod 10 and a unit cube 1."
            )
            return Representation(modality, f"{story}\n\n{variant.question}", extra={"story": story})
        raise AssertionError(f"unhandled modality {modality}")
