"""Read an analogue clock, then move the time forward or back (answer as h:mm on a 12-hour dial).

Symbolic substitution: the dial has Arabic numerals, Roman numerals or bare hour marks. Real-life
context: a plain "N minutes later/earlier", a cake in the oven, a film, a missed bus, a train journey.
Numerical: the time shown and the elapsed time (which may cross 12 o'clock).
"""

from __future__ import annotations

from typing import Any

import numpy as np
from matplotlib.axes import Axes

from isodyn.core import AnswerType, Level, Modality, Representation, Topic, Variant, VariationType
from isodyn.generators.base import Draw, SeedProgram
from isodyn.modalities.canvas import blank, png
from isodyn.modalities.clock import draw_clock

NUMERALS = ("arabic", "roman", "none")
NUMERAL_WORDS = {
    "arabic": "the numbers 1 to 12",
    "roman": "Roman numerals I to XII",
    "none": "hour marks only",
}
ANSWER_FORMAT = "h:mm on a 12-hour clock (hours 1 to 12), e.g. 4:45"
# context -> (direction, template); {d} is the elapsed time in words
CONTEXTS = {
    "later": (1, "What time will the clock show {d} later?"),
    "earlier": (-1, "What time did the clock show {d} earlier?"),
    "oven": (
        1,
        "A cake goes into the oven at the time shown on the clock and bakes for {d}. At what time is it "
        "ready?",
    ),
    "film": (1, "A film starts at the time shown on the clock and lasts {d}. At what time does it end?"),
    "bus": (
        -1,
        "Maya reaches the bus stop at the time shown on the clock, {d} after her bus left. At what time did "
        "the bus leave?",
    ),
    "train": (
        -1,
        "A train arrives at the time shown on the clock after a journey of {d}. At what time did it depart?",
    ),
}

# plausible elapsed minutes per context
RANGES = {
    "later": (5, 300),
    "earlier": (5, 300),
    "oven": (20, 110),
    "film": (80, 190),
    "bus": (3, 40),
    "train": (25, 290),
}


def duration_words(minutes: int) -> str:
    h, m = divmod(minutes, 60)
    parts = []
    if h:
        parts.append(f"{h} hour{'s' if h != 1 else ''}")
    if m:
        parts.append(f"{m} minute{'s' if m != 1 else ''}")
    return " and ".join(parts)


def hour_hand_words(h: int, m: int) -> str:
    return f"exactly on the {h}" if m == 0 else f"between the {h} and the {h % 12 + 1}"


def clock_time(total_minutes: int) -> str:
    """Minutes after 12:00 (any integer) -> `h:mm` with h in 1..12."""
    total_minutes %= 12 * 60
    h, m = divmod(total_minutes, 60)
    return f"{h or 12}:{m:02d}"


