"""`exp run dataset=PATH` on DynaMath's release layout: trial folders, dataset.json, images."""

from __future__ import annotations

import asyncio
import base64
import hashlib
import io
import json
from pathlib import Path

import numpy as np
import pytest
from PIL import Image

from isodyn.core import AnswerType, Level, Topic
from isodyn.datasets.dynamath import parse_choices, release_seeds
from isodyn.errors import ConfigError
from isodyn.experiments.memo import ReplayMemo
from isodyn.experiments.plan import plan_experiment
from isodyn.experiments.runner import execute
from isodyn.runs.config import parse_overrides
from isodyn.runs.rundir import new_run_dir
from isodyn.testing import OpenAIStub, ScriptedReply

# key -> (subject, level, answer type, question, answers per trial)
ITEMS = {
    "1": ("analytic geometry", "high school", "multiple choice",
          "Is $f(x)g(x)$ even or odd?\nChoice: (A) odd (B) even (C) neither", ["A", "B", "C"]),
    "2": ("plane geometry", "elementary school", "float",
          "What is the area of the shaded region?", ["2.5", "3.75", "12.0"]),
    "7": ("graph theory", "undergraduate", "free form",
          "List the nodes of the shortest path from A to D.", ["[A, B, D]", "[A, C, D]", "[A, D]"]),
}  # fmt: skip
TRIALS = 3


def png_of(color: tuple[int, int, int], fmt: str = "png") -> bytes:
    buffer = io.BytesIO()
    Image.new("RGB", (24, 16), color).save(buffer, format=fmt)
    return buffer.getvalue()


def pixels(data: bytes) -> np.ndarray:
    return np.asarray(Image.open(io.BytesIO(data)).convert("RGB"))


@pytest.fixture
def release(tmp_path: Path) -> Path:
    """Three trial folders; item 2 of trial 3 is a JPEG under a name with another folder prefix."""
    root = tmp_path / "DynaMath_Sample"
    for trial in range(1, TRIALS + 1):
        folder = root / f"trial{trial}"
        (folder / "image").mkdir(parents=True)
        data = {}
        for n, (key, (subject, level, kind, question, answers)) in enumerate(ITEMS.items()):
            color = (40 * trial, 60 * n, 200)
            jpeg = key == "2" and trial == 3
            name = f"{key}.jpg" if jpeg else f"{key}.png"
            (folder / "image" / name).write_bytes(png_of(color, "jpeg" if jpeg else "png"))
            data[key] = {
                "question": question,
                "answer": answers[trial - 1],
                "image": f"images/{name}" if jpeg else f"image/{name}",  # a stale prefix is tolerated
                "answer_type": kind,
                "subject": subject,
                "level": level,
            }
        (folder / "dataset.json").write_text(json.dumps(data))
    return root


def test_items_become_seeds_and_trials_variants(release: Path) -> None:
    seeds = release_seeds(release)
    assert list(seeds) == ["1", "2", "7"]
    mc = seeds["1"]
    assert (mc.topic, mc.level, mc.answer_type) == (Topic.ANALYTIC_GEOMETRY, Level.HIGH_SCHOOL,
                                                    AnswerType.MULTIPLE_CHOICE)  # fmt: skip
    assert seeds["2"].answer_type is AnswerType.FLOAT and seeds["2"].level is Level.ELEMENTARY
    assert seeds["7"].answer_type is AnswerType.TEXT and seeds["7"].topic is Topic.GRAPH_THEORY
    for key, (*_, answers) in ITEMS.items():
        assert [seeds[key].variant(i).answer for i in range(TRIALS)] == answers
    assert mc.variant(0).choices == ("odd", "even", "neither")
    with pytest.raises(ValueError, match="has 3 variants"):
        mc.variant(3)


def test_choices_are_read_from_the_question() -> None:
    assert parse_choices("Which? choices: (A) 2, (B) 5, (C) -1") == ("2", "5", "-1")
    assert parse_choices("Q\nChoice: (A) odd (B) even (C) neither") == ("odd", "even", "neither")
    assert parse_choices("No options here (A) at all") == ()
    assert parse_choices("Choices: (B) x (A) y") == ()  # not in letter order: not trusted


