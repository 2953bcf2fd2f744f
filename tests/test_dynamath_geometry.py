"""Tests for the DynaMath geometry seeds (plane, solid, analytic).

Every truth is recomputed here without the seeds' own code: measurements on the stored (to-scale)
coordinates, SymPy integrals and equation solving, scipy's convex hull and quadrature, a 3D hinge-fold
of cube nets, brute-force period search. The seeds are imported directly (not through discovery), so
a broken module elsewhere in the package cannot hide a failure here. The checks every seed shares (each
modality renders, determinism) are in test_every_seed.py.
"""

from __future__ import annotations

import importlib
import itertools
import json
import math
import re
from collections import Counter
from pathlib import Path

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

from isodyn.core import AnswerType, Level, Modality, Topic, Variant, VariationType
from isodyn.generators.base import SeedProgram, format_choices, registered
from isodyn.scoring import score
from isodyn.scoring.answer_match import parse_number

GEOMETRY_DIR = Path(__file__).resolve().parents[1] / "src" / "isodyn" / "generators" / "dynamath"
MODULES = sorted(p.stem for p in GEOMETRY_DIR.glob("geometry_*.py"))
for _name in MODULES:
    importlib.import_module(f"isodyn.generators.dynamath.{_name}")
SEEDS: dict[str, SeedProgram] = {
    sid: cls()
    for sid, cls in sorted(registered().items())
    if cls.__module__.startswith("isodyn.generators.dynamath.geometry_")
}
SEED_IDS = tuple(SEEDS)
TRANSFORMS = (*standard_transformations, implicit_multiplication_application, convert_xor)
N_TRUTH = 100


def variants(seed_id: str, count: int, base_seed: int = 0) -> list[Variant]:
    seed = SEEDS[seed_id]
    return [seed.variant(i, base_seed) for i in range(count)]


_CACHE: dict[str, list[Variant]] = {}


def truth_variants(seed_id: str) -> list[Variant]:
    if seed_id not in _CACHE:
        _CACHE[seed_id] = variants(seed_id, N_TRUTH)
    return _CACHE[seed_id]


def num(x: float) -> str:
    """How the seeds print numbers: at most three decimals, no trailing zeros."""
    r = round(float(x), 3)
    if r == 0:
        return "0"
    return str(int(r)) if r == int(r) else f"{r:.3f}".rstrip("0").rstrip(".")


def close(answer: str, value: float, tol: float = 1.5e-3) -> bool:
    parsed = parse_number(answer)
    return parsed is not None and abs(parsed - value) <= tol


def choice_value(v: Variant) -> str:
    return v.choices[ord(v.answer) - ord("A")]


def degrees(text: str) -> float:
    return float(text.replace("°", ""))


def angle_at(vertex, p, q) -> float:
    a = np.asarray(p, dtype=float) - np.asarray(vertex, dtype=float)
    b = np.asarray(q, dtype=float) - np.asarray(vertex, dtype=float)
    return math.degrees(math.atan2(abs(a[0] * b[1] - a[1] * b[0]), float(np.dot(a, b))))


def parse_point(text: str) -> tuple[float, float]:
    m = re.fullmatch(r"\((-?[\d.]+), (-?[\d.]+)\)", text)
    assert m, text
    return float(m.group(1)), float(m.group(2))


# -------------------------------------------------------------------------------------------------- the set


def test_twenty_seeds_in_three_topics() -> None:
    assert len(SEED_IDS) == 20 == len(MODULES)
    topics = Counter(s.topic for s in SEEDS.values())
    assert topics == {Topic.PLANE_GEOMETRY: 8, Topic.SOLID_GEOMETRY: 5, Topic.ANALYTIC_GEOMETRY: 7}


def test_requirements_across_the_set() -> None:
    levels = {s.level for s in SEEDS.values()}
    assert levels == {Level.ELEMENTARY, Level.HIGH_SCHOOL, Level.UNDERGRADUATE}
    kinds = Counter(s.answer_type for s in SEEDS.values())
    assert kinds[AnswerType.MULTIPLE_CHOICE] >= 3 and kinds[AnswerType.FLOAT] >= 3
    assert kinds[AnswerType.INT] >= 3 and kinds[AnswerType.TEXT] >= 2
    used = Counter(t for s in SEEDS.values() for t in s.variation_types)
    for vt in VariationType:
        assert used[vt] >= 2, (vt, used)
    assert sum(len(s.variation_types) >= 2 for s in SEEDS.values()) >= 4


