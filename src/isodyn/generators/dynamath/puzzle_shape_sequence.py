"""A growing pattern of tiles: how many (coloured) tiles will figure k have?

Figures 1 to 3 (or 4) of a pattern are drawn; the question asks for a later figure. Geometric
transformation: the pattern (square, rectangle, staircase, plus-shaped cross, framed square, L-shape,
checkerboard) and its orientation (mirrored or turned); colour variation: the two tile colours, and for
two-colour patterns the question may count only the tiles of one named colour; numerical value: k.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from matplotlib.axes import Axes
from matplotlib.patches import Rectangle

from isodyn.core import AnswerType, Level, Modality, Representation, Topic, Variant, VariationType
from isodyn.generators.base import Draw, SeedProgram
from isodyn.modalities.canvas import png
from isodyn.modalities.palette import PALETTE, pick_colors

PATTERNS = ("square", "rectangle", "staircase", "cross", "frame", "L", "checkerboard")
TWO_COLOR = ("cross", "frame", "checkerboard")
TILE_COLORS = ("blue", "orange", "green", "purple", "red")
ORIENTATIONS = ("plain", "mirror", "turn")


def cells(pattern: str, n: int) -> list[tuple[int, int, int]]:
    """(column, row, colour index 0/1) for figure n; row 0 at the bottom."""
    if pattern == "square":
        return [(x, y, 0) for x in range(n) for y in range(n)]
    if pattern == "rectangle":
        return [(x, y, 0) for x in range(n + 1) for y in range(n)]
    if pattern == "staircase":
        return [(x, y, 0) for x in range(n) for y in range(x + 1)]
    if pattern == "cross":
        out = [(n, n, 1)]
        for k in range(1, n + 1):
            out += [(n + k, n, 0), (n - k, n, 0), (n, n + k, 0), (n, n - k, 0)]
        return out
    if pattern == "frame":
        m = n + 2
        return [(x, y, 0 if x in (0, m - 1) or y in (0, m - 1) else 1) for x in range(m) for y in range(m)]
    if pattern == "L":
        return [(0, y, 0) for y in range(n + 1)] + [(x, 0, 0) for x in range(1, n + 1)]
    if pattern == "checkerboard":
        return [(x, y, (x + y) % 2) for x in range(n) for y in range(n)]
    raise ValueError(pattern)


def orient(cs: list[tuple[int, int, int]], how: str) -> list[tuple[int, int, int]]:
    if how == "plain":
        return cs
    w = max(x for x, _, _ in cs)
    if how == "mirror":
        return [(w - x, y, c) for x, y, c in cs]
    return [(y, w - x, c) for x, y, c in cs]  # a quarter turn


RULES = {
    "square": "Figure n is an n-by-n square of tiles, so it has n x n = n^2 tiles.",
    "rectangle": "Figure n is a rectangle of n rows with n + 1 tiles each, so it has n(n + 1) tiles.",
    "staircase": (
        "Figure n is a staircase of columns with 1, 2, ..., n tiles, so it has 1 + 2 + ... + n = n(n + 1)/2 "
        "tiles."
    ),
    "cross": (
        "Figure n is a centre tile ({b}) with four arms of n tiles each ({a}): 4n {a} tiles, 1 {b} tile, 4n "
        "+ 1 in all."
    ),
    "frame": (
        "Figure n is an (n + 2)-by-(n + 2) square: its border ({a}) has (n + 2)^2 - n^2 = 4n + 4 tiles and "
        "the n-by-n inside ({b}) has n^2 tiles; (n + 2)^2 in all."
    ),
    "L": "Figure n is a column of n + 1 tiles with a row of n more tiles attached at its foot: 2n + 1 tiles.",
    "checkerboard": (
        "Figure n is an n-by-n checkerboard of {a} and {b} tiles (figure 1 is a single {a} tile): there are "
        "n^2/2 rounded up {a} tiles and n^2/2 rounded down {b} tiles."
    ),
}


def count(pattern: str, n: int, which: int | None) -> int:
    return sum(1 for _, _, c in cells(pattern, n) if which is None or c == which)


def count_of(pattern: str, n: int, which: int | None) -> int:
    """`count` by the closed form of each pattern (a magnitude perturbation asks for figure 11000,
    too many tiles to list)."""
    if pattern == "square":
        return n * n
    if pattern == "rectangle":
        return n * (n + 1)
    if pattern == "staircase":
        return n * (n + 1) // 2
    if pattern == "cross":
        return {None: 4 * n + 1, 0: 4 * n, 1: 1}[which]
    if pattern == "frame":
        return {None: (n + 2) ** 2, 0: 4 * n + 4, 1: n * n}[which]
    if pattern == "L":
        return 2 * n + 1
    if pattern == "checkerboard":
        return (n * n + 1) // 2 if which == 0 else n * n // 2
    raise ValueError(pattern)


def solution_text(p: dict) -> str:
    a, b = p["colors"]
    which = p["which"]
    what = "tiles" if which is None else f"{p['colors'][which]} tiles"
    shown = ", ".join(f"figure {i} has {count(p['pattern'], i, which)}" for i in range(1, p["shown"] + 1))
    k = p["k"]
    value = count_of(p["pattern"], k, which)
    steps = [
        f"Count the {what} in the figures shown: {shown}.",
        "Look at how the figures are built: " + RULES[p["pattern"]].format(a=a, b=b),
        f"This matches every figure shown. For figure {k}: {what} = {value}.",
        f"Answer: {value}",
    ]
    return "\n".join(steps)


class ShapeSequence(SeedProgram):
    seed_id = "dynamath_shape_sequence"
    topic = Topic.PUZZLE_TEST
    level = Level.ELEMENTARY
    answer_type = AnswerType.INT
    variation_types = (
        VariationType.GEOMETRIC_TRANSFORMATION,
        VariationType.COLOR,
        VariationType.NUMERICAL_VALUE,
    )
    param_variation = {
        "pattern": VariationType.GEOMETRIC_TRANSFORMATION,
        "orientation": VariationType.GEOMETRIC_TRANSFORMATION,
        "colors": VariationType.COLOR,
        "which": VariationType.COLOR,
        "k": VariationType.NUMERICAL_VALUE,
    }
    modalities = (Modality.IMAGE, Modality.CODE)
    # patterns (with counted colour) x orientations x colour pairs x k x shown
    variant_space = (4 + 2 + 3 + 2) * 3 * 20 * 6 * 2

    def sample(self, rng: np.random.Generator) -> Draw:
        pattern = PATTERNS[int(rng.integers(len(PATTERNS)))]
        colors = pick_colors(rng, 2, TILE_COLORS)
        # Which tiles are counted: all, or one colour (the cross's single centre tile is never asked).
        counted: dict[str, list[int | None]] = {
            "cross": [None, 0],
            "frame": [None, 0, 1],
            "checkerboard": [0, 1],
        }
        options = counted.get(pattern, [None])
        which = options[int(rng.integers(len(options)))]
        shown = (
            4
            if pattern in ("L", "staircase", "square", "rectangle", "checkerboard") and rng.random() < 0.5
            else 3
        )
        k = int(rng.integers(shown + 2, shown + 8))
        how = ORIENTATIONS[int(rng.integers(len(ORIENTATIONS)))]
        figures = [[list(t) for t in orient(cells(pattern, i), how)] for i in range(1, shown + 1)]
        p = {
            "pattern": pattern,
            "colors": colors,
            "which": which,
            "shown": shown,
            "k": k,
            "orientation": how,
            "figures": figures,
        }
        return self.redraw(p)

    # --- perturbations -----------------------------------------------------------------------------
    perturbations = frozenset({"noop", "magnitude", "rename"})
    truth_reads = ("pattern", "which", "k")

    def redraw(self, params: dict[str, Any]) -> Draw:
        which, k = params["which"], params["k"]
        what = "tiles" if which is None else f"{params['colors'][which]} tiles"
        question = (
            f"The figures follow a pattern. If the pattern continues, how many {what} will Figure {k} have?"
        )
        return Draw(
            params=params,
            question=question,
            answer=str(count_of(params["pattern"], k, which)),
            solution=solution_text(params),
        )

    def noop_clause(self, params: dict[str, Any], rng: np.random.Generator) -> str:
        a = params["colors"][0]
        n = int(rng.integers(2, 10))
        said = (
            f"Each tile in the figures is {n} cm wide.",
            f"The {a} tiles were bought in a hardware shop {n} days ago.",
            f"Figure 1 was laid out in {n} seconds, the later figures took a little longer.",
            f"The same kind of pattern appears in exercise {n} of the puzzle book.",
            f"The figures were laid out on a table about {n + 1} metres long.",
        )
        return said[int(rng.integers(len(said)))]

    def scaled(self, params: dict[str, Any], factor: int) -> dict[str, Any]:
        # The one number the question shows is the figure asked about: figure k becomes figure factor k.
        return {**params, "k": params["k"] * factor}

    def numbers(self, params: dict[str, Any]) -> tuple[float, ...]:
        return (float(params["k"]),)

    def renamed(self, params: dict[str, Any], rng: np.random.Generator) -> dict[str, Any]:
        # Other tile colours (the counted tiles keep their place in the figures), or the two swapped.
        while True:
            colors = pick_colors(rng, 2, TILE_COLORS)
            if colors != params["colors"]:
                return {**params, "colors": colors}

    def render(self, variant: Variant, modality: Modality) -> Representation:
        p = variant.params
        figs = p["figures"]
        if modality is Modality.IMAGE:
            colors = [PALETTE[c] for c in p["colors"]]
            widths = [max(x for x, _, _ in f) + 1 for f in figs]
            heights = [max(y for _, y, _ in f) + 1 for f in figs]
            gap = 1.5
            total_w = sum(widths) + gap * (len(figs) - 1)
            top = max(heights)

            def draw(ax: Axes) -> None:
                ax.set_xlim(-0.5, total_w + 0.5)
                ax.set_ylim(-1.3, top + 0.3)
                ax.set_aspect("equal")
                ax.set_axis_off()
                x0 = 0.0
                for i, (f, w) in enumerate(zip(figs, widths, strict=True)):
                    for x, y, c in f:
                        ax.add_patch(
                            Rectangle((x0 + x, y), 1, 1, facecolor=colors[c], edgecolor="black", lw=1.3)
                        )
                    ax.text(
                        x0 + w / 2,
                        -0.8,
                        f"Figure {i + 1}",
                        ha="center",
                        va="center",
                        fontsize=12,
                        fontweight="bold",
                    )
                    x0 += w + gap

            aspect = (top + 1.6) / (total_w + 1)
            width = 8.0
            image = png(draw, size=(width, max(2.4, min(5.5, width * aspect + 0.4))))
            used = sorted({c for f in figs for _, _, c in f})
            tiles = " and ".join(p["colors"][c] for c in used)
            text = (
                f"The image shows Figures 1 to {len(figs)} of a pattern made of square tiles "
                f"({tiles}).\n\n{variant.question}"
            )
            return Representation(modality, text, image_png=image)
        if modality is Modality.CODE:
            lines = []
            for i, f in enumerate(figs, start=1):
                body = ", ".join(
                    f'({x}, {y}, "{p["colors"][c]}")' for x, y, c in sorted(f, key=lambda t: (t[1], t[0]))
                )
                lines.append(f"    {i}: [{body}],")
            code = (
                "# Figures of a pattern of unit square tiles. Each tile is (column, row, colour);\n# row 0 "
                "is the bottom row and column 0 the leftmost column of that figure.\n"
                "figures = {\n" + "\n".join(lines) + "\n}\n"
            )
            text = (
                "The Python dictionary below lists the tiles of each "
                f"figure.\n\n```python\n{code}```\n\n{variant.question}"
            )
            return Representation(modality, text, extra={"code": code})
        raise AssertionError(f"unhandled modality {modality}")
