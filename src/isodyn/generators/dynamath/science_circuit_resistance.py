"""Scientific figure: the equivalent resistance between terminals A and B of a resistor network.

The network is a random series-parallel tree of 3 to 5 resistors (its structure changes between
variants), laid out recursively: series parts side by side, parallel parts stacked between two rails.
Resistors are drawn as US zigzags or as IEC rectangles (a symbolic substitution). The CODE form is
the netlist (which resistor joins which two junctions), so a test can solve the network by nodal
analysis, independently of the series/parallel formulas used here.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any

import numpy as np
from matplotlib.axes import Axes
from matplotlib.patches import Circle, Rectangle

from isodyn.core import AnswerType, Level, Modality, Representation, Topic, Variant, VariationType
from isodyn.generators.base import Draw, SeedProgram
from isodyn.modalities.formatting import code_block, fmt_exact, fmt_number
from isodyn.modalities.images import render_png

_VALUES = (1, 2, 3, 4, 5, 6, 8, 10, 12, 15, 20, 30)
_CELL_W, _CELL_H, _RAIL = 2.0, 0.9, 0.35  # a resistor's box; lead length on each side of a parallel block


# A tree is {"kind": "R", "id": i} or {"kind": "S" | "P", "parts": [...]}.


def build(rng: np.random.Generator, count: int, kind: str, next_id: list[int]) -> dict:
    if count == 1:
        next_id[0] += 1
        return {"kind": "R", "id": next_id[0] - 1}
    m = int(rng.integers(2, min(3, count) + 1))
    cuts = sorted(int(c) for c in rng.choice(np.arange(1, count), size=m - 1, replace=False))
    sizes = [b - a for a, b in zip([0, *cuts], [*cuts, count], strict=True)]
    other = "P" if kind == "S" else "S"
    return {"kind": kind, "parts": [build(rng, c, other, next_id) for c in sizes]}


def size(tree: dict) -> tuple[float, float]:
    if tree["kind"] == "R":
        return _CELL_W, _CELL_H
    dims = [size(t) for t in tree["parts"]]
    if tree["kind"] == "S":
        return sum(w for w, _ in dims), max(h for _, h in dims)
    return max(w for w, _ in dims) + 2 * _RAIL, sum(h for _, h in dims)


def resistance(tree: dict, values: list[int]) -> Fraction:
    if tree["kind"] == "R":
        return Fraction(values[tree["id"]])
    parts = [resistance(t, values) for t in tree["parts"]]
    if tree["kind"] == "S":
        return sum(parts, Fraction(0))
    return 1 / sum((1 / r for r in parts), Fraction(0))


def netlist(tree: dict) -> list[tuple[int, str, str]]:
    """(resistor id, node, node) for each resistor; terminals are A and B, junctions n1, n2, ..."""
    out: list[tuple[int, str, str]] = []
    counter = [0]

    def walk(t: dict, a: str, b: str) -> None:
        if t["kind"] == "R":
            out.append((t["id"], a, b))
        elif t["kind"] == "P":
            for part in t["parts"]:
                walk(part, a, b)
        else:
            nodes = [a]
            for _ in t["parts"][:-1]:
                counter[0] += 1
                nodes.append(f"n{counter[0]}")
            nodes.append(b)
            for part, x, y in zip(t["parts"], nodes, nodes[1:], strict=False):
                walk(part, x, y)

    walk(tree, "A", "B")
    return sorted(out)


def _describe(tree: dict, values: list[int]) -> str:
    if tree["kind"] == "R":
        return f"R{tree['id'] + 1}"
    inner = (" + " if tree["kind"] == "S" else " || ").join(_describe(t, values) for t in tree["parts"])
    return f"({inner})"


def solution_text(params: dict) -> str:
    tree, values = params["tree"], params["values"]
    steps = [
        "Resistors in series add: R = R1 + R2 + ...; resistors in parallel combine as 1/R = 1/R1 + "
        "1/R2 + ....",
        "Given: " + ", ".join(f"R{i + 1} = {v} ohm" for i, v in enumerate(values)) + ".",
        f"Structure between A and B (+ series, || parallel): {_describe(tree, values)[1:-1]}.",
    ]

    def reduce(t: dict) -> Fraction:
        if t["kind"] == "R":
            return Fraction(values[t["id"]])
        parts = [reduce(x) for x in t["parts"]]
        names = _describe(t, values)
        if t["kind"] == "S":
            r = sum(parts, Fraction(0))
            steps.append(f"Series {names}: {' + '.join(fmt_exact(x) for x in parts)} = {fmt_exact(r)} ohm.")
        else:
            r = 1 / sum((1 / x for x in parts), Fraction(0))
            inv = " + ".join(f"1/({fmt_exact(x)})" if x.denominator > 1 else f"1/{x}" for x in parts)
            steps.append(f"Parallel {names}: 1 / ({inv}) = {fmt_exact(r)} ohm.")
        return r

    total = reduce(tree)
    if total.denominator > 1 and fmt_number(total) != fmt_exact(total):
        steps.append(f"{fmt_exact(total)} = {fmt_number(total)} to three decimals.")
    steps.append(f"Answer: {fmt_number(total)}")
    return "\n".join(steps)


# ---------------------------------------------------------------------------------------------- drawing


def circuit_png(tree: dict, values: list[int], symbol: str) -> bytes:
    width, height = size(tree)

    def wire(ax: Axes, xs: list[float], ys: list[float]) -> None:
        ax.plot(xs, ys, color="black", linewidth=1.6, solid_capstyle="round", zorder=2)

    def resistor(ax: Axes, x0: float, y: float, rid: int) -> None:
        body0, body1 = x0 + 0.6, x0 + _CELL_W - 0.6
        wire(ax, [x0, body0], [y, y])
        wire(ax, [body1, x0 + _CELL_W], [y, y])
        if symbol == "zigzag":
            xs = np.linspace(body0, body1, 9)
            ys = [y] + [y + (0.13 if i % 2 else -0.13) for i in range(1, 8)] + [y]
            wire(ax, list(xs), ys)
        else:
            ax.add_patch(
                Rectangle(
                    (body0, y - 0.1),
                    body1 - body0,
                    0.2,
                    facecolor="white",
                    edgecolor="black",
                    lw=1.6,
                    zorder=3,
                )
            )
        xc = x0 + _CELL_W / 2
        size = 11 if values[rid] < 1000 else 9  # a scaled value (magnitude) still fits its cell
        ax.text(xc, y + 0.19, f"R{rid + 1} = {values[rid]} Ω", ha="center", va="bottom", fontsize=size)

    def place(ax: Axes, t: dict, x0: float, y: float) -> None:
        """Draw t with its left terminal at (x0, y); it spans its full width at wire height y."""
        w, _ = size(t)
        if t["kind"] == "R":
            resistor(ax, x0, y, t["id"])
            return
        if t["kind"] == "S":
            x = x0
            for part in t["parts"]:
                place(ax, part, x, y)
                x += size(part)[0]
            return
        total_h = size(t)[1]
        top = y + total_h / 2
        rows = []
        for part in t["parts"]:
            pw, ph = size(part)
            cy = top - ph / 2
            rows.append(cy)
            place(ax, part, x0 + _RAIL, cy)
            if pw < w - 2 * _RAIL:  # pad a narrower branch with wire up to the right rail
                wire(ax, [x0 + _RAIL + pw, x0 + w - _RAIL], [cy, cy])
            top -= ph
        for xr in (x0 + _RAIL, x0 + w - _RAIL):
            wire(ax, [xr, xr], [rows[0], rows[-1]])
            for cy in rows:
                ax.add_patch(Circle((xr, cy), 0.045, color="black", zorder=4))
        wire(ax, [x0, x0 + _RAIL], [y, y])
        wire(ax, [x0 + w - _RAIL, x0 + w], [y, y])

    def draw(ax: Axes) -> None:
        lead = 0.5
        wire(ax, [-lead, 0], [0, 0])
        wire(ax, [width, width + lead], [0, 0])
        place(ax, tree, 0.0, 0.0)
        for x, name, ha in ((-lead, "A", "right"), (width + lead, "B", "left")):
            ax.add_patch(Circle((x, 0), 0.08, facecolor="white", edgecolor="black", lw=1.6, zorder=5))
            ax.text(
                x + (-0.15 if ha == "right" else 0.15),
                0,
                name,
                ha=ha,
                va="center",
                fontsize=14,
                fontweight="bold",
            )
        ax.set_xlim(-lead - 0.6, width + lead + 0.6)
        ax.set_ylim(-height / 2 + 0.2, height / 2 + 0.3)
        ax.set_aspect("equal")
        ax.axis("off")

    scale = 0.62  # inches per unit
    fig_w = max(4.0, (width + 2.2) * scale)
    fig_h = max(2.2, (height + 0.6) * scale + 0.3)
    return render_png(draw, size=(fig_w, fig_h))


class CircuitResistance(SeedProgram):
    seed_id = "dynamath_circuit_resistance"
    topic = Topic.SCIENTIFIC_FIGURE
    level = Level.HIGH_SCHOOL
    answer_type = AnswerType.FLOAT
    variation_types = (
        VariationType.NUMERICAL_VALUE,
        VariationType.GRAPH_STRUCTURE,
        VariationType.SYMBOLIC_SUBSTITUTION,
    )
    param_variation = {
        "tree": VariationType.GRAPH_STRUCTURE,
        "values": VariationType.NUMERICAL_VALUE,
        "symbol": VariationType.SYMBOLIC_SUBSTITUTION,
    }
    modalities = (Modality.IMAGE, Modality.CODE)
    # ~40 series-parallel structures x 12^(3..5) values x 2 symbols
    variant_space = 40 * 12**4 * 2

    def sample(self, rng: np.random.Generator) -> Draw:
        while True:
            count = int(rng.integers(3, 6))
            tree = build(rng, count, "S" if rng.random() < 0.5 else "P", [0])
            w, h = size(tree)
            if w <= 4 * _CELL_W + 4 * _RAIL and h <= 3 * _CELL_H:
                break
        values = [int(v) for v in rng.choice(_VALUES, size=count)]
        params = {"tree": tree, "values": values, "symbol": "zigzag" if rng.random() < 0.5 else "box"}
        return self.redraw(params)

    # --- perturbations -----------------------------------------------------------------------------
    perturbations = frozenset({"noop", "magnitude"})
    truth_reads = ("tree", "values")

    def redraw(self, params: dict[str, Any]) -> Draw:
        question = "What is the equivalent resistance between terminals A and B, in ohms?"
        answer = fmt_number(resistance(params["tree"], params["values"]))
        return Draw(params, question, answer, solution_text(params))

    def noop_clause(self, params: dict[str, Any], rng: np.random.Generator) -> str:
        n = len(params["values"])
        i = int(rng.integers(n)) + 1
        k = int(rng.integers(2, 13))
        said = (
            f"A battery of {k} V will later be connected between A and B.",
            f"The {n} resistors were taken from a box of {k * 10}.",
            f"R{i} was the last resistor soldered into the circuit.",
            f"The circuit was built on a breadboard by a student in {k} minutes.",
            f"Each resistor is rated for up to {k} watts, far more than it will carry here.",
        )
        return said[int(rng.integers(len(said)))]

    def scaled(self, params: dict[str, Any], factor: int) -> dict[str, Any]:
        return {**params, "values": [v * factor for v in params["values"]]}

    def numbers(self, params: dict[str, Any]) -> tuple[float, ...]:
        return tuple(float(v) for v in params["values"])

    def render(self, variant: Variant, modality: Modality) -> Representation:
        p = variant.params
        n = len(p["values"])
        if modality is Modality.IMAGE:
            png = circuit_png(p["tree"], p["values"], p["symbol"])
            text = (
                f"The image shows a circuit of {n} resistors R1 to R{n} (each labelled with its resistance "
                f"in ohms) between terminals A and B; black dots are junctions.\n\n{variant.question}"
            )
            return Representation(modality, text, image_png=png)
        if modality is Modality.CODE:
            lines = [
                "# Resistor network between terminals A and B: (name, node, node, resistance in ohms).",
                "# Junctions n1, n2, ... are where wires meet; all wires have zero resistance.",
                "resistors = [",
            ]
            lines += [f'    ("R{i + 1}", "{a}", "{b}", {p["values"][i]}),' for i, a, b in netlist(p["tree"])]
            lines.append("]")
            code = "\n".join(lines) + "\n"
            text = f"{code_block(code)}\n\n{variant.question}"
            return Representation(modality, text, extra={"code": code})
        raise AssertionError(f"unhandled modality {modality}")