@pytest.mark.parametrize("seed_id", SEED_IDS)
def test_metadata(seed_id: str) -> None:
    seed = SEEDS[seed_id]
    assert seed_id.startswith("dynamath_")
    assert Modality.IMAGE in seed.modalities
    assert set(seed.modalities) & {Modality.LATEX, Modality.CODE, Modality.STORY}
    assert isinstance(seed.variant_space, int) and seed.variant_space >= 100
    assert len(set(seed.variation_types)) == len(seed.variation_types) >= 1


# --------------------------------------------------------------------------------------------- variation


@pytest.mark.parametrize("seed_id", SEED_IDS)
def test_other_index_or_base_seed_gives_other_variant(seed_id: str) -> None:
    def content(v: Variant) -> str:
        return json.dumps([v.params, v.question, v.answer], sort_keys=True)

    base0, base1 = variants(seed_id, 30, 0), variants(seed_id, 30, 1)
    assert sum(content(a) != content(b) for a, b in zip(base0, base1, strict=True)) >= 25
    assert sum(content(a) != content(b) for a, b in itertools.pairwise(base0)) >= 25
    assert len({content(v) for v in base0}) >= 24


# -------------------------------------------------------------------------------------------------- answers


@pytest.mark.parametrize("seed_id", SEED_IDS)
def test_answers_parse_and_score_as_their_type(seed_id: str) -> None:
    seed = SEEDS[seed_id]
    for i, v in enumerate(truth_variants(seed_id)):
        assert v.answer_type is seed.answer_type
        if v.answer_type is AnswerType.MULTIPLE_CHOICE:
            assert v.answer in "ABCD"[: len(v.choices)] and len(v.choices) == 4
            assert len(set(v.choices)) == 4
            assert v.question.endswith(format_choices(v.choices))
        elif v.answer_type in (AnswerType.FLOAT, AnswerType.INT):
            value = parse_number(v.answer)
            assert value is not None and math.isfinite(value), v.answer
            if v.answer_type is AnswerType.INT:
                assert re.fullmatch(r"-?\d+", v.answer), v.answer
            else:
                assert len(v.answer.split(".")[-1]) <= 3 or "." not in v.answer
        else:
            assert v.params.get("answer_format"), "text answers say their form"
            parse_point(v.answer)
        if i < 15:  # the full scorer (extraction + comparison) reads the truth back as correct
            reply = json.dumps({"solution": "...", "short answer": v.answer})
            graded = score(reply, v.answer, v.answer_type, v.choices)
            assert graded.correct, (v.answer, graded)


@pytest.mark.parametrize(
    "seed_id", [s for s in SEED_IDS if SEEDS[s].answer_type is AnswerType.MULTIPLE_CHOICE]
)
def test_multiple_choice_answers_vary(seed_id: str) -> None:
    counts = Counter(v.answer for v in variants(seed_id, 50))
    print(f"{seed_id}: answer letters over 50 variants: {dict(sorted(counts.items()))}")
    assert len(counts) > 1
    assert max(counts.values()) <= 0.5 * 50, counts


@pytest.mark.parametrize("seed_id", SEED_IDS)
def test_solution_is_worked_and_ends_with_the_answer(seed_id: str) -> None:
    for v in variants(seed_id, 20):
        lines = [ln for ln in v.solution.strip().splitlines() if ln.strip()]
        assert len(lines) >= 3, v.solution
        if v.answer_type is AnswerType.MULTIPLE_CHOICE:
            assert lines[-1] == f"Answer: ({v.answer}) {choice_value(v)}."
        else:
            assert lines[-1] == f"Answer: {v.answer}"


# ----------------------------------------------------------------------------------------------- modalities