def solution_text(p: dict) -> str:
    h, m, d = p["hour"], p["minute"], p["delta"]
    sign = CONTEXTS[p["context"]][0]
    start = (h % 12) * 60 + m
    steps = [
        f"The minute hand points at {m} minutes "
        f"({'exactly at the 12' if m == 0 else f'{m} small marks past the 12'}) and the hour hand is "
        f"{hour_hand_words(h, m)}, so the clock shows {clock_time(start)}.",
    ]
    hh, mm = divmod(d, 60)
    word = "forward" if sign > 0 else "back"
    steps.append(f"We move {word} {duration_words(d)}.")
    t = start
    if hh:
        t += sign * hh * 60
        steps.append(f"Moving {word} {hh} hour{'s' if hh != 1 else ''} gives {clock_time(t)}.")
    if mm:
        t += sign * mm
        steps.append(
            f"Moving {word} {mm} more minute{'s' if mm != 1 else ''} gives {clock_time(t)}"
            + (" (passing the full hour)." if (t // 60) != ((t - sign * mm) // 60) else ".")
        )
    steps.append(f"Answer: {clock_time(t)}")
    return "\n".join(steps)


class ClockAfter(SeedProgram):
    seed_id = "dynamath_clock_after"
    topic = Topic.ARITHMETIC
    level = Level.ELEMENTARY
    answer_type = AnswerType.TEXT
    variation_types = (
        VariationType.NUMERICAL_VALUE,
        VariationType.SYMBOLIC_SUBSTITUTION,
        VariationType.REAL_LIFE_CONTEXT,
    )
    param_variation = {
        "hour": VariationType.NUMERICAL_VALUE,
        "minute": VariationType.NUMERICAL_VALUE,
        "delta": VariationType.NUMERICAL_VALUE,
        "context": VariationType.REAL_LIFE_CONTEXT,
        "numerals": VariationType.SYMBOLIC_SUBSTITUTION,
    }
    modalities = (Modality.IMAGE, Modality.STORY)
    # times shown x elapsed times x dial styles x contexts
    variant_space = 720 * 60 * 3 * 6

    def sample(self, rng: np.random.Generator) -> Draw:
        hour = int(rng.integers(1, 13))
        minute = int(rng.integers(0, 12)) * 5 if rng.random() < 0.5 else int(rng.integers(0, 60))
        context = str(rng.choice(list(CONTEXTS)))
        lo, hi = RANGES[context]
        delta = (
            int(rng.integers(lo // 5, hi // 5 + 1)) * 5
            if rng.random() < 0.7
            else int(rng.integers(lo, hi + 1))
        )
        numerals = NUMERALS[int(rng.integers(len(NUMERALS)))]
        p = {
            "hour": hour,
            "minute": minute,
            "delta": delta,
            "context": context,
            "numerals": numerals,
            "answer_format": ANSWER_FORMAT,
        }
        return self.redraw(p)

    # --- perturbations -----------------------------------------------------------------------------
    perturbations = frozenset({"noop"})
    truth_reads = ("hour", "minute", "delta", "context")

    def redraw(self, params: dict[str, Any]) -> Draw:
        sign, template = CONTEXTS[params["context"]]
        delta = params["delta"]
        answer = clock_time((params["hour"] % 12) * 60 + params["minute"] + sign * delta)
        return Draw(
            params=params,
            question=template.format(d=duration_words(delta)),
            answer=answer,
            solution=solution_text(params),
        )

    def noop_clause(self, params: dict[str, Any], rng: np.random.Generator) -> str:
        k = int(rng.integers(2, 9))
        said = (
            f"The clock was a present from a friend {k} years ago.",
            f"The clock hangs on a wall about {k} metres from the window.",
            f"The battery of the clock was changed {k} weeks ago, and it keeps good time.",
            f"The room where the clock hangs has {k} windows.",
            f"The clock cost {k * 5} dollars in a second-hand shop.",
        )
        return said[int(rng.integers(len(said)))]

    def render(self, variant: Variant, modality: Modality) -> Representation:
        p = variant.params
        if modality is Modality.IMAGE:

            def draw(ax: Axes) -> None:
                blank(ax, (-1.1, 1.1), (-1.1, 1.1))
                draw_clock(ax, p["hour"], p["minute"], numerals=p["numerals"])

            image = png(draw, size=(4.2, 4.2))
            text = (
                "The image shows an analogue clock (a 12-hour dial with "
                f"{NUMERAL_WORDS[p['numerals']]}).\n\n{variant.question}"
            )
            return Representation(modality, text, image_png=image)
        if modality is Modality.STORY:
            shown = clock_time((p["hour"] % 12) * 60 + p["minute"])
            story = (
                f"An analogue clock with a 12-hour dial shows {shown}: the minute hand points to minute "
                f"{p['minute']} and the hour hand is {hour_hand_words(p['hour'], p['minute'])}."
            )
            return Representation(modality, f"{story}\n\n{variant.question}", extra={"story": story})
        raise AssertionError(f"unhandled modality {modality}")
