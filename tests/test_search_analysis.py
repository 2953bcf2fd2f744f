"""The search's analysis (search/analysis.py, explanations.py, number_sizes.py, transfer.py) and
report (search/search_report.py) on hand-made trials.

Curves are checked against an explicit loop over units; gaps, fallen seeds, explanations, number
sizes and transfer shares against cases small enough to work out by hand; the report against
hostile names and replies that would break a Markdown table if they were not escaped.
"""

from __future__ import annotations

import re
from typing import Any

import numpy as np
import pytest

from isodyn.core import Modality
from isodyn.generators.tape import Genome
from isodyn.search.analysis import dynamath_gap, outcomes, worst_case_curve
from isodyn.search.explanations import (
    SIZE_FEATURE,
    CategoryFeature,
    NumberFeature,
    TweakCount,
    auc,
    explain,
    features_of,
    number_size,
)
from isodyn.search.number_sizes import number_sizes
from isodyn.search.search_report import SearchReportInput, draw_curves, search_report
from isodyn.search.transfer import transfer_share
from isodyn.search.trials import Asked, Searcher, Trial, TrialStatus, Unit

P, C, F, U, S = (TrialStatus.PASSED, TrialStatus.CONFIRMED, TrialStatus.FLUKE, TrialStatus.UNCLEAR,
                 TrialStatus.SKIPPED)  # fmt: skip


def ask(correct: bool | None, repeat: int = 0, clear: bool = True, extracted: str | None = "1") -> Asked:
    status = "ok" if correct is not None else "skipped: no images"
    return Asked(repeat, correct, clear, extracted, 1, False, status)


def asks_for(status: TrialStatus, extracted: str) -> tuple[Asked, ...]:
    """Asks that `record.status_of` would read as `status` (two confirming repeats)."""
    if status is P:
        return (ask(True, extracted=extracted),)
    if status is C:
        return tuple(ask(False, r, extracted=extracted) for r in range(3))
    if status is F:
        return (ask(False, extracted=extracted), ask(True, 1), ask(False, 2))
    if status is U:
        return (ask(False, clear=False, extracted=None),)
    if status is S:
        return (ask(None, extracted=None),)
    return ()


def trial(
    seed: str = "s0",
    status: TrialStatus = P,
    number: int = 0,
    searcher: Searcher = Searcher.RANDOM,
    model: str = "m",
    params: dict[str, Any] | None = None,
    index: int | None = None,
    tweaks: tuple[tuple[int, Any], ...] = (),
    parent: int | None = None,
    strategy: str = "direct",
    extracted: str = "1",
) -> Trial:
    genome = Genome(seed, number if index is None else index, 0, tweaks)
    unit = Unit(model, strategy, Modality.LATEX, seed)
    return Trial(
        unit, searcher, number, genome, params or {}, "42", asks_for(status, extracted), status, parent
    )


def run(
    seed: str, statuses: list[TrialStatus], searcher: Searcher = Searcher.RANDOM, **kw: Any
) -> list[Trial]:
    return [trial(seed, s, i, searcher, **kw) for i, s in enumerate(statuses)]


# --- worst case against variants tried -----------------------------------------------------------------


def expected_curve(trials: list[Trial]) -> list[float]:
    """The curve by the definition, unit by unit and t by t."""
    units: dict[str, list[Trial]] = {}
    for t in trials:
        units.setdefault(t.unit.seed_id, []).append(t)
    answered = {k: [t for t in sorted(v, key=lambda t: t.number) if t.answered] for k, v in units.items()}
    answered = {k: v for k, v in answered.items() if v}
    longest = max(len(v) for v in answered.values())
    points = []
    for t in range(1, longest + 1):
        robust = [not any(x.confirmed for x in v[:t]) for v in answered.values()]
        points.append(sum(robust) / len(robust))
    return points


def test_the_curve_matches_a_loop_over_units() -> None:
    rng = np.random.default_rng(3)
    trials = []
    for k in range(30):
        length = int(rng.integers(1, 40))
        statuses = [TrialStatus(s) for s in rng.choice([P, P, P, P, P, P, C, F, U, S], size=length)]
        trials += run(f"s{k}", statuses)
    shuffled = [trials[i] for i in rng.permutation(len(trials))]  # the input order must not matter
    [curve] = worst_case_curve(shuffled, Searcher.RANDOM, resamples=500)
    assert curve.seeds == 30
    assert np.allclose(curve.points, expected_curve(trials))
    assert curve.points[0] > curve.points[-1]  # more variants tried, more seeds fall
    assert all(a >= b for a, b in zip(curve.points, curve.points[1:], strict=False))