def carried(v: Variant) -> list[str]:
    """Numbers (and names) every text rendering of the variant must state."""
    p = v.params
    sid = v.seed_id
    if sid == "dynamath_ring_area":
        return [num(r) for r in p["radii"]] + p["ring_colors"]
    if sid == "dynamath_triangle_perimeter":
        return list(p["labels"].values())
    if sid == "dynamath_inscribed_angle":
        return [str(p["given"])]
    if sid == "dynamath_similar_triangles":
        return [str(x) for x in p["given"].values()]
    if sid == "dynamath_sector_area":
        return [str(p["radius"]), *map(str, p["angles"]), *p["colors"]]
    if sid == "dynamath_pythagoras_context":
        return [num(x) for x in p["given"].values()]
    if sid == "dynamath_polygon_angle":
        return [str(a) for i, a in enumerate(p["angles"]) if i != p["unknown"]]
    if sid == "dynamath_parallel_angles":
        return [lab.replace("°", "") for lab in p["labels"].values()]
    if sid == "dynamath_pyramid_volume":
        return [str(p[k]) for k in ("a", "b", "h", "s") if k in p]
    if sid == "dynamath_cylinder_surface":
        size = num(2 * p["r"]) if p["shown"] == "diameter" else num(p["r"])
        return [size, num(p["h"])]
    if sid == "dynamath_cube_net":
        return list(p["labels"])
    if sid == "dynamath_cone_slant":
        known = {"l": str(p["l"]), "h": str(p["h"]), "r": str(2 * p["r"] if p["diameter"] else p["r"])}
        return [val for key, val in known.items() if key != p["asked"]]
    if sid == "dynamath_cuboid_angle":
        return [str(p["a"]), str(p["b"]), str(p["c"]), *p["colors"], p["vertex"], *p["ends"]]
    if sid == "dynamath_sinusoid_period":
        return []  # checked numerically in test_sinusoid_text_forms_define_the_same_function
    if sid == "dynamath_line_equation":
        return [f"({x}, {y})" for x, y in p["points"]]
    if sid == "dynamath_point_distance":
        return [f"({x}, {y})" for x, y in p["points"]] + p["colors"]
    if sid == "dynamath_circle_center":
        return []  # parsed and solved in the truth test
    if sid == "dynamath_line_intersection":
        return [f"({x}, {y})" for line in p["lines"] for x, y in line] + p["colors"]
    if sid == "dynamath_reflect_point":
        return [f"({p['point'][0]}, {p['point'][1]})"]
    if sid == "dynamath_region_area":
        return []  # the code is executed in test_region_area_truth_by_quadrature
    raise AssertionError(f"no carried-number rule for {sid}")


@pytest.mark.parametrize("seed_id", SEED_IDS)
def test_pictures_are_detailed_and_text_forms_carry_the_numbers(seed_id: str) -> None:
    """(That every modality renders, and the same inputs give the same renderings: test_every_seed.py.)"""
    seed = SEEDS[seed_id]
    for v in variants(seed_id, 5, base_seed=11):
        for modality in seed.modalities:
            rep = seed.representation(v, modality)
            if modality is Modality.IMAGE:
                assert rep.image_png is not None and len(rep.image_png) > 5000
            else:
                body = rep.text[: -len(v.question)]
                for item in carried(v):
                    assert item in body, (modality, item, rep.text)


# ------------------------------------------------------------------------------------------- plane geometry


def test_ring_area_truth_by_integration() -> None:
    r = sp.Symbol("r", positive=True)
    for v in truth_variants("dynamath_ring_area"):
        p = v.params
        radii = p["radii"]
        assert radii == sorted(radii) and len(set(radii)) == len(radii)
        k = p["ring_colors"].index(p["asked"])
        area = sp.integrate(2 * sp.pi * r, (r, sp.nsimplify(radii[k]), sp.nsimplify(radii[k + 1])))
        assert close(v.answer, float(area)), (v.answer, float(area))
        assert p["asked"] in v.question