def test_run_on_a_release_sends_its_images_and_scores_its_answers(release: Path, tmp_path: Path) -> None:
    truth = {}  # pixels digest -> the trial's answer; item 2 of trial 2 will be answered wrong
    for trial in range(1, TRIALS + 1):
        data = json.loads((release / f"trial{trial}" / "dataset.json").read_text())
        for key, item in data.items():
            image = next((release / f"trial{trial}" / "image").glob(f"{key}.*")).read_bytes()
            digest = hashlib.sha256(pixels(image).tobytes()).hexdigest()
            truth[digest] = "99" if (key, trial) == ("2", 2) else item["answer"]

    def oracle(request: dict) -> ScriptedReply:
        parts = [p for m in request["messages"] if isinstance(m["content"], list) for p in m["content"]]
        url = next(p["image_url"]["url"] for p in parts if p["type"] == "image_url")
        sent = base64.b64decode(url.split(",", 1)[1])
        assert sent.startswith(b"\x89PNG")  # the JPEG arrives converted
        said = truth[hashlib.sha256(pixels(sent).tobytes()).hexdigest()]
        return ScriptedReply(text=json.dumps({"solution": "s", "short answer": said}))

    with OpenAIStub(oracle) as stub:
        words = [f"dataset={release}", "models=openai/vlm", f"api_base={stub.base_url}", "vision=yes",
                 f"out={tmp_path / 'runs'}", f"cache_dir={tmp_path / 'cache'}", "quiet=1"]  # fmt: skip
        config = parse_overrides(words)
        assert config.variants == TRIALS  # every trial folder by default
        plan = plan_experiment(config)
        first = asyncio.run(execute(plan, new_run_dir(plan.config)))
        assert first.summary.calls_made == 9
        rows = [r for r in first.rows if r["modality"] == "image"]
        assert {(r["seed_id"], r["variant"]) for r in rows} == {(k, i) for k in ITEMS for i in range(TRIALS)}
        wrong = {(r["seed_id"], r["variant"]) for r in rows if not r["correct"]}
        assert wrong == {("2", 1)}
        assert {r["seed_id"]: r["topic"] for r in rows} == {"1": "analytic_geometry", "2": "plane_geometry",
                                                            "7": "graph_theory"}  # fmt: skip
        skipped = [r for r in first.rows if r["modality"] != "image"]
        assert skipped == []  # text modalities are not renderable: no cells at all
        again = asyncio.run(execute(plan, new_run_dir(plan.config)))
        assert again.summary.calls_made == 0 and len(stub.requests) == 9
        memo = ReplayMemo(tmp_path / "cache", config)
        assert len(memo) == 0  # files may change under the same id: never memoized
        memo.close()


def test_bad_release_settings_are_one_line_errors(release: Path, tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="does not exist"):
        parse_overrides([f"dataset={tmp_path / 'nowhere'}"])
    with pytest.raises(ConfigError, match="has 3 trials"):
        plan_experiment(parse_overrides([f"dataset={release}", "variants=5"]))
    with pytest.raises(ConfigError, match="no item '9'"):
        plan_experiment(parse_overrides([f"dataset={release}", "seeds=1,9"]))
    (release / "trial3" / "image" / "7.png").unlink()
    with pytest.raises(ConfigError, match="item 7's image"):
        plan_experiment(parse_overrides([f"dataset={release}"]))
    data = json.loads((release / "trial2" / "dataset.json").read_text())
    (release / "trial2" / "dataset.json").write_text(json.dumps({k: v for k, v in data.items() if k != "2"}))
    with pytest.raises(ConfigError, match="trial2: no item '2'"):
        plan_experiment(parse_overrides([f"dataset={release}"]))
    (release / "trial2" / "dataset.json").unlink()
    with pytest.raises(ConfigError, match=r"numbered 1\.\.N"):
        parse_overrides([f"dataset={release}"])


def test_an_empty_release_is_a_one_line_error(tmp_path: Path) -> None:
    (tmp_path / "trial1").mkdir()
    (tmp_path / "trial1" / "dataset.json").write_text("{}")
    with pytest.raises(ConfigError, match="has no items"):
        plan_experiment(parse_overrides([f"dataset={tmp_path}"]))


def test_seeds_pick_items_of_the_release(release: Path) -> None:
    plan = plan_experiment(parse_overrides([f"dataset={release}", "seeds=7,1", "modalities=image"]))
    assert list(plan.seeds) == ["7", "1"]
    assert len(plan.grid.cells) == 2 * TRIALS
