"""Crack a three-digit code from guesses with hints ("one digit is correct and well placed", ...).

The code has three different digits (a leading 0 is allowed). Four to six hinted guesses are drawn at
random until exactly one code fits them all, each guess ruling out more codes. Real-life context: a
padlock, a safe, a suitcase, a treasure chest, a bike lock; numerical value: the code and the guesses.
The answer is text: the three digits, e.g. `042`.
"""

from __future__ import annotations

import itertools
from typing import Any

import numpy as np
from matplotlib.axes import Axes

from isodyn.core import AnswerType, Level, Modality, Representation, Topic, Variant, VariationType
from isodyn.generators.base import Draw, SeedProgram
from isodyn.modalities.canvas import png
from isodyn.modalities.shapes import draw_box

CODES: tuple[str, ...] = tuple("".join(t) for t in itertools.permutations("0123456789", 3))
HINTS = {
    (0, 0): "Nothing is correct",
    (1, 0): "One digit is correct and well placed",
    (0, 1): "One digit is correct but wrongly placed",
    (0, 2): "Two digits are correct but wrongly placed",
    (1, 1): "Two digits are correct: one well placed, one wrongly placed",
    (2, 0): "Two digits are correct and well placed",
    (0, 3): "All digits are correct but all wrongly placed",
}
CONTEXTS = ("padlock", "safe", "suitcase lock", "treasure chest", "bike lock")
ANSWER_FORMAT = "the three digits of the code, e.g. 042"


def feedback(code: str, guess: str) -> tuple[int, int]:
    """(well placed, correct but wrongly placed) for codes with distinct digits."""
    well = sum(a == b for a, b in zip(code, guess, strict=True))
    common = len(set(code) & set(guess))
    return well, common - well


def fits(code: str, clues: list[list]) -> bool:
    return all(feedback(code, g) == (w, m) for g, w, m in clues)


def solution_text(p: dict) -> str:
    clues, code = p["clues"], p["code"]
    steps = [f"The code has three different digits, so there are {len(CODES)} possible codes to start with."]
    nothing = [g for g, w, m in clues if (w, m) == (0, 0)]
    dead = sorted({d for g in nothing for d in g})
    if dead:
        many = len(nothing) > 1
        steps.append(
            f"The 'nothing is correct' hint{'s' if many else ''} rule{'' if many else 's'} out the digits "
            f"{', '.join(dead)} everywhere."
        )
    remaining = list(CODES)
    for i, (g, w, m) in enumerate(clues, start=1):
        remaining = [c for c in remaining if feedback(c, g) == (w, m)]
        steps.append(
            f"Hint {i} ({g}: {HINTS[(w, m)].lower()}) leaves {len(remaining)} possible "
            f"code{'s' if len(remaining) != 1 else ''}."
        )
    steps.append(f"Only {code} is left. Check it against every hint:")
    for i, (g, _, _) in enumerate(clues, start=1):
        placed = [g[k] for k in range(3) if g[k] == code[k]]
        moved = [d for k, d in enumerate(g) if d in code and g[k] != code[k]]
        parts = []
        if placed:
            parts.append(f"{', '.join(placed)} in the right place")
        if moved:
            parts.append(f"{', '.join(moved)} in the code but elsewhere")
        steps.append(
            f"  Hint {i}, {g}: "
            + ("; ".join(parts) if parts else "no digit of it is in the code")
            + " - fits."
        )
    steps.append(f"Answer: {code}")
    return "\n".join(steps)