def test_triangle_perimeter_truth_by_solving() -> None:
    for v in truth_variants("dynamath_triangle_perimeter"):
        p = v.params
        var = sp.Symbol(p["var"])
        sides = {
            s: parse_expr(lab, local_dict={p["var"]: var}, transformations=TRANSFORMS)
            for s, lab in p["labels"].items()
        }
        (value,) = sp.solve(sp.Eq(sum(sides.values()), p["perimeter"]), var)
        lengths = {s: e.subs(var, value) for s, e in sides.items()}
        assert all(sp.sympify(length).is_integer and length > 0 for length in lengths.values())
        assert v.answer == str(lengths[p["asked"]])
        # The drawing is to scale: the vertex distances are the side lengths.
        pts = dict(zip("ABC", p["coords"], strict=True))
        for s, length in lengths.items():
            assert abs(math.dist(pts[s[0]], pts[s[1]]) - float(length)) < 1e-3


# Variants whose wrong options were too few to pick three from (they raised before the seed filled in
# nearby values): checked like the others.
SHORT_OF_DISTRACTORS = {"dynamath_inscribed_angle": (251, 977), "dynamath_sector_area": (209, 272, 708)}


def with_short(seed_id: str) -> list[Variant]:
    return [*truth_variants(seed_id), *(SEEDS[seed_id].variant(i) for i in SHORT_OF_DISTRACTORS[seed_id])]


def test_inscribed_angle_truth_by_measuring() -> None:
    for v in with_short("dynamath_inscribed_angle"):
        p = v.params
        a, b, c = (
            (math.cos(math.radians(p[k])), math.sin(math.radians(p[k])))
            for k in ("angle_a", "angle_b", "angle_c")
        )
        at_c = angle_at(c, a, b)
        at_o = angle_at((0, 0), a, b)
        given, asked = (at_o, at_c) if p["find"] == "inscribed" else (at_c, at_o)
        assert abs(given - p["given"]) < 1e-6
        assert abs(degrees(choice_value(v)) - asked) < 1e-6, (v.choices, asked)
        others = [degrees(ch) for ch in v.choices if ch != choice_value(v)]
        assert all(abs(o - asked) > 0.5 for o in others)


def test_similar_triangles_truth_by_measuring() -> None:
    for v in truth_variants("dynamath_similar_triangles"):
        p = v.params
        pts = {k: np.array(q) for k, q in p["points"].items()}

        def length(seg: str, pts=pts) -> float:
            return float(np.linalg.norm(pts[seg[0]] - pts[seg[1]]))

        for seg, val in p["given"].items():
            assert abs(length(seg) - val) < 1e-4, (seg, val)
        pair = (("D", "E"), ("B", "C")) if p["config"] == "nested" else (("A", "B"), ("C", "D"))
        d1, d2 = (pts[q] - pts[o] for o, q in pair)
        assert abs(d1[0] * d2[1] - d1[1] * d2[0]) < 1e-4 * np.linalg.norm(d1) * np.linalg.norm(d2)
        assert close(v.answer, length(p["asked"])), (v.answer, length(p["asked"]))


def pi_value(text: str) -> float:
    expr = text.replace(" cm²", "").replace("π", "*pi").lstrip("*")
    expr = re.sub(r"^(\d*)\*pi", lambda m: f"{m.group(1) or 1}*pi", expr)
    return float(sp.sympify(expr))


def test_sector_area_truth_by_polygon_approximation() -> None:
    for v in with_short("dynamath_sector_area"):
        p = v.params
        assert sum(p["angles"]) == 360
        k = p["colors"].index(p["asked"])
        start = math.radians(p["start"] + sum(p["angles"][:k]))
        t = np.linspace(start, start + math.radians(p["angles"][k]), 20001)
        xs = np.concatenate([[0.0], p["radius"] * np.cos(t)])
        ys = np.concatenate([[0.0], p["radius"] * np.sin(t)])
        shoelace = 0.5 * abs(float(np.dot(xs, np.roll(ys, -1)) - np.dot(ys, np.roll(xs, -1))))
        values = [pi_value(ch) for ch in v.choices]
        assert abs(values[ord(v.answer) - 65] - shoelace) < 1e-3 * shoelace
        assert sum(abs(val - shoelace) < 1e-3 * shoelace for val in values) == 1


