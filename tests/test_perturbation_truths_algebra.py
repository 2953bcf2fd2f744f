"""Issue 41: the truths of perturbed algebra, arithmetic and puzzle variants, checked independently.

For every seed of these groups that supports magnitude, the x10 and x1000 variants are solved here
from their text forms (the CODE, LaTeX or STORY rendering, read back with regular expressions) by a
method other than the seed's: numpy linear algebra instead of the seed's elimination, homogeneous
cross products for two lines, `decimal.Decimal` money, SymPy `linsolve` and Lagrange interpolation,
evaluating the question's own expression. The solver must agree with the perturbed answer, and for the
linear seeds the scaled answer must be the factor times the unscaled one.

For every seed that supports noop, the noop variant is solved the same way from its text forms, which
carry the clause: the answer must be the unperturbed one.
"""

from __future__ import annotations

import itertools
import math
import re
from collections import Counter
from collections.abc import Callable
from dataclasses import replace
from datetime import datetime, timedelta, timezone
from decimal import ROUND_HALF_UP, Decimal
from fractions import Fraction

import numpy as np
import pytest
import sympy as sp

from isodyn.core import AnswerType, Modality, Variant
from isodyn.generators import get_seed
from isodyn.generators.base import SeedProgram
from isodyn.generators.perturb import NOOP_KEY, Perturbation, perturb
from isodyn.scoring.answer_match import is_correct
from test_dynamath_algebra import _inequality_set

VARIANTS = 30
FACTORS = (10, 1000)
x = sp.Symbol("x", real=True)


def text(seed: SeedProgram, v: Variant, modality: Modality) -> str:
    return seed.representation(v, modality).text


def code_namespace(seed: SeedProgram, v: Variant) -> dict:
    """Run the ```python block of the CODE rendering and return its names."""
    block = re.search(r"```python\n(.*?)```", text(seed, v, Modality.CODE), re.S)
    assert block, "the CODE form has a python block"
    ns: dict = {}
    exec(block.group(1), ns)
    return ns


def letter_of(v: Variant, shown: str) -> str:
    return "ABCDEFGHIJ"[list(v.choices).index(shown)]


# ------------------------------------------------------------------------------------------ solvers
# Each takes the seed and a (perturbed) variant and returns the answer it derives.


def cubic_table(seed: SeedProgram, v: Variant) -> str:
    # The values from the CODE dict, the letters from its comment; a Vandermonde solve in floats.
    ns = code_namespace(seed, v)
    pairs = sorted(ns["f_values"].items())
    comment = re.search(
        r"# f\(x\) = (\w)\*x\*\*3 \+ (\w)\*x\*\*2 \+ (\w)\*x \+ (\w) ", text(seed, v, Modality.CODE)
    )
    assert comment
    asked = re.search(r"What is the value of \$(\w)\$\?", v.question)
    assert asked
    coeffs = np.linalg.solve(np.vander([float(a) for a, _ in pairs], 4), [float(b) for _, b in pairs])
    value = coeffs[list(comment.groups()).index(asked.group(1))]
    assert abs(value - round(value)) < 1e-6 * max(1.0, abs(value))
    return str(round(value))


def function_composition(seed: SeedProgram, v: Variant) -> str:
    # The two dicts of the CODE form; the question's LaTeX rewritten as Python and evaluated.
    ns = code_namespace(seed, v)
    fn, gn = re.findall(r"^(\w) = \{", text(seed, v, Modality.CODE), re.M)
    tables = {fn: ns[fn], gn: ns[gn]}
    found = re.search(r"what is \$(.*)\$\?", v.question)
    assert found
    expr = found.group(1).replace("^{-1}", "_inv")

    def unfold(m: re.Match) -> str:
        names = [s.strip() for s in m.group(1).split("\\circ")]
        return "".join(f"{n}(" for n in names) + m.group(2) + ")" * len(names)

    expr = re.sub(r"\(([^()]*\\circ[^()]*)\)\((-?\d+)\)", unfold, expr)
    inverse = {y: k for k, y in tables[fn].items()}
    env = {fn: tables[fn].__getitem__, gn: tables[gn].__getitem__, f"{fn}_inv": inverse.__getitem__}
    return str(eval(expr, env))


