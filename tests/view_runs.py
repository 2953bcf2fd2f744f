"""A small synthetic run for the viewer's tests (tests/test_view*.py), written with isodyn's own writer.

2 models x 2 strategies x 2 modalities (latex, image) x 3 seeds (s1, s2, s10: natural order differs
from text order) x 3 variants = 72 cells. A cell is right unless its rule below says wrong; a few
cells are special (a hostile reply, an emoji before the answer, no answer found, an ambiguous
reading, graders disagreeing, a judge's verdict, a skipped cell), each named here so a test can
state what it expects without asking the viewer.
"""

from __future__ import annotations

import hashlib
from pathlib import Path

from isodyn.core import AnswerType, Modality
from isodyn.runs.record import Cell, CellResult, Labels, Outcome, Status
from isodyn.runs.results import Call, write_results
from isodyn.scoring import Question, Score

MODELS = ("m-a", "m-b")
STRATEGIES = ("zs", "cot")
MODALITIES = ("latex", "image")
SEEDS = ("s1", "s2", "s10")
VARIANTS = (0, 1, 2)

HOSTILE = ("m-a", "zs", "latex", "s1", 0)
HOSTILE_REPLY = (
    '<script>window.__pwned = 1</script><img src=x onerror="window.__pwned = 2"> '
    "Let me think.\nFinal answer: 5"
)
EMOJI = ("m-a", "zs", "latex", "s1", 1)
EMOJI_REPLY = "🙂🙂 𝑥 is found.\nFinal answer: 6"
NONE_FOUND = ("m-a", "cot", "latex", "s2", 1)
AMBIGUOUS = ("m-b", "zs", "image", "s2", 2)
DISAGREE = ("m-b", "cot", "latex", "s10", 0)
JUDGED = ("m-a", "zs", "image", "s10", 2)
SKIPPED = ("m-b", "zs", "latex", "s1", 1)
SPECIAL = (HOSTILE, EMOJI, NONE_FOUND, AMBIGUOUS, DISAGREE, JUDGED, SKIPPED)


def truth(seed: str, variant: int) -> str:
    return str(5 + variant + 10 * SEEDS.index(seed))


def digest(seed: str, variant: int) -> str:
    return "sha256:" + hashlib.sha256(f"png-{seed}-{variant}".encode()).hexdigest()


def question(modality: str, seed: str, variant: int) -> str:
    if modality == "image":
        return f"Answer the question in the image ({seed} v{variant})."
    return f"LaTeX: solve $x - {variant + 10 * SEEDS.index(seed)} = 5$ ({seed} v{variant})"


def right_by_rule(model: str, strategy: str, modality: str, seed: str, variant: int) -> bool:
    """The ordinary cells' verdicts: m-b is wrong on image cells of variant 1 and on every cot cell
    of s2; m-a is wrong on cot latex cells of s10 variant 2."""
    if model == "m-b" and modality == "image" and variant == 1:
        return False
    if model == "m-b" and strategy == "cot" and seed == "s2":
        return False
    return not (
        model == "m-a" and strategy == "cot" and modality == "latex" and seed == "s10" and variant == 2
    )


def verdict_of(key: tuple[str, str, str, str, int]) -> str:
    """right / wrong / not graded, as the run records each cell."""
    if key == SKIPPED:
        return "not graded"
    if key in (NONE_FOUND, AMBIGUOUS):
        return "wrong"
    if key in (HOSTILE, EMOJI, DISAGREE, JUDGED):
        return "right"
    return "right" if right_by_rule(*key) else "wrong"


def _cell(key: tuple[str, str, str, str, int]) -> CellResult:
    model, strategy, modality, seed, variant = key
    answer_truth = truth(seed, variant)
    content: list[dict[str, object]] = [{"type": "text", "text": question(modality, seed, variant)}]
    if modality == "image":
        content.append({"type": "image_url", "image_url": {"url": digest(seed, variant)}})
    asked = Question(answer_truth, AnswerType.INT, text=question(modality, seed, variant))
    right = verdict_of(key) == "right"
    answer = answer_truth if right else str(int(answer_truth) + 1)
    reply = f"Working through it step by step.\nFinal answer: {answer}"
    scores = {"isodyn": Score(right, answer, "ok", "answer_line", "clear")}
    decided, outcome = "isodyn", Outcome(Status.OK)
    if key == HOSTILE:
        reply = HOSTILE_REPLY
    elif key == EMOJI:
        reply = EMOJI_REPLY
    elif key == NONE_FOUND:
        reply = "I am not sure how to solve this."
        scores = {"isodyn": Score(False, None, "extraction_failed", "none", "none found")}
        outcome = Outcome(Status.EXTRACTION_FAILED)
    elif key == AMBIGUOUS:
        reply = f"It is either {answer} or {int(answer) + 1}."
        scores = {"isodyn": Score(False, answer, "ok", "last_number", "ambiguous: several values")}
    elif key == DISAGREE:
        scores["dynamath"] = Score(False, "0", "ok", "last_number", "clear", "dynamath")
    elif key == JUDGED:
        reply = "The value, I believe, equals the sum; it is twenty-seven."
        scores = {
            "isodyn": Score(False, None, "extraction_failed", "none", "none found"),
            "judge": Score(
                True, answer_truth, "ok", "judge", "clear", "judge", {"key": "k1", "answer": "27"}
            ),
        }
        decided = "judge"
    if key == SKIPPED:
        return CellResult(
            cell=Cell(model, strategy, Modality(modality), seed, variant), asked=asked,
            labels=Labels("algebra" if seed != "s2" else "statistics", "high_school"),
            outcome=Outcome(Status.SKIPPED, "strategy does not apply"),
        )  # fmt: skip
    call = Call(step="answer", model=model, messages=[{"role": "user", "content": content}], key="k",
                cache_hit=True, response=reply, prompt_tokens=10, completion_tokens=5)  # fmt: skip
    return CellResult(
        cell=Cell(model, strategy, Modality(modality), seed, variant), asked=asked,
        labels=Labels("algebra" if seed != "s2" else "statistics", "high_school"), outcome=outcome,
        scores=scores, decided_by=decided, response=reply, calls=(call,),
    )  # fmt: skip


def all_keys() -> list[tuple[str, str, str, str, int]]:
    return [
        (model, strategy, modality, seed, variant)
        for model in MODELS for strategy in STRATEGIES for modality in MODALITIES
        for seed in SEEDS for variant in VARIANTS
    ]  # fmt: skip


def write_run(folder: Path) -> Path:
    """The run in `folder`/run (results.jsonl and config.json, its cache_dir inside `folder`)."""
    run_dir = folder / "run"
    run_dir.mkdir(parents=True)
    write_results(run_dir / "results.jsonl", [_cell(key) for key in all_keys()])
    (run_dir / "config.json").write_text(f'{{"cache_dir": "{folder / "cache"}"}}')
    return run_dir
