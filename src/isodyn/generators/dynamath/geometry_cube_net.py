"""Net of a cube: which face ends up opposite a given face? (multiple choice)

Graph-structure variation: any of the 11 cube nets (found here by enumerating hexominoes and keeping
those that fold into a cube). Geometric transformation: the net is rotated or mirrored. Symbolic
substitution: the faces carry letters, digits or Greek letters.
"""

from __future__ import annotations

from functools import lru_cache

import numpy as np
from matplotlib.axes import Axes
from matplotlib.patches import Rectangle

from isodyn.core import AnswerType, Level, Modality, Representation, Topic, Variant, VariationType
from isodyn.generators.base import Draw, SeedProgram, format_choices, letter
from isodyn.modalities.geometry import figure_png

SYMBOL_SETS = {
    "letters": tuple("KLMNPQRSTUVWXYZ"),  # no A-J: those name the options
    "digits": tuple("12345678"),
    "greek": tuple("αβγδεθλμπσφω"),
}

Cell = tuple[int, int]  # (row, col); rows grow downwards as in the picture

_MOVES = {"right": (0, 1), "left": (0, -1), "up": (-1, 0), "down": (1, 0)}
SIDE_NAMES = {
    (0, 0, -1): "bottom",
    (0, 0, 1): "top",
    (1, 0, 0): "right side",
    (-1, 0, 0): "left side",
    (0, 1, 0): "back",
    (0, -1, 0): "front",
}


def _normalize(cells: frozenset[Cell]) -> frozenset[Cell]:
    r0 = min(r for r, _ in cells)
    c0 = min(c for _, c in cells)
    return frozenset((r - r0, c - c0) for r, c in cells)


def _symmetries(cells: frozenset[Cell]) -> list[frozenset[Cell]]:
    out = []
    pts = list(cells)
    for k in range(4):
        rot = pts
        for _ in range(k):
            rot = [(c, -r) for r, c in rot]
        out.append(_normalize(frozenset(rot)))
        out.append(_normalize(frozenset((r, -c) for r, c in rot)))
    return out


def fold(cells: frozenset[Cell], root: Cell) -> dict[Cell, tuple[tuple[int, int, int], str, Cell | None]]:
    """Roll a cube over the net starting with `root` on the bottom.

    Returns, for each cell, the outward normal of the face it becomes, the direction in the net from
    the cell it was reached from, and that parent cell (None for the root).
    """
    start = (np.array([0, 0, -1]), np.array([1, 0, 0]), np.array([0, 1, 0]))  # normal, net-right, net-up
    frames = {root: start}
    info: dict[Cell, tuple[tuple[int, int, int], str, Cell | None]] = {root: ((0, 0, -1), "", None)}
    queue = [root]
    while queue:
        cell = queue.pop(0)
        n, u, v = frames[cell]
        for name, (dr, dc) in _MOVES.items():
            nxt = (cell[0] + dr, cell[1] + dc)
            if nxt not in cells or nxt in frames:
                continue
            if name == "right":
                frame = (u, -n, v)
            elif name == "left":
                frame = (-u, n, v)
            elif name == "up":
                frame = (v, u, -n)
            else:
                frame = (-v, u, n)
            frames[nxt] = frame
            x, y, z = (int(c) for c in frame[0])  # the outward normal of the face
            info[nxt] = ((x, y, z), name, cell)
            queue.append(nxt)
    return info


@lru_cache(maxsize=1)
def cube_nets() -> tuple[tuple[Cell, ...], ...]:
    """The 11 nets of the cube, one representative each, in a fixed order."""
    shapes = {frozenset([(0, 0)])}
    for _ in range(5):
        grown = set()
        for s in shapes:
            for r, c in s:
                for dr, dc in _MOVES.values():
                    q = (r + dr, c + dc)
                    if q not in s:
                        grown.add(_normalize(s | {q}))
        shapes = grown
    free = {}
    for s in shapes:
        key = min(tuple(sorted(t)) for t in _symmetries(s))
        free[key] = s
    nets = []
    for key in sorted(free):
        s = frozenset(key)
        normals = {info[0] for info in fold(s, min(s)).values()}
        if len(normals) == 6:
            nets.append(tuple(sorted(s)))
    return tuple(nets)


def opposite_cell(cells: frozenset[Cell], cell: Cell) -> Cell:
    info = fold(cells, cell)
    return next(c for c, (n, _, _) in info.items() if n == (0, 0, 1))


def solution_text(p: dict, choices: tuple[str, ...], answer: str) -> str:
    cells = frozenset(tuple(c) for c in p["cells"])
    labels = {tuple(c): s for c, s in zip(p["cells"], p["labels"], strict=True)}
    target = next(c for c in cells if labels[c] == p["asked"])
    info = fold(cells, target)
    steps = [
        f"Keep the face {p['asked']} flat as the bottom of the cube and fold the other squares up around it."
    ]
    order = sorted((c for c in info if c != target), key=lambda c: _depth(info, c))
    for c in order:
        normal, move, parent = info[c]
        assert parent is not None
        steps.append(
            f"{labels[c]} is attached {_where(move)} {labels[parent]}, so it becomes the "
            f"{SIDE_NAMES[normal]}."
        )
    top = next(c for c in info if info[c][0] == (0, 0, 1))
    steps.append(f"The face on top is {labels[top]}, so {labels[top]} is opposite {p['asked']}.")
    idx = "ABCDEFGHIJ".index(answer)
    steps.append(f"Answer: ({answer}) {choices[idx]}.")
    return "\n".join(steps)


