"""The tape (generators/tape.py): a seed's draws recorded and replayed with some of them changed.

A worst-variant search walks this space, so every point of it must be a legitimate variant of its seed:
- without tweaks the tape changes nothing (the same variant as `seed.variant`);
- an in-range tweak is used as given (or the seed refuses it with TapeError, never anything else), an
  out-of-range or wrongly shaped one is ignored and reported, and the draws after a tweak are the
  original ones;
- the truth of tweaked variants, pushed to the ends of their draws' ranges, still holds when it is
  recomputed here by other means than the seed's (numerical derivatives, exact evaluation at points,
  quadrature, angle measuring, networkx / scipy graph algorithms);
- a genome read from a file is checked (TapeError for anything else), and a seed that loops on a
  tweaked value is stopped.
"""

from __future__ import annotations

import itertools
import json
import math
import signal
from collections import Counter
from collections.abc import Callable, Iterator
from contextlib import contextmanager, suppress
from fractions import Fraction
from functools import cache
from typing import Any

import networkx as nx
import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from scipy.integrate import quad
from scipy.sparse import csr_matrix
from scipy.sparse.csgraph import connected_components

from isodyn.core import AnswerType, Level, Modality, Representation, Topic, Variant, VariationType
from isodyn.generators import all_seeds
from isodyn.generators.base import Draw, SeedProgram
from isodyn.generators.tape import (
    MAX_DRAWS,
    MAX_TWEAK_LENGTH,
    DrawRecord,
    Genome,
    Realized,
    TapedRng,
    TapeError,
    Value,
    realize,
    tweakable,
)

SEEDS = all_seeds()
SEED_IDS = tuple(SEEDS)
FIDELITY_VARIANTS = ((0, 0), (3, 0), (1, 7))  # (index, base seed)
EXTREME_DRAWS = 8  # tweakable draws pushed to both ends, per seed


# ------------------------------------------------------------------------------------------------ helpers


def realize_tweaked(seed_id: str, tweaks: dict[int, Value], index: int = 0, base_seed: int = 0) -> Realized:
    return realize(SEEDS[seed_id], Genome(seed_id, index, base_seed).with_tweaks(tweaks))


@cache
def original(seed_id: str, index: int = 0, base_seed: int = 0) -> Realized:
    return realize(SEEDS[seed_id], Genome(seed_id, index, base_seed))


def listed(draw: DrawRecord) -> bool:
    """Whether the draw returned an array (its value is a list), not a scalar."""
    return isinstance(draw.value, list)


def options(draw: DrawRecord) -> list[int]:
    """The indices a choice draw may return (those with weight > 0)."""
    weights = draw.weights
    return [i for i in range(int(draw.low), int(draw.high) + 1) if weights is None or weights[i] > 0]


def kind_of(draw: DrawRecord) -> str:
    """A label for reports: `choice[size] distinct weighted`, `random`, ..."""
    parts = [draw.kind + ("[size]" if listed(draw) and draw.kind != "permutation" else "")]
    parts += ["distinct"] * (draw.distinct and draw.size > 1) + ["weighted"] * (draw.weights is not None)
    return " ".join(parts)


def shaped(draw: DrawRecord, each: Any) -> Value:
    """One value for every slot of the draw, in the draw's own form (a list for an array draw)."""
    return [each] * draw.size if listed(draw) else each


def extremes(draw: DrawRecord) -> list[Value]:
    """Two in-range values for the draw at the ends of its range."""
    if draw.kind == "permutation":
        identity = list(range(draw.size))
        return [identity, identity[::-1]]
    if draw.kind in ("random", "uniform"):
        return [shaped(draw, float(draw.low)), shaped(draw, float(np.nextafter(draw.high, -np.inf)))]
    if draw.kind == "choice":
        allowed = options(draw)
        if draw.distinct and listed(draw):  # the smallest / largest distinct indices
            return [allowed[: draw.size], allowed[::-1][: draw.size]]
        return [shaped(draw, allowed[0]), shaped(draw, allowed[-1])]
    return [shaped(draw, int(draw.low)), shaped(draw, int(draw.high))]


