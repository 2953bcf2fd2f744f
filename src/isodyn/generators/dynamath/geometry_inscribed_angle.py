"""Inscribed angle theorem: from the central angle to the inscribed angle, or back (multiple choice).

Points A, B, C lie on a circle with centre O. One of the angles AOB (central) and ACB (inscribed) is
labelled and the other is asked. Geometric transformation: the figure is rotated, the direction of the
question flips, and C moves between the major arc (ACB = AOB / 2) and the minor arc
(ACB = 180 - AOB / 2), the case models most often get wrong.
"""

from __future__ import annotations

import math

import numpy as np
from matplotlib.axes import Axes
from matplotlib.patches import Circle

from isodyn.core import AnswerType, Level, Modality, Representation, Topic, Variant, VariationType
from isodyn.generators.base import Draw, SeedProgram, format_choices, letter
from isodyn.modalities.geometry import angle_arc, figure_png, label, units_per_point


def _deg(v: float) -> str:
    return f"{int(v)}°" if v == int(v) else f"{v}°"


def _position(angle_deg: float) -> tuple[float, float]:
    t = math.radians(angle_deg)
    return (math.cos(t), math.sin(t))


def angles(p: dict) -> tuple[int, int]:
    """(central AOB, inscribed ACB) in degrees, from the construction."""
    central = p["central"]
    inscribed = central // 2 if p["arc"] == "major" else 180 - central // 2
    return central, inscribed


def solution_text(p: dict, choices: tuple[str, ...], answer: str) -> str:
    central, inscribed = angles(p)
    major = p["arc"] == "major"
    steps = []
    if p["find"] == "inscribed":
        steps.append(
            f"The central angle is $\\angle AOB = {central}°$; we need the inscribed angle $\\angle ACB$."
        )
    else:
        steps.append(
            f"The inscribed angle is $\\angle ACB = {inscribed}°$; we need the central angle $\\angle AOB$."
        )
    if major:
        steps.append(
            "C lies on the major arc, on the other side of chord AB from the marked central angle, so both "
            "angles stand on the same (minor) arc AB and the inscribed angle is half the central angle: "
            "$\\angle ACB = \\frac{1}{2}\\angle AOB$."
        )
        steps.append(
            f"$\\angle ACB = {central}° / 2 = {inscribed}°$."
            if p["find"] == "inscribed"
            else f"$\\angle AOB = 2 \\cdot {inscribed}° = {central}°$."
        )
    else:
        steps.append(
            "C lies on the minor arc AB, so $\\angle ACB$ stands on the major arc AB, whose central angle "
            "is the "
            "reflex angle $360° - \\angle AOB$. Hence $\\angle ACB = \\frac{1}{2}(360° - \\angle AOB) = "
            "180° - \\frac{1}{2}\\angle AOB$."
        )
        steps.append(
            f"$\\angle ACB = 180° - {central}° / 2 = {inscribed}°$."
            if p["find"] == "inscribed"
            else f"$\\angle AOB = 360° - 2 \\cdot {inscribed}° = {central}°$."
        )
    idx = "ABCDEFGHIJ".index(answer)
    steps.append(f"Answer: ({answer}) {choices[idx]}.")
    return "\n".join(steps)