def _depth(info: dict, cell: Cell) -> int:
    d = 0
    while info[cell][2] is not None:
        cell = info[cell][2]
        d += 1
    return d


def _where(move: str) -> str:
    return {"right": "to the right of", "left": "to the left of", "up": "above", "down": "below"}[move]


class CubeNet(SeedProgram):
    seed_id = "dynamath_cube_net"
    topic = Topic.SOLID_GEOMETRY
    level = Level.ELEMENTARY
    answer_type = AnswerType.MULTIPLE_CHOICE
    variation_types = (
        VariationType.GRAPH_STRUCTURE,
        VariationType.GEOMETRIC_TRANSFORMATION,
        VariationType.SYMBOLIC_SUBSTITUTION,
    )
    param_variation = {
        "cells": VariationType.GRAPH_STRUCTURE,
        "labels": VariationType.SYMBOLIC_SUBSTITUTION,
        "symbols": VariationType.SYMBOLIC_SUBSTITUTION,
    }
    modalities = (Modality.IMAGE, Modality.CODE)
    # 11 nets x 8 orientations x 6 asked faces x label choices (3 sets, many arrangements) x option orders
    variant_space = 11 * 8 * 6 * 3 * 720

    def sample(self, rng: np.random.Generator) -> Draw:
        nets = cube_nets()
        base = frozenset(nets[int(rng.integers(len(nets)))])
        cells = sorted(_symmetries(base)[int(rng.integers(8))])
        kind = str(rng.choice(list(SYMBOL_SETS)))
        pool = SYMBOL_SETS[kind]
        labels = [pool[int(i)] for i in rng.choice(len(pool), size=6, replace=False)]
        k = int(rng.integers(6))
        asked = labels[k]
        opp = opposite_cell(frozenset(cells), cells[k])
        truth = labels[cells.index(opp)]
        others = [s for s in labels if s not in (asked, truth)]
        picked = [others[int(i)] for i in rng.choice(len(others), size=3, replace=False)]
        options = [truth, *picked]
        order = rng.permutation(4)
        choices = tuple(options[int(i)] for i in order)
        answer = letter(choices.index(truth))
        params = {
            "cells": [list(c) for c in cells],
            "labels": labels,
            "symbols": kind,
            "asked": asked,
        }
        question = (
            f"The net is folded into a cube. Which face is opposite the face labelled {asked}? "
            + format_choices(choices)
        )
        return Draw(
            params=params,
            question=question,
            answer=answer,
            solution=solution_text(params, choices, answer),
            choices=choices,
        )

    def render(self, variant: Variant, modality: Modality) -> Representation:
        p = variant.params
        if modality is Modality.IMAGE:
            text = (
                "The image shows a net of a cube: six squares joined along their edges, each labelled with a "
                f"symbol.\n\n{variant.question}"
            )
            return Representation(modality, text, image_png=_draw(p))
        if modality is Modality.CODE:
            code = net_code(p)
            text = (
                "Here is a net of a cube written as a Python grid: each entry is one square of the net, '.' "
                "marks "
                "an empty cell, and squares that are next to each other in the grid are joined along their "
                f"common edge.\n\n```python\n{code}```\n\n{variant.question}"
            )
            return Representation(modality, text, extra={"code": code})
        raise AssertionError(f"unhandled modality {modality}")


def net_code(p: dict) -> str:
    rows = 1 + max(r for r, _ in p["cells"])
    cols = 1 + max(c for _, c in p["cells"])
    grid = [["." for _ in range(cols)] for _ in range(rows)]
    for (r, c), s in zip(p["cells"], p["labels"], strict=True):
        grid[r][c] = s
    lines = ["net = ["]
    for row in grid:
        lines.append("    [" + ", ".join(f'"{x}"' for x in row) + "],")
    lines.append("]")
    return "\n".join(lines) + "\n"


def _draw(p: dict) -> bytes:
    cells = [tuple(c) for c in p["cells"]]
    rows = 1 + max(r for r, _ in cells)
    cols = 1 + max(c for _, c in cells)

    def draw(ax: Axes) -> None:
        for (r, c), s in zip(cells, p["labels"], strict=True):
            ax.add_patch(Rectangle((c, -r - 1), 1, 1, facecolor="#fdf3d8", edgecolor="black", lw=2.2))
            ax.text(c + 0.5, -r - 0.5, s, ha="center", va="center", fontsize=24, fontweight="bold")

    return figure_png(draw, (0, -rows, cols, 0), margin=0.06)