def test_pythagoras_context_truth_with_sympy() -> None:
    hyp, vert, horiz = sp.symbols("hyp vert horiz", positive=True)
    names = {"hyp": hyp, "vert": vert, "horiz": horiz}
    for v in truth_variants("dynamath_pythagoras_context"):
        p = v.params
        known = {names[k]: sp.nsimplify(val) for k, val in p["given"].items()}
        (sol,) = sp.solve(sp.Eq(horiz**2 + vert**2, hyp**2).subs(known), names[p["unknown"]])
        assert close(v.answer, float(sol)), (v.answer, float(sol))
        # The drawn legs match the stated and derived lengths.
        hyp_value = float(sol) if p["unknown"] == "hyp" else float(known[hyp])
        assert abs(math.hypot(p["vert"], p["horiz"]) - hyp_value) < 1e-4
        for key in ("vert", "horiz"):
            if key in p["given"]:
                assert abs(p[key] - p["given"][key]) < 1e-6


def test_polygon_angle_truth_by_measuring() -> None:
    for v in truth_variants("dynamath_polygon_angle"):
        p = v.params
        pts = np.array(p["vertices"])
        n = len(pts)
        assert sum(p["angles"]) == (n - 2) * 180
        edges = [pts[(i + 1) % n] - pts[i] for i in range(n)]
        cross = [edges[i][0] * edges[(i + 1) % n][1] - edges[i][1] * edges[(i + 1) % n][0] for i in range(n)]
        assert all(c > 0 for c in cross), "convex, counter-clockwise"
        measured = [angle_at(pts[i], pts[i - 1], pts[(i + 1) % n]) for i in range(n)]
        assert all(abs(m - a) < 1e-3 for m, a in zip(measured, p["angles"], strict=True))
        assert v.answer == str(round(measured[p["unknown"]]))


def test_parallel_angles_truth_by_measuring_and_solving() -> None:
    x = sp.Symbol("x")
    rays = {
        "APE": ("P", "A", "E"), "EPB": ("P", "E", "B"), "BPQ": ("P", "B", "Q"), "QPA": ("P", "Q", "A"),
        "CQP": ("Q", "C", "P"), "PQD": ("Q", "P", "D"), "DQF": ("Q", "D", "F"), "FQC": ("Q", "F", "C"),
    }  # fmt: skip
    for v in truth_variants("dynamath_parallel_angles"):
        p = v.params
        pts = {k: np.array(q) for k, q in p["points"].items()}
        ab, cd = pts["B"] - pts["A"], pts["D"] - pts["C"]
        assert abs(ab[0] * cd[1] - ab[1] * cd[0]) < 1e-6
        eqs = []
        for name in p["marked"]:
            vtx, u, w = rays[name]
            measured = angle_at(pts[vtx], pts[u], pts[w])
            text = p["labels"][name].replace("°", "")
            eqs.append(
                sp.Eq(parse_expr(text, local_dict={"x": x}, transformations=TRANSFORMS), round(measured, 6))
            )
        solutions = [s for eq in eqs for s in sp.solve(eq, x)]
        assert solutions and all(abs(float(s) - float(v.answer)) < 1e-3 for s in solutions), (p, solutions)


# ------------------------------------------------------------------------------------------- solid geometry


def test_pyramid_volume_truth_by_convex_hull() -> None:
    for v in truth_variants("dynamath_pyramid_volume"):
        p = v.params
        a = p["a"]
        if p["base"] == "triangle":
            base = [(0.0, 0.0, 0.0), (a, 0.0, 0.0), (a / 2, a * math.sqrt(3) / 2, 0.0)]
            foot = np.mean(base, axis=0)
        else:
            b = p.get("b", a)
            base = [(0.0, 0.0, 0.0), (a, 0.0, 0.0), (a, b, 0.0), (0.0, b, 0.0)]
            foot = np.array([a / 2, b / 2, 0.0])
        h = p["h"] if p["given"] == "height" else math.sqrt(p["s"] ** 2 - (a / 2) ** 2)
        if p["given"] == "slant":  # the slant height really is apex to edge midpoint
            apex = foot + np.array([0, 0, h])
            assert abs(np.linalg.norm(apex - np.array([a / 2, 0, 0])) - p["s"]) < 1e-9
        hull = ConvexHull(np.vstack([base, foot + np.array([0, 0, h])]))
        assert close(v.answer, hull.volume), (v.answer, hull.volume)


