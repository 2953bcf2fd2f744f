"""A number pyramid (each brick is the sum of the two below it) with one brick to find.

Graph-structure variation: the pyramid has 3 to 5 rows and a different set of bricks is filled in each
time; exactly enough are given to pin down the asked brick by filling in bricks one at a time (a brick
is found once two of "it and the two below it" are known), and at least two such steps are needed.
Numerical variation: the bottom row. Rows are listed top to bottom; row r has r + 1 bricks.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from matplotlib.axes import Axes

from isodyn.core import AnswerType, Level, Modality, Representation, Topic, Variant, VariationType
from isodyn.generators.base import Draw, SeedProgram
from isodyn.modalities.canvas import png
from isodyn.modalities.shapes import draw_box

Cell = tuple[int, int]
ORDINALS = ("first", "second", "third", "fourth", "fifth")


def build(bottom: list[int]) -> list[list[int]]:
    rows = [list(bottom)]
    while len(rows[0]) > 1:
        below = rows[0]
        rows.insert(0, [below[i] + below[i + 1] for i in range(len(below) - 1)])
    return rows


def propagate(n: int, known: dict[Cell, int]) -> list[tuple[Cell, int, str]]:
    """Fill bricks one at a time; returns (cell, value, reason) in the order found."""
    known = dict(known)
    steps = []
    changed = True
    while changed:
        changed = False
        for r in range(n - 1):
            for i in range(r + 1):
                top, left, right = (r, i), (r + 1, i), (r + 1, i + 1)
                have = [c in known for c in (top, left, right)]
                if sum(have) != 2:
                    continue
                if not have[0]:
                    v = known[left] + known[right]
                    steps.append((top, v, f"{known[left]} + {known[right]} = {v}"))
                    known[top] = v
                elif not have[1]:
                    v = known[top] - known[right]
                    steps.append((left, v, f"{known[top]} - {known[right]} = {v}"))
                    known[left] = v
                else:
                    v = known[top] - known[left]
                    steps.append((right, v, f"{known[top]} - {known[left]} = {v}"))
                    known[right] = v
                changed = True
    return steps


def cell_words(c: Cell) -> str:
    return f"the {ORDINALS[c[1]]} brick of row {c[0] + 1}"


def solution_text(p: dict) -> str:
    n, shown, asked = p["rows"], {tuple(c): v for c, v in p["shown"]}, tuple(p["asked"])
    steps = [
        "Number the rows from the top (row 1 is the single top brick) and the bricks in each row from the "
        "left. Each brick equals the sum of the two bricks below it, so whenever two of a brick and its two "
        "lower neighbours are known, the third follows (by adding or subtracting)."
    ]
    for cell, value, how in propagate(n, shown):
        steps.append(f"{cell_words(cell).capitalize()}: {how}.")
        if cell == asked:
            steps.append(f"That is the brick marked '?'.\nAnswer: {value}")
            break
    return "\n".join(steps)


class NumberPyramid(SeedProgram):
    seed_id = "dynamath_number_pyramid"
    topic = Topic.PUZZLE_TEST
    level = Level.ELEMENTARY
    answer_type = AnswerType.INT
    variation_types = (VariationType.GRAPH_STRUCTURE, VariationType.NUMERICAL_VALUE)
    param_variation = {
        "rows": VariationType.GRAPH_STRUCTURE,
        "shown": VariationType.GRAPH_STRUCTURE,
        "bottom": VariationType.NUMERICAL_VALUE,
    }
    modalities = (Modality.IMAGE, Modality.CODE)
    # bottom rows (12^3 .. 12^5) x admissible given/asked patterns
    variant_space = 12**3 * 10 + 12**4 * 60 + 12**5 * 300

    def sample(self, rng: np.random.Generator) -> Draw:
        n = int(rng.choice([3, 4, 4, 5]))
        bottom = [int(v) for v in rng.integers(1, 13, size=n)]
        values = build(bottom)
        cells = [(r, i) for r in range(n) for i in range(r + 1)]
        while True:
            picks = rng.choice(len(cells), size=n + 1, replace=False)
            given = [cells[int(k)] for k in picks[:n]]
            asked = cells[int(picks[n])]
            steps = propagate(n, {c: values[c[0]][c[1]] for c in given})
            found = [s[0] for s in steps]
            if asked in found and found.index(asked) >= 1:
                break
        shown = [[list(c), values[c[0]][c[1]]] for c in sorted(given)]
        p = {"rows": n, "bottom": bottom, "shown": shown, "asked": list(asked)}
        return self.redraw(p)

    # --- perturbations -----------------------------------------------------------------------------
    perturbations = frozenset({"noop", "magnitude"})
    truth_reads = ("rows", "bottom", "asked")

    def redraw(self, params: dict[str, Any]) -> Draw:
        asked = params["asked"]
        question = (
            "In this number pyramid, each brick is the sum of the two bricks directly below it. Which number "
            "goes in the brick marked with a question mark?"
        )
        value = build(params["bottom"])[asked[0]][asked[1]]
        return Draw(params=params, question=question, answer=str(value), solution=solution_text(params))

    def noop_clause(self, params: dict[str, Any], rng: np.random.Generator) -> str:
        n = params["rows"]
        k = int(rng.integers(2, 15))
        said = (
            f"The pyramid was built by a class of {k + 15} pupils as a warm-up puzzle.",
            f"Each brick of the pyramid is drawn {k} cm wide on the classroom poster.",
            f"A bigger pyramid with {n + 1} rows is the next puzzle on the sheet.",
            f"It took Mia {k} minutes to solve a similar pyramid last week.",
            f"The pyramid is puzzle number {k} in the booklet.",
        )
        return said[int(rng.integers(len(said)))]

    def scaled(self, params: dict[str, Any], factor: int) -> dict[str, Any]:
        # Sums are linear: the bottom row times factor multiplies every brick by factor.
        shown = [[cell, v * factor] for cell, v in params["shown"]]
        return {**params, "bottom": [v * factor for v in params["bottom"]], "shown": shown}

    def numbers(self, params: dict[str, Any]) -> tuple[float, ...]:
        return tuple(float(v) for _, v in params["shown"])

    @staticmethod
    def grid(p: dict) -> list[list[str | None]]:
        rows: list[list[str | None]] = [[None] * (r + 1) for r in range(p["rows"])]
        for (r, i), v in p["shown"]:
            rows[r][i] = str(v)
        rows[p["asked"][0]][p["asked"][1]] = "?"
        return rows

    def render(self, variant: Variant, modality: Modality) -> Representation:
        p = variant.params
        n = p["rows"]
        grid = self.grid(p)
        if modality is Modality.IMAGE:
            w, h = 1.6, 0.85

            def draw(ax: Axes) -> None:
                ax.set_xlim(-0.2, n * w + 0.2)
                ax.set_ylim(-0.2, n * h + 0.2)
                ax.set_aspect("equal")
                ax.set_axis_off()
                for r, row in enumerate(grid):
                    x0 = (n - (r + 1)) * w / 2
                    y = (n - 1 - r) * h
                    for i, txt in enumerate(row):
                        asked = txt == "?"
                        draw_box(
                            ax,
                            x0 + i * w,
                            y,
                            w,
                            h,
                            txt or "",
                            fill="#ffe9a8" if asked else ("#f4d9c6" if txt else "white"),
                            fontsize=17,
                            bold=True,
                            color="#c0392b" if asked else "black",
                            lw=2,
                        )

            image = png(draw, size=(min(7.0, 1.3 * n + 1.2), min(5.0, 0.75 * n + 0.9)))
            text = (
                f"The image shows a number pyramid of {n} rows of bricks; some bricks show numbers, some are "
                f"empty, and one is marked '?'.\n\n{variant.question}"
            )
            return Representation(modality, text, image_png=image)
        if modality is Modality.CODE:
            body = ",\n".join(
                "    [" + ", ".join("None" if t is None else (repr(t) if t == "?" else t) for t in row) + "]"
                for row in grid
            )
            code = (
                "# A number pyramid, rows listed from the top; row k has k bricks, left to right.\n# None "
                f"is an empty brick and '?' the brick to find.\npyramid = [\n{body},\n]\n"
            )
            text = (
                "The Python list below describes a number "
                f"pyramid.\n\n```python\n{code}```\n\n{variant.question}"
            )
            return Representation(modality, text, extra={"code": code})
        raise AssertionError(f"unhandled modality {modality}")