def geometric_bars(seed: SeedProgram, v: Variant) -> str:
    # The terms listed in the LaTeX form; the ratio from the first two, the rest by repeated products.
    shown = [Fraction(t) for t in re.findall(r"a_\{\d+\} = (-?[\d.]+)", text(seed, v, Modality.LATEX))]
    ratio = shown[1] / shown[0]
    assert all(b == a * ratio for a, b in itertools.pairwise(shown))
    term = re.search(r"the (\d+)th term", v.question)
    total = re.search(r"the sum of the first (\d+) terms", v.question)
    n = int((term or total).group(1))  # type: ignore[union-attr]
    seq = [shown[0] * ratio**k for k in range(n)]
    value = seq[-1] if term else sum(seq, Fraction(0))
    return str(float(value))


def line_system(seed: SeedProgram, v: Variant) -> str:
    # The four points of the LaTeX form; a line is the cross product of two points in homogeneous
    # coordinates and the crossing the cross product of the two lines.
    pts = [
        (int(a), int(b), 1) for a, b in re.findall(r"\$\((-?\d+), (-?\d+)\)\$", text(seed, v, Modality.LATEX))
    ]
    assert len(pts) == 4
    l1, l2 = np.cross(pts[0], pts[1]), np.cross(pts[2], pts[3])
    hx, hy, w = (int(t) for t in np.cross(l1, l2))
    assert w != 0
    return f"({Fraction(hx, w)}, {Fraction(hy, w)})"


def money_change(seed: SeedProgram, v: Variant) -> str:
    # Prices and the money handed over from the STORY, quantities from the question, in Decimal.
    story = text(seed, v, Modality.STORY)
    cur = re.escape(v.params["currency"])
    tags = re.findall(rf"an? ([\w ]+?) costs {cur}(\d+(?:\.\d+)?)", story)
    prices = {name: Decimal(amount) for name, amount in tags}
    words = {"one": 1, "two": 2, "three": 3}
    handed = re.search(r"hands over (.*)\.", story)
    assert handed
    paid = sum(
        (words.get(n, 0) or int(n)) * Decimal(amount)
        for n, amount in re.findall(rf"(\w+) {cur}(\d+(?:\.\d+)?) (?:note|coin)", handed.group(1))
    )
    bought = re.search(r"buys (.*) at ", v.question)
    assert bought
    cost = Decimal(0)
    for q, word in re.findall(r"(\d+) ([a-z]+)", bought.group(1)):
        name = next(n for n in prices if word in (n, n + "s", n + "es"))
        cost += int(q) * prices[name]
    return str(paid - cost)


def magic_square(seed: SeedProgram, v: Variant) -> str:
    # The LaTeX array read back; every line sums to S, least squares over the unknown cells and S.
    body = re.search(r"\\hline\n(.*)\\end\{array\}", text(seed, v, Modality.LATEX), re.S)
    assert body
    grid = [
        [c.strip() for c in row.split("&")]
        for row in body.group(1).replace("\\hline", "").split("\\\\")
        if row.strip()
    ]
    n = len(grid)
    unknown = [(r, c) for r in range(n) for c in range(n) if not re.fullmatch(r"-?\d+", grid[r][c])]
    col = {cell: k for k, cell in enumerate(unknown)}
    lines = [[(r, c) for c in range(n)] for r in range(n)] + [[(r, c) for r in range(n)] for c in range(n)]
    lines += [[(i, i) for i in range(n)], [(i, n - 1 - i) for i in range(n)]]
    rows, rhs = [], []
    for line in lines:
        a = np.zeros(len(unknown) + 1)
        a[-1] = -1.0  # ... - S = - (sum of the known cells)
        known = 0
        for cell in line:
            if cell in col:
                a[col[cell]] += 1
            else:
                known += int(grid[cell[0]][cell[1]])
        rows.append(a)
        rhs.append(-known)
    sol, *_ = np.linalg.lstsq(np.array(rows), np.array(rhs, dtype=float), rcond=None)
    asked = next(cell for cell in unknown if grid[cell[0]][cell[1]] == "?")
    value = sol[col[asked]]
    assert np.allclose(np.array(rows) @ sol, rhs)
    return str(round(value))


