"""Count the monotone paths through a grid with blocked cells.

A token moves from the start cell S to the end cell E one cell at a time, only right or up (S in the
bottom-left corner) or only right or down (S in the top-left corner: geometric transformation), and
never onto a black cell. Graph-structure variation: the grid size (3 to 6 rows and columns) and the
blocked cells; the count is solved in the worked solution by the usual "add the two ways in" table.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from matplotlib.axes import Axes

from isodyn.core import AnswerType, Level, Modality, Representation, Topic, Variant, VariationType
from isodyn.generators.base import Draw, SeedProgram
from isodyn.modalities.canvas import png
from isodyn.modalities.shapes import draw_cell_grid

Cell = tuple[int, int]  # (row from the top, column from the left)


def endpoints(p: dict) -> tuple[Cell, Cell]:
    r, c = p["rows"], p["cols"]
    if p["direction"] == "up":
        return (r - 1, 0), (0, c - 1)
    return (0, 0), (r - 1, c - 1)


def ways_table(p: dict) -> list[list[int]]:
    """ways[r][c]: number of allowed paths from S to cell (r, c)."""
    rows, cols = p["rows"], p["cols"]
    blocked = {tuple(b) for b in p["blocked"]}
    (sr, sc), _ = endpoints(p)
    ways = [[0] * cols for _ in range(rows)]
    vstep = -1 if p["direction"] == "up" else 1  # the row change of a vertical move
    order = range(rows - 1, -1, -1) if p["direction"] == "up" else range(rows)
    for r in order:
        for c in range(cols):
            if (r, c) in blocked:
                continue
            if (r, c) == (sr, sc):
                ways[r][c] = 1
                continue
            from_left = ways[r][c - 1] if c > 0 else 0
            prev_r = r - vstep
            from_vertical = ways[prev_r][c] if 0 <= prev_r < rows else 0
            ways[r][c] = from_left + from_vertical
    return ways


def solution_text(p: dict) -> str:
    ways = ways_table(p)
    blocked = {tuple(b) for b in p["blocked"]}
    _, (er, ec) = endpoints(p)
    below = "below" if p["direction"] == "up" else "above"
    steps = [
        f"Every path ends with a move into a cell either from its left or from the cell {below} it, so the "
        "number of ways to reach a cell is the sum of the ways to reach those two cells; a black cell has 0 "
        "ways and S has 1.",
        "Filling in the grid that way (rows from the top, X = black cell):",
    ]
    for r in range(p["rows"]):
        steps.append(
            "  " + "  ".join("X" if (r, c) in blocked else str(ways[r][c]) for c in range(p["cols"]))
        )
    steps.append(f"The end cell E holds {ways[er][ec]}.")
    steps.append(f"Answer: {ways[er][ec]}")
    return "\n".join(steps)


class GridPaths(SeedProgram):
    seed_id = "dynamath_grid_paths"
    topic = Topic.PUZZLE_TEST
    level = Level.HIGH_SCHOOL
    answer_type = AnswerType.INT
    variation_types = (
        VariationType.GRAPH_STRUCTURE,
        VariationType.GEOMETRIC_TRANSFORMATION,
        VariationType.NUMERICAL_VALUE,
    )
    param_variation = {
        "rows": VariationType.GRAPH_STRUCTURE,
        "cols": VariationType.GRAPH_STRUCTURE,
        "blocked": VariationType.GRAPH_STRUCTURE,
        "direction": VariationType.GEOMETRIC_TRANSFORMATION,
    }
    modalities = (Modality.IMAGE, Modality.CODE)
    # grid sizes x blocked sets (1 to 4 of up to 34 cells) x 2 directions
    variant_space = 16 * 40_000 * 2

    def sample(self, rng: np.random.Generator) -> Draw:
        while True:
            rows, cols = int(rng.integers(3, 7)), int(rng.integers(3, 7))
            direction = "up" if rng.random() < 0.5 else "down"
            p = {"rows": rows, "cols": cols, "direction": direction, "blocked": []}
            s, e = endpoints(p)
            free = [(r, c) for r in range(rows) for c in range(cols) if (r, c) not in (s, e)]
            k = int(rng.integers(1, min(5, len(free) // 3) + 1))
            picks = rng.choice(len(free), size=k, replace=False)
            p["blocked"] = sorted([list(free[int(i)]) for i in picks])
            total = ways_table(p)[e[0]][e[1]]
            if 2 <= total <= 400:
                break
        return self.redraw(p)

    # --- perturbations -----------------------------------------------------------------------------
    perturbations = frozenset({"noop"})
    truth_reads = ("rows", "cols", "direction", "blocked")

    def redraw(self, params: dict[str, Any]) -> Draw:
        moves = "right or up" if params["direction"] == "up" else "right or down"
        question = (
            f"A token moves from the start cell S to the end cell E one cell at a time, only {moves}, and "
            "may not enter a black cell. How many different paths can it take?"
        )
        _, e = endpoints(params)
        total = ways_table(params)[e[0]][e[1]]
        return Draw(params=params, question=question, answer=str(total), solution=solution_text(params))

    def noop_clause(self, params: dict[str, Any], rng: np.random.Generator) -> str:
        k = int(rng.integers(2, 10))
        said = (
            f"Each cell of the grid is {k} cm wide.",
            f"This puzzle is number {k} in the book.",
            f"A pupil traced one of the paths with a pencil in {k} seconds.",
            f"The grid was drawn on squared paper {k} days ago.",
            f"The token is a wooden counter about {k} mm across.",
        )
        return said[int(rng.integers(len(said)))]

    @staticmethod
    def rows_text(p: dict) -> list[str]:
        blocked = {tuple(b) for b in p["blocked"]}
        s, e = endpoints(p)
        out = []
        for r in range(p["rows"]):
            row = ""
            for c in range(p["cols"]):
                row += "S" if (r, c) == s else "E" if (r, c) == e else "#" if (r, c) in blocked else "."
            out.append(row)
        return out

    def render(self, variant: Variant, modality: Modality) -> Representation:
        p = variant.params
        rows, cols = p["rows"], p["cols"]
        if modality is Modality.IMAGE:
            s, e = endpoints(p)
            fills = {tuple(b): "black" for b in p["blocked"]}
            fills[s] = "#b8e0b8"
            fills[e] = "#f6c6c6"

            def draw(ax: Axes) -> None:
                ax.set_xlim(-0.1, cols + 0.1)
                ax.set_ylim(-0.1, rows + 0.1)
                ax.set_aspect("equal")
                ax.set_axis_off()
                draw_cell_grid(ax, rows, cols, fills=fills, labels={s: "S", e: "E"}, fontsize=18, lw=1.8)

            side = 0.75
            image = png(draw, size=(max(3.0, cols * side + 0.6), max(3.0, rows * side + 0.6)))
            text = (
                f"The image shows a grid of {rows} rows and {cols} columns of cells; S is the start cell, E "
                f"the end cell, and black cells are blocked.\n\n{variant.question}"
            )
            return Representation(modality, text, image_png=image)
        if modality is Modality.CODE:
            body = "\n".join(f'    "{row}",' for row in self.rows_text(p))
            code = (
                "# The grid, top row first: S = start cell, E = end cell, # = blocked (black) cell, . = "
                f"free cell.\ngrid = [\n{body}\n]\n"
            )
            text = (
                "The Python list below describes a grid of "
                f"cells.\n\n```python\n{code}```\n\n{variant.question}"
            )
            return Representation(modality, text, extra={"code": code})
        raise AssertionError(f"unhandled modality {modality}")