def test_cylinder_surface_truth_by_surface_integrals() -> None:
    ends_by_object = {"can": 2, "tank": 1, "glass": 1, "tube": 0}  # what each real object is made of
    theta, z, rho = sp.symbols("theta z rho", real=True)
    for v in truth_variants("dynamath_cylinder_surface"):
        p = v.params
        r, h = sp.nsimplify(p["r"]), sp.nsimplify(p["h"])
        side = sp.integrate(r, (theta, 0, 2 * sp.pi), (z, 0, h))
        disc = sp.integrate(rho, (rho, 0, r), (theta, 0, 2 * sp.pi))
        total = side + ends_by_object[p["object"]] * disc
        assert close(v.answer, float(total)), (v.answer, float(total))
        assert ("in square metres" in v.question) == (p["unit"] == "m")


def fold_net(cells: list[tuple[int, int]]) -> dict[tuple[int, int], np.ndarray]:
    """Fold a net in 3D: each square turns 90 degrees about its hinge with its parent (numpy matrices).

    Returns the 3D centre of each square; opposite faces have centres symmetric about the cube centre.
    """
    cellset = set(cells)
    root = cells[0]
    # Each square's map from its flat (net-plane) coordinates to space: p -> R @ p + t.
    maps = {root: (np.eye(3), np.zeros(3))}
    queue = [root]
    while queue:
        cell = queue.pop(0)
        rot, shift = maps[cell]
        r, c = cell
        for nb in ((r, c + 1), (r, c - 1), (r - 1, c), (r + 1, c)):
            if nb not in cellset or nb in maps:
                continue
            # Hinge: the shared edge, in net-plane coordinates (x = column, y = -row); the neighbour turns
            # 90 degrees about it so that it rises towards +z (the inside of the cube).
            if nb[1] != c:
                sign = 1.0 if nb[1] > c else -1.0
                hinge = np.array([[0, 0, -sign], [0, 1, 0], [sign, 0, 0]], dtype=float)
                pivot = np.array([float(max(c, nb[1])), 0.0, 0.0])
            else:
                sign = 1.0 if nb[0] < r else -1.0  # up in the net is +y
                hinge = np.array([[1, 0, 0], [0, 0, -sign], [0, sign, 0]], dtype=float)
                pivot = np.array([0.0, -float(max(r, nb[0])), 0.0])
            # Child point p (flat) -> parent's flat coordinates pivot + hinge @ (p - pivot) -> space.
            new_rot = rot @ hinge
            new_shift = rot @ (pivot - hinge @ pivot) + shift
            maps[nb] = (new_rot, new_shift)
            queue.append(nb)
    centres = {}
    for (r, c), (rot, shift) in maps.items():
        flat = np.array([c + 0.5, -r - 0.5, 0.0])
        centres[(r, c)] = rot @ flat + shift
    return centres


def test_cube_net_truth_by_folding_in_3d() -> None:
    for v in truth_variants("dynamath_cube_net"):
        p = v.params
        cells = [tuple(c) for c in p["cells"]]
        centres = fold_net(cells)
        pts = np.array(list(centres.values()))
        middle = pts.mean(axis=0)
        # A real cube: six distinct face centres, each 1/2 from the centre.
        assert np.allclose(np.linalg.norm(pts - middle, axis=1), 0.5, atol=1e-9), pts
        labels = dict(zip(cells, p["labels"], strict=True))
        asked = next(c for c in cells if labels[c] == p["asked"])
        opposite = [c for c in cells if np.allclose(centres[c] + centres[asked], 2 * middle, atol=1e-9)]
        assert len(opposite) == 1
        assert choice_value(v) == labels[opposite[0]]
        assert p["asked"] not in v.choices