class LockCode(SeedProgram):
    seed_id = "dynamath_lock_code"
    topic = Topic.PUZZLE_TEST
    level = Level.HIGH_SCHOOL
    answer_type = AnswerType.TEXT
    variation_types = (VariationType.NUMERICAL_VALUE, VariationType.REAL_LIFE_CONTEXT)
    param_variation = {
        "code": VariationType.NUMERICAL_VALUE,
        "clues": VariationType.NUMERICAL_VALUE,
        "context": VariationType.REAL_LIFE_CONTEXT,
    }
    modalities = (Modality.IMAGE, Modality.STORY)
    # secret codes x hint sets (many per code) x contexts
    variant_space = 720 * 10_000 * 5

    def sample(self, rng: np.random.Generator) -> Draw:
        while True:
            code = CODES[int(rng.integers(len(CODES)))]
            clues: list[list] = []
            remaining = list(CODES)
            for _ in range(200):
                guess = CODES[int(rng.integers(len(CODES)))]
                w, m = feedback(code, guess)
                if (w, m) not in HINTS or any(c[0] == guess for c in clues):
                    continue
                after = [c for c in remaining if feedback(c, guess) == (w, m)]
                if len(after) == len(remaining):
                    continue  # a hint that rules nothing out is not shown
                if len(after) == 1 and len(clues) < 3:
                    continue  # keep some work to do: at least four hints
                clues.append([guess, w, m])
                remaining = after
                if len(remaining) == 1 or len(clues) == 6:
                    break
            if remaining == [code] and 4 <= len(clues) <= 6:
                break
        p = {
            "code": code,
            "clues": clues,
            "context": str(rng.choice(CONTEXTS)),
            "answer_format": ANSWER_FORMAT,
        }
        return self.redraw(p)

    # --- perturbations -----------------------------------------------------------------------------
    perturbations = frozenset({"noop", "rename"})
    truth_reads = ("code", "clues")

    def redraw(self, params: dict[str, Any]) -> Draw:
        what = params["context"]
        question = (
            f"The {what} opens with a three-digit code whose digits are all different (the first digit may "
            "be 0). Using the hints, what is the code?"
        )
        return Draw(params=params, question=question, answer=params["code"], solution=solution_text(params))

    def noop_clause(self, params: dict[str, Any], rng: np.random.Generator) -> str:
        what = params["context"]
        k = int(rng.integers(2, 9))
        said = (
            f"The {what} was bought {k} years ago.",
            f"The {what} has stayed locked for {k} days.",
            f"{k} friends have already tried to open the {what}.",
            f"The hints were written on a note left next to the {what}.",
            f"The {what} weighs about {k * 100} grams.",
        )
        return said[int(rng.integers(len(said)))]

    def renamed(self, params: dict[str, Any], rng: np.random.Generator) -> dict[str, Any]:
        return {**params, "context": str(rng.choice([c for c in CONTEXTS if c != params["context"]]))}

    def render(self, variant: Variant, modality: Modality) -> Representation:
        p = variant.params
        clues = p["clues"]
        if modality is Modality.IMAGE:
            n = len(clues)

            def draw(ax: Axes) -> None:
                height = 1.0 * n + 2.0
                ax.set_xlim(0, 10.5)
                ax.set_ylim(0, height)
                ax.set_aspect("equal")
                ax.set_axis_off()
                ax.text(
                    5.0,
                    height - 0.45,
                    f"Crack the code of the {p['context']}!",
                    ha="center",
                    va="center",
                    fontsize=15,
                    fontweight="bold",
                )
                for i, (g, w, m) in enumerate(clues):
                    y = height - 1.5 - i * 1.0
                    for k, d in enumerate(g):
                        draw_box(
                            ax,
                            0.3 + k * 0.8,
                            y,
                            0.7,
                            0.7,
                            d,
                            fill="#e8f0fb",
                            fontsize=18,
                            bold=True,
                            round_=0.08,
                        )
                    ax.text(2.9, y + 0.35, HINTS[(w, m)], va="center", fontsize=12)
                y = 0.35
                for k in range(3):
                    draw_box(
                        ax,
                        0.3 + k * 0.8,
                        y,
                        0.7,
                        0.7,
                        "?",
                        fill="#ffe9a8",
                        fontsize=18,
                        bold=True,
                        round_=0.08,
                        color="#c0392b",
                    )
                ax.text(2.9, y + 0.35, "The code", va="center", fontsize=12, fontweight="bold")

            image = png(draw, size=(8.4, 0.8 * (n + 2) + 0.3))
            text = (
                f"The image shows {n} guesses of a three-digit code, each with a hint about how many of its "
                f"digits are correct and whether they are in the right place.\n\n{variant.question}"
            )
            return Representation(modality, text, image_png=image)
        if modality is Modality.STORY:
            hints = " ".join(f"For the guess {g}: {HINTS[(w, m)].lower()}." for g, w, m in clues)
            story = (
                f"To open a {p['context']} you need its three-digit code. Someone left these hints. {hints}"
            )
            return Representation(modality, f"{story}\n\n{variant.question}", extra={"story": story})
        raise AssertionError(f"unhandled modality {modality}")