def test_curves_are_per_arm_and_per_searcher() -> None:
    trials = (
        run("s0", [P, C], model="a")
        + run("s0", [P, P], model="b")
        + run("s0", [C], Searcher.GUIDED, model="a")
    )
    curves = worst_case_curve(trials, Searcher.RANDOM, resamples=100)
    assert [(c.arm.model, c.points) for c in curves] == [("a", (1.0, 0.0)), ("b", (1.0, 1.0))]
    [guided] = worst_case_curve(trials, Searcher.GUIDED, resamples=100)
    assert guided.points == (0.0,)


def test_a_unit_whose_budget_ran_out_carries_its_last_value() -> None:
    short = run("a", [P, C])  # fails at 2, then its budget is gone
    long = run("b", [P, S, P, P, P, P])  # a skipped trial is not a variant tried: 5 answered
    [curve] = worst_case_curve(short + long, Searcher.RANDOM, resamples=200)
    assert curve.points == (1.0, 0.5, 0.5, 0.5, 0.5)
    assert curve.at(1000).estimate == 0.5  # past the longest unit: every seed's last value
    passing_short = run("a", [P, P])
    failing_late = run("b", [P, P, P, C])
    [curve] = worst_case_curve(passing_short + failing_late, Searcher.RANDOM, resamples=200)
    assert curve.points == (1.0, 1.0, 1.0, 0.5)


def test_units_with_nothing_answered_are_left_out() -> None:
    trials = run("a", [P, P]) + run("b", [S, S])
    [curve] = worst_case_curve(trials, Searcher.RANDOM, resamples=100)
    assert (curve.seeds, curve.left_out, curve.points) == (1, 1, (1.0, 1.0))


def pattern(seeds: int) -> list[Trial]:
    """A quarter of the seeds fail at their 3rd variant, a quarter at their 8th, the rest never."""
    trials = []
    for k in range(seeds):
        statuses = [P] * 10
        if k % 4 == 0:
            statuses[2] = C
        elif k % 4 == 1:
            statuses[7] = C
        trials += run(f"s{k}", statuses)
    return trials


def test_bands_hold_the_estimate_and_narrow_with_more_seeds() -> None:
    [few] = worst_case_curve(pattern(12), Searcher.RANDOM, resamples=2000)
    [many] = worst_case_curve(pattern(400), Searcher.RANDOM, resamples=2000)
    for curve in (few, many):
        assert all(lo <= p <= hi for lo, p, hi in zip(curve.low, curve.points, curve.high, strict=True))
        assert curve.points[0] == 1.0 and curve.low[0] == curve.high[0] == 1.0  # no seed failed yet
    assert many.points[9] == pytest.approx(0.5)
    assert few.high[9] - few.low[9] > 2 * (many.high[9] - many.low[9]) > 0
    again = worst_case_curve(pattern(12), Searcher.RANDOM, resamples=2000)[0]
    assert again == few  # the same seed, the same bands


# --- DynaMath's 10 variants against the search ---------------------------------------------------------


def gap_case() -> list[Trial]:
    base = Searcher.BASELINE
    return [
        *run("s0", [P] * 10, base), *run("s0", [P, P, C]),  # robust on the baseline, fell in the search
        *run("s1", [P] * 10, base), *run("s1", [P, P, P]),  # robust throughout
        *run("s1", [C], Searcher.TRANSFER),  # a transfer trial never counts as the search's
        *run("s2", [P, C] + [P] * 8, base), *run("s2", [P]),  # failed already on the baseline
        *run("s3", [P] * 10, base), *run("s3", [P, F, U], Searcher.GUIDED),  # a fluke is not a failure
        *run("s4", [C, P]),  # no baseline: left out
    ]  # fmt: skip


def test_the_gap_and_the_seeds_that_fell() -> None:
    [gap] = dynamath_gap(gap_case(), resamples=2000)
    assert gap.seeds == 4 and gap.left_out == 1
    assert gap.baseline.estimate == 0.75
    assert gap.searched.estimate == 0.5
    assert gap.overestimate.estimate == pytest.approx(0.25)
    assert gap.fallen == ("s0",)
    # Differences are 0 or 1 per seed: the paired interval lies in [0, 1] and holds the estimate.
    assert 0 <= gap.overestimate.low <= 0.25 <= gap.overestimate.high <= 1


def test_an_arm_without_baseline_is_reported_empty() -> None:
    [gap] = dynamath_gap(run("s0", [P, C]), resamples=100)
    assert (gap.seeds, gap.left_out, gap.fallen) == (0, 1, ())


# --- what the failures share ---------------------------------------------------------------------------


