"""Flight duration from a boarding pass (DynaMath's boarding-pass seed, answered as h:mm).

The pass shows departure and arrival as local times with each airport's UTC offset and date; the
boarding time is printed too (a distractor). Real-life-context variation: airline, passenger, route,
same-zone or cross-zone flights, overnight arrivals; symbolic substitution: 24-hour or 12-hour (AM/PM)
clock notation. Numerical: the times themselves.
"""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any

import numpy as np
from matplotlib.axes import Axes
from matplotlib.patches import Rectangle

from isodyn.core import AnswerType, Level, Modality, Representation, Topic, Variant, VariationType
from isodyn.generators.base import Draw, SeedProgram
from isodyn.modalities.canvas import blank, png
from isodyn.modalities.shapes import draw_box

# code, city, UTC offset in minutes (standard time)
AIRPORTS: tuple[tuple[str, str, int], ...] = (
    ("LHR", "London", 0),
    ("LIS", "Lisbon", 0),
    ("CDG", "Paris", 60),
    ("FRA", "Frankfurt", 60),
    ("MAD", "Madrid", 60),
    ("AMS", "Amsterdam", 60),
    ("IST", "Istanbul", 180),
    ("DXB", "Dubai", 240),
    ("DEL", "Delhi", 330),
    ("SIN", "Singapore", 480),
    ("HND", "Tokyo", 540),
    ("ICN", "Seoul", 540),
    ("SYD", "Sydney", 600),
    ("JFK", "New York", -300),
    ("BOS", "Boston", -300),
    ("ATL", "Atlanta", -300),
    ("ORD", "Chicago", -360),
    ("MEX", "Mexico City", -360),
    ("LAX", "Los Angeles", -480),
    ("SFO", "San Francisco", -480),
    ("GRU", "Sao Paulo", -180),
)
AIRLINES = (
    ("Skyward Air", "SW", "#1f5fbf"),
    ("Coral Airways", "CR", "#d1495b"),
    ("Nordic Wings", "NW", "#2a7f62"),
    ("Sunline", "SL", "#e08a00"),
    ("Blue Heron", "BH", "#4b3f9e"),
)
PASSENGERS = (
    "LOPEZ/ANA",
    "CHEN/WEI",
    "SMITH/JOHN",
    "OKAFOR/NGOZI",
    "MULLER/KLARA",
    "SATO/YUKI",
    "DUBOIS/LEA",
    "KUMAR/RAVI",
)
MONTHS = ("JAN", "FEB", "MAR", "APR", "MAY", "JUN", "JUL", "AUG", "SEP", "OCT", "NOV", "DEC")
ANSWER_FORMAT = "hours:minutes, e.g. 2:45"


def offset_text(minutes: int) -> str:
    sign = "+" if minutes >= 0 else "-"
    h, m = divmod(abs(minutes), 60)
    return f"UTC{sign}{h}" + (f":{m:02d}" if m else "")


def clock_text(t: datetime, fmt: str) -> str:
    if fmt == "24h":
        return f"{t.hour:02d}:{t.minute:02d}"
    h = t.hour % 12 or 12
    return f"{h}:{t.minute:02d} {'AM' if t.hour < 12 else 'PM'}"


def date_text(t: datetime) -> str:
    return f"{t.day:02d} {MONTHS[t.month - 1]} {t.year}"


def times(p: dict) -> tuple[datetime, datetime, datetime]:
    """Departure, arrival (both local wall-clock times) and boarding time."""
    dep = datetime(p["year"], p["month"], p["day"], p["dep_h"], p["dep_m"])
    arr = dep + timedelta(minutes=p["duration"] + p["to_offset"] - p["from_offset"])
    return dep, arr, dep - timedelta(minutes=p["boarding_before"])


def duration_text(minutes: int) -> str:
    return f"{minutes // 60}:{minutes % 60:02d}"