def random_value(draw: DrawRecord, rng: np.random.Generator) -> Value:
    """Any in-range value for the draw."""
    if draw.kind == "permutation":
        return [int(v) for v in rng.permutation(draw.size)]
    if draw.kind == "choice" and draw.distinct and listed(draw):
        return [int(v) for v in rng.choice(options(draw), size=draw.size, replace=False)]

    def one() -> int | float:
        if draw.kind in ("random", "uniform"):
            return float(rng.uniform(draw.low, draw.high))
        if draw.kind == "choice":
            return int(rng.choice(options(draw)))
        return int(rng.integers(int(draw.low), int(draw.high) + 1))

    return [one() for _ in range(draw.size)] if listed(draw) else one()


def out_of_range(draw: DrawRecord) -> list[Value]:
    """Values the draw could never have returned (or in the wrong form): each must be ignored."""
    bad: list[Any] = []
    if draw.kind in ("random", "uniform"):
        bad += [shaped(draw, float(draw.high)), shaped(draw, float(np.nextafter(draw.low, -np.inf)))]
        bad += [shaped(draw, int(draw.low))]  # an int where a float is drawn
    else:
        bad += [shaped(draw, int(draw.low) - 1), shaped(draw, int(draw.high) + 1), shaped(draw, 0.5)]
    if draw.kind == "choice" and draw.weights is not None:
        bad += [shaped(draw, i) for i, w in enumerate(draw.weights) if w <= 0]
    if draw.kind == "permutation" or (draw.kind == "choice" and draw.distinct and draw.size > 1):
        bad += [[int(draw.low)] * draw.size]  # repeated entries
    if listed(draw):
        bad += [[*draw.values, draw.values[0]]]  # one too many
        if draw.size > 1:
            bad += [draw.values[0], draw.values[:-1]]  # a scalar for an array; one too few
    else:
        bad += [[draw.value], [draw.value, draw.value]]  # a list for a scalar draw
    return bad


# -------------------------------------------------------------------------------------------- 1. fidelity


@pytest.mark.parametrize("seed_id", SEED_IDS)
def test_an_untweaked_genome_is_the_seeds_own_variant(seed_id: str) -> None:
    seed = SEEDS[seed_id]
    for index, base_seed in FIDELITY_VARIANTS:
        done = realize(seed, Genome(seed_id, index, base_seed))
        assert done.variant.fingerprint() == seed.variant(index, base_seed).fingerprint()
        assert done.ignored == ()
        assert [d.position for d in done.draws] == list(range(len(done.draws)))
        # far from the cap that stops looping seeds, so no ordinary variant is ever refused
        assert len(done.draws) < MAX_DRAWS // 4
    assert realize(seed, Genome(seed_id, 5), index=42).variant.index == 42


# ------------------------------------------------------------------------------------- 2. tweaks take effect


@cache
def extreme_outcomes(seed_id: str) -> tuple[tuple[DrawRecord, Value, Realized | TapeError], ...]:
    """Each of the first tweakable draws of variant 0 at both ends of its range, realized."""
    outcomes = []
    for draw in tweakable(original(seed_id).draws)[:EXTREME_DRAWS]:
        for value in extremes(draw):
            try:
                outcome: Realized | TapeError = realize_tweaked(seed_id, {draw.position: value})
            except TapeError as exc:
                outcome = exc
            outcomes.append((draw, value, outcome))
    return tuple(outcomes)


# A flat tweak (every value of an array draw the same) makes some seeds divide 0 by 0 and draw again.
FLAT_DRAWS = pytest.mark.filterwarnings("ignore:invalid value encountered:RuntimeWarning")


@FLAT_DRAWS
@pytest.mark.parametrize("seed_id", SEED_IDS)
def test_an_in_range_tweak_is_used_or_refused_with_tape_error(seed_id: str) -> None:
    for draw, value, outcome in extreme_outcomes(seed_id):
        if isinstance(outcome, TapeError):
            continue
        there = outcome.draws[draw.position]
        assert (there.kind, there.low, there.high, there.size) == (draw.kind, draw.low, draw.high, draw.size)
        assert there.value == value, (draw, value)
        assert outcome.ignored == ()
        assert outcome.draws[: draw.position] == original(seed_id).draws[: draw.position]


