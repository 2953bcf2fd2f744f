"""The `dspy` strategy against a real OpenAI-compatible HTTP server on loopback, through litellm."""

import asyncio
import json
import subprocess
import sys

import pytest

import isodyn.strategies.dspy_strategy as dspy_strategy  # registers "dspy"
from isodyn.core import Modality
from isodyn.errors import ConfigError
from isodyn.experiments.plan import plan_experiment
from isodyn.experiments.runner import execute
from isodyn.generators import get_seed
from isodyn.runs.config import parse_overrides
from isodyn.runs.rundir import new_run_dir
from isodyn.testing import OpenAIStub, ScriptedReply

SEED = "isobench_parity"
VARIANTS = 3
EVAL_ANSWER = "C"
START = dspy_strategy.TRAIN_INDEX_START


def run(words: list[str]):
    plan = plan_experiment(parse_overrides(words))
    return asyncio.run(execute(plan, new_run_dir(plan.config)))


def chat_reply(reasoning: str, answer: str) -> str:
    """A reply in the field format DSPy's ChatAdapter asks for."""
    return (
        f"[[ ## reasoning ## ]]\n{reasoning}\n\n[[ ## short_answer ## ]]\n{answer}\n\n[[ ## completed ## ]]\n"
    )


def training_problems() -> dict[int, tuple[str, str]]:
    """Training index -> (the LaTeX rendering the prompt contains, the true letter)."""
    seed = get_seed(SEED)
    found = {}
    for index in range(START, START + dspy_strategy.N_TRAIN):
        variant = seed.variant(index)
        found[index] = (seed.representation(variant, Modality.LATEX).text, variant.answer)
    return found


def wrong(letter: str) -> str:
    return "B" if letter == "A" else "A"


def script_for(train: dict[int, tuple[str, str]]):
    """Right on every training question but the first (so the metric must reject it), a fixed letter
    on evaluation questions. Only the last message is the question; earlier ones are demonstrations."""

    def script(request: dict) -> ScriptedReply:
        question = request["messages"][-1]["content"]
        for index, (text, truth) in train.items():
            if text in question:
                answer = wrong(truth) if index == START else truth
                return ScriptedReply(text=chat_reply(f"worked training solution {index}", answer))
        return ScriptedReply(text=chat_reply("evaluation reasoning", EVAL_ANSWER))

    return script


@pytest.fixture
def words(tmp_path):
    return [
        f"out={tmp_path / 'runs'}",
        f"cache_dir={tmp_path / 'cache'}",
        f"seeds={SEED}",
        f"variants={VARIANTS}",
        "strategies=dspy",
        "modalities=latex",
        "quiet=1",
    ]


