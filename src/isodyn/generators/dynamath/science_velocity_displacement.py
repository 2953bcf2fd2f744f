"""Scientific figure: displacement or distance travelled from a velocity-time graph (area under it).

The graph is a polyline through points at whole seconds with whole-number velocities. Its shape
changes between variants (trapezoid: speed up, cruise, brake; triangle; a trip that reverses; an
irregular profile) and the question asks for the displacement over the whole trip, over a part of it,
or the total distance (which differs from the displacement once the velocity turns negative).
"""

from __future__ import annotations

import itertools
from fractions import Fraction
from typing import Any

import numpy as np
from matplotlib.axes import Axes
from matplotlib.ticker import MultipleLocator

from isodyn.core import AnswerType, Level, Modality, Representation, Topic, Variant, VariationType
from isodyn.generators.base import Draw, SeedProgram
from isodyn.modalities.formatting import code_block, fmt_number
from isodyn.modalities.images import render_png

_SHAPES = ("trapezoid", "triangle", "reversal", "irregular")


def _times(rng: np.random.Generator, k: int, total: int) -> list[int]:
    inner = sorted(int(t) for t in rng.choice(np.arange(1, total), size=k - 2, replace=False))
    return [0, *inner, total]


def make_points(rng: np.random.Generator, shape: str) -> list[list[int]]:
    total = int(rng.integers(6, 13))
    if shape == "trapezoid":
        t = _times(rng, 4, total)
        top = int(rng.integers(3, 9))
        vs = [int(rng.integers(0, 3)), top, top, int(rng.integers(0, 3))]
    elif shape == "triangle":
        t = _times(rng, 3, total)
        vs = [0, int(rng.integers(3, 9)), 0]
    elif shape == "reversal":
        t = _times(rng, 5, total)
        up, down = int(rng.integers(3, 8)), -int(rng.integers(2, 5))
        vs = [int(rng.integers(0, 3)), up, up if rng.random() < 0.5 else up - 1, down, 0]
    else:
        k = int(rng.integers(5, 7))
        t = _times(rng, k, total)
        vs = [int(rng.integers(0, 5))]
        while len(vs) < k:  # a gentle profile: steps of at most 4 m/s, at most one change of sign
            v = vs[-1] + int(rng.integers(-4, 5))
            crossings = sum((x < 0) != (y < 0) for x, y in zip(vs, [*vs[1:], v], strict=False))
            if -4 <= v <= 8 and crossings <= 1:
                vs.append(v)
    return [[a, b] for a, b in zip(t, vs, strict=True)]


def pieces(
    points: list[list[int]], a: int, b: int, split: bool
) -> list[tuple[Fraction, Fraction, Fraction, Fraction]]:
    """Straight pieces (t0, v0, t1, v1) between times a and b; with `split`, cut where v crosses zero."""
    out = []
    for (t0, v0), (t1, v1) in itertools.pairwise(points):
        if t1 <= a or t0 >= b:
            continue
        t0f, v0f, t1f, v1f = Fraction(t0), Fraction(v0), Fraction(t1), Fraction(v1)
        if split and v0 * v1 < 0:
            tz = t0f + v0f * (t1f - t0f) / (v0f - v1f)
            out += [(t0f, v0f, tz, Fraction(0)), (tz, Fraction(0), t1f, v1f)]
        else:
            out.append((t0f, v0f, t1f, v1f))
    return out


def solution_text(params: dict) -> str:
    pts, (a, b), kind = params["points"], params["interval"], params["kind"]
    steps = [
        "The area between the graph and the time axis gives the displacement (area below the axis counts "
        "as negative); the total distance adds all areas as positive.",
        "Read the corner points: " + ", ".join(f"({t} s, {v} m/s)" for t, v in pts) + ".",
    ]
    total = Fraction(0)
    for t0, v0, t1, v1 in pieces(pts, a, b, kind == "distance"):
        area = (v0 + v1) / 2 * (t1 - t0)
        used = abs(area) if kind == "distance" else area
        total += used
        steps.append(
            f"From t = {fmt_number(t0)} to {fmt_number(t1)} s: area ({fmt_number(v0)} + "
            f"{fmt_number(v1)}) / 2 x "
            f"{fmt_number(t1 - t0)} = {fmt_number(area)}"
            + (f", counted as {fmt_number(used)}" if used != area else "")
            + "."
        )
    what = "total distance" if kind == "distance" else "displacement"
    steps.append(f"Adding the pieces, the {what} is {fmt_number(total)} m.")
    steps.append(f"Answer: {fmt_number(total)}")
    return "\n".join(steps)


def answer_of(params: dict) -> Fraction:
    (a, b), kind = params["interval"], params["kind"]
    areas = [
        (v0 + v1) / 2 * (t1 - t0) for t0, v0, t1, v1 in pieces(params["points"], a, b, kind == "distance")
    ]
    return sum((abs(x) for x in areas) if kind == "distance" else areas, Fraction(0))