@FLAT_DRAWS
def test_most_in_range_tweaks_make_a_variant() -> None:
    made: Counter[str] = Counter()
    refused: Counter[str] = Counter()
    causes: Counter[str] = Counter()
    for seed_id in SEED_IDS:
        for draw, _, outcome in extreme_outcomes(seed_id):
            if isinstance(outcome, TapeError):
                refused[kind_of(draw)] += 1
                cause = outcome.__cause__
                causes[f"{seed_id}: {type(cause or outcome).__name__}: {cause or outcome}"[:160]] += 1
            else:
                made[kind_of(draw)] += 1
    print("\ntweaks to the ends of a draw's range: made / refused (TapeError)")
    for kind in sorted(made | refused):
        print(f"  {kind:32s} {made[kind]:5d} / {refused[kind]}")
    print("refusals by cause:")
    for text, count in sorted(causes.items()):
        print(f"  {count:3d} x {text}")
    total_made, total = sum(made.values()), sum(made.values()) + sum(refused.values())
    assert total > 600
    assert total_made >= 0.9 * total, (total_made, total)
    assert {kind.split()[0].split("[")[0] for kind in made} == {
        "integers", "random", "uniform", "choice", "permutation"
    }  # fmt: skip


def test_a_scalar_for_a_one_value_array_draw_is_taken_as_that_array() -> None:
    """`choice(n, size=1)` returns an array: its record holds [i], and [j] or j both replace it."""
    draw = next(d for d in original("dynamath_sector_area").draws if d.kind == "choice" and d.distinct)
    assert draw.size == 1 and listed(draw)
    other = 0 if draw.values[0] != 0 else 1
    for value in ([other], other):
        done = realize_tweaked("dynamath_sector_area", {draw.position: value})
        assert done.ignored == () and done.draws[draw.position].value == [other]


# --------------------------------------------------------------------------- 3. out-of-range tweaks ignored


@pytest.mark.parametrize("seed_id", SEED_IDS)
def test_an_out_of_range_or_misshapen_tweak_is_ignored(seed_id: str) -> None:
    first = original(seed_id)
    for draw in tweakable(first.draws)[:4]:
        for value in out_of_range(draw):
            done = realize_tweaked(seed_id, {draw.position: value})
            assert done.ignored == (draw.position,), (draw, value)
            assert done.draws == first.draws, (draw, value)
            assert done.variant.fingerprint() == first.variant.fingerprint()


def test_an_out_of_range_tweak_is_ignored_next_to_one_that_is_used() -> None:
    draws = tweakable(original("dynamath_stem_leaf_mean").draws)
    good, bad = draws[-1], draws[-2]
    value = int(good.low) if good.value != good.low else int(good.high)
    done = realize_tweaked("dynamath_stem_leaf_mean", {bad.position: int(bad.high) + 1, good.position: value})
    assert done.ignored == (bad.position,)
    assert done.draws[bad.position].value == bad.value and done.draws[good.position].value == value


# ----------------------------------------------------------------------- 4. later draws are the original ones


def test_draws_after_a_tweak_keep_their_values_on_shifted_abs() -> None:
    """shifted_abs draws random() < 1/3 first; a tweak on the same side keeps every later draw."""
    checked = 0
    for index in range(12):
        first = original("dynamath_shifted_abs", index)
        drawn = first.draws[0].value
        assert first.draws[0].kind == "random" and isinstance(drawn, float)
        for value in [0.0, 0.3] if drawn < 1 / 3 else [0.34, float(np.nextafter(1.0, 0.0))]:
            done = realize_tweaked("dynamath_shifted_abs", {0: value}, index)
            assert done.draws[0].value == value
            assert done.draws[1:] == first.draws[1:]
            assert done.variant.answer == first.variant.answer  # the corner stays off / at 0
            checked += 1
    assert checked == 24


