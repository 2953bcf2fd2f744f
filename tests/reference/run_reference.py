"""A reference run: the default seeds over every modality with three strategies, plus a `dataset=`
run on a small release in DynaMath's layout, against the loopback stub answering in a mix of styles.

`python tests/reference/run_reference.py OUT.json` writes each cell's verdict and the run's headline
metrics; `tests/test_cell_record.py` runs it again and compares with the stored file, written by the
release before the typed cell record, so a refactoring shows it changed no verdict and no number.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import sys
import tempfile
from pathlib import Path
from typing import Any

from isodyn.analysis.metrics import robustness_table
from isodyn.experiments.plan import plan_experiment
from isodyn.experiments.runner import execute
from isodyn.runs.config import parse_overrides
from isodyn.runs.rundir import new_run_dir
from isodyn.testing import OpenAIStub, ScriptedReply

# Reply styles a real model mixes: the JSON format, a box, an answer line, prose, a refusal.
REPLIES = (
    '{"solution": "step by step", "short answer": "A"}',
    '{"solution": "counting", "short answer": "2"}',
    "The function is even, so the answer is \\boxed{B}.",
    "Answer: yes",
    "Yes.\n\nEvery node can reach every other one.",
    "The graphs are not connected, so the answer is no.",
    "After simplifying we get 0.5, so the value is 0.5.",
    "I cannot determine this from the description.",
    "odd",
    '{"solution": "s", "short answer": "[1, 2, 3]"}',
)
STRATEGIES = "zeroshot,cot3,sc@3"


def reply_for(request: dict[str, Any]) -> ScriptedReply:
    """A fixed reply per request (its messages, images included, and seed), chosen by hashing them."""
    text = json.dumps([request.get("messages"), request.get("seed")], sort_keys=True)
    digest = int(hashlib.sha256(text.encode()).hexdigest(), 16)
    return ScriptedReply(text=REPLIES[digest % len(REPLIES)])


def write_release(root: Path) -> Path:
    """Two items over two trials, in DynaMath's release layout (one trial folder each)."""
    from PIL import Image

    items = {
        "1": (
            "Is the function even or odd?\nChoice: (A) odd (B) even (C) neither",
            "multiple choice",
            ["A", "B"],
        ),
        "2": ("What is the value at x = 1?", "float", ["2", "0.5"]),
    }
    for trial in (1, 2):
        folder = root / f"trial{trial}"
        (folder / "image").mkdir(parents=True)
        data = {}
        for key, (question, kind, answers) in items.items():
            Image.new("RGB", (8, 8), (30 * trial, 10 * int(key), 90)).save(folder / "image" / f"{key}.png")
            data[key] = {"question": question, "answer": answers[trial - 1], "image": f"image/{key}.png",
                         "answer_type": kind, "subject": "algebra", "level": "high school"}  # fmt: skip
        (folder / "dataset.json").write_text(json.dumps(data))
    return root


def _summary(rows: list[dict[str, Any]]) -> dict[str, Any]:
    verdicts = {
        "|".join(str(row[k]) for k in ("model", "strategy", "modality", "seed_id", "variant", "repeat")): [
            row["reason"],
            row["correct"],
            row["extracted"],
        ]
        for row in rows
    }
    table = robustness_table(rows)
    metrics = json.loads(table.to_json(orient="records", double_precision=12))
    return {"verdicts": dict(sorted(verdicts.items())), "metrics": metrics}


def reference(workdir: Path) -> dict[str, Any]:
    """The verdicts and metrics of both reference runs, made in `workdir`."""
    out: dict[str, Any] = {}
    with OpenAIStub(reply_for) as stub:
        common = ["models=openai/vlm", f"api_base={stub.base_url}", "vision=yes", f"out={workdir / 'runs'}",
                  f"cache_dir={workdir / 'cache'}", "quiet=1"]  # fmt: skip
        runs = {
            "default": [f"strategies={STRATEGIES}", *common],
            "dataset": [f"dataset={write_release(workdir / 'release')}", *common],
        }
        for name, words in runs.items():
            plan = plan_experiment(parse_overrides(words))
            outcome = asyncio.run(execute(plan, new_run_dir(plan.config)))
            out[name] = _summary(outcome.rows)
            out[name]["run_dir"] = str(outcome.folder.path.relative_to(workdir))
    return out


if __name__ == "__main__":
    with tempfile.TemporaryDirectory() as tmp:
        result = reference(Path(tmp))
        for name in result:
            result[name].pop("run_dir")
        Path(sys.argv[1]).write_text(json.dumps(result, indent=1, sort_keys=True) + "\n")
        print({name: len(r["verdicts"]) for name, r in result.items()})