def test_cone_slant_truth_with_sympy() -> None:
    r, h, ell = sp.symbols("r h l", positive=True)
    names = {"r": r, "h": h, "l": ell}
    for v in truth_variants("dynamath_cone_slant"):
        p = v.params
        known = {names[k]: p[k] for k in names if k != p["asked"]}
        (sol,) = sp.solve(sp.Eq(ell**2, r**2 + h**2).subs(known), names[p["asked"]])
        assert sol.is_integer and v.answer == str(sol)
        if p["diameter"]:
            assert "diameter" in SEEDS["dynamath_cone_slant"].representation(v, Modality.LATEX).text


def test_cuboid_angle_truth_by_law_of_cosines() -> None:
    for v in truth_variants("dynamath_cuboid_angle"):
        p = v.params
        a, b, c = p["a"], p["b"], p["c"]
        coords = {"A": (0, 0, 0), "B": (a, 0, 0), "C": (a, b, 0), "D": (0, b, 0)}
        coords |= {up: (x, y, c) for up, (x, y, _) in zip("EFGH", coords.values(), strict=True)}

        def dist(u: str, w: str, coords=coords) -> float:
            return math.sqrt(sum((s - t) ** 2 for s, t in zip(coords[u], coords[w], strict=True)))

        x, (y, z) = p["vertex"], p["ends"]
        s1, s2, opposite = dist(x, y), dist(x, z), dist(y, z)
        angle = math.degrees(math.acos((s1**2 + s2**2 - opposite**2) / (2 * s1 * s2)))
        assert close(v.answer, angle), (v.answer, angle)
        assert all(col in v.question for col in p["colors"])


# ---------------------------------------------------------------------------------------- analytic geometry


def sinusoid(p: dict):
    amp, b, d = float(sp.Rational(p["A"])), float(sp.Rational(p["b"])), float(p["d"])
    s = float(sp.Rational(p["shift"])) * math.pi
    fn = {"sin": np.sin, "cos": np.cos, "tan": np.tan}[p["kind"]]
    return lambda t: amp * fn(b * (t - s)) + d


def test_sinusoid_period_truth_by_brute_force() -> None:
    xs = np.linspace(0.013, 2.9, 400)
    for v in truth_variants("dynamath_sinusoid_period"):
        f = sinusoid(v.params)
        base = f(xs)
        period = None
        for k in range(1, 400):
            cand = k * math.pi / 24
            with np.errstate(all="ignore"):
                shifted = f(xs + cand)
            ok = np.isfinite(base) & np.isfinite(shifted) & (np.abs(base) < 50)
            if np.allclose(shifted[ok], base[ok], atol=1e-6):
                period = cand
                break
        assert period is not None and close(v.answer, period), (v.params, v.answer, period)


def test_sinusoid_text_forms_define_the_same_function() -> None:
    seed = SEEDS["dynamath_sinusoid_period"]
    xs = np.array([0.1, 0.37, 0.9, 1.3])
    for v in variants("dynamath_sinusoid_period", 20):
        code = seed.representation(v, Modality.CODE).extra["code"]
        namespace: dict = {}
        exec(code, namespace)
        g = sp.lambdify(namespace["x"], namespace["f"].doit(), "numpy")
        assert np.allclose(g(xs), sinusoid(v.params)(xs), atol=1e-9)
        latex = seed.representation(v, Modality.LATEX).text
        assert f"\\{v.params['kind']}" in latex


def parse_equation(tex: str) -> sp.Expr:
    """`$y - 3 = -\\frac{1}{2}(x + 2)$` -> lhs - rhs as a SymPy expression in x and y."""
    body = tex.strip("$")
    body = re.sub(r"\\frac\{(\d+)\}\{(\d+)\}", r"(\1/\2)", body)
    lhs, rhs = body.split("=")
    names = {"x": sp.Symbol("x"), "y": sp.Symbol("y")}
    return parse_expr(lhs, local_dict=names, transformations=TRANSFORMS) - parse_expr(
        rhs, local_dict=names, transformations=TRANSFORMS
    )


def test_line_equation_truth_by_substitution() -> None:
    x, y = sp.symbols("x y")
    for v in truth_variants("dynamath_line_equation"):
        pts = v.params["points"]
        for i, option in enumerate(v.choices):
            expr = parse_equation(option)
            through_both = all(sp.simplify(expr.subs({x: px, y: py})) == 0 for px, py in pts)
            assert through_both == (chr(65 + i) == v.answer), (option, pts)