def draw_everything(rng: Any) -> list[Any]:
    """One call of each kind the tape records, with sizes, weights and populations, and a few it does not."""
    return [
        rng.integers(0, 10),
        rng.integers(5, size=3),
        rng.integers(1, 6, endpoint=True),
        rng.random(),
        rng.random(size=(2, 2)),
        rng.uniform(-2.0, 5.0),
        rng.uniform(0.0, 1.0, size=2),
        rng.normal(),  # passed through
        rng.choice(["a", "b", "c", "d"]),
        rng.choice(6, size=3, replace=False),
        rng.choice(3, p=[0.5, 0.0, 0.5]),
        rng.choice(np.arange(8).reshape(4, 2)),  # a row of a 2-D population
        rng.choice(4, size=1, replace=False),
        rng.permutation(5),
        rng.permutation(np.arange(6).reshape(3, 2)),
        rng.permutation(np.arange(6).reshape(2, 3), axis=1),  # not recorded
        rng.integers(0, 2**40),
    ]


def same(a: list[Any], b: list[Any]) -> list[bool]:
    return [np.array_equal(np.asarray(x), np.asarray(y)) for x, y in zip(a, b, strict=True)]


def test_the_tape_gives_numpys_draws_and_keeps_later_ones_after_a_tweak() -> None:
    plain = draw_everything(np.random.default_rng(5))
    tape = TapedRng(np.random.default_rng(5))
    assert all(same(draw_everything(tape), plain))
    assert [d.kind for d in tape.draws] == [
        "integers", "integers", "integers", "random", "random", "uniform", "uniform", "choice", "choice",
        "choice", "choice", "choice", "permutation", "permutation", "integers",
    ]  # fmt: skip
    records = list(tape.draws)
    for record in tweakable(records):
        for value in extremes(record):
            tweaked = TapedRng(np.random.default_rng(5), {record.position: value})
            got = draw_everything(tweaked)
            assert tweaked.ignored == [] and tweaked.draws[record.position].value == value
            assert [d.value for d in tweaked.draws if d.position != record.position] == [
                d.value for d in records if d.position != record.position
            ]
            # every returned value but (at most) the tweaked one is numpy's own
            assert sum(not s for s in same(got, plain)) <= 1


# ------------------------------------------------------------------ 5. independent truths on tweaked variants


def chosen(v: Variant) -> str:
    return v.choices[ord(v.answer) - ord("A")]


def near(answer: str, value: float, tol: float = 6e-4) -> bool:
    """The seeds print at most three decimals."""
    return abs(float(answer) - value) <= tol


def check_shifted_abs(v: Variant) -> None:
    """One-sided difference quotients at 0 with exact fractions (the corner is at a whole number)."""
    a, b, c, d = (Fraction(str(v.params[k])) for k in "abcd")

    def f(x: Fraction) -> Fraction:
        return c * abs(x - a) + d * x + b

    h = Fraction(1, 1000)
    left, right = (f(Fraction(0)) - f(-h)) / h, (f(h) - f(Fraction(0))) / h
    assert c != 0
    assert chosen(v) == ("Yes" if left == right else "No"), v.params


def check_point_distance(v: Variant) -> None:
    p = v.params
    where = {color: np.array(xy, dtype=float) for color, xy in zip(p["colors"], p["points"], strict=True)}
    first, second = p["asked"]
    assert first != second and len(where) == len(p["points"])
    assert near(v.answer, float(np.linalg.norm(where[first] - where[second])))


def check_ring_area(v: Variant) -> None:
    """The ring of the asked colour (painted from the outside in) by quadrature over its radius."""
    p = v.params
    radii = p["radii"]
    assert all(r < s for r, s in itertools.pairwise(radii)) and radii[0] > 0
    k = p["ring_colors"].index(p["asked"])
    area, _ = quad(lambda r: 2 * math.pi * r, radii[k], radii[k + 1])
    assert near(v.answer, area), (v.answer, area)


def check_polygon_angle(v: Variant) -> None:
    """The unknown angle measured at its vertex of the stored polygon."""
    p = v.params
    pts = np.array(p["vertices"], dtype=float)
    n = len(pts)
    assert n == p["n"] and sum(p["angles"]) == (n - 2) * 180
    k = p["unknown"]
    u, w = pts[k - 1] - pts[k], pts[(k + 1) % n] - pts[k]
    measured = math.degrees(math.acos(float(np.dot(u, w) / (np.linalg.norm(u) * np.linalg.norm(w)))))
    assert abs(measured - int(v.answer)) < 1e-3, (measured, v.answer)


