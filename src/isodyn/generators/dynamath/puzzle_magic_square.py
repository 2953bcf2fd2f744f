"""A magic square with empty cells: find the one marked '?'.

The square is the Lo Shu (3 x 3) or Dürer's square (4 x 4), turned or mirrored (geometric
transformation) and scaled and shifted (a v + b, numerical value), so every row, column and main
diagonal has the same sum. Graph-structure variation: the size and which cells are empty. The empty
cells are chosen so the '?' follows by completing lines that miss a single number, starting from a full
line that gives the magic sum.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from matplotlib.axes import Axes

from isodyn.core import AnswerType, Level, Modality, Representation, Topic, Variant, VariationType
from isodyn.generators.base import Draw, SeedProgram
from isodyn.modalities.canvas import png
from isodyn.modalities.shapes import draw_cell_grid

LO_SHU = ((2, 7, 6), (9, 5, 1), (4, 3, 8))
DURER = ((16, 3, 2, 13), (5, 10, 11, 8), (9, 6, 7, 12), (4, 15, 14, 1))


def lines(n: int) -> list[tuple[str, list[tuple[int, int]]]]:
    out = [(f"row {r + 1}", [(r, c) for c in range(n)]) for r in range(n)]
    out += [(f"column {c + 1}", [(r, c) for r in range(n)]) for c in range(n)]
    out.append(("the main diagonal (top-left to bottom-right)", [(i, i) for i in range(n)]))
    out.append(("the other diagonal (top-right to bottom-left)", [(i, n - 1 - i) for i in range(n)]))
    return out


def fill_steps(
    square: list[list[int]], hidden: set[tuple[int, int]]
) -> list[tuple[str, tuple[int, int] | None, int, str]]:
    """(line, cell or None for the magic sum, value, arithmetic) in the order a solver finds them."""
    n = len(square)
    known = {(r, c) for r in range(n) for c in range(n)} - hidden
    steps: list = []
    total = None
    for name, cells in lines(n):
        if all(c in known for c in cells):
            total = sum(square[r][c] for r, c in cells)
            steps.append((name, None, total, " + ".join(str(square[r][c]) for r, c in cells) + f" = {total}"))
            break
    if total is None:
        return steps
    progress = True
    while progress:
        progress = False
        for name, cells in lines(n):
            missing = [c for c in cells if c not in known]
            if len(missing) == 1:
                cell = missing[0]
                others = [square[r][c] for r, c in cells if (r, c) != cell]
                value = total - sum(others)
                steps.append((name, cell, value, f"{total} - ({' + '.join(map(str, others))}) = {value}"))
                known.add(cell)
                progress = True
    return steps


def solution_text(p: dict) -> str:
    square, asked = p["square"], tuple(p["asked"])
    hidden = {tuple(c) for c in p["hidden"]}
    steps = ["In a magic square every row, column and main diagonal has the same sum (the magic sum)."]
    for name, cell, value, how in fill_steps(square, hidden):
        if cell is None:
            steps.append(f"{name.capitalize()} is complete, so the magic sum is {how}.")
            continue
        steps.append(
            f"{name.capitalize()} misses a single number (row {cell[0] + 1}, column {cell[1] + 1}): {how}."
        )
        if cell == asked:
            steps.append(f"That is the cell marked '?'.\nAnswer: {value}")
            break
    return "\n".join(steps)


def _transform(base: tuple[tuple[int, ...], ...], k: int, flip: bool, a: int, b: int) -> list[list[int]]:
    arr = np.rot90(np.array(base), k)
    if flip:
        arr = np.fliplr(arr)
    return [[int(a * v + b) for v in row] for row in arr]


class MagicSquare(SeedProgram):
    seed_id = "dynamath_magic_square"
    topic = Topic.PUZZLE_TEST
    level = Level.ELEMENTARY
    answer_type = AnswerType.INT
    variation_types = (
        VariationType.GRAPH_STRUCTURE,
        VariationType.GEOMETRIC_TRANSFORMATION,
        VariationType.NUMERICAL_VALUE,
    )
    param_variation = {
        "n": VariationType.GRAPH_STRUCTURE,
        "hidden": VariationType.GRAPH_STRUCTURE,
        "square": VariationType.NUMERICAL_VALUE,
    }
    modalities = (Modality.IMAGE, Modality.LATEX)
    # sizes x 8 symmetries x scale/shift x hidden patterns
    variant_space = 2 * 8 * 4 * 16 * 200

    def sample(self, rng: np.random.Generator) -> Draw:
        n = int(rng.choice([3, 3, 4]))
        base = LO_SHU if n == 3 else DURER
        square = _transform(
            base,
            int(rng.integers(4)),
            bool(rng.random() < 0.5),
            int(rng.choice([1, 2, 3, 5])),
            int(rng.integers(0, 16)),
        )
        cells = [(r, c) for r in range(n) for c in range(n)]
        n_hidden = int(rng.integers(3, 5)) if n == 3 else int(rng.integers(5, 9))
        while True:
            picks = rng.choice(len(cells), size=n_hidden, replace=False)
            hidden = [cells[int(k)] for k in picks]
            asked = hidden[0]
            found = [s[1] for s in fill_steps(square, set(hidden)) if s[1] is not None]
            if asked in found and found.index(asked) >= 1:
                break
        p = {"n": n, "square": square, "hidden": sorted([list(c) for c in hidden]), "asked": list(asked)}
        return self.redraw(p)

    # --- perturbations -----------------------------------------------------------------------------
    perturbations = frozenset({"noop", "magnitude"})
    truth_reads = ("square", "hidden", "asked")

    def redraw(self, params: dict[str, Any]) -> Draw:
        square, asked = params["square"], params["asked"]
        question = (
            "In this magic square, every row, every column and both main diagonals have the same sum. Which "
            "number goes in the cell marked with a question mark?"
        )
        return Draw(
            params=params,
            question=question,
            answer=str(square[asked[0]][asked[1]]),
            solution=solution_text(params),
        )

    def noop_clause(self, params: dict[str, Any], rng: np.random.Generator) -> str:
        n = params["n"]
        k = int(rng.integers(3, 20))
        said = (
            f"Magic squares have been drawn and studied for more than {k} hundred years.",
            f"The square was printed on page {k} of a puzzle book.",
            f"A student completed a different {n} x {n} magic square yesterday in {k} minutes.",
            f"Each cell of the square is {k} mm wide on the printed page.",
            f"The puzzle book this square comes from has {k * 5} magic squares in it.",
        )
        return said[int(rng.integers(len(said)))]

    def scaled(self, params: dict[str, Any], factor: int) -> dict[str, Any]:
        # A magic square times a factor is still magic; every cell, the sum and the '?' scale.
        return {**params, "square": [[v * factor for v in row] for row in params["square"]]}

    def numbers(self, params: dict[str, Any]) -> tuple[float, ...]:
        hidden = {tuple(c) for c in params["hidden"]}
        square = params["square"]
        return tuple(
            float(v) for r, row in enumerate(square) for c, v in enumerate(row) if (r, c) not in hidden
        )

    @staticmethod
    def shown(p: dict) -> list[list[str]]:
        hidden = {tuple(c) for c in p["hidden"]}
        out = [
            [("" if (r, c) in hidden else str(v)) for c, v in enumerate(row)]
            for r, row in enumerate(p["square"])
        ]
        out[p["asked"][0]][p["asked"][1]] = "?"
        return out

    def render(self, variant: Variant, modality: Modality) -> Representation:
        p = variant.params
        n = p["n"]
        grid = self.shown(p)
        if modality is Modality.IMAGE:
            labels = {(r, c): t for r, row in enumerate(grid) for c, t in enumerate(row) if t}
            ar, ac = p["asked"]
            # Scaled squares (magnitude) have long numbers: shrink them to fit a cell (4.2 in / n wide).
            longest = max(len(t) for t in labels.values())
            fontsize = min(20, 395 // (n * longest))

            def draw(ax: Axes) -> None:
                ax.set_xlim(-0.1, n + 0.1)
                ax.set_ylim(-0.1, n + 0.1)
                ax.set_aspect("equal")
                ax.set_axis_off()
                draw_cell_grid(
                    ax,
                    n,
                    n,
                    fills={(ar, ac): "#ffe9a8"},
                    labels=labels,
                    fontsize=fontsize,
                    lw=2.2,
                    label_colors={(ar, ac): "#c0392b"},
                )

            image = png(draw, size=(4.2, 4.2))
            text = (
                f"The image shows a {n} x {n} magic square; some cells are empty and one is marked "
                f"'?'.\n\n{variant.question}"
            )
            return Representation(modality, text, image_png=image)
        if modality is Modality.LATEX:
            rows = [" & ".join(t if t else "\\square" for t in row) for row in grid]
            body = " \\\\\n".join(rows)
            latex = (
                "\\begin{array}{|"
                + "c|" * n
                + "}\n\\hline\n"
                + body.replace(" \\\\\n", " \\\\ \\hline\n")
                + " \\\\ \\hline\n\\end{array}"
            )
            text = (
                f"A {n} x {n} magic square is written below; $\\square$ marks an empty cell and ? the cell "
                f"to find.\n\n$$\n{latex}\n$$\n\n{variant.question}"
            )
            return Representation(modality, text, extra={"latex": latex})
        raise AssertionError(f"unhandled modality {modality}")