def test_explain_ranks_a_planted_parameter_first() -> None:
    rng = np.random.default_rng(0)
    trials = []
    for i in range(20):
        failed = i < 8
        params = {
            "a": int(rng.integers(50, 60)) if failed else int(rng.integers(1, 12)),  # planted
            "b": float(rng.uniform(100, 200)),  # noise, and the variant's largest number
            "colour": str(rng.choice(["red", "blue"])),  # noise
            "slope": {"sign": "negative" if failed else "positive"},  # planted category
        }
        trials.append(trial("s0", C if failed else P, i, params=params))
    [explanation] = explain(trials)
    assert explanation.enough and (explanation.failures, explanation.passes) == (8, 12)
    names = [f.name for f in explanation.features]
    assert set(names[:2]) == {"a", "slope.sign"}
    top = next(f for f in explanation.features if f.name == "a")
    assert isinstance(top, NumberFeature)
    assert top.auc == 1.0 and top.effect == 1.0 and top.direction == "larger"
    assert top.median_failed > 50 > 12 > top.median_passed
    sign = next(f for f in explanation.features if f.name == "slope.sign")
    assert isinstance(sign, CategoryFeature)
    assert (sign.value, sign.share_failed, sign.share_passed) == ("negative", 1.0, 0.0)
    noise = [f for f in explanation.features if f.name in ("b", SIZE_FEATURE)]
    assert all(f.effect < 1 for f in noise)


def test_explain_says_too_few() -> None:
    trials = [trial("s0", C, 0, params={"a": 9}), trial("s0", C, 1, params={"a": 8})]
    trials += [trial("s0", P, i, params={"a": 1}) for i in range(2, 10)]
    [explanation] = explain(trials)
    assert not explanation.enough and explanation.features == ()


def test_explain_counts_the_draws_whose_change_flipped_the_verdict() -> None:
    g = Searcher.GUIDED
    trials = [
        trial("s0", P, 0, g),
        trial("s0", C, 1, g, tweaks=((3, 7),), parent=0),  # changing draw 3 broke it
        trial("s0", P, 2, g, tweaks=((3, 7), (5, 0.5)), parent=1),  # changing draw 5 repaired it
        trial("s0", P, 3, g, tweaks=((4, 1),), parent=0),  # draw 4 changed nothing
        trial("s0", U, 4, g, tweaks=((6, 1),), parent=1),  # undecided: not counted
    ]
    [explanation] = explain(trials)
    assert explanation.tweaks == (TweakCount(3, 1, 1, 0), TweakCount(5, 1, 0, 1))


def test_params_are_flattened_to_sensible_features() -> None:
    params = {
        "k": 3,
        "flag": True,
        "pts": [{"x": 1, "y": -9}, {"x": 4}],
        "edges": [[0, 1], [1, 2]],
        "name": None,
    }
    found = dict(features_of(params))
    assert found["k"] == 3.0 and found["flag"] == "true" and found["name"] == "null"
    assert (found["pts.count"], found["pts.max_abs"]) == (2, 9)
    assert (found["pts[].x.max"], found["pts[].y.count"]) == (4, 1)
    assert (found["edges.count"], found["edges.min"], found["edges.max"]) == (2, 0, 2)
    assert found[SIZE_FEATURE] == 9.0
    assert not any("[0]" in name or "[1]" in name for name in found)  # no single elements


def test_auc_counts_ties_half() -> None:
    assert auc([2.0], [1.0]) == 1.0 and auc([1.0], [2.0]) == 0.0 and auc([1.0], [1.0]) == 0.5
    assert auc([1.0, 3.0], [2.0, 2.0]) == 0.5


# --- number sizes --------------------------------------------------------------------------------------


def test_number_size_is_the_largest_absolute_number() -> None:
    assert number_size({"a": -7, "b": [1, {"c": 3.5}], "flag": True, "s": "999"}) == 7.0
    assert number_size({}) == 0.0 and number_size({"flag": True}) == 0.0


def sized(seed: str, values: np.ndarray, status: TrialStatus = C) -> list[Trial]:
    return [trial(seed, status, i, params={"x": float(v), "n": [1, 2]}) for i, v in enumerate(values)]


def test_failures_drawn_like_random_variants_sit_at_the_median() -> None:
    rng = np.random.default_rng(1)
    reference: dict[str, list[dict[str, Any]]] = {}
    trials = []
    for k in range(8):
        scale = 10.0**k  # seeds differ in scale: each failure is compared within its own seed
        reference[f"s{k}"] = [{"x": float(v), "n": [1, 2]} for v in rng.uniform(0, scale, 300)]
        trials += sized(f"s{k}", rng.uniform(0, scale, 25))
    [sizes] = number_sizes(trials, reference, resamples=1000)
    assert sizes.failures == 200 and sizes.seeds == 8 and sizes.unreferenced == 0
    assert sizes.percentile.estimate == pytest.approx(0.5, abs=0.06)
    assert sizes.percentile.low < 0.5 < sizes.percentile.high
    assert "not clearly bigger" in sizes.verdict