def check_pythagoras_context(v: Variant) -> None:
    p = v.params
    given_ = {k: float(x) for k, x in p["given"].items()}
    if p["unknown"] == "hyp":
        value = abs(complex(given_["vert"], given_["horiz"]))
    else:
        leg = given_["vert" if p["unknown"] == "horiz" else "horiz"]
        value = math.sqrt((given_["hyp"] - leg) * (given_["hyp"] + leg))
        assert leg < given_["hyp"]
    assert near(v.answer, value), (v.answer, value, p)


def check_cone_slant(v: Variant) -> None:
    p = v.params
    r, h, slant = p["r"], p["h"], p["l"]
    assert slant * slant == r * r + h * h and min(r, h) > 0
    known = {"r": (slant * slant - h * h, r), "h": (slant * slant - r * r, h), "l": (r * r + h * h, slant)}
    square, value = known[p["asked"]]
    assert math.isqrt(square) ** 2 == square and v.answer == str(math.isqrt(square))
    assert value == math.isqrt(square)


def check_sector_area(v: Variant) -> None:
    """The asked sector as a fine polygon (shoelace), matched against the one right choice."""
    p = v.params
    assert sum(p["angles"]) == 360
    k = p["colors"].index(p["asked"])
    start = math.radians(p["start"] + sum(p["angles"][:k]))
    t = np.linspace(start, start + math.radians(p["angles"][k]), 4001)
    xs = np.concatenate([[0.0], p["radius"] * np.cos(t)])
    ys = np.concatenate([[0.0], p["radius"] * np.sin(t)])
    area = 0.5 * abs(float(np.dot(xs, np.roll(ys, -1)) - np.dot(ys, np.roll(xs, -1))))

    def value(text: str) -> float:  # `25π/2 cm²`
        top, _, bottom = text.removesuffix(" cm²").partition("/")
        return float(top.removesuffix("π") or 1) * math.pi / float(bottom or 1)

    close = [i for i, text in enumerate(v.choices) if abs(value(text) - area) < 1e-4 * area]
    assert close == [ord(v.answer) - ord("A")], (v.choices, area)


def check_parity(v: Variant) -> None:
    """f(-t) against f(t) at more points than N(-x)D(x) -+ N(x)D(-x) has roots, in exact arithmetic."""
    num = [Fraction(str(c)) for c in v.params["num"]]
    den = [Fraction(str(c)) for c in v.params["den"]]

    def at(poly: list[Fraction], t: Fraction) -> Fraction:
        return sum((c * t**k for k, c in enumerate(poly)), Fraction(0))

    points = [Fraction(k, 7) for k in range(1, 4 * (len(num) + len(den)))]
    points = [t for t in points if at(den, t) != 0 and at(den, -t) != 0]
    plus = [at(num, t) / at(den, t) for t in points]
    minus = [at(num, -t) / at(den, -t) for t in points]
    even = all(m == p for m, p in zip(minus, plus, strict=True))
    odd = all(m == -p for m, p in zip(minus, plus, strict=True))
    assert not (even and odd)
    assert chosen(v) == ("even" if even else "odd" if odd else "neither"), v.params


def check_components(v: Variant) -> None:
    n, edges = v.params["n"], v.params["edges"]
    rows, cols = zip(*edges, strict=True) if edges else ((), ())
    adjacency = csr_matrix((np.ones(len(edges)), (rows, cols)), shape=(n, n))
    count, _ = connected_components(adjacency, directed=False)
    assert v.answer == str(count)


def check_node_degree(v: Variant) -> None:
    p = v.params
    adjacency = np.zeros((p["n"], p["n"]), dtype=int)
    for a, b in p["edges"]:
        adjacency[a, b] = adjacency[b, a] = 1
    assert int(v.answer) == adjacency[p["query"]].sum() >= 1


def check_shortest_path(v: Variant) -> None:
    p = v.params
    g = nx.Graph()
    g.add_nodes_from(range(p["n"]))
    g.add_weighted_edges_from((a, b, w) for (a, b), w in zip(p["edges"], p["weights"], strict=True))
    paths = list(nx.all_shortest_paths(g, p["source"], p["target"], weight="weight"))
    assert len(paths) == 1
    assert v.answer == "[" + ", ".join(chr(ord("A") + node) for node in paths[0]) + "]"