class InscribedAngle(SeedProgram):
    seed_id = "dynamath_inscribed_angle"
    topic = Topic.PLANE_GEOMETRY
    level = Level.HIGH_SCHOOL
    answer_type = AnswerType.MULTIPLE_CHOICE
    variation_types = (VariationType.NUMERICAL_VALUE, VariationType.GEOMETRIC_TRANSFORMATION)
    param_variation = {
        "central": VariationType.NUMERICAL_VALUE,
        "arc": VariationType.GEOMETRIC_TRANSFORMATION,
        "find": VariationType.GEOMETRIC_TRANSFORMATION,
        "angle_a": VariationType.GEOMETRIC_TRANSFORMATION,
    }
    modalities = (Modality.IMAGE, Modality.LATEX)
    # 61 central angles x 2 directions x (major or, for wide angles, minor arc) x ~24 rotations x 24 orders
    variant_space = 61 * 2 * 3 * 24 * 24 // 2

    def sample(self, rng: np.random.Generator) -> Draw:
        central = int(rng.integers(20, 81)) * 2  # 40..160, even so the inscribed angle is a whole number
        arc = "minor" if central >= 100 and rng.random() < 0.45 else "major"
        find = "inscribed" if rng.random() < 0.6 else "central"
        start = float(rng.integers(0, 24)) * 15
        while True:  # keep C away from A, B and from the ends of the diameters through them
            u = float(rng.uniform(0.3, 0.7))
            c_at = start + u * central if arc == "minor" else start + central + u * (360 - central)
            gaps = [abs((c_at - t + 180) % 360 - 180) for t in (start + 180, start + central + 180)]
            if min(gaps) >= 25:
                break
        params = {
            "central": central,
            "arc": arc,
            "find": find,
            "angle_a": start,
            "angle_b": start + central,
            "angle_c": round(c_at % 360, 3),
        }
        _, inscribed = angles(params)
        if find == "inscribed":
            truth = inscribed
            given = central
            pool = {central // 2, central, 180 - central // 2, 2 * central, 90 - central // 2, 180 - central}
        else:
            truth = central
            given = inscribed
            pool = {
                2 * inscribed,
                inscribed,
                inscribed // 2,
                180 - inscribed,
                360 - 2 * inscribed,
                180 - 2 * inscribed,
            }
        distractors = sorted(v for v in pool if 0 < v < 360 and v != truth)
        for step in (10, -10, 20, -20, 30):  # too few distinct wrong angles (a few variants): nearby ones
            if len(distractors) >= 3:
                break
            if 0 < truth + step < 360 and truth + step not in distractors:
                distractors.append(truth + step)
        picked = [int(v) for v in rng.choice(distractors, size=3, replace=False)]
        options = [truth, *picked]
        order = rng.permutation(4)
        values = [options[int(i)] for i in order]
        choices = tuple(_deg(v) for v in values)
        answer = letter(values.index(truth))
        params["given"] = given
        asked = "∠ACB" if find == "inscribed" else "∠AOB (the angle at O smaller than 180°)"
        question = f"What is the measure of {asked}? " + format_choices(choices)
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
                "The image shows a circle with centre O and points A, B, C on the circle. The marked angle "
                "with "
                f"a value is given; the angle marked '?' is asked.\n\n{variant.question}"
            )
            return Representation(modality, text, image_png=_draw(p))
        if modality is Modality.LATEX:
            central, inscribed = angles(p)
            given = (
                f"the central angle $\\angle AOB = {central}^\\circ$ (the angle at O smaller than "
                "$180^\\circ$)"
                if p["find"] == "inscribed"
                else f"the inscribed angle $\\angle ACB = {inscribed}^\\circ$"
            )
            side = "major" if p["arc"] == "major" else "minor"
            text = (
                "Points $A$, $B$ and $C$ lie on a circle with centre $O$; the segments $OA$, $OB$, $CA$ and "
                f"$CB$ are drawn. Point $C$ lies on the {side} arc $AB$. Given {given}.\n\n{variant.question}"
            )
            return Representation(modality, text)
        raise AssertionError(f"unhandled modality {modality}")


def _segment_distance(q: np.ndarray, s0: tuple, s1: tuple) -> float:
    a, b = np.asarray(s0), np.asarray(s1)
    t = float(np.clip(np.dot(q - a, b - a) / np.dot(b - a, b - a), 0, 1))
    return float(np.linalg.norm(q - (a + t * (b - a))))


def _free_direction(angle_a: float, central: float, chords: list[tuple]) -> tuple[float, float]:
    """A direction from O for its label: outside the marked central angle and clear of the chords."""
    best, best_score = (0.0, -1.0), -math.inf
    for k in range(24):
        t = k * 15.0
        inside = (t - angle_a) % 360 <= central
        rays = [abs((t - r + 180) % 360 - 180) for r in (angle_a, angle_a + central)]
        pos = 0.12 * np.array([math.cos(math.radians(t)), math.sin(math.radians(t))])
        clear = min(_segment_distance(pos, *ch) for ch in chords)
        score = min(min(rays), 60) / 60 + 4 * min(clear, 0.1) - (2 if inside else 0)
        if score > best_score:
            best, best_score = (math.cos(math.radians(t)), math.sin(math.radians(t))), score
    return best


def _draw(p: dict) -> bytes:
    a, b, c = (_position(p[k]) for k in ("angle_a", "angle_b", "angle_c"))
    o = (0.0, 0.0)
    central, inscribed = angles(p)
    o_text = f"{central}°" if p["find"] == "inscribed" else "?"
    c_text = f"{inscribed}°" if p["find"] == "central" else "?"

    def draw(ax: Axes) -> None:
        ax.add_patch(Circle(o, 1.0, fill=False, color="black", lw=2))
        for q in (a, b):
            ax.plot([0, q[0]], [0, q[1]], color="black", lw=1.6)
            ax.plot([c[0], q[0]], [c[1], q[1]], color="black", lw=1.6)
        for q, name in ((a, "A"), (b, "B"), (c, "C")):
            ax.plot(*q, "o", color="black", ms=5, zorder=6)
            label(ax, q, name, offset=(q[0] * 14, q[1] * 14), size=14, box=False)
        ax.plot(0, 0, "o", color="black", ms=5, zorder=6)
        d = _free_direction(p["angle_a"], central, [(c, a), (c, b)])
        label(ax, o, "O", offset=(d[0] * 14, d[1] * 14), size=14, box=False)
        sc = units_per_point((-1.12, -1.12, 1.12, 1.12))
        angle_arc(ax, o, a, b, 0.16, text=o_text, text_radius=0.34, color="#1f5fbf", lw=1.8, scale=sc)
        c_small = 0.15 if inscribed < 100 else 0.11
        angle_arc(
            ax, c, a, b, c_small, text=c_text, text_radius=c_small + 0.17, color="#d62728", lw=1.8, scale=sc
        )

    return figure_png(draw, (-1.0, -1.0, 1.0, 1.0), margin=0.12)