def test_planted_big_numbers_are_called_bigger() -> None:
    rng = np.random.default_rng(2)
    reference = {f"s{k}": [{"x": float(v)} for v in rng.uniform(0, 100, 200)] for k in range(6)}
    trials = [t for k in range(6) for t in sized(f"s{k}", rng.uniform(1000, 2000, 5))]
    trials += sized("elsewhere", np.array([5.0]))  # a seed with no reference: left out, counted
    trials += sized("s0", np.array([1e9]), P)  # passes are not the found set
    [sizes] = number_sizes(trials, reference, resamples=1000)
    assert (sizes.failures, sizes.unreferenced) == (30, 1)
    assert sizes.percentile.estimate == 1.0
    assert sizes.failed.q50 > sizes.reference.q50 + 0.5  # log10 scale: over three times bigger
    assert "bigger numbers" in sizes.verdict


# --- transfer ------------------------------------------------------------------------------------------


def test_transfer_share_and_coverage() -> None:
    t = Searcher.TRANSFER
    cheap = run("s0", [C, C, P]) + run("s1", [P, C]) + run("s2", [P, P])
    costly_own = run("s0", [P, C], Searcher.GUIDED, model="costly") + run("s2", [C], model="costly")
    costly_own += run("s3", [P], model="costly")
    transferred = [
        trial("s0", C, 0, t, model="costly", index=0),  # cheap's s0 #0: fails on costly too
        trial("s0", P, 1, t, model="costly", index=1),  # cheap's s0 #1: not on costly
        trial("s1", F, 0, t, model="costly", index=1),  # cheap's s1 #1: a fluke on costly
        trial("s0", C, 0, t, model="other", index=0),  # a model not searched itself
        trial("s2", C, 0, t, model="costly", index=77),  # a variant no search confirmed: source unknown
    ]
    found = transfer_share(cheap + costly_own + transferred)
    by_key = {(x.source, x.target): x for x in found}
    costly = by_key["m", "costly"]
    assert (costly.asked, costly.failed, costly.flukes, costly.seeds) == (3, 1, 1, 2)
    assert costly.share == pytest.approx(1 / 3)
    # costly's own search failed on s0 and s2; the transferred set failed on s0 only.
    assert (costly.target_failing_seeds, costly.covered_seeds, costly.coverage) == (2, 1, 0.5)
    other = by_key["m", "other"]
    assert (other.asked, other.failed, other.target_failing_seeds, other.coverage) == (1, 1, None, None)
    unknown = by_key[None, "costly"]
    assert (unknown.asked, unknown.failed, unknown.covered_seeds) == (1, 1, 1)


def test_outcomes_count_flukes_apart_from_confirmed() -> None:
    trials = run("s0", [P, C, F, F, U, S]) + run("s0", [C], Searcher.TRANSFER)
    own, transfer = outcomes(trials)
    assert (own.candidates, own.confirmed, own.flukes, own.not_confirmed, own.unclear, own.skipped) == (
        3, 1, 2, 2, 1, 1)  # fmt: skip
    assert own.answered == 5 and transfer.searcher is Searcher.TRANSFER and transfer.confirmed == 1


# --- the report ----------------------------------------------------------------------------------------

HOSTILE = "<script>alert(1)</script>|x\n# heading"


def table_blocks(markdown: str) -> list[list[str]]:
    blocks: list[list[str]] = []
    current: list[str] = []
    for line in markdown.split("\n"):
        if line.startswith("|"):
            current.append(line)
        elif current:
            blocks.append(current)
            current = []
    return blocks + ([current] if current else [])


def unescaped_pipes(line: str) -> int:
    return len(re.findall(r"(?<!\\)\|", line))


def hostile_trials() -> list[Trial]:
    kw: dict[str, Any] = {"model": HOSTILE, "strategy": HOSTILE, "extracted": HOSTILE}
    trials = []
    for k in range(6):
        seed = f"{HOSTILE}{k}"
        statuses = [P] * 10 + ([P, C, C, F, C, P, P] if k % 2 else [P, P, P])
        for i, status in enumerate(statuses):  # failures hold a bigger number and another category
            params = {HOSTILE: 10 * (status is C) + i % 3, "v": f"{HOSTILE}{status is C}"}
            searcher = Searcher.BASELINE if i < 10 else Searcher.RANDOM
            trials.append(trial(seed, status, i % 10 if i < 10 else i - 10, searcher, params=params, **kw))
        trials += run(seed, [C, P], Searcher.TRANSFER, **{**kw, "model": "second|model"})
    return trials