def solution_text(p: dict) -> str:
    dep, arr, _ = times(p)
    fo, to = p["from_offset"], p["to_offset"]
    dep_utc = dep - timedelta(minutes=fo)
    arr_utc = arr - timedelta(minutes=to)
    fmt = p["clock"]
    steps = [
        f"Departure: {clock_text(dep, fmt)} on {date_text(dep)} local time in {p['from_city']} "
        f"({offset_text(fo)}). Arrival: {clock_text(arr, fmt)} on {date_text(arr)} local time in "
        f"{p['to_city']} ({offset_text(to)}). The boarding time is not needed."
    ]
    if fo == to:
        steps.append("Both airports use the same UTC offset, so the local times can be subtracted directly.")
    else:
        steps.append(
            "The airports are in different time zones, so first convert both times to UTC (subtract the "
            f"offset): departure {clock_text(dep_utc, '24h')} UTC on {date_text(dep_utc)}, arrival "
            f"{clock_text(arr_utc, '24h')} UTC on {date_text(arr_utc)}."
        )
        dep, arr = dep_utc, arr_utc
    if arr.date() != dep.date():
        to_midnight = (datetime(dep.year, dep.month, dep.day) + timedelta(days=1) - dep).seconds // 60
        after = arr.hour * 60 + arr.minute
        steps.append(
            f"The flight passes midnight: from {clock_text(dep, '24h')} to midnight is "
            f"{duration_text(to_midnight)}, and from midnight to {clock_text(arr, '24h')} is "
            f"{duration_text(after)}; together {duration_text(to_midnight + after)}."
        )
    else:
        steps.append(
            f"From {clock_text(dep, '24h')} to {clock_text(arr, '24h')} is {duration_text(p['duration'])} "
            "(hours:minutes)."
        )
    steps.append(f"Answer: {duration_text(p['duration'])}")
    return "\n".join(steps)