def test_optimizes_once_then_reuses_with_zero_calls(words, tmp_path) -> None:
    train = training_problems()
    with OpenAIStub(script_for(train)) as stub:
        args = [*words, "models=openai/stub", f"api_base={stub.base_url}"]
        first = run(args)
        # through litellm to the server: 3 bootstrap attempts (the first is rejected) + 3 evaluations
        assert len(stub.requests) == 6
        assert first.summary.calls_made == 6
        assert first.summary.errors == 0
        second = run(args)
        assert len(stub.requests) == 6  # nothing new reached the server

    # (1) training and evaluation splits are disjoint by variant index
    assert sorted(r["variant"] for r in first.rows) == list(range(VARIANTS))
    for row in first.rows:
        trained = [int(label.rsplit("/", 1)[1]) for label in row["notes"]["dspy_train"]]
        assert trained == list(range(START, START + dspy_strategy.N_TRAIN))
        assert min(trained) >= START > VARIANTS
        assert row["notes"]["dspy_program"] == "optimized"
        assert row["notes"]["dspy_demos"] == 2

    # (2) the program is saved in the run directory (and in the cache directory, keyed)
    saved = first.folder.path / "dspy" / "openai_stub-latex.json"
    assert saved.is_file()
    assert {r["notes"]["dspy_program_path"] for r in first.rows} == {str(saved)}
    state = json.loads(saved.read_text())
    assert (tmp_path / "cache" / "dspy" / f"{state['isodyn']['key']}.json").is_file()
    assert state["isodyn"]["train"] == first.rows[0]["notes"]["dspy_train"]
    demos = state["predict"]["demos"]
    # the metric (isodyn's scorer) rejected the wrong first answer: demos are training items 1 and 2
    assert [d["reasoning"] for d in demos] == [f"worked training solution {START + i}" for i in (1, 2)]
    assert [d["short_answer"] for d in demos] == [train[START + i][1] for i in (1, 2)]
    assert train[START + 1][0] in demos[0]["problem"]

    # (3) a rerun reuses the program, makes no call and extracts the same answers
    assert second.summary.calls_made == 0
    assert second.summary.cache_hits == VARIANTS
    assert {r["notes"]["dspy_program"] for r in second.rows} == {"reused"}
    assert (second.folder.path / "dspy" / "openai_stub-latex.json").read_text() == saved.read_text()
    by_variant = lambda rows: {r["variant"]: r["extracted"] for r in rows}  # noqa: E731
    assert by_variant(first.rows) == by_variant(second.rows) == dict.fromkeys(range(VARIANTS), EVAL_ANSWER)
    assert all(r["correct"] == (r["truth"] == EVAL_ANSWER) for r in first.rows)
    assert all(r["reason"] == "ok" for r in first.rows + second.rows)

    # (4) the evaluation call is in each cell's transcript, with the bootstrapped demonstrations
    for row in first.rows + second.rows:
        assert [t["step"] for t in row["transcript"]] == ["answer"]
        prompt = "\n".join(m["content"] for m in row["transcript"][0]["messages"])
        assert train[START + 1][0] in prompt and train[START + 2][0] in prompt
        assert "worked training solution" in prompt
        assert train[START][0] not in prompt  # the rejected example is not shown
        assert json.loads(row["response"])["short answer"] == EVAL_ANSWER


def test_reply_outside_dspy_fields_is_scored_as_written(words) -> None:
    train = training_problems()
    optimize = script_for(train)

    def script(request: dict) -> ScriptedReply:
        question = request["messages"][-1]["content"]
        if any(text in question for text, _ in train.values()):
            return optimize(request)
        return ScriptedReply(text='{"solution": "no DSPy fields here", "short answer": "B"}')

    with OpenAIStub(script) as stub:
        outcome = run([*words, "models=openai/stub", f"api_base={stub.base_url}"])
    assert outcome.summary.errors == 0
    for row in outcome.rows:
        assert row["notes"]["dspy_parse"] == "failed: AdapterParseError"
        assert row["extracted"] == "B" and row["reason"] == "ok"
        assert [t["step"] for t in row["transcript"]] == ["answer"]  # no second (JSON fallback) call


def test_failed_optimization_is_an_error_on_every_cell_and_is_not_saved(words, tmp_path) -> None:
    with OpenAIStub(lambda request: ScriptedReply(text="bad request", status=400)) as stub:
        outcome = run([*words, "models=openai/stub", f"api_base={stub.base_url}"])
        assert len(stub.requests) == 1  # the first failure stops the optimization; no cell retries it
    assert {r["reason"] for r in outcome.rows} == {"error:bad_request"}
    assert outcome.summary.errors == VARIANTS
    assert not (tmp_path / "cache" / "dspy").exists() or not any((tmp_path / "cache" / "dspy").iterdir())


def test_missing_dspy_is_a_config_error(words, monkeypatch) -> None:
    real = dspy_strategy.importlib.util.find_spec
    monkeypatch.setattr(
        dspy_strategy.importlib.util, "find_spec", lambda name, *a: None if name == "dspy" else real(name, *a)
    )
    with pytest.raises(ConfigError, match=r"pip install -e '\.\[dspy\]'"):
        plan_experiment(parse_overrides([*words, "models=openai/stub", "api_base=http://127.0.0.1:9/v1"]))


def test_image_only_choice_is_refused(words) -> None:
    with pytest.raises(ConfigError, match="dspy needs"):
        plan_experiment(
            parse_overrides(
                [*words, "modalities=image", "models=openai/stub", "api_base=http://127.0.0.1:9/v1"]
            )
        )


def test_module_import_does_not_import_dspy() -> None:
    code = "import sys, isodyn.strategies.dspy_strategy; assert 'dspy' not in sys.modules"
    subprocess.run([sys.executable, "-c", code], check=True)