def check_bipartite(v: Variant) -> None:
    g = nx.Graph(list(map(tuple, v.params["edges"])))
    g.add_nodes_from(range(v.params["n"]))
    assert chosen(v) == ("Yes" if nx.is_bipartite(g) else "No")


CHECKS: dict[str, Callable[[Variant], None]] = {
    "dynamath_shifted_abs": check_shifted_abs,
    "dynamath_point_distance": check_point_distance,
    "dynamath_ring_area": check_ring_area,
    "dynamath_polygon_angle": check_polygon_angle,
    "dynamath_pythagoras_context": check_pythagoras_context,
    "dynamath_cone_slant": check_cone_slant,
    "dynamath_sector_area": check_sector_area,
    "isobench_parity": check_parity,
    "dynamath_components": check_components,
    "dynamath_node_degree": check_node_degree,
    "dynamath_shortest_path": check_shortest_path,
    "dynamath_bipartite": check_bipartite,
}
TRUTH_INDICES = (0, 1, 2)
TRUTH_DRAWS = 16  # tweakable draws pushed to both ends per variant (the graph seeds draw hundreds)
MUTATIONS = 30  # random genomes per seed


def tweaked_genomes(seed_id: str) -> Iterator[Genome]:
    """Every early tweakable draw at both ends, then random genomes of one to three in-range tweaks."""
    rng = np.random.default_rng(2024)
    for index in TRUTH_INDICES:
        base = Genome(seed_id, index)
        draws = tweakable(original(seed_id, index).draws)
        for draw in draws[:TRUTH_DRAWS]:
            for value in extremes(draw):
                yield base.with_tweaks({draw.position: value})
        for _ in range(MUTATIONS // len(TRUTH_INDICES)):
            picked = rng.choice(len(draws), size=min(len(draws), int(rng.integers(1, 4))), replace=False)
            yield base.with_tweaks({draws[int(i)].position: random_value(draws[int(i)], rng) for i in picked})


@pytest.mark.parametrize("seed_id", CHECKS)
def test_tweaked_variants_keep_a_truth_recomputed_independently(seed_id: str) -> None:
    check = CHECKS[seed_id]
    for index in TRUTH_INDICES:
        check(original(seed_id, index).variant)
    fingerprints, refused = set(), 0
    for genome in tweaked_genomes(seed_id):
        try:
            done = realize(SEEDS[seed_id], genome)
        except TapeError:
            refused += 1
            continue
        check(done.variant)  # (a tweak after one that changes the control flow may no longer fit: ignored)
        fingerprints.add(done.variant.fingerprint())
    assert len(fingerprints) >= 20, (len(fingerprints), refused)  # really other variants
    assert refused <= len(fingerprints)


# ------------------------------------------------------------------------------------- 6. hostile genomes


def test_a_genome_round_trips_through_json() -> None:
    done = original("dynamath_ring_area", 4, 9)
    everything = {d.position: d.value for d in done.draws}
    genome = Genome("dynamath_ring_area", 4, 9).with_tweaks(everything)
    back = Genome.from_json(json.loads(json.dumps(genome.to_json())))
    assert back == genome and back.key() == genome.key()
    listing = [[p, v] for p, v in sorted(everything.items())]
    assert json.loads(genome.key()) == ["dynamath_ring_area", 4, 9, listing]
    # a genome that repeats every draw is the variant itself
    again = realize(SEEDS["dynamath_ring_area"], back)
    assert again.variant.fingerprint() == done.variant.fingerprint() and again.draws == done.draws
    # the order tweaks are given in does not matter
    shuffled = {"seed_id": "s", "index": 1, "tweaks": [[5, 0.25], [1, [2, 3]], [0, 7]]}
    parsed = Genome.from_json(shuffled)
    assert parsed.tweaks == ((0, 7), (1, [2, 3]), (5, 0.25)) and parsed.base_seed == 0
    assert Genome.from_json(json.loads(json.dumps(parsed.to_json()))).key() == parsed.key()


def genome_json(**changes: Any) -> dict[str, Any]:
    return {"seed_id": "dynamath_shifted_abs", "index": 0, "base_seed": 0, "tweaks": [[0, 1]], **changes}


HOSTILE: dict[str, Any] = {
    "not an object": [["dynamath_shifted_abs", 0, 0, []]],
    "a string": "dynamath_shifted_abs",
    "null": None,
    "a number": 5,
    "no seed": {"index": 0},
    "empty seed": genome_json(seed_id=""),
    "long seed": genome_json(seed_id="x" * 201),
    "seed as list": genome_json(seed_id=["dynamath_shifted_abs"]),
    "no index": {"seed_id": "dynamath_shifted_abs"},
    "negative index": genome_json(index=-1),
    "huge index": genome_json(index=2**53),
    "enormous index": genome_json(index=10**400),
    "index as bool": genome_json(index=True),
    "index as float": genome_json(index=1.0),
    "index NaN": genome_json(index=math.nan),
    "base seed infinite": genome_json(base_seed=math.inf),
    "base seed negative": genome_json(base_seed=-5),
    "tweaks as object": genome_json(tweaks={"0": 1}),
    "a million tweaks": genome_json(tweaks=[[i, 0] for i in range(10**6)]),
    "position as bool": genome_json(tweaks=[[True, 1]]),
    "position as float": genome_json(tweaks=[[1.0, 1]]),
    "position negative": genome_json(tweaks=[[-1, 1]]),
    "position at the cap": genome_json(tweaks=[[MAX_DRAWS, 1]]),
    "position enormous": genome_json(tweaks=[[10**400, 1]]),
    "position twice": genome_json(tweaks=[[3, 1], [3, 1]]),
    "tweak as a triple": genome_json(tweaks=[[0, 1, 2]]),
    "tweak as a tuple": genome_json(tweaks=[(0, 1)]),
    "tweak as a number": genome_json(tweaks=[0]),
    "value NaN": genome_json(tweaks=[[0, math.nan]]),
    "value infinite": genome_json(tweaks=[[0, -math.inf]]),
    "value NaN in a list": genome_json(tweaks=[[0, [0.5, math.nan]]]),
    "value a bool": genome_json(tweaks=[[0, False]]),
    "value a bool in a list": genome_json(tweaks=[[0, [1, True]]]),
    "value an enormous int": genome_json(tweaks=[[0, 10**400]]),
    "value an enormous int in a list": genome_json(tweaks=[[0, [1, -(10**400)]]]),
    "value nested lists": genome_json(tweaks=[[0, [[1, 2], [3]]]]),
    "value an empty list": genome_json(tweaks=[[0, []]]),
    "value a million long": genome_json(tweaks=[[0, [0] * 10**6]]),
    "value one too long": genome_json(tweaks=[[0, [0] * (MAX_TWEAK_LENGTH + 1)]]),
    "value a string": genome_json(tweaks=[[0, "1"]]),
    "value null": genome_json(tweaks=[[0, None]]),
    "value an object": genome_json(tweaks=[[0, {"v": 1}]]),
}


@pytest.mark.parametrize("case", HOSTILE)
def test_a_hostile_genome_is_refused_with_tape_error(case: str) -> None:
    with pytest.raises(TapeError):
        Genome.from_json(HOSTILE[case])


def test_a_genome_of_another_seed_is_refused() -> None:
    with pytest.raises(TapeError):
        realize(SEEDS["dynamath_ring_area"], Genome("dynamath_shifted_abs", 0))


JSON_LEAVES = (
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=8)
    | st.sampled_from([0, 1, 2**53, -1, 10**30, 0.5, math.nan, math.inf, "dynamath_shifted_abs"])
)  # fmt: skip
JSON_VALUES = st.recursive(
    JSON_LEAVES,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4),
)
GENOME_LIKE = st.fixed_dictionaries(
    {"seed_id": st.sampled_from(["dynamath_shifted_abs", "x"]) | JSON_VALUES},
    optional={
        "index": st.integers(-3, 2**60) | JSON_VALUES,
        "base_seed": st.integers(-3, 2**60) | JSON_VALUES,
        "tweaks": st.lists(
            st.lists(st.integers(-2, MAX_DRAWS + 2) | JSON_VALUES, min_size=2, max_size=2) | JSON_VALUES,
            max_size=6,
        ),
    },
)