class BoardingPass(SeedProgram):
    seed_id = "dynamath_boarding_pass"
    topic = Topic.ARITHMETIC
    level = Level.ELEMENTARY
    answer_type = AnswerType.TEXT
    variation_types = (
        VariationType.REAL_LIFE_CONTEXT,
        VariationType.NUMERICAL_VALUE,
        VariationType.SYMBOLIC_SUBSTITUTION,
    )
    param_variation = {
        "airline": VariationType.REAL_LIFE_CONTEXT,
        "passenger": VariationType.REAL_LIFE_CONTEXT,
        "from_code": VariationType.REAL_LIFE_CONTEXT,
        "to_code": VariationType.REAL_LIFE_CONTEXT,
        "dep_h": VariationType.NUMERICAL_VALUE,
        "dep_m": VariationType.NUMERICAL_VALUE,
        "duration": VariationType.NUMERICAL_VALUE,
        "clock": VariationType.SYMBOLIC_SUBSTITUTION,
    }
    modalities = (Modality.IMAGE, Modality.STORY)
    # routes x departure times x durations x clock formats (dates and names are cosmetic)
    variant_space = 200 * 288 * 150 * 2

    def sample(self, rng: np.random.Generator) -> Draw:
        same_zone = rng.random() < 0.5
        while True:
            a, b = (AIRPORTS[int(i)] for i in rng.choice(len(AIRPORTS), size=2, replace=False))
            if (a[2] == b[2]) == same_zone and abs(a[2] - b[2]) <= 600:
                break
        gap = abs(a[2] - b[2])
        low, high = (45, 210) if same_zone else (max(90, gap + 30), min(14 * 60, gap + 8 * 60))
        duration = int(rng.integers(low // 5, high // 5 + 1)) * 5
        airline, code, _ = AIRLINES[int(rng.integers(len(AIRLINES)))]
        p = {
            "airline": airline,
            "flight": f"{code} {int(rng.integers(100, 1000))}",
            "passenger": str(rng.choice(PASSENGERS)),
            "from_code": a[0],
            "from_city": a[1],
            "from_offset": a[2],
            "to_code": b[0],
            "to_city": b[1],
            "to_offset": b[2],
            "year": int(rng.choice([2024, 2025])),
            "month": int(rng.integers(1, 13)),
            "day": int(rng.integers(1, 29)),
            "dep_h": int(rng.integers(5, 24)),
            "dep_m": int(rng.integers(0, 12)) * 5,
            "duration": duration,
            "boarding_before": int(rng.choice([25, 30, 40, 45])),
            "gate": f"{'ABCD'[int(rng.integers(4))]}{int(rng.integers(1, 40))}",
            "seat": f"{int(rng.integers(1, 40))}{'ABCDEF'[int(rng.integers(6))]}",
            "clock": "24h" if rng.random() < 0.5 else "12h",
            "answer_format": ANSWER_FORMAT,
        }
        return self.redraw(p)

    # --- perturbations -----------------------------------------------------------------------------
    perturbations = frozenset({"noop", "rename"})
    truth_reads = ("from_offset", "to_offset", "dep_h", "dep_m", "duration")

    def redraw(self, params: dict[str, Any]) -> Draw:
        question = (
            "According to the boarding pass, how long does the flight take, in hours and minutes? Departure "
            "and arrival are local times at each airport, with the airport's UTC offset shown."
        )
        return Draw(
            params=params,
            question=question,
            answer=duration_text(params["duration"]),
            solution=solution_text(params),
        )

    def noop_clause(self, params: dict[str, Any], rng: np.random.Generator) -> str:
        airline, city = params["airline"], params["from_city"]
        k = int(rng.integers(2, 9))
        said = (
            f"The passenger checked {k} bags at the airport in {city}.",
            f"The passenger has flown with {airline} {k} times before.",
            f"The aircraft on this route has {k * 30} seats.",
            f"Gate {params['gate']} is about {k * 100} metres from the security check.",
            f"{airline} prints its boarding passes on {k} different colours of paper.",
        )
        return said[int(rng.integers(len(said)))]

    def renamed(self, params: dict[str, Any], rng: np.random.Generator) -> dict[str, Any]:
        # Another passenger and airline (the flight number keeps its digits, takes the new code).
        passenger = str(rng.choice([x for x in PASSENGERS if x != params["passenger"]]))
        others = [a for a in AIRLINES if a[0] != params["airline"]]
        airline, code, _ = others[int(rng.integers(len(others)))]
        flight = f"{code} {params['flight'].split()[1]}"
        return {**params, "passenger": passenger, "airline": airline, "flight": flight}

    def render(self, variant: Variant, modality: Modality) -> Representation:
        p = variant.params
        dep, arr, board = times(p)
        fmt = p["clock"]
        if modality is Modality.IMAGE:
            color = next(c for name, _, c in AIRLINES if name == p["airline"])

            def field(ax: Axes, x: float, y: float, label: str, value: str, size: float = 14) -> None:
                ax.text(x, y, label, fontsize=10, color="0.35", va="bottom")
                ax.text(x, y - 0.08, value, fontsize=size, fontweight="bold", va="top")

            def draw(ax: Axes) -> None:
                blank(ax, (0, 9), (0, 4.1))
                draw_box(ax, 0.05, 0.05, 8.9, 4.0, fill="white", edge=color, lw=2.5, round_=0.15)
                ax.add_patch(Rectangle((0.05, 3.35), 8.9, 0.7, facecolor=color, edgecolor=color))
                ax.text(
                    0.3, 3.7, p["airline"].upper(), color="white", fontsize=15, fontweight="bold", va="center"
                )
                ax.text(8.7, 3.7, "BOARDING PASS", color="white", fontsize=13, va="center", ha="right")
                ax.plot([6.55, 6.55], [0.15, 3.3], color="0.6", ls=(0, (4, 3)), lw=1.2)
                field(ax, 0.3, 2.95, "PASSENGER", p["passenger"], 13)
                field(ax, 3.4, 2.95, "FLIGHT", p["flight"], 13)
                field(ax, 4.9, 2.95, "GATE", p["gate"], 13)
                field(ax, 0.3, 2.15, "FROM", f"{p['from_code']}  {p['from_city']}", 13)
                field(ax, 3.4, 2.15, "TO", f"{p['to_code']}  {p['to_city']}", 13)
                field(ax, 0.3, 1.35, "DEPARTS (local)", clock_text(dep, fmt), 15)
                ax.text(
                    0.3, 0.62, f"{date_text(dep)}  {offset_text(p['from_offset'])}", fontsize=11, va="top"
                )
                field(ax, 3.4, 1.35, "ARRIVES (local)", clock_text(arr, fmt), 15)
                ax.text(3.4, 0.62, f"{date_text(arr)}  {offset_text(p['to_offset'])}", fontsize=11, va="top")
                field(ax, 6.8, 2.95, "SEAT", p["seat"], 13)
                field(ax, 6.8, 2.15, "BOARDING", clock_text(board, fmt), 13)
                field(ax, 6.8, 1.35, "ROUTE", f"{p['from_code']} > {p['to_code']}", 13)

            image = png(draw, size=(8.2, 3.8))
            text = f"The image shows a boarding pass.\n\n{variant.question}"
            return Representation(modality, text, image_png=image)
        if modality is Modality.STORY:
            name = p["passenger"].split("/")[1].title() + " " + p["passenger"].split("/")[0].title()
            story = (
                f"{name} has a boarding pass for {p['airline']} flight {p['flight']} from {p['from_city']} "
                f"({p['from_code']}) to {p['to_city']} ({p['to_code']}), gate {p['gate']}, seat {p['seat']}. "
                f"Boarding starts at {clock_text(board, fmt)}. The flight departs at {clock_text(dep, fmt)} "
                f"on {date_text(dep)}, local time in {p['from_city']} ({offset_text(p['from_offset'])}), and "
                f"arrives at {clock_text(arr, fmt)} on {date_text(arr)}, local time in {p['to_city']} "
                f"({offset_text(p['to_offset'])})."
            )
            text = f"{story}\n\n{variant.question}"
            return Representation(modality, text, extra={"story": story})
        raise AssertionError(f"unhandled modality {modality}")
