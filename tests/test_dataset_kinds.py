"""`dataset=PREFIX:PATH` end to end through the command line and the loopback stub: each importer's
items run as a grid, and an answerer that works the truth out of the question scores 100%."""

from __future__ import annotations

import json
import re
import subprocess
from pathlib import Path

import user_cli
from isodyn.testing import OpenAIStub, ScriptedReply
from isodyn.testing.scripts import prompt_text

PROGRAMS = """
import os
import random

import matplotlib.pyplot as plt
import numpy as np


def _save(num, text):
    folder = os.path.join(os.path.dirname(os.getcwd()), "dataset", "image")
    os.makedirs(folder, exist_ok=True)
    plt.figure(figsize=(2, 1))
    plt.text(0.1, 0.5, text)
    plt.savefig(os.path.join(folder, f"image{num}.png"))
    plt.close()


class Q01:
    def __init__(self):
        self.a = random.randint(1, 60)
        self.b = int(np.random.randint(1, 60))
        self.query = f"What is {self.a} + {self.b}?"
        self.answer = self.a + self.b
        self.answer_type = "float"
        self.subject = "arithmetic"
        self.level = "elementary school"

    def draw(self, num):
        _save(num, f"{self.a} + {self.b}")


class Q02:
    def __init__(self):
        self.a, self.b = random.sample(range(1, 99), 2)
        self.query = f"Which number is larger? Choices: (A) {self.a} (B) {self.b}"
        self.answer = "A" if self.a > self.b else "B"
        self.answer_type = "multiple choice"
        self.subject = "arithmetic"
        self.level = "elementary school"

    def draw(self, num):
        _save(num, f"{self.a} or {self.b}")
"""


def worked_out(request: dict) -> ScriptedReply:
    """The truth, computed from the question text alone (independently of the programs)."""
    text = prompt_text(request)
    if found := re.search(r"What is (\d+) \+ (\d+)\?", text):
        said = str(int(found.group(1)) + int(found.group(2)))
    else:
        a, b = map(int, re.search(r"\(A\) (\d+) \(B\) (\d+)", text).groups())
        said = "A" if a > b else "B"
    return ScriptedReply(text=json.dumps({"solution": "worked out", "short answer": said}))


def exp(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    env = user_cli.user_env(ISODYN_CACHE_DIR=str(cwd / "cache"))
    return user_cli.exp(*args, cwd=cwd, env=env, timeout=600)


def test_dynamath_programs_draw_fresh_variants_that_a_perfect_answerer_gets_right(tmp_path: Path) -> None:
    programs = tmp_path / "dataset_generator"
    programs.mkdir()
    (programs / "questions.py").write_text(PROGRAMS)
    described = exp("describe", f"dynamath-programs:{programs}", cwd=tmp_path)
    assert described.returncode == 0 and "Q01" in described.stdout and "Q02" in described.stdout
    with OpenAIStub(worked_out) as stub:
        words = ["run", f"dataset=dynamath-programs:{programs}", "models=openai/vlm",
                 f"api_base={stub.base_url}", "vision=yes", "variants=3", f"out={tmp_path / 'runs'}",
                 f"cache_dir={tmp_path / 'cache'}", "quiet=1"]  # fmt: skip
        done = exp(*words, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    (run_dir,) = [p for p in (tmp_path / "runs").iterdir() if p.is_dir()]
    rows = [json.loads(line) for line in (run_dir / "results.jsonl").read_text().splitlines()]
    assert len(rows) == 6 and {r["seed_id"] for r in rows} == {"1", "2"}
    assert all(r["correct"] for r in rows), [(r["seed_id"], r["extracted"], r["truth"]) for r in rows]
    questions = {r["question"] for r in rows if r["seed_id"] == "1"}
    assert len(questions) == 3  # three fresh variants


MM_PROBLEMS = {
    "In triangle ABC, angle A is 50° and angle B is 60°. Find angle C.": ("Angles sum to 180°.", "70^\\circ"),
    "Solve for x: 2x + 3 = 11.": ("2x = 8, so x = 4.", "4"),
    "Which figure has exactly one line of symmetry? (A) square (B) isosceles trapezoid (C) circle": (
        "A square has four lines, a circle infinitely many.", "B"),
}  # fmt: skip


def write_mmmath(root: Path) -> Path:
    from PIL import Image

    (root / "images").mkdir(parents=True)
    lines = []
    for n, (question, (steps, answer)) in enumerate(MM_PROBLEMS.items()):
        Image.new("RGB", (10, 10), (40 * n, 90, 20)).save(root / "images" / f"{n}.png")
        solution = f"{steps} The answer is $\\boxed{{{answer}}}$."
        record = {"question": question, "file_name": f"{n}.png", "year": "九年级上学期", "difficult": "普通",
                  "knowledge": "图形的性质", "solution": solution}  # fmt: skip
        lines.append(json.dumps(record, ensure_ascii=False))
    (root / "MM_Math.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
    return root


def test_mmmath_problems_run_graded_by_their_box_and_judged_against_their_solution(tmp_path: Path) -> None:
    release = write_mmmath(tmp_path / "MM_Math")

    def boxed_truth(request: dict) -> ScriptedReply:
        text = prompt_text(request)
        if "first wrong step" in text.lower() or "Reference solution" in text:
            return ScriptedReply(
                text='{"first_wrong_step": null, "error_type": null, "explanation": "right"}'
            )
        question = next(q for q in MM_PROBLEMS if q in text)
        return ScriptedReply(text=f"Working it out. The answer is $\\boxed{{{MM_PROBLEMS[question][1]}}}$.")

    with OpenAIStub(boxed_truth) as stub:
        words = ["run", f"dataset=mmmath:{release}", "models=openai/vlm", f"api_base={stub.base_url}",
                 "vision=yes", "grader=mmmath", f"out={tmp_path / 'runs'}", f"cache_dir={tmp_path / 'cache'}",
                 "quiet=1"]  # fmt: skip
        done = exp(*words, cwd=tmp_path)
        assert done.returncode == 0, done.stderr
        (run_dir,) = [p for p in (tmp_path / "runs").iterdir() if p.is_dir()]
        judged = exp("judge", str(run_dir), "judge=openai/judge", f"api_base={stub.base_url}", "all=1",
                     f"cache_dir={tmp_path / 'cache'}", cwd=tmp_path)  # fmt: skip
        prompts = [prompt_text(r) for r in stub.requests]
    rows = [json.loads(line) for line in (run_dir / "results.jsonl").read_text().splitlines()]
    assert len(rows) == 3 and all(r["correct"] for r in rows), [(r["extracted"], r["truth"]) for r in rows]
    assert judged.returncode == 0, judged.stderr
    assert any("2x = 8, so x = 4." in p for p in prompts)  # the problem's own solution is the reference
