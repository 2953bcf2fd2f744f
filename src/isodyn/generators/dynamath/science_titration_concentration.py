"""Scientific figure: the concentration of an acid or base from its titration curve.

The curve (pH against titrant volume) is computed from the charge balance, so its shape is real
chemistry and changes type between variants: strong acid or weak acid titrated with NaOH (rising),
strong base or weak base titrated with HCl (falling). The equivalence point is marked on the curve
at a whole multiple of 5 mL (a labelled tick); the reader finds its volume and uses
c_analyte = c_titrant x V_eq / V_sample (all reactions 1:1).
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any

import numpy as np
from matplotlib.axes import Axes
from matplotlib.ticker import MultipleLocator

from isodyn.core import AnswerType, Level, Modality, Representation, Topic, Variant, VariationType
from isodyn.generators.base import Draw, SeedProgram
from isodyn.modalities.formatting import code_block, fmt_number
from isodyn.modalities.images import render_png

KW = 1e-14
# name, formula, kind, Ka of the acid (for a base: of its conjugate acid); None = strong
_ANALYTES = (
    ("hydrochloric acid", "HCl", "acid", None),
    ("nitric acid", "HNO3", "acid", None),
    ("acetic acid", "CH3COOH", "acid", 1.8e-5),
    ("formic acid", "HCOOH", "acid", 1.8e-4),
    ("sodium hydroxide", "NaOH", "base", None),
    ("potassium hydroxide", "KOH", "base", None),
    ("ammonia", "NH3", "base", KW / 1.8e-5),  # Kb of NH3 is 1.8e-5
)
_TITRANT = {"acid": ("sodium hydroxide", "NaOH"), "base": ("hydrochloric acid", "HCl")}


def ph_values(volumes: np.ndarray, params: dict) -> np.ndarray:
    """pH after each of `volumes` mL of titrant: the charge balance solved for [H+] by bisection on
    log10[H+], for all volumes at once (a curve is a thousand points)."""
    _, _, kind, ka = _ANALYTES[params["analyte"]]
    va, ca, ct = params["sample_ml"], float(Fraction(params["conc"])), float(Fraction(params["titrant_conc"]))
    total = va + volumes
    c_an = ca * va / total  # analyte, all forms
    c_ti = ct * volumes / total  # titrant ions (Na+ or Cl-)
    lo, hi = np.full(volumes.shape, -15.0), np.full(volumes.shape, 1.0)  # excess grows with [H+]
    for _ in range(80):
        mid = (lo + hi) / 2
        h = 10.0**mid
        oh = KW / h
        if kind == "acid":  # [H+] + [Na+] = [OH-] + [A-]
            a_minus = c_an if ka is None else c_an * ka / (ka + h)
            excess_positive = h + c_ti - oh - a_minus
        else:  # base: [H+] + [BH+] (or [Na+]) = [OH-] + [Cl-]
            cation = c_an if ka is None else c_an * h / (ka + h)
            excess_positive = h + cation - oh - c_ti
        above = excess_positive > 0
        hi, lo = np.where(above, mid, hi), np.where(above, lo, mid)
    return -(lo + hi) / 2


def ph_at(volume: float, params: dict) -> float:
    """pH after `volume` mL of titrant."""
    return float(ph_values(np.array([float(volume)]), params)[0])


def curve(params: dict, step: float) -> list[tuple[float, float]]:
    volumes = np.arange(0, params["max_ml"] + step / 2, step)
    return list(zip(volumes.tolist(), ph_values(volumes, params).tolist(), strict=True))


def solution_text(params: dict) -> str:
    _, formula, kind, _ = _ANALYTES[params["analyte"]]
    t_formula = _TITRANT[kind][1]
    veq, va = params["veq_ml"], params["sample_ml"]
    ct, ca = Fraction(params["titrant_conc"]), Fraction(params["conc"])
    moles = ct * Fraction(veq, 1000)
    steps = [
        "The marked equivalence point (the middle of the steep "
        f"{'rise' if kind == 'acid' else 'drop'}) is at "
        f"V = {veq} mL of {t_formula}.",
        f"Moles of {t_formula} added: {fmt_number(ct)} mol/L x {veq}/1000 L = {fmt_number(moles, 6)} mol.",
        f"{formula} reacts with {t_formula} 1:1, so the {va} mL sample contained "
        f"{fmt_number(moles, 6)} mol of "
        f"{formula}.",
        f"Concentration = {fmt_number(moles, 6)} mol / {fmt_number(Fraction(va, 1000))} L = "
        f"{fmt_number(ca)} mol/L.",
        f"Answer: {fmt_number(ca)}",
    ]
    return "\n".join(steps)


def titration_png(params: dict) -> bytes:
    pts = curve(params, 0.05)
    vs, phs = [p[0] for p in pts], [p[1] for p in pts]
    veq = params["veq_ml"]
    ph_eq = ph_at(veq, params)
    t_formula = _TITRANT[_ANALYTES[params["analyte"]][2]][1]

    def draw(ax: Axes) -> None:
        ax.plot(vs, phs, color="#1f77b4", linewidth=2.2, zorder=3)
        ax.plot([veq], [ph_eq], marker="o", markersize=9, color="#d62728", zorder=4)
        ax.annotate(
            "equivalence point", xy=(veq, ph_eq), xytext=(12, 0), textcoords="offset points",
            ha="left", va="center", fontsize=11, color="#d62728",
        )  # fmt: skip
        ax.set_xlim(0, params["max_ml"])
        ax.set_ylim(0, 14)
        ax.xaxis.set_major_locator(MultipleLocator(5))
        ax.yaxis.set_major_locator(MultipleLocator(2))
        ax.grid(True, color="0.85", linewidth=0.7)
        ax.set_axisbelow(True)
        ax.tick_params(labelsize=10)
        ax.set_xlabel(f"Volume of {t_formula} added (mL)", fontsize=11)
        ax.set_ylabel("pH", fontsize=11)
        ax.set_title("Titration curve", fontsize=12)

    return render_png(draw, size=(5.5, 4))


def setup_text(params: dict) -> str:
    name, formula, kind, _ = _ANALYTES[params["analyte"]]
    t_name, t_formula = _TITRANT[kind]
    return (
        f"A {params['sample_ml']} mL sample of {name} ({formula}) solution of unknown concentration is "
        "titrated "
        f"with {fmt_number(Fraction(params['titrant_conc']))} mol/L {t_name} ({t_formula})."
    )


class TitrationConcentration(SeedProgram):
    seed_id = "dynamath_titration_concentration"
    topic = Topic.SCIENTIFIC_FIGURE
    level = Level.HIGH_SCHOOL
    answer_type = AnswerType.FLOAT
    variation_types = (VariationType.NUMERICAL_VALUE, VariationType.FUNCTION_TYPE)
    param_variation = {
        "analyte": VariationType.FUNCTION_TYPE,
        "sample_ml": VariationType.NUMERICAL_VALUE,
        "titrant_conc": VariationType.NUMERICAL_VALUE,
        "veq_ml": VariationType.NUMERICAL_VALUE,
    }
    modalities = (Modality.IMAGE, Modality.CODE)
    # 7 analytes x 4 sample volumes x 4 titrant concentrations x 7 equivalence volumes (about half kept)
    variant_space = 7 * 4 * 4 * 7 // 2

    def sample(self, rng: np.random.Generator) -> Draw:
        analyte = int(rng.integers(len(_ANALYTES)))
        while True:
            va = int(rng.choice([10, 20, 25, 50]))
            ct = Fraction(str(rng.choice(["0.05", "0.1", "0.2", "0.25"])))
            veq = int(rng.choice([10, 15, 20, 25, 30, 35, 40]))
            ca = ct * veq / va
            if (ca * 1000).denominator == 1 and Fraction(1, 50) <= ca <= Fraction(1, 2):
                break
        params = {
            "analyte": analyte,
            "sample_ml": va,
            "titrant_conc": str(ct),
            "veq_ml": veq,
            "conc": str(ca),
            "max_ml": 50 if veq <= 35 else 60,
        }
        return self.redraw(params)

    # --- perturbations -----------------------------------------------------------------------------
    # noop only: scaling the volumes leaves the concentration as it is, and concentrations x10 are
    # not real solutions
    perturbations = frozenset({"noop"})
    truth_reads = ("analyte", "sample_ml", "titrant_conc", "veq_ml", "conc")

    def redraw(self, params: dict[str, Any]) -> Draw:
        formula = _ANALYTES[params["analyte"]][1]
        ca = Fraction(params["titrant_conc"]) * params["veq_ml"] / params["sample_ml"]
        question = f"What is the concentration of {formula} in the sample, in mol/L?"
        return Draw(params, question, fmt_number(ca), solution_text(params))

    def noop_clause(self, params: dict[str, Any], rng: np.random.Generator) -> str:
        t_formula = _TITRANT[_ANALYTES[params["analyte"]][2]][1]
        k = int(rng.integers(2, 6))
        said = (
            f"The burette was rinsed {k} times with the {t_formula} solution before use.",
            f"The sample was prepared {k} hours before the titration.",
            f"The titration was carried out by a student in {k * 5} minutes.",
            f"A magnetic stirrer kept the sample mixed at {k * 100} turns per minute.",
            f"The pH meter was calibrated with {k} buffer solutions that morning.",
        )
        return said[int(rng.integers(len(said)))]

    def render(self, variant: Variant, modality: Modality) -> Representation:
        p = variant.params
        if modality is Modality.IMAGE:
            text = (
                f"{setup_text(p)} The image shows the titration curve (pH against the volume of "
                "titrant added) "
                f"with the equivalence point marked.\n\n{variant.question}"
            )
            return Representation(modality, text, image_png=titration_png(p))
        if modality is Modality.CODE:
            t_formula = _TITRANT[_ANALYTES[p["analyte"]][2]][1]
            rows = []
            for v, ph in curve(p, 1.0):
                mark = "  # equivalence point" if abs(v - p["veq_ml"]) < 1e-9 else ""
                rows.append(f"    ({v:g}, {ph:.2f}),{mark}")
            code = (
                f"# Titration curve: (volume of {t_formula} added in mL, pH), every 1 mL\n"
                "curve = [\n" + "\n".join(rows) + "\n]\n"
            )
            text = (
                f"{setup_text(p)} The titration curve is given as a list of points.\n\n{code_block(code)}\n\n"
                f"{variant.question}"
            )
            return Representation(modality, text, extra={"code": code})
        raise AssertionError(f"unhandled modality {modality}")