@given(GENOME_LIKE | JSON_VALUES)
def test_from_json_gives_a_genome_or_tape_error(data: Any) -> None:
    try:
        genome = Genome.from_json(data)
    except TapeError:
        return
    assert isinstance(genome.index, int) and 0 <= genome.index < 2**53
    positions = [p for p, _ in genome.tweaks]
    assert positions == sorted(set(positions)) and all(0 <= p < MAX_DRAWS for p in positions)
    text = json.dumps(genome.to_json(), allow_nan=False)
    assert Genome.from_json(json.loads(text)) == genome
    assert json.loads(genome.key())[:3] == [genome.seed_id, genome.index, genome.base_seed]
    if genome.seed_id == "dynamath_shifted_abs":  # whatever it says, realizing it is a variant or TapeError
        with suppress(TapeError):
            realize(SEEDS[genome.seed_id], genome)


# ----------------------------------------------------------------------------------- 7. seeds that loop


class _TestSeed(SeedProgram):
    """A seed for these tests only: no class-level seed_id, so it is not registered."""

    topic = Topic.ALGEBRA
    level = Level.ELEMENTARY
    answer_type = AnswerType.INT
    variant_space = 10
    variation_types = (VariationType.NUMERICAL_VALUE,)
    modalities = (Modality.LATEX,)

    def __init__(self, seed_id: str, sample: Callable[[np.random.Generator], int]) -> None:
        self.seed_id = seed_id
        self._sample = sample

    def sample(self, rng: np.random.Generator) -> Draw:
        value = self._sample(rng)
        return Draw({"value": value}, "How many?", str(value), f"Answer: {value}")

    def render(self, variant: Variant, modality: Modality) -> Representation:
        return Representation(modality, variant.question)


