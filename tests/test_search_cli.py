"""`exp search` as a user meets it: bad settings refused with one line, the folder it writes, a rerun that
costs nothing, the hard set run by `exp run dataset=`, and transfer to a second model.

The answerer is the loopback stub: it answers "B" to every question, so on `dynamath_shifted_abs`
(Yes/No, truth A or B) it fails exactly the variants whose truth is A: a failure computed here
independently from each variant's realized truth.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from isodyn.generators import all_seeds
from isodyn.generators.tape import Genome, realize
from isodyn.testing import OpenAIStub, ScriptedReply
from isodyn.testing.scripts import prompt_text

SEED = "dynamath_shifted_abs"


def always_b(request: dict[str, Any]) -> ScriptedReply:
    return ScriptedReply(text='{"solution": "stub", "short answer": "B"}')


@pytest.fixture
def stub():
    with OpenAIStub(always_b) as server:
        yield server


def search_words(stub: OpenAIStub, tmp_path: Path, *extra: str) -> list[str]:
    return [
        "search", "models=openai/stub", f"api_base={stub.base_url}", f"seeds={SEED}", "modalities=latex",
        f"out={tmp_path / 'out'}", f"cache_dir={tmp_path / 'cache'}", "quiet=1", *extra,
    ]  # fmt: skip


def only_folder(tmp_path: Path, after: set[Path] | None = None) -> Path:
    found = sorted(p for p in (tmp_path / "out").glob("search-*") if p not in (after or set()))
    assert len(found) == 1, found
    return found[0]


def trials(folder: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in (folder / "trials.jsonl").read_text().splitlines()]


@pytest.mark.parametrize(
    ("word", "said"),
    [
        ("budget=0", "bad value for budget"),
        ("searcher=clever", "bad value for searcher"),
        ("confirm=-1", "bad value for confirm"),
        ("variants=20", "variants= is not a setting of exp search"),
        ("repeats=3", "repeats= is not a setting of exp search"),
        ("dry_run=1", "dry_run= is not a setting of exp search"),
        ("transfer=openai/stub", "is also searched"),
        ("seeds=no_such_seed", "unknown seed"),
    ],
)
def test_bad_settings_are_one_line_and_exit_2(run_cli, stub, tmp_path: Path, word: str, said: str) -> None:
    words = [
        w
        for w in search_words(stub, tmp_path, word)
        if not (word.startswith("seeds=") and w == f"seeds={SEED}")
    ]
    done = run_cli(*words)
    assert done.code == 2
    assert said in done.err
    assert len(done.err.strip().splitlines()) == 1
    assert not (tmp_path / "out").exists() or not list((tmp_path / "out").glob("search-*"))
    assert stub.requests == []


def test_a_search_writes_its_folder_and_a_rerun_costs_nothing(run_cli, stub, tmp_path: Path) -> None:
    first = run_cli(*search_words(stub, tmp_path, "budget=15", "baseline=10", "confirm=2"))
    assert first.code == 0, first.err
    folder = only_folder(tmp_path)
    for name in ("trials.jsonl", "results.jsonl", "report.md", "search.json", "hardset/hardset.jsonl"):
        assert (folder / name).is_file(), name
    assert (folder / "figures" / "worst-case.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    found = trials(folder)
    seed = all_seeds()[SEED]
    for trial in found:  # every status follows from the realized truth: the stub always says B
        truth = realize(seed, Genome.from_json(trial["genome"])).variant.answer
        assert trial["answer"] == truth
        assert trial["status"] == ("confirmed" if truth == "A" else "passed")
        assert len(trial["asks"]) == (3 if truth == "A" else 1)
    guided = [t for t in found if t["searcher"] == "guided"]
    assert sum(sum(a["calls"] for a in t["asks"]) for t in guided) <= 15
    baseline = [t for t in found if t["searcher"] == "baseline"]
    assert sorted(t["genome"]["index"] for t in baseline) == list(range(10))
    assert all(t["genome"]["tweaks"] == [] for t in baseline)
    totals = json.loads((folder / "search.json").read_text())["totals"]
    assert totals["calls_made"] == len(stub.requests) > 0
    asked = len(stub.requests)

    again = run_cli(*search_words(stub, tmp_path, "budget=15", "baseline=10", "confirm=2"))
    assert again.code == 0, again.err
    assert len(stub.requests) == asked  # nothing sent again
    second = only_folder(tmp_path, {folder})
    assert [(t["genome"], t["status"]) for t in trials(second)] == [(t["genome"], t["status"]) for t in found]
    assert json.loads((second / "search.json").read_text())["totals"]["calls_made"] == 0
    assert "0 sent to a model" in again.err


def test_the_hard_set_is_asked_by_exp_run(run_cli, stub, tmp_path: Path) -> None:
    assert run_cli(*search_words(stub, tmp_path, "budget=12", "baseline=5")).code == 0
    folder = only_folder(tmp_path)
    items = [json.loads(line) for line in (folder / "hardset" / "hardset.jsonl").read_text().splitlines()]
    confirmed = {
        json.dumps(t["genome"], sort_keys=True) for t in trials(folder) if t["status"] == "confirmed"
    }
    assert {json.dumps(i["genome"], sort_keys=True) for i in items} == confirmed
    assert items and all(i["answer"] == "A" for i in items)
    before = len(stub.requests)
    done = run_cli(
        "run", f"dataset={folder / 'hardset'}", "models=openai/stub", f"api_base={stub.base_url}",
        "modalities=latex", f"out={tmp_path / 'runs'}", f"cache_dir={tmp_path / 'cache2'}", "quiet=1",
    )  # fmt: skip
    assert done.code == 0, done.err
    asked = [prompt_text(r) for r in stub.requests[before:]]
    assert len(asked) == len(items)
    for item in items:
        assert sum(item["question"] in text for text in asked) >= 1


def test_transfer_asks_the_hard_set_to_the_second_model(run_cli, tmp_path: Path) -> None:
    """The second model answers A: it gets right every variant the first failed (truth A)."""

    def by_model(request: dict[str, Any]) -> ScriptedReply:
        said = "A" if request.get("model") == "second" else "B"
        return ScriptedReply(text=json.dumps({"solution": "stub", "short answer": said}))

    with OpenAIStub(by_model) as server:
        done = run_cli(*search_words(server, tmp_path, "budget=12", "baseline=5", "transfer=openai/second"))
        assert done.code == 0, done.err
        folder = only_folder(tmp_path)
        found = trials(folder)
        hard = {
            json.dumps(t["genome"])
            for t in found
            if t["status"] == "confirmed" and t["searcher"] != "transfer"
        }
        moved = [t for t in found if t["searcher"] == "transfer"]
        assert {json.dumps(t["genome"]) for t in moved} == hard
        assert all(t["model"] == "openai/second" and t["status"] == "passed" for t in moved)
        assert "## Transfer" in (folder / "report.md").read_text()


def test_units_a_model_cannot_answer_stop_at_once(run_cli, stub, tmp_path: Path) -> None:
    """Image cells for a model without vision are skipped: its image unit stops after one trial instead
    of proposing forever, while its latex unit is searched."""
    words = [
        w
        for w in search_words(stub, tmp_path, "budget=6", "baseline=2", "vision=no")
        if w != "modalities=latex"
    ]
    done = run_cli(*words, "modalities=image,latex")
    assert done.code == 0, done.err
    found = trials(only_folder(tmp_path))
    image = [t for t in found if t["modality"] == "image"]
    assert image and all(t["status"] == "skipped" for t in image)
    assert len([t for t in image if t["searcher"] == "guided"]) == 1
    assert any(t["modality"] == "latex" and t["status"] != "skipped" for t in found)
    assert not any("image_url" in json.dumps(r) for r in stub.requests)  # no picture was sent


def test_a_server_that_fails_every_call_ends_the_search_with_exit_1(run_cli, tmp_path: Path) -> None:
    def broken(request: dict[str, Any]) -> ScriptedReply:
        return ScriptedReply(text="down", status=500)

    with OpenAIStub(broken) as server:
        done = run_cli(*search_words(server, tmp_path, "budget=50", "baseline=0", "max_retries=0"))
        assert done.code == 1, done.err
        assert "every call of the search failed" in done.err
        found = trials(only_folder(tmp_path))
        assert found and all(t["status"] == "error" for t in found)
        assert len(found) <= 3 + 4  # stopped after 3 errors in a row (a round may hold a few more)
