"""Issue 41, the geometry seeds: the truth of a perturbed variant checked by a computation of its own.

Each solver below reads the numbers from a text form of the variant (the one a model would read) and
finds the answer by another method than the seed: quadrature, SymPy equation solving, a convex hull,
exact integer square roots, linear algebra, a projection, the angle sum. Magnitude: the answers of
the x10 and x1000 variants agree with the solver, and the solver's answer scales as the geometry says
(lengths by the factor, areas by its square, volumes by its cube). Noop: the solver, reading the text
with the clause, finds the unperturbed answer.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable

import numpy as np
import pytest
import sympy as sp
from scipy.integrate import quad
from scipy.spatial import ConvexHull
from sympy.parsing.sympy_parser import (
    convert_xor,
    implicit_multiplication_application,
    parse_expr,
    standard_transformations,
)

from isodyn.core import AnswerType, Modality, Variant
from isodyn.generators import get_seed
from isodyn.generators.base import SeedProgram
from isodyn.generators.perturb import NOOP_KEY, Perturbation, parse_perturbation, perturb
from isodyn.scoring.answer_match import is_correct

VARIANTS = 30
TRANSFORMS = (*standard_transformations, implicit_multiplication_application, convert_xor)
CM = r"\\,\\text\{cm\}"  # how the LaTeX forms write a length's unit
Value = float | tuple[float, float]


def text(seed: SeedProgram, v: Variant, modality: Modality) -> tuple[str, str]:
    """The text form split into what it states and what it asks (its last paragraph, which holds a
    noop clause too, so a solver takes the asked thing from the end of it)."""
    body, _, ask = seed.representation(v, modality).text.rpartition("\n\n")
    return body, ask


def found(pattern: str, where: str) -> re.Match[str]:
    m = re.search(pattern, where)
    assert m is not None, (pattern, where)
    return m


# ------------------------------------------------------------------------------------------ the solvers


def ring_area(seed: SeedProgram, v: Variant) -> Value:
    body, ask = text(seed, v, Modality.LATEX)
    rings = re.findall(rf"radii \$([\d.]+){CM}\$ and \$([\d.]+){CM}\$ is coloured (\w+)", body)
    asked = found(r"area of the (\w+) ring, in square centimetres\?$", ask).group(1)
    ((inner, outer),) = [(float(a), float(b)) for a, b, color in rings if color == asked]
    area, _ = quad(lambda r: 2 * math.pi * r, inner, outer)  # the ring as thin circles
    return area


def cone_slant(seed: SeedProgram, v: Variant) -> Value:
    body, ask = text(seed, v, Modality.LATEX)
    known = {k: int(n) for k, n in re.findall(rf"\$([dhlr]) = (\d+){CM}\$", body)}
    if "d" in known:
        assert known["d"] % 2 == 0
        known["r"] = known.pop("d") // 2
    asked = {"slant height l": "l", "height h": "h", "radius r": "r"}[
        found(r"What is the (slant height l|height h|radius r) ", ask).group(1)
    ]
    square = (
        known["r"] ** 2 + known["h"] ** 2
        if asked == "l"
        else known["l"] ** 2 - sum(n**2 for k, n in known.items() if k != "l")
    )
    root = math.isqrt(square)
    assert root * root == square  # the cones are drawn from Pythagorean triples
    return float(root)


def cylinder_surface(seed: SeedProgram, v: Variant) -> Value:
    body, ask = text(seed, v, Modality.STORY)
    m = found(r"The (radius|diameter) is ([\d.]+) (?:m|cm) and the height is ([\d.]+)", body)
    r = sp.nsimplify(m.group(2)) / (2 if m.group(1) == "diameter" else 1)
    h = sp.nsimplify(m.group(3))
    ends = 2 if "side, top and bottom" in ask else 1 if "side and bottom" in ask else 0
    assert ends or "curved side only" in ask
    theta, z, rho = sp.symbols("theta z rho", real=True)
    side = sp.integrate(r, (theta, 0, 2 * sp.pi), (z, 0, h))
    disc = sp.integrate(rho, (rho, 0, r), (theta, 0, 2 * sp.pi))
    return float(side + ends * disc)


def pyramid_volume(seed: SeedProgram, v: Variant) -> Value:
    body, _ = text(seed, v, Modality.LATEX)
    if m := re.search(rf"measuring \$(\d+){CM}\$ by \$(\d+){CM}\$", body):
        a, b = float(m.group(1)), float(m.group(2))
        base = [(0.0, 0.0), (a, 0.0), (a, b), (0.0, b)]
    else:
        a = float(found(rf"base with side \$(\d+){CM}\$", body).group(1))
        if "triangular" in body:
            base = [(0.0, 0.0), (a, 0.0), (a / 2, a * math.sqrt(3) / 2)]
        else:
            base = [(0.0, 0.0), (a, 0.0), (a, a), (0.0, a)]
    if m := re.search(rf"The height of the pyramid is \$(\d+){CM}\$", body):
        h = float(m.group(1))
    else:  # the slant height of a square pyramid, to the midpoint of a base edge
        s = float(found(rf"The slant height.* is \$(\d+){CM}\$", body).group(1))
        h = math.sqrt(s * s - a * a / 4)
    foot = np.mean(base, axis=0)
    solid = [(x, y, 0.0) for x, y in base] + [(float(foot[0]), float(foot[1]), h)]
    return float(ConvexHull(np.array(solid)).volume)


def similar_triangles(seed: SeedProgram, v: Variant) -> Value:
    body, ask = text(seed, v, Modality.LATEX)
    known = {k: sp.Integer(n) for k, n in re.findall(rf"\$([A-Z]{{2}}) = (\d+){CM}\$", body)}
    asked = found(r"length of ([A-Z]{2}), in cm\?$", ask).group(1)
    s = {k: sp.Symbol(k, positive=True) for k in ("AD", "DB", "DE", "BC", "AO", "OC", "AB", "CD")}
    if "In triangle $ABC$" in body:  # ADE ~ ABC
        ratio = sp.Eq(s["AD"] / (s["AD"] + s["DB"]), s["DE"] / s["BC"])
    else:  # OAB ~ OCD
        ratio = sp.Eq(s["AO"] / s["OC"], s["AB"] / s["CD"])
    (value,) = sp.solve(ratio.subs({s[k]: n for k, n in known.items()}), s[asked])
    return float(value)


def pythagoras_context(seed: SeedProgram, v: Variant) -> Value:
    p = v.params
    story = seed.representation(v, Modality.STORY).text
    hyp, vert, horiz = sp.symbols("hyp vert horiz", positive=True)
    names = {"hyp": hyp, "vert": vert, "horiz": horiz}
    known = {}
    for key, value in p["given"].items():
        shown = str(int(value)) if value == int(value) else str(value)
        assert re.search(rf"\b{re.escape(shown)} (metres|metre|inches|inch)\b", story), (shown, story)
        known[names[key]] = sp.nsimplify(value)
    (solution,) = sp.solve(sp.Eq(horiz**2 + vert**2, hyp**2).subs(known), names[p["unknown"]])
    return float(solution)


def region_area(seed: SeedProgram, v: Variant) -> Value:
    code = seed.representation(v, Modality.CODE).extra["code"]
    namespace: dict = {}
    exec(code, namespace)
    x, f, g = namespace["x"], namespace["f"], namespace["g"]
    diff = sp.Poly(sp.expand(f - g), x)
    roots = sorted(float(r.real) for r in np.roots([float(c) for c in diff.all_coeffs()]))
    h = sp.lambdify(x, f - g)
    area, _ = quad(lambda t: abs(h(t)), roots[0], roots[1], epsabs=1e-12, epsrel=1e-12)
    return float(area)


def point_distance(seed: SeedProgram, v: Variant) -> Value:
    body, ask = text(seed, v, Modality.LATEX)
    where = {
        c: complex(int(x), int(y))
        for c, x, y in re.findall(r"the (\w+) point \$\((-?\d+), (-?\d+)\)\$", body)
    }
    c1, c2 = found(r"between the (\w+) point and the (\w+) point\?$", ask).groups()
    return abs(where[c1] - where[c2])


def circle_center(seed: SeedProgram, v: Variant) -> Value:
    equation = seed.representation(v, Modality.LATEX).extra["latex"]
    x, y = sp.symbols("x y")
    expr = parse_expr(
        equation.replace("^{2}", "^2").split("=")[0], local_dict={"x": x, "y": y}, transformations=TRANSFORMS
    )
    centre = sp.solve([sp.diff(expr, x), sp.diff(expr, y)], [x, y])  # where x^2 + y^2 + ... is least
    assert -expr.subs(centre) > 0  # a real circle
    return float(centre[x]), float(centre[y])


def line_intersection(seed: SeedProgram, v: Variant) -> Value:
    body, ask = text(seed, v, Modality.LATEX)
    pattern = r"the (\w+) line passes through \$\((-?\d+), (-?\d+)\)\$ and \$\((-?\d+), (-?\d+)\)\$"
    lines = {c: [int(n) for n in rest] for c, *rest in re.findall(pattern, body)}
    rows, rhs = [], []
    for color in found(r"do the (\w+) line and the (\w+) line intersect\?$", ask).groups():
        x1, y1, x2, y2 = lines[color]
        rows.append([y2 - y1, x1 - x2])  # (y2 - y1) x + (x1 - x2) y = c through both points
        rhs.append((y2 - y1) * x1 + (x1 - x2) * y1)
    solution = sp.Matrix(rows).LUsolve(sp.Matrix(rhs))
    return float(solution[0]), float(solution[1])


def reflect_point(seed: SeedProgram, v: Variant) -> Value:
    body, _ = text(seed, v, Modality.LATEX)
    px, py = (int(n) for n in found(r"\$P = \((-?\d+), (-?\d+)\)\$", body).groups())
    line = found(r"is the line \$([^$]+)\$", body).group(1)
    x, y = sp.symbols("x y")
    lhs, rhs = line.split("=")
    expr = sp.expand(
        parse_expr(lhs, local_dict={"x": x, "y": y}) - parse_expr(rhs, local_dict={"x": x, "y": y})
    )
    a, b, c = (sp.Rational(expr.coeff(x)), sp.Rational(expr.coeff(y)), expr.subs({x: 0, y: 0}))
    t = (a * px + b * py + c) / (a * a + b * b)  # P minus twice its offset along the normal
    return float(px - 2 * a * t), float(py - 2 * b * t)


def triangle_perimeter(seed: SeedProgram, v: Variant) -> Value:
    body, ask = text(seed, v, Modality.LATEX)
    labels = dict(re.findall(r"\$(AB|BC|CA) = ([^$]+)\$", body))
    perimeter, asked = found(
        r"perimeter of triangle ABC is (\d+) cm\. What is the length of side (\w\w), in cm\?$", ask
    ).groups()
    letter = next(ch for text_ in labels.values() for ch in text_ if ch.isalpha())
    var = sp.Symbol(letter)
    sides = {
        s: parse_expr(t, local_dict={letter: var}, transformations=TRANSFORMS) for s, t in labels.items()
    }
    (value,) = sp.solve(sp.Eq(sum(sides.values()), int(perimeter)), var)
    return float(sides[asked].subs(var, value))


def sinusoid_period(seed: SeedProgram, v: Variant) -> Value:
    # The smallest shift (a multiple of pi/24) that maps the CODE form's function onto itself.
    code = seed.representation(v, Modality.CODE).extra["code"]
    namespace: dict = {}
    exec(code, namespace)
    f = sp.lambdify(namespace["x"], namespace["f"].doit(), "numpy")
    xs = np.linspace(0.013, 2.9, 300)
    base = f(xs)
    for k in range(1, 400):
        with np.errstate(all="ignore"):
            shifted = f(xs + k * math.pi / 24)
        ok = np.isfinite(base) & np.isfinite(shifted) & (np.abs(base) < 50)
        if np.allclose(shifted[ok], base[ok], atol=1e-6):
            return k * math.pi / 24
    raise AssertionError(f"no period found for {code}")


def cuboid_angle(seed: SeedProgram, v: Variant) -> Value:
    body, ask = text(seed, v, Modality.LATEX)
    edges = {k: int(n) for k, n in re.findall(rf"\$(AB|AD|AE) = (\d+){CM}\$", body)}
    a, b, c = edges["AB"], edges["AD"], edges["AE"]
    corner = {"A": (0, 0, 0), "B": (a, 0, 0), "C": (a, b, 0), "D": (0, b, 0)}
    corner |= {up: (x, y, c) for up, (x, y, _) in zip("EFGH", list(corner.values()), strict=True)}
    joins = {
        col: (p, q) for col, p, q in re.findall(r"[Tt]he (\w+) segment joins \$(\w)\$ and \$(\w)\$", body)
    }
    first, second = found(r"The (\w+) segment and the (\w+) segment meet", ask).groups()
    (shared,) = set(joins[first]) & set(joins[second])
    (y,), (z,) = (set(joins[col]) - {shared} for col in (first, second))
    s1, s2, far = (math.dist(corner[p], corner[q]) for p, q in ((shared, y), (shared, z), (y, z)))
    return math.degrees(math.acos((s1 * s1 + s2 * s2 - far * far) / (2 * s1 * s2)))  # law of cosines


def polygon_angle(seed: SeedProgram, v: Variant) -> Value:
    body, _ = text(seed, v, Modality.LATEX)
    known = [int(n) for n in re.findall(r"\\angle [A-Z] = (\d+)\^\\circ", body)]
    n = len(known) + 1
    assert body.count("x^\\circ") == 1
    return float((n - 2) * 180 - sum(known))


def parallel_angles(seed: SeedProgram, v: Variant) -> Value:
    # Each marked angle measured on the drawn (to-scale) figure, its label from the text, solved for x.
    body, _ = text(seed, v, Modality.LATEX)
    rays = {
        "APE": ("P", "A", "E"), "EPB": ("P", "E", "B"), "BPQ": ("P", "B", "Q"), "QPA": ("P", "Q", "A"),
        "CQP": ("Q", "C", "P"), "PQD": ("Q", "P", "D"), "DQF": ("Q", "D", "F"), "FQC": ("Q", "F", "C"),
    }  # fmt: skip
    pts = {k: np.array(q, dtype=float) for k, q in v.params["points"].items()}
    x = sp.Symbol("x")
    values: list[float] = []
    for name, label in re.findall(r"\\angle (\w{3}) = \(?([^$]*?)\)?\^\\circ", body):
        vertex, u, w = (pts[k] for k in rays[name])
        a, b = u - vertex, w - vertex
        measured = math.degrees(math.atan2(abs(a[0] * b[1] - a[1] * b[0]), float(np.dot(a, b))))
        expr = parse_expr(label, local_dict={"x": x}, transformations=TRANSFORMS)
        values += [float(s) for s in sp.solve(sp.Eq(expr, round(measured, 6)), x)]
    # the drawn points are stored to 6 decimals: the measured angles agree to about 1e-5 degrees
    assert values and max(values) - min(values) < 1e-3, values
    return round(sum(values) / len(values), 3)


Solver = Callable[[SeedProgram, Variant], Value]
# seed -> (solver, how its answer scales with the factor: 1 lengths and coordinates, 2 areas, 3 volumes)
MAGNITUDE: dict[str, tuple[Solver, int]] = {
    "dynamath_ring_area": (ring_area, 2),
    "dynamath_cone_slant": (cone_slant, 1),
    "dynamath_cylinder_surface": (cylinder_surface, 2),
    "dynamath_pyramid_volume": (pyramid_volume, 3),
    "dynamath_similar_triangles": (similar_triangles, 1),
    "dynamath_pythagoras_context": (pythagoras_context, 1),
    "dynamath_region_area": (region_area, 1),  # a vertical stretch
    "dynamath_point_distance": (point_distance, 1),
    "dynamath_circle_center": (circle_center, 1),
    "dynamath_line_intersection": (line_intersection, 1),
    "dynamath_reflect_point": (reflect_point, 1),
    "dynamath_triangle_perimeter": (triangle_perimeter, 1),
}
NOOP: dict[str, Solver] = {
    **{sid: solver for sid, (solver, _) in MAGNITUDE.items()},
    "dynamath_sinusoid_period": sinusoid_period,
    "dynamath_cuboid_angle": cuboid_angle,
    "dynamath_polygon_angle": polygon_angle,
    "dynamath_parallel_angles": parallel_angles,
}


def agrees(seed: SeedProgram, answer: str, value: Value) -> bool:
    """The seed's answer is the independently computed value, as the seed writes numbers (at most
    three decimals; points as `(x, y)`)."""
    if isinstance(value, tuple):
        m = re.fullmatch(r"\((-?[\d.]+), (-?[\d.]+)\)", answer)
        return m is not None and all(
            abs(float(g) - w) <= 5e-4 for g, w in zip(m.groups(), value, strict=True)
        )
    if seed.answer_type is AnswerType.INT:
        return abs(value - round(value)) < 1e-6 and answer == str(round(value))
    within = abs(float(answer) - value) <= 5.001e-4 + 1e-9 * abs(value)
    return within and is_correct(f"{value:.9f}", answer, seed.answer_type) is True


def scaled_by(before: Value, after: Value, factor: float) -> bool:
    pairs = zip(before, after, strict=True) if isinstance(before, tuple) else [(before, after)]
    return all(math.isclose(b * factor, a, rel_tol=1e-7, abs_tol=1e-6) for b, a in pairs)  # type: ignore[arg-type]


# ------------------------------------------------------------------------------------------------ tests


def test_the_geometry_seeds_declare_what_is_checked_here() -> None:
    for sid in MAGNITUDE:
        assert {"noop", "magnitude"} <= get_seed(sid).perturbations, sid
    for sid in NOOP:
        assert "noop" in get_seed(sid).perturbations, sid


@pytest.mark.parametrize("seed_id", sorted(MAGNITUDE))
def test_magnitude_truth_by_an_independent_solver(seed_id: str) -> None:
    seed = get_seed(seed_id)
    solver, power = MAGNITUDE[seed_id]
    for index in range(VARIANTS):
        variant = seed.variant(index)
        plain = solver(seed, variant)
        assert agrees(seed, variant.answer, plain), (index, variant.answer, plain)
        for factor in (10, 1000):
            scaled = perturb(seed, variant, Perturbation("magnitude", factor=factor))
            value = solver(seed, scaled)  # read from the scaled text
            assert agrees(seed, scaled.answer, value), (index, factor, scaled.answer, value)
            assert scaled_by(plain, value, factor**power), (index, factor, plain, value)
    digits = perturb(seed, seed.variant(0), parse_perturbation("magnitude:digits=6"))
    assert agrees(seed, digits.answer, solver(seed, digits))


@pytest.mark.parametrize("seed_id", sorted(NOOP))
def test_noop_truth_by_an_independent_solver(seed_id: str) -> None:
    seed = get_seed(seed_id)
    solver = NOOP[seed_id]
    for index in range(VARIANTS):
        variant = seed.variant(index)
        noop = perturb(seed, variant, Perturbation("noop"))
        assert noop.params[NOOP_KEY] in noop.question
        value = solver(seed, noop)  # read from the text with the clause
        assert agrees(seed, variant.answer, value), (index, noop.question, variant.answer, value)
        assert noop.answer == variant.answer


def test_the_solvers_can_fail() -> None:
    # A wrong truth is caught: the scaled variant with the unscaled answer disagrees with the solver.
    seed = get_seed("dynamath_pyramid_volume")
    variant = seed.variant(3)
    scaled = perturb(seed, variant, Perturbation("magnitude", factor=10))
    assert not agrees(seed, variant.answer, pyramid_volume(seed, scaled))
    assert agrees(seed, scaled.answer, pyramid_volume(seed, scaled))