def test_point_distance_truth() -> None:
    for v in truth_variants("dynamath_point_distance"):
        p = v.params
        where = {c: complex(*q) for c, q in zip(p["colors"], p["points"], strict=True)}
        c1, c2 = p["asked"]
        assert close(v.answer, abs(where[c1] - where[c2]))
        assert f"the {c1} point and the {c2} point" in v.question


def test_circle_center_truth_from_the_latex_equation() -> None:
    seed = SEEDS["dynamath_circle_center"]
    x, y = sp.symbols("x y")
    for v in truth_variants("dynamath_circle_center"):
        eq = seed.representation(v, Modality.LATEX).extra["latex"]
        body = eq.replace("^{2}", "^2").split("=")[0]
        expr = parse_expr(body, local_dict={"x": x, "y": y}, transformations=TRANSFORMS)
        centre = sp.solve([sp.diff(expr, x), sp.diff(expr, y)], [x, y])
        radius_sq = -expr.subs(centre)
        assert radius_sq > 0
        assert parse_point(v.answer) == (float(centre[x]), float(centre[y]))
        # The drawn circle (centre h, k, radius r) is the same circle.
        p = v.params
        assert (p["h"], p["k"], p["r"] ** 2) == (centre[x], centre[y], radius_sq)


def test_line_intersection_truth_by_linear_algebra() -> None:
    for v in truth_variants("dynamath_line_intersection"):
        p = v.params
        rows, rhs = [], []
        for color in p["asked"]:
            (x1, y1), (x2, y2) = p["lines"][p["colors"].index(color)]
            a, b = y2 - y1, x1 - x2
            rows.append([a, b])
            rhs.append(a * x1 + b * y1)
        sol = np.linalg.solve(np.array(rows, dtype=float), np.array(rhs, dtype=float))
        gx, gy = parse_point(v.answer)
        assert abs(gx - sol[0]) < 1e-9 and abs(gy - sol[1]) < 1e-9, (v.answer, sol)


def test_reflect_point_truth_by_projection() -> None:
    seed = SEEDS["dynamath_reflect_point"]
    x, y = sp.symbols("x y")
    for v in truth_variants("dynamath_reflect_point"):
        latex = seed.representation(v, Modality.LATEX).text
        line = re.search(r"is the line \$([^$]+)\$", latex).group(1)
        lhs, rhs = line.split("=")
        expr = sp.expand(
            parse_expr(lhs, local_dict={"x": x, "y": y}) - parse_expr(rhs, local_dict={"x": x, "y": y})
        )
        a, b, c = float(expr.coeff(x)), float(expr.coeff(y)), float(expr.subs({x: 0, y: 0}))
        px, py = v.params["point"]
        t = (a * px + b * py + c) / (a * a + b * b)
        image = (px - 2 * a * t, py - 2 * b * t)
        gx, gy = parse_point(v.answer)
        assert abs(gx - image[0]) < 1e-9 and abs(gy - image[1]) < 1e-9, (line, v.params, v.answer)


def test_region_area_truth_by_quadrature() -> None:
    seed = SEEDS["dynamath_region_area"]
    kinds = Counter()
    for v in truth_variants("dynamath_region_area"):
        code = seed.representation(v, Modality.CODE).extra["code"]
        namespace: dict = {}
        exec(code, namespace)
        xs = namespace["x"]
        f, g = namespace["f"], namespace["g"]
        diff = sp.Poly(sp.expand(f - g), xs)
        roots = sorted(float(r.real) for r in np.roots([float(c) for c in diff.all_coeffs()]))
        assert len(roots) == 2
        h = sp.lambdify(xs, f - g)
        area, _ = quad(lambda t, h=h: abs(h(t)), roots[0], roots[1])
        assert close(v.answer, area), (v.answer, area)
        kinds[sp.degree(g, xs)] += 1
    assert kinds[1] + kinds[0] > 10 and kinds[2] > 10, kinds  # both function types occur