def test_hostile_names_and_replies_cannot_break_the_report() -> None:
    trials = hostile_trials()
    reference = {t.unit.seed_id: [{"x": 1}, {"x": 2}] for t in trials}
    report = search_report(
        SearchReportInput(
            trials, reference, (("budget", "20"), ("models", HOSTILE)), "figures/curves.png", 20, 300
        )
    )
    assert "alert(1)" in report  # shown, not dropped
    assert re.search(r"(?<!\\)<", report) is None  # no tag can open
    assert not any(line.lstrip("> -").startswith("# heading") for line in report.split("\n"))
    headings = [line for line in report.split("\n") if line.startswith("#")]
    assert all(re.match(r"#{1,3} ", line) for line in headings)
    assert sum(line.startswith("# ") for line in headings) == 1  # only the title
    blocks = table_blocks(report)
    assert len(blocks) >= 7
    for block in blocks:
        assert len({unescaped_pipes(line) for line in block}) == 1, block
        assert re.fullmatch(r"\|( --- \|)+", block[1])
    assert "overestimates robustness by 50.0 points" in report
    assert "3 units explained" in report and "### \\<script>" in report
    assert "![Worst-case accuracy against variants tried](figures/curves.png)" in report


def test_a_hostile_figure_path_cannot_end_the_link() -> None:
    report = search_report(SearchReportInput(run("s0", [P, C]), curves_figure="a) <b>.png", resamples=50))
    assert "](a%29%20%3Cb%3E.png)" in report


def test_the_report_says_what_the_search_found() -> None:
    report = search_report(SearchReportInput(gap_case(), resamples=300, budget=10))
    assert "DynaMath's 10-variant worst case overestimates robustness by 25.0 points" in report
    assert "too few seeds for an interval: 4" in report
    assert "In m · direct · latex, 1 of 3 robust seeds: s0" in report
    assert "| t = 1 | t = 10 |" in report
    assert "1 of 4 candidate failures" in report  # s0, s2 and s4 confirmed, s3's fluke not
    for heading in ("## Transfer", "## Number sizes", "## Hard set", "## What the failures share"):
        assert heading in report


def test_draw_curves_writes_a_png(tmp_path: Any) -> None:
    curves = worst_case_curve(pattern(12), Searcher.RANDOM, resamples=200)
    path = draw_curves(curves, tmp_path / "curves.png")
    assert path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    empty = draw_curves([], tmp_path / "empty.png")
    assert empty.read_bytes()[:4] == b"\x89PNG"


def test_variation_effects_count_changes_of_failures_by_the_declared_type() -> None:
    """Two changes of a failure touched `a` (numerical) and both passed; one touched `form` and still
    failed: the failure depends on `a`. A change of a passing parent, or of undeclared params, is left out."""
    from isodyn.search.analysis import variation_effects

    unit = Unit("m", "zeroshot", Modality.LATEX, "seed")
    genome = Genome("seed", 0)

    def trial(number: int, status: TrialStatus, parent: int | None, changed: tuple[str, ...]) -> Trial:
        first = Asked(0, status is TrialStatus.PASSED, True, "x", 1, False, "ok")
        return Trial(unit, Searcher.GUIDED, number, genome, {}, "A", (first,), status, parent, changed)

    trials = [
        trial(0, TrialStatus.CONFIRMED, None, ()),
        trial(1, TrialStatus.PASSED, 0, ("a",)),
        trial(2, TrialStatus.PASSED, 0, ("a", "b")),
        trial(3, TrialStatus.CONFIRMED, 0, ("form",)),
        trial(4, TrialStatus.PASSED, None, ()),
        trial(5, TrialStatus.CONFIRMED, 4, ("a",)),  # its parent passed: not a change of a failure
        trial(6, TrialStatus.PASSED, 0, ("undeclared",)),
    ]
    declared = {"seed": {"a": "numerical_value", "form": "function_type"}}
    effects = {e.variation: e for e in variation_effects(trials, declared)}
    assert set(effects) == {"numerical_value", "function_type"}
    assert (effects["numerical_value"].changes, effects["numerical_value"].passed) == (2, 2)
    assert (effects["function_type"].changes, effects["function_type"].still_failing) == (1, 1)
    assert variation_effects(trials, {}) == []
