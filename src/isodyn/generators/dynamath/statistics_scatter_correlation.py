"""Statistics: is the correlation in a scatter plot positive, negative, or absent?

The trend behind the points changes type from variant to variant (linear, quadratic, exponential,
logarithmic, square root; a function-type variation), rising or falling, with noise. Positive and
negative plots have a Pearson coefficient beyond +-0.6 and "no correlation" plots lie within +-0.1, so
no plot sits on the border. Classes are balanced (variant i has answer A, B, C in turn).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from isodyn.core import AnswerType, Level, Modality, Representation, Topic, Variant, VariationType
from isodyn.generators.base import Draw, SeedProgram, format_choices, letter
from isodyn.modalities.formatting import code_block
from isodyn.modalities.palette import CHART_COLORS
from isodyn.modalities.stat_charts import scatter_png

CHOICES = ("positive correlation", "negative correlation", "no correlation")
QUESTION = "What kind of correlation between x and y do the data show? " + format_choices(CHOICES)
_TRENDS: dict[str, Callable[[np.ndarray], np.ndarray]] = {
    "linear": lambda u: u,
    "quadratic": lambda u: u**2,
    "exponential": lambda u: np.expm1(2.5 * u),
    "logarithmic": lambda u: np.log1p(6 * u),
    "square root": np.sqrt,
}
_DOT_COLORS = ("blue", "red", "green", "purple", "orange", "brown")


def pearson(xs: list[float], ys: list[float]) -> float:
    x, y = np.asarray(xs), np.asarray(ys)
    dx, dy = x - x.mean(), y - y.mean()
    return float((dx * dy).sum() / np.sqrt((dx * dx).sum() * (dy * dy).sum()))


def solution_text(params: dict, ans: int) -> str:
    r = pearson(params["x"], params["y"])
    desc = {
        0: "As x increases, the points rise: larger x goes with larger y.",
        1: "As x increases, the points fall: larger x goes with smaller y.",
        2: "The points form a shapeless cloud: y neither tends to rise nor to fall as x increases.",
    }[ans]
    steps = [
        f"The plot shows {len(params['x'])} points.",
        desc,
        f"Computing Pearson's coefficient from the data gives r = {r:.2f}, which confirms this.",
        f"Answer: ({letter(ans)}) {CHOICES[ans]}.",
    ]
    return "\n".join(steps)


class ScatterCorrelation(SeedProgram):
    seed_id = "dynamath_scatter_correlation"
    topic = Topic.STATISTICS
    level = Level.HIGH_SCHOOL
    answer_type = AnswerType.MULTIPLE_CHOICE
    variation_types = (VariationType.NUMERICAL_VALUE, VariationType.FUNCTION_TYPE)
    param_variation = {
        "trend": VariationType.FUNCTION_TYPE,
        "x": VariationType.NUMERICAL_VALUE,
        "y": VariationType.NUMERICAL_VALUE,
    }
    modalities = (Modality.IMAGE, Modality.CODE)
    variant_space = 10**9  # 15-30 random points: effectively unbounded
    classes = ("A", "B", "C")

    def sample_for(self, rng: np.random.Generator, answer: str) -> Draw:
        ans = "ABC".index(answer)
        n = int(rng.integers(15, 31))
        x0, xspan = int(rng.integers(0, 50)), int(rng.choice([10, 20, 50, 100]))
        y0, yspan = int(rng.integers(0, 50)), int(rng.choice([10, 20, 50, 100]))
        trend = "none" if ans == 2 else str(rng.choice(list(_TRENDS)))
        while True:
            u = rng.uniform(0, 1, n)
            if ans == 2:
                v = rng.uniform(0, 1, n)
            else:
                f = _TRENDS[trend](u)
                f = (f - f.min()) / (f.max() - f.min())
                v = (f if ans == 0 else 1 - f) + rng.normal(0, float(rng.uniform(0.05, 0.2)), n)
            xs = [round(x0 + xspan * float(a), 1) for a in u]
            vmin, vmax = float(v.min()), float(v.max())
            if not vmax > vmin:  # every y equal (a search can set the draw so): draw again
                continue
            ys = [round(y0 + yspan * (float(b) - vmin) / (vmax - vmin), 1) for b in v]
            r = pearson(xs, ys)
            if (ans == 0 and r > 0.6) or (ans == 1 and r < -0.6) or (ans == 2 and abs(r) < 0.1):
                break
        params = {"x": xs, "y": ys, "trend": trend, "color": str(rng.choice(_DOT_COLORS))}
        return self.redraw(params)

    # --- perturbations -----------------------------------------------------------------------------
    perturbations = frozenset({"noop", "magnitude"})
    truth_reads = ("x", "y")

    def redraw(self, params: dict[str, Any]) -> Draw:
        # sample_for keeps r beyond +-0.6 or within +-0.1, so the class follows from r alone
        r = pearson(params["x"], params["y"])
        ans = 0 if r > 0.5 else 1 if r < -0.5 else 2
        return Draw(params, QUESTION, letter(ans), solution_text(params, ans), CHOICES)

    def noop_clause(self, params: dict[str, Any], rng: np.random.Generator) -> str:
        n = len(params["x"])
        k = int(rng.integers(2, 15))
        said = (
            f"The {n} points were measured on {k} different days.",
            f"The data were collected by {k} students for a class project.",
            f"The dots are drawn in {params['color']}, a colour chosen by the teacher.",
            f"Each value of x was recorded first and its value of y about {k} minutes later.",
            f"The same {n} measurements were also written in a lab notebook {k} weeks ago.",
        )
        return said[int(rng.integers(len(said)))]

    def scaled(self, params: dict[str, Any], factor: int) -> dict[str, Any]:
        # one decimal times ten is a whole number: shown as 674, not 674.0 or 674.0000000000001
        def times(v: float) -> float:
            return round(v * factor) if factor >= 10 else round(v * factor, 1)

        return {**params, "x": [times(x) for x in params["x"]], "y": [times(y) for y in params["y"]]}

    def numbers(self, params: dict[str, Any]) -> tuple[float, ...]:
        return (*params["x"], *params["y"])

    def render(self, variant: Variant, modality: Modality) -> Representation:
        p = variant.params
        question = variant.question
        if modality is Modality.IMAGE:
            png = scatter_png(p["x"], p["y"], CHART_COLORS[p["color"]], "x", "y")
            text = f"The image shows a scatter plot of {len(p['x'])} data points (x, y).\n\n{question}"
            return Representation(modality, text, image_png=png)
        if modality is Modality.CODE:
            code = (
                f"# {len(p['x'])} data points (x[i], y[i]) of a scatter plot\n"
                f"x = [{', '.join(map(str, p['x']))}]\n"
                f"y = [{', '.join(map(str, p['y']))}]\n"
            )
            text = f"{code_block(code)}\n\n{question}"
            return Representation(modality, text, extra={"code": code})
        raise AssertionError(f"unhandled modality {modality}")