def vt_png(points: list[list[int]], unit: int = 1) -> bytes:
    """The graph with a velocity gridline every `unit` m/s (more than 1 once the velocities are scaled)."""
    ts, vs = [t for t, _ in points], [v for _, v in points]
    lo, hi = min(0, min(vs)) - unit, max(vs) + unit

    def draw(ax: Axes) -> None:
        ax.plot(ts, vs, color="#d62728", linewidth=2.2, marker="o", markersize=5, zorder=3)
        ax.axhline(0, color="black", linewidth=1.2)
        ax.set_xlim(0, ts[-1] + 0.5)
        ax.set_ylim(lo, hi)
        ax.xaxis.set_major_locator(MultipleLocator(1))
        ax.yaxis.set_major_locator(MultipleLocator(unit))
        ax.grid(True, color="0.85", linewidth=0.7)
        ax.set_axisbelow(True)
        ax.tick_params(labelsize=10)
        ax.set_xlabel("time t (s)", fontsize=11)
        ax.set_ylabel("velocity v (m/s)", fontsize=11)
        ax.set_title("Velocity-time graph", fontsize=12)

    return render_png(draw, size=(5.5, 4))


class VelocityDisplacement(SeedProgram):
    seed_id = "dynamath_velocity_displacement"
    topic = Topic.SCIENTIFIC_FIGURE
    level = Level.HIGH_SCHOOL
    answer_type = AnswerType.FLOAT
    variation_types = (VariationType.NUMERICAL_VALUE, VariationType.FUNCTION_TYPE)
    param_variation = {
        "shape": VariationType.FUNCTION_TYPE,
        "points": VariationType.NUMERICAL_VALUE,
    }
    modalities = (Modality.IMAGE, Modality.CODE)
    # 4 shapes x ~7 durations x ~100 corner-time sets x ~10^3 velocity lists x 3 question kinds
    variant_space = 4 * 7 * 100 * 1000 * 3

    def sample(self, rng: np.random.Generator) -> Draw:
        shape = str(rng.choice(_SHAPES))
        while True:
            pts = make_points(rng, shape)
            reverses = any(v < 0 for _, v in pts)
            roll = rng.random()
            if reverses and roll < 0.45:
                kind, interval = "distance", [0, pts[-1][0]]
            elif roll < 0.7:
                kind, interval = "displacement", [0, pts[-1][0]]
            else:
                a, b = sorted(int(x) for x in rng.choice([t for t, _ in pts], size=2, replace=False))
                kind, interval = "displacement", [a, b]
            params = {"shape": shape, "points": pts, "kind": kind, "interval": interval}
            if answer_of(params) != 0 and interval[1] - interval[0] >= 2:
                break
        return self.redraw(params)

    # --- perturbations -----------------------------------------------------------------------------
    perturbations = frozenset({"noop", "magnitude"})
    truth_reads = ("points", "kind", "interval")

    def redraw(self, params: dict[str, Any]) -> Draw:
        (a, b), kind = params["interval"], params["kind"]
        what = "total distance travelled by" if kind == "distance" else "displacement of"
        question = f"What is the {what} the object between t = {a} s and t = {b} s, in metres?"
        return Draw(params, question, fmt_number(answer_of(params)), solution_text(params))

    def noop_clause(self, params: dict[str, Any], rng: np.random.Generator) -> str:
        k = int(rng.integers(2, 10))
        end = params["points"][-1][0]
        said = (
            f"The object is a trolley of mass {k} kg.",
            f"The velocity was recorded by a sensor that takes {k * 10} readings per second.",
            f"The recording ran for {end} s and was saved {k} minutes later.",
            f"The experiment was done by a group of {k} students.",
            f"The graph was printed on a sheet {k + 15} cm wide.",
        )
        return said[int(rng.integers(len(said)))]

    def scaled(self, params: dict[str, Any], factor: int) -> dict[str, Any]:
        # velocities only: the time grid stays at whole seconds, the velocity grid widens with them
        points = [[t, v * factor] for t, v in params["points"]]
        return {**params, "points": points, "v_unit": params.get("v_unit", 1) * factor}

    def numbers(self, params: dict[str, Any]) -> tuple[float, ...]:
        return tuple(float(v) for _, v in params["points"])

    def render(self, variant: Variant, modality: Modality) -> Representation:
        p = variant.params
        end = p["points"][-1][0]
        if modality is Modality.IMAGE:
            text = (
                f"The image shows the velocity-time graph of an object moving along a straight line from "
                f"t = 0 s to t = {end} s: straight segments joining the marked points.\n\n{variant.question}"
            )
            return Representation(modality, text, image_png=vt_png(p["points"], p.get("v_unit", 1)))
        if modality is Modality.CODE:
            pts = ", ".join(f"({t}, {v})" for t, v in p["points"])
            code = (
                "# Velocity-time graph of an object moving along a straight line:\n"
                "# points (t in s, v in m/s), joined in order by straight segments\n"
                f"points = [{pts}]\n"
            )
            text = f"{code_block(code)}\n\n{variant.question}"
            return Representation(modality, text, extra={"code": code})
        raise AssertionError(f"unhandled modality {modality}")