def number_pyramid(seed: SeedProgram, v: Variant) -> str:
    # The CODE list; every brick a symbol, each brick the sum of the two below, SymPy linsolve.
    pyramid = code_namespace(seed, v)["pyramid"]
    bricks = {(r, i): sp.Symbol(f"b{r}_{i}") for r, row in enumerate(pyramid) for i in range(len(row))}
    eqs = [
        sp.Eq(bricks[r, i], bricks[r + 1, i] + bricks[r + 1, i + 1])
        for r in range(len(pyramid) - 1)
        for i in range(r + 1)
    ]
    for r, row in enumerate(pyramid):
        for i, t in enumerate(row):
            if t is not None and t != "?":
                eqs.append(sp.Eq(bricks[r, i], int(t)))
    (sol,) = sp.linsolve(eqs, list(bricks.values()))
    asked = next((r, i) for r, row in enumerate(pyramid) for i, t in enumerate(row) if t == "?")
    value = dict(zip(bricks.values(), sol, strict=True))[bricks[asked]]
    assert not value.free_symbols, "the given bricks pin the asked one down"
    return str(value)


def shape_sequence(seed: SeedProgram, v: Variant) -> str:
    # The figures of the CODE dict counted, a Lagrange polynomial through the counts evaluated at k.
    # A checkerboard's colour split is not polynomial: its total is, and the colour of figure 1's tile
    # gets the larger half.
    figures = code_namespace(seed, v)["figures"]
    asked = re.search(r"how many (?:(\w+) )?tiles will Figure (\d+) have", v.question)
    assert asked
    colour, k = asked.group(1), int(asked.group(2))
    checker = v.params["pattern"] == "checkerboard"

    def counted(tiles: list) -> int:
        return len(tiles) if colour is None or checker else sum(1 for t in tiles if t[2] == colour)

    points = [(i, counted(figures[i])) for i in sorted(figures)]
    total = int(sp.interpolate(points[:3], x).subs(x, k))
    for i, c in points[3:]:  # a fourth figure, when shown, follows the same rule
        assert int(sp.interpolate(points[:3], x).subs(x, i)) == c
    if checker:
        first = figures[1][0][2]
        return str((total + 1) // 2 if colour == first else total // 2)
    return str(total)


def inequality_interval(seed: SeedProgram, v: Variant) -> str:
    # SymPy's solveset on the function built from the params (test_dynamath_algebra's helper).
    found = _inequality_set(v.params)
    assert isinstance(found, sp.Interval), found
    return f"{'(' if found.left_open else '['}{found.left}, {found.right}{')' if found.right_open else ']'}"


def zero_count(seed: SeedProgram, v: Variant) -> str:
    # Sign changes of the CODE form's function on a fine grid.
    ns = code_namespace(seed, v)
    f = ns["f"].subs(ns["x"], x)
    interval = re.search(r"on the interval \$\[(-?[\d.]+), (-?[\d.]+)\]\$", v.question)
    assert interval
    grid = np.linspace(float(interval.group(1)), float(interval.group(2)), 100_001)
    ys = np.asarray(sp.lambdify(x, f, "numpy")(grid), dtype=float) * np.ones_like(grid)
    signs = np.sign(ys)
    return str(int(np.count_nonzero(np.diff(signs[signs != 0]))))


def shifted_abs(seed: SeedProgram, v: Variant) -> str:
    # One-sided difference quotients at 0 of c|x - a| + d x + b (the seed only looks at a).
    p = v.params

    def f(t: float) -> float:
        return p["c"] * abs(t - p["a"]) + p["d"] * t + p["b"]

    h = 1e-6
    left, right = (f(0) - f(-h)) / h, (f(h) - f(0)) / h
    return letter_of(v, "Yes" if abs(left - right) < 1e-3 else "No")


def boarding_pass(seed: SeedProgram, v: Variant) -> str:
    # Timezone-aware datetimes from the STORY.
    story = text(seed, v, Modality.STORY)
    m = re.search(
        r"departs at (.+?) on (\d\d [A-Z]{3} \d{4}), local time in .+? \((UTC[^)]*)\), and arrives at (.+?) "
        r"on (\d\d [A-Z]{3} \d{4}), local time in .+? \((UTC[^)]*)\)",
        story,
    )
    assert m, story

    def moment(clock: str, date: str, offset: str) -> datetime:
        fmt = "%I:%M %p %d %b %Y" if "M" in clock else "%H:%M %d %b %Y"
        stamp = datetime.strptime(f"{clock} {date.title()}", fmt)
        z = re.fullmatch(r"UTC([+-])(\d+)(?::(\d\d))?", offset)
        assert z
        minutes = (int(z.group(2)) * 60 + int(z.group(3) or 0)) * (1 if z.group(1) == "+" else -1)
        return stamp.replace(tzinfo=timezone(timedelta(minutes=minutes)))

    dep, arr = moment(*m.group(1, 2, 3)), moment(*m.group(4, 5, 6))
    minutes = int((arr - dep).total_seconds() // 60)
    return f"{minutes // 60}:{minutes % 60:02d}"


def clock_after(seed: SeedProgram, v: Variant) -> str:
    # datetime arithmetic; the direction read from the question's words.
    p = v.params
    back = any(w in v.question for w in ("earlier", "after her bus left", "did it depart"))
    t = datetime(2000, 1, 1, p["hour"] % 12, p["minute"]) + (-1 if back else 1) * timedelta(
        minutes=p["delta"]
    )
    return f"{t.hour % 12 or 12}:{t.minute:02d}"


def fraction_shapes(seed: SeedProgram, v: Variant) -> str:
    # Fractions of the parts in the asked colour; the colour and the extreme read from the question.
    p = v.params
    asked = re.search(r"the (largest|smallest) fraction of its area shaded (\w+)\?", v.question)
    assert asked and asked.group(2) == p["color"]
    fracs = [
        Fraction(len(s["main"]), s["rows"] * s["cols"] if s["kind"] == "grid" else s["n"])
        for s in p["shapes"]
    ]
    best = (max if asked.group(1) == "largest" else min)(fracs)
    return letter_of(v, f"Shape {fracs.index(best) + 1}")


def ruler_length(seed: SeedProgram, v: Variant) -> str:
    # The two marks of the STORY in Decimal, converted to the unit the question names.
    marks = re.findall(r"at the ([\d.]+) cm mark", text(seed, v, Modality.STORY))
    cm = Decimal(marks[1]) - Decimal(marks[0])
    if "millimetres" in v.question:
        return str(cm * 10)
    if "centimetres" in v.question:
        return str(cm)
    return str((cm / Decimal("2.54")).quantize(Decimal("0.01"), rounding=ROUND_HALF_UP))


def grid_paths(seed: SeedProgram, v: Variant) -> str:
    # Every path of the CODE grid walked by depth-first search.
    grid = code_namespace(seed, v)["grid"]
    start = next((r, c) for r, row in enumerate(grid) for c, ch in enumerate(row) if ch == "S")
    end = next((r, c) for r, row in enumerate(grid) for c, ch in enumerate(row) if ch == "E")
    dr = -1 if "right or up" in v.question else 1

    def walk(r: int, c: int) -> int:
        if (r, c) == end:
            return 1
        return sum(
            walk(nr, nc)
            for nr, nc in ((r, c + 1), (r + dr, c))
            if 0 <= nr < len(grid) and 0 <= nc < len(grid[0]) and grid[nr][nc] != "#"
        )

    return str(walk(*start))


def lock_code(seed: SeedProgram, v: Variant) -> str:
    # All 720 codes tried against the hints.
    def hint(code: str, guess: str) -> tuple[int, int]:
        placed = sum(a == b for a, b in zip(code, guess, strict=True))
        return placed, sum((Counter(code) & Counter(guess)).values()) - placed

    codes = [f"{i:03d}" for i in range(1000) if len(set(f"{i:03d}")) == 3]
    (found,) = [c for c in codes if all(hint(c, g) == (w, m) for g, w, m in v.params["clues"])]
    return found


# seed -> (solver, whether the answer is linear in the scaled quantities)
MAGNITUDE: dict[str, tuple[Callable[[SeedProgram, Variant], str], bool]] = {
    "dynamath_cubic_table": (cubic_table, True),
    "dynamath_function_composition": (function_composition, True),
    "dynamath_geometric_bars": (geometric_bars, True),
    "dynamath_line_system": (line_system, True),
    "dynamath_money_change": (money_change, True),
    "dynamath_magic_square": (magic_square, True),
    "dynamath_number_pyramid": (number_pyramid, True),
    "dynamath_shape_sequence": (shape_sequence, False),
}
NOOP: dict[str, Callable[[SeedProgram, Variant], str]] = {
    **{s: solve for s, (solve, _) in MAGNITUDE.items()},
    "dynamath_inequality_interval": inequality_interval,
    "dynamath_zero_count": zero_count,
    "dynamath_shifted_abs": shifted_abs,
    "dynamath_boarding_pass": boarding_pass,
    "dynamath_clock_after": clock_after,
    "dynamath_fraction_shapes": fraction_shapes,
    "dynamath_ruler_length": ruler_length,
    "dynamath_grid_paths": grid_paths,
    "dynamath_lock_code": lock_code,
}


def agrees(derived: str, v: Variant) -> bool:
    if v.answer_type is AnswerType.MULTIPLE_CHOICE:
        return derived == v.answer
    return is_correct(derived, v.answer, v.answer_type)


def test_the_groups_declare_what_is_checked_here() -> None:
    for seed_id in MAGNITUDE:
        assert {"noop", "magnitude"} <= get_seed(seed_id).perturbations, seed_id
    for seed_id in NOOP:
        assert "noop" in get_seed(seed_id).perturbations, seed_id
    assert len(MAGNITUDE) >= 8 and len(NOOP) >= 17


@pytest.mark.parametrize("seed_id", sorted(MAGNITUDE))
def test_magnitude_truth_by_an_independent_solver(seed_id: str) -> None:
    seed = get_seed(seed_id)
    solve, linear = MAGNITUDE[seed_id]
    grew = 0
    for index in range(VARIANTS):
        v = seed.variant(index)
        plain = solve(seed, v)
        assert agrees(plain, v), (seed_id, index, plain, v.answer)  # the solver itself can fail
        for factor in FACTORS:
            scaled = perturb(seed, v, Perturbation("magnitude", factor=factor))
            derived = solve(seed, scaled)
            assert agrees(derived, scaled), (seed_id, index, factor, derived, scaled.answer)
            if linear:  # the answer scales with the quantities
                if seed_id == "dynamath_line_system":
                    got = [Fraction(t) for t in re.findall(r"-?[\d.]+", scaled.answer)]
                    assert got == [factor * Fraction(t) for t in re.findall(r"-?[\d.]+", v.answer)]
                else:
                    assert Fraction(scaled.answer) == factor * Fraction(v.answer), (scaled.answer, v.answer)
            grew += scaled.answer != v.answer
    assert grew >= VARIANTS  # the perturbation does change the truth


@pytest.mark.parametrize("seed_id", sorted(NOOP))
def test_noop_truth_by_an_independent_solver(seed_id: str) -> None:
    seed = get_seed(seed_id)
    solve = NOOP[seed_id]
    for index in range(VARIANTS):
        v = seed.variant(index)
        noop = perturb(seed, v, Perturbation("noop"))
        assert noop.params[NOOP_KEY] in noop.question
        derived = solve(seed, noop)  # read from the text forms, which now carry the clause
        assert derived == solve(seed, v)
        assert agrees(derived, v) and noop.answer == v.answer, (seed_id, index, derived, v.answer)


def test_a_wrong_scaled_truth_would_be_caught() -> None:
    # The check is not vacuous: a magnitude variant whose answer was left unscaled disagrees with the
    # independent solver.
    seed = get_seed("dynamath_number_pyramid")
    v = seed.variant(0)
    scaled = perturb(seed, v, Perturbation("magnitude", factor=10))
    stale = replace(scaled, answer=v.answer)
    assert not agrees(number_pyramid(seed, stale), stale)
    assert math.isclose(float(scaled.answer), 10 * float(v.answer))
