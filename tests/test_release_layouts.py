"""DynaMath's release, every way it writes options and answer types: a perfect answerer scores 100%,
and the load summary names what was parsed and what was not."""

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

from isodyn.core import AnswerType
from isodyn.datasets.dynamath import parse_choices, release_seeds, release_summary
from isodyn.experiments.plan import plan_experiment
from isodyn.experiments.runner import execute
from isodyn.runs.config import parse_overrides
from isodyn.runs.rundir import new_run_dir
from isodyn.testing import OpenAIStub, ScriptedReply

# key -> (answer type as written, question, answers per trial, options a person reads in it)
ITEMS = {
    "10": (
        "multiple choice",
        "Is it even or odd?\nChoices: (A) odd (B) even (C) neither",
        ["B", "A"],
        ("odd", "even", "neither"),
    ),
    "11": (
        "multiple choice",
        "Which value is largest? (A) 2 (B) 7 (C) -1 (D) 0",
        ["B", "B"],
        ("2", "7", "-1", "0"),
    ),
    "12": (
        "multiple choice",
        "Which line passes through the origin?\nA. y = 2x\nB. y = x + 1\nC. y = 3",
        ["A", "A"],
        ("y = 2x", "y = x + 1", "y = 3"),
    ),
    "13": (
        "multiple-choice",
        "Which interval holds the root?\nA: [0, 1]\nB: [1, 2]",
        ["B", "A"],
        ("[0, 1]", "[1, 2]"),
    ),
    "14": ("single answer", "Name the vertex of largest degree.", ["C", "D"], ()),
    "15": ("int", "How many edges does the graph have?", ["6", "7"], ()),
    "16": ("Float", "What is the slope?", ["0.5", "-2.25"], ()),
    "17": ("a type nobody wrote down", "What is shown?", ["cube", "cone"], ()),
}
TRIALS = 2


def png(color: tuple[int, int, int]) -> bytes:
    buffer = io.BytesIO()
    Image.new("RGB", (16, 12), color).save(buffer, format="png")
    return buffer.getvalue()


def write_folders(root: Path) -> Path:
    for trial in range(1, TRIALS + 1):
        folder = root / f"trial{trial}"
        (folder / "image").mkdir(parents=True)
        data = {}
        for n, (key, (kind, question, answers, _)) in enumerate(ITEMS.items()):
            (folder / "image" / f"{key}.png").write_bytes(png((20 * n, 30 * trial, 90)))
            data[key] = {
                "question": question, "answer": answers[trial - 1], "image": f"image/{key}.png",
                "answer_type": kind, "subject": "graph theory", "level": "undergraduate",
            }  # fmt: skip
        (folder / "dataset.json").write_text(json.dumps(data))
    return root


def write_parquet(root: Path) -> Path:
    """The hub's form: one parquet split per variant, images as {bytes, path} structs."""
    import pandas as pd

    (root / "data").mkdir(parents=True)
    for trial in range(1, TRIALS + 1):
        rows = [
            {
                "id": int(key),
                "question": question,
                "image": f"{key}.png",
                "decoded_image": {"bytes": png((20 * n, 30 * trial, 90)), "path": f"{key}.png"},
                "ground_truth": answers[trial - 1],
                "answer_type": kind,
                "subject": "graph theory",
                "knowledge_level": "undergraduate",
            }
            for n, (key, (kind, question, answers, _)) in enumerate(ITEMS.items())
        ]
        pd.DataFrame(rows).to_parquet(root / "data" / f"sample_variant{trial}-00000-of-00001.parquet")
    return root


@pytest.fixture(params=["folders", "parquet"])
def release(request: pytest.FixtureRequest, tmp_path: Path) -> Path:
    write = write_folders if request.param == "folders" else write_parquet
    return write(tmp_path / "DynaMath")


@pytest.mark.parametrize("key", [k for k, item in ITEMS.items() if item[3]])
def test_every_option_layout_is_parsed(key: str) -> None:
    _, question, _, options = ITEMS[key]
    assert parse_choices(question) == options


def test_answer_type_spellings_are_mapped_and_an_unknown_one_is_kept(release: Path) -> None:
    seeds = release_seeds(release)
    kinds = {key: seed.answer_type for key, seed in seeds.items()}
    assert kinds["13"] is AnswerType.MULTIPLE_CHOICE and kinds["14"] is AnswerType.TEXT
    assert kinds["15"] is AnswerType.INT and kinds["16"] is AnswerType.FLOAT
    assert kinds["17"] is AnswerType.TEXT  # unknown: free text, the release is not refused
    summary = release_summary(seeds)
    assert summary[0].endswith(
        "8 items x 2 trials; 4 of 4 multiple-choice items have their options parsed in every trial"
    )
    assert summary[1:] == ["item 17: unknown answer type 'a type nobody wrote down', read as free text"]


def test_a_truth_letter_without_an_option_is_listed(tmp_path: Path) -> None:
    release = write_folders(tmp_path / "DynaMath")
    data = json.loads((release / "trial2" / "dataset.json").read_text())
    data["12"]["answer"] = "D"  # only A..C are offered
    (release / "trial2" / "dataset.json").write_text(json.dumps(data))
    assert "truth letter without a parsed option: 12 (trial 2)" in release_summary(release_seeds(release))


def test_a_perfect_answerer_scores_100_percent_on_every_layout(release: Path, tmp_path: Path) -> None:
    truth = {}  # pixels -> the item's answer, from what was written (ITEMS), not from the loader
    for trial in range(1, TRIALS + 1):
        for n, (_, (_, _, answers, _)) in enumerate(ITEMS.items()):
            pixels = np.asarray(Image.open(io.BytesIO(png((20 * n, 30 * trial, 90)))).convert("RGB"))
            truth[hashlib.sha256(pixels.tobytes()).hexdigest()] = answers[trial - 1]

    def oracle(request: dict) -> ScriptedReply:
        parts = [p for m in request["messages"] if isinstance(m["content"], list) for p in m["content"]]
        url = next(p["image_url"]["url"] for p in parts if p["type"] == "image_url")
        sent = np.asarray(Image.open(io.BytesIO(base64.b64decode(url.split(",", 1)[1]))).convert("RGB"))
        said = truth[hashlib.sha256(sent.tobytes()).hexdigest()]
        return ScriptedReply(text=json.dumps({"solution": "s", "short answer": said}))

    with OpenAIStub(oracle) as stub:
        words = [f"dataset={release}", "models=openai/vlm", f"api_base={stub.base_url}", "vision=yes",
                 f"out={tmp_path / 'runs'}", f"cache_dir={tmp_path / 'cache'}", "quiet=1"]  # fmt: skip
        plan = plan_experiment(parse_overrides(words))
        outcome = asyncio.run(execute(plan, new_run_dir(plan.config)))
    assert len(outcome.results) == len(ITEMS) * TRIALS
    assert all(r.correct for r in outcome.results), [
        (r.seed_id, r.extracted, r.truth) for r in outcome.results if not r.correct
    ]
