"""`exp search renders=...` (issue 41): the render profile is one more dimension of a variant of an
image unit, so the worst case is taken over renders too.

The stub model (tests/small_pictures.py) reads every picture at least MIN_WIDTH pixels wide and
answers it right, and fails whenever the picture is smaller: `lowres` halves the width of the
default picture (420 px for this seed), so its variants fail and the default's pass. Which trial
must fail is known from its recorded profile alone, independently of the search.
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

from isodyn.experiments.plan import plan_experiment
from isodyn.runs.config import parse_overrides
from isodyn.search.analysis import hard_set
from isodyn.search.engine import SearchRounds, SearchSettings
from isodyn.search.renders import RenderChooser
from isodyn.search.trials import Searcher, Trial, TrialStatus, Unit
from isodyn.testing import OpenAIStub, ScriptedReply
from small_pictures import WRONG, SmallPicturesFail, picture_widths

SEED = "dynamath_ring_area"
MIN_WIDTH = 300


def run_search(
    tmp: Path, name: str, settings: SearchSettings, *extra: str
) -> tuple[list[Trial], SmallPicturesFail, Path]:
    """One search of SEED as an image against the small-pictures stub; its trials, the stub's
    script and the search folder."""
    script = SmallPicturesFail(MIN_WIDTH)
    with OpenAIStub(script) as stub:
        config = parse_overrides([
            "models=openai/stub", f"api_base={stub.base_url}", "vision=yes", f"seeds={SEED}",
            "modalities=image", "variants=1", f"out={tmp / 'runs'}", f"cache_dir={tmp / 'cache'}",
            "quiet=1", *extra,
        ])  # fmt: skip
        folder = tmp / name
        folder.mkdir()
        rounds = SearchRounds(plan_experiment(config), settings, folder, on_variant=script.on_variant)
        trials = asyncio.run(rounds.run(rounds.searches(rounds.units())))
    assert script.unknown == 0  # every picture was of a variant the search announced
    return trials, script, folder


SETTINGS = SearchSettings(
    budget=16, searchers=(Searcher.GUIDED, Searcher.RANDOM), confirm=1, baseline=2, per_round=2
)


def test_a_search_over_renders_finds_its_worst_cases_under_lowres(tmp_path: Path) -> None:
    trials, script, folder = run_search(tmp_path, "renders", SETTINGS, "renders=default,lowres")
    answered = [t for t in trials if t.answered]
    assert {t.render for t in answered} == {"default", "lowres"}
    assert {210, 420} <= set(script.widths)  # both profiles' pictures were sent
    # the stub fails exactly the small pictures: every lowres variant, no default one
    for trial in answered:
        expected = TrialStatus.CONFIRMED if trial.render == "lowres" else TrialStatus.PASSED
        assert trial.status is expected, (trial.render, trial.status, trial.asks)
    worst = hard_set(trials)
    assert worst and {t.render for t in worst} == {"lowres"}
    assert all(t.asks[0].extracted == WRONG for t in worst)
    # the baseline is DynaMath's own figure: drawn under the first profile given
    assert {t.render for t in trials if t.searcher is Searcher.BASELINE} == {"default"}
    # random search takes the profiles in turn; guided keeps a failing parent's profile
    random = sorted((t.number, t.render) for t in trials if t.searcher is Searcher.RANDOM)
    assert [render for _, render in random[:4]] == ["default", "lowres", "default", "lowres"]
    guided = {t.number: t for t in trials if t.searcher is Searcher.GUIDED}
    children = [t for t in guided.values() if t.parent is not None]
    assert children and all(t.render == guided[t.parent].render == "lowres" for t in children)
    # the cells were run under the trial's profile, each confirmation too
    rows = [json.loads(line) for line in (folder / "results.jsonl").read_text().splitlines()]
    for row in rows:
        assert (row.get("render", "default") == "lowres") == (row["correct"] is False), row["variant"]
    assert {len([r for r in rows if r.get("render") == "lowres"])} == {sum(len(t.asks) for t in worst)}


def test_the_trial_line_keeps_its_render_and_reads_back(tmp_path: Path) -> None:
    trials, _, _ = run_search(tmp_path, "lines", SETTINGS, "renders=default,lowres")
    lowres = next(t for t in trials if t.render == "lowres")
    line = json.loads(json.dumps(lowres.to_json()))
    assert line["render"] == "lowres" and Trial.from_json(line) == lowres
    plain = next(t for t in trials if t.render == "default")
    assert "render" not in plain.to_json() and Trial.from_json(plain.to_json()) == plain


def test_without_renders_every_variant_is_drawn_as_before(tmp_path: Path) -> None:
    settings = SearchSettings(budget=6, searchers=(Searcher.RANDOM,), confirm=1, baseline=0)
    trials, script, folder = run_search(tmp_path, "plain", settings)
    assert trials and all(t.render == "default" and t.status is TrialStatus.PASSED for t in trials)
    assert set(script.widths) == {420}
    assert all("render" not in t.to_json() for t in trials)
    rows = [json.loads(line) for line in (folder / "results.jsonl").read_text().splitlines()]
    assert rows and {row["render"] for row in rows} == {"default"}


def test_the_chooser_turns_then_follows_failures_and_text_takes_the_default() -> None:
    unit = Unit("m", "zeroshot", __import__("isodyn.core").core.Modality.IMAGE, SEED)
    chooser = RenderChooser.for_unit(unit, Searcher.GUIDED, ("default", "lowres", "gray"), 0)
    assert [chooser.choose() for _ in range(3)] == ["default", "lowres", "gray"]
    for _ in range(5):
        chooser.observe("gray", TrialStatus.CONFIRMED)
        chooser.observe("default", TrialStatus.PASSED)
        chooser.observe("lowres", TrialStatus.PASSED)
    picks = [chooser.choose() for _ in range(40)]
    assert picks.count("gray") > 30  # Thompson sampling: the profile that fails is searched most
    assert chooser.choose(kept="lowres") == "lowres"
    latex = Unit("m", "zeroshot", __import__("isodyn.core").core.Modality.LATEX, SEED)
    text = RenderChooser.for_unit(latex, Searcher.RANDOM, ("default", "lowres"), 0)
    assert [text.choose() for _ in range(3)] == ["default"] * 3
    baseline = RenderChooser.for_unit(unit, Searcher.BASELINE, ("lowres", "default"), 0)
    assert [baseline.choose() for _ in range(3)] == ["lowres"] * 3


# --- the command ----------------------------------------------------------------------------------
def small_wrong_else_unsure(request: dict[str, Any]) -> ScriptedReply:
    """Wrong on a small picture; on a large one no answer at all (unclear, never a failure)."""
    if any(width < MIN_WIDTH for width in picture_widths(request)):
        return ScriptedReply(text=json.dumps({"solution": "small", "short answer": WRONG}))
    return ScriptedReply(text="I cannot tell.")


def test_exp_search_renders_records_the_profile_in_trials_and_the_report(run_cli, tmp_path: Path) -> None:
    with OpenAIStub(small_wrong_else_unsure) as stub:
        done = run_cli(
            "search", "models=openai/stub", f"api_base={stub.base_url}", "vision=yes", f"seeds={SEED}",
            "modalities=image", "renders=default,lowres", "budget=8", "confirm=1", "baseline=0",
            "searcher=random", "transfer=openai/other", f"out={tmp_path / 'out'}",
            f"cache_dir={tmp_path / 'cache'}", "quiet=1",
        )  # fmt: skip
    assert done.code == 0, done.err
    (folder,) = (tmp_path / "out").glob("search-*")
    every = [json.loads(line) for line in (folder / "trials.jsonl").read_text().splitlines()]
    lines = [line for line in every if line["searcher"] != "transfer"]
    confirmed = [line for line in lines if line["status"] == "confirmed"]
    # the hard set is asked to the transfer model under the profile each variant failed under
    transferred = [line for line in every if line["searcher"] == "transfer"]
    assert len(transferred) == len(confirmed) >= 2  # in turn, one would have been default
    assert all(line["render"] == "lowres" and line["status"] == "confirmed" for line in transferred)
    assert confirmed and all(line["render"] == "lowres" for line in confirmed)
    others = [line for line in lines if line not in confirmed]
    assert others and all("render" not in line and line["status"] == "unclear" for line in others)
    report = (folder / "report.md").read_text()
    section = report.split("## Render profiles", 1)[1].split("\n## ", 1)[0]
    assert f"drawn under lowres ({len(confirmed)} of {len(confirmed)})" in section
    assert "| lowres |" in section and "| default |" in section
    assert json.loads((folder / "search.json").read_text())["run"]["renders"] == ["default", "lowres"]


def test_exp_search_refuses_perturbations_in_one_line(run_cli, tmp_path: Path) -> None:
    done = run_cli("search", "models=openai/stub", f"seeds={SEED}", "perturbations=none,magnitude",
                   f"out={tmp_path / 'out'}")  # fmt: skip
    assert done.code == 2 and len(done.lines) == 1 and "perturbations= is not a setting" in done.err
    assert not (tmp_path / "out").exists()