def heads_before_tails(rng: np.random.Generator) -> int:
    count = 0
    while rng.integers(0, 2) == 0:
        count += 1
    return count


def rejection_below(rng: np.random.Generator) -> int:
    """Draw a threshold, then uniforms until one falls below it: a threshold of exactly 0 never ends."""
    threshold = rng.random()
    tries = 1
    while rng.uniform(0.0, 1.0) >= threshold:
        tries += 1
    return tries


@contextmanager
def deadline(seconds: float) -> Iterator[None]:
    """Fail instead of hanging: an alarm interrupts the test after `seconds`."""

    def expire(*_: Any) -> None:
        raise TimeoutError(f"still running after {seconds} s")

    previous = signal.signal(signal.SIGALRM, expire)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


def test_the_test_seeds_are_not_registered() -> None:
    assert not any(sid.startswith("test_") for sid in all_seeds())
    seed = _TestSeed("test_heads", heads_before_tails)
    assert realize(seed, Genome("test_heads", 3)).variant.fingerprint() == seed.variant(3).fingerprint()


def test_a_seed_looping_on_tweaked_values_is_stopped() -> None:
    seed = _TestSeed("test_heads", heads_before_tails)
    every_draw_heads = Genome("test_heads", 0, 0, tuple((p, 0) for p in range(MAX_DRAWS + 10)))
    with deadline(30), pytest.raises(TapeError, match=str(MAX_DRAWS)):
        realize(seed, every_draw_heads)
    # up to the cap, the tweaks are followed
    almost = Genome("test_heads", 0, 0, (*((p, 0) for p in range(MAX_DRAWS - 2)), (MAX_DRAWS - 2, 1)))
    with deadline(30):
        assert realize(seed, almost).variant.answer == str(MAX_DRAWS - 2)


def test_a_seed_looping_on_one_tweaked_value_is_stopped() -> None:
    seed = _TestSeed("test_rejection", rejection_below)
    assert int(realize(seed, Genome("test_rejection", 0)).variant.answer) >= 1
    with deadline(30), pytest.raises(TapeError, match=str(MAX_DRAWS)):
        realize(seed, Genome("test_rejection", 0, 0, ((0, 0.0),)))
