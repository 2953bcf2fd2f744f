"""isodyn's experiments as inspect tasks (`isodyn.interop`): the same cells asked through inspect's
OpenAI provider against the loopback stub score as isodyn's own run of them, cell by cell; the entry
point's module registers the three tasks; and without the interop nothing imports inspect_ai."""

from __future__ import annotations

import asyncio
import hashlib
import json
import os
import subprocess
import sys
import tomllib
from pathlib import Path
from typing import Any

import inspect_ai
import pytest
from inspect_ai.log import EvalLog, resolve_sample_attachments
from inspect_ai.scorer import CORRECT, INCORRECT, NOANSWER, SampleScore, Score

from isodyn.analysis.metrics import robustness_table
from isodyn.cache.folder import Stores
from isodyn.core import Modality
from isodyn.experiments.plan import plan_experiment
from isodyn.experiments.runner import execute, open_parts
from isodyn.generators import get_seed
from isodyn.generators.tape import Genome
from isodyn.interop.inspect_cells import ISODYN
from isodyn.interop.inspect_scorer import a_avg, a_wst, graded_accuracy
from isodyn.runs.config import parse_overrides
from isodyn.runs.rundir import new_run_dir
from isodyn.search.hardset import write_hardset
from isodyn.search.trials import Asked, Searcher, Trial, TrialStatus, Unit
from isodyn.testing import OpenAIStub, ScriptedReply
from isodyn.testing.scripts import prompt_text
from small_pictures import pictures

ROOT = Path(__file__).resolve().parent.parent
MODEL = "openai/stub"
SEEDS = ("dynamath_shifted_abs", "dynamath_point_distance", "isobench_parity")
GRID = [f"seeds={','.join(SEEDS)}", "variants=2", "modalities=latex,image", "strategies=zeroshot,cot3"]
WRONG = "-98765"


class Oracle:
    """The stub's script: it knows each cell's question by its text and its picture (the text of an
    image prompt is often the same for every variant) and answers, by the hash of what it was sent,
    right, wrong, right in prose, or with nothing to read. The same prompt always gets the same reply,
    whichever tool sends it."""

    def __init__(self, words: list[str]) -> None:
        plan = plan_experiment(parse_overrides([*words, f"models={MODEL}", "api_base=http://127.0.0.1:9/v1"]))
        stores = Stores(plan.config.cache_dir)
        parts = open_parts(plan, stores.responses, stores.renders)
        self.known: list[tuple[str, str | None, str]] = []
        try:
            for cell in plan.grid.cells:
                variant = parts.materials.variant(cell.seed_id, cell.variant)
                shown = parts.materials.render(variant, cell.modality)
                picture = hashlib.sha256(shown.image_png).hexdigest() if shown.image_png else None
                self.known.append((shown.text, picture, variant.answer))
        finally:
            parts.close()
        self.known.sort(key=lambda known: -len(known[0]))  # the most specific text first
        self.kinds: dict[str, int] = {}

    def __call__(self, request: dict[str, Any]) -> ScriptedReply:
        text = prompt_text(request)
        shown = pictures(request)
        last = hashlib.sha256(shown[-1]).hexdigest() if shown else None  # the question's, after demos
        digest = hashlib.sha256(text.encode() + (last or "").encode()).digest()
        for question, picture, truth in self.known:
            if question in text and picture == last:
                kind = digest[0] % 4
                self.kinds[text] = kind
                return ScriptedReply(text=self.reply(kind, truth))
        return ScriptedReply(text='{"solution": "not a question I know", "short answer": "?"}')

    @staticmethod
    def reply(kind: int, truth: str) -> str:
        if kind == 0:
            return json.dumps({"solution": "worked out", "short answer": truth})
        if kind == 1:
            return json.dumps({"solution": "worked out", "short answer": WRONG})
        if kind == 2:
            return f"Reading the figure carefully.\nThe answer is {truth}."
        return "I cannot tell from what is given."


def inspect_run(
    stub: OpenAIStub, task: str, args: dict[str, Any], log_dir: Path, model: str = MODEL, **options: Any
) -> EvalLog:
    """`inspect eval isodyn/TASK -T ... --model openai/stub -M responses_api=false` in Python (the
    stub speaks chat completions only; inspect's OpenAI client wants a key, which the stub ignores)."""
    import isodyn.interop._registry  # noqa: F401  (what the entry point loads)

    (log,) = inspect_ai.eval(
        f"isodyn/{task}", task_args=args, model=model, model_base_url=stub.base_url,
        model_args={"responses_api": False, "api_key": "stub-key"}, log_dir=str(log_dir), display="none",
        **options,
    )  # fmt: skip
    assert log.status == "success", log.error
    return log


@pytest.fixture(scope="module")
def both_runs(tmp_path_factory: pytest.TempPathFactory):
    """The acceptance grid run by `exp run` and by inspect, against one stub."""
    tmp = tmp_path_factory.mktemp("inspect")
    cache = [f"cache_dir={tmp / 'cache'}"]
    oracle = Oracle([*GRID, *cache])
    with OpenAIStub(oracle) as stub:
        words = [*GRID, *cache, f"out={tmp / 'runs'}", "quiet=1", f"models={MODEL}",
                 f"api_base={stub.base_url}", "vision=yes"]  # fmt: skip
        plan = plan_experiment(parse_overrides(words))
        isodyn_rows = asyncio.run(execute(plan, new_run_dir(plan.config))).rows
        isodyn_calls = len(stub.requests)
        args = {"seeds": ",".join(SEEDS), "variants": 2, "modality": "latex,image",
                "strategy": "zeroshot,cot3", "cache_dir": str(tmp / "cache")}  # fmt: skip
        log = inspect_run(stub, "dynamath", args, tmp / "logs")
        inspect_calls = len(stub.requests) - isodyn_calls
    return isodyn_rows, log, isodyn_calls, inspect_calls, oracle


def test_inspect_scores_equal_isodyns_cell_by_cell(both_runs) -> None:
    rows, log, isodyn_calls, inspect_calls, oracle = both_runs
    assert len(rows) == 24 and inspect_calls == isodyn_calls == 24
    assert {kind for kind in oracle.kinds.values()} == {0, 1, 2, 3}  # every kind of reply was given
    samples = {sample.id: sample for sample in log.samples or []}
    assert len(samples) == len(rows)
    assert log.eval.task == "isodyn/dynamath"  # the registry's name, as `inspect eval` names it
    for row in rows:
        words = " ".join(
            str(row[k]) for k in ("model", "strategy", "modality", "seed_id", "variant", "repeat")
        )
        sample = samples[words]
        score = sample.scores[ISODYN]
        assert score.value == (CORRECT if row["correct"] else INCORRECT), words
        assert score.answer == row["extracted"], words
        assert score.metadata == {
            "reason": row["reason"], "method": row["method"], "ambiguity": row["ambiguity"],
            "grader": "isodyn",
        }  # fmt: skip
        assert sample.output.completion == row["response"]
        usage = sample.model_usage[MODEL]  # every call counted by inspect, as isodyn counts them
        assert (usage.input_tokens, usage.output_tokens) == (row["prompt_tokens"], row["completion_tokens"])
        meta = sample.metadata[ISODYN]
        assert meta["cell"] == {
            k: row[k] for k in ("model", "strategy", "modality", "seed_id", "variant", "repeat")
        }
        assert meta["asked"]["truth"] == row["truth"] and meta["asked"]["question"] == row["question"]
        assert meta["labels"]["topic"] == row["topic"] and meta["labels"]["level"] == row["level"]
    reasons = {row["reason"] for row in rows}
    assert reasons == {"ok", "extraction_failed"}  # right, wrong and unreadable replies all compared


def test_inspect_metrics_are_isodyns_a_avg_and_a_wst(both_runs) -> None:
    rows, log, *_ = both_runs
    table = robustness_table(rows, by=["model"])
    metrics = log.results.scores[0].metrics
    # isodyn's table takes each (strategy, modality) arm's seeds; the task's metrics, every arm's seeds
    per_arm = robustness_table(rows, by=["strategy", "modality"])
    assert metrics["A_avg"].value == pytest.approx(per_arm["A_avg"].mean())
    assert metrics["A_wst"].value == pytest.approx(per_arm["A_wst"].mean())
    assert metrics["accuracy"].value == pytest.approx(sum(bool(r["correct"]) for r in rows) / len(rows))
    assert table["graded"].sum() == len(rows)


def test_cot3_sends_its_demonstrations_through_inspect(both_runs) -> None:
    _, log, *_ = both_runs
    cot3 = [s for s in log.samples or [] if " cot3 image " in str(s.id)]
    assert cot3
    for sample in map(resolve_sample_attachments, cot3):  # the log keeps images as attachments
        user = [m for m in sample.messages if m.role == "user"]
        images = [c for m in user if not isinstance(m.content, str) for c in m.content if c.type == "image"]
        assert len(images) == 4  # three demonstrations' pictures, then the question's
        assert all(image.image.startswith("data:image/png;base64,") for image in images)


def test_dataset_input_is_the_variant_as_shown(both_runs) -> None:
    _, log, *_ = both_runs
    for sample in map(resolve_sample_attachments, log.samples or []):
        content = sample.input[0].content if not isinstance(sample.input, str) else sample.input
        kinds = [part.type for part in content] if not isinstance(content, str) else ["text"]
        assert kinds == (["image", "text"] if " image " in str(sample.id) else ["text"])
        images = [part.image for part in content if part.type == "image"] if kinds != ["text"] else []
        assert all(image.startswith("data:image/png;base64,") for image in images)
        assert sample.target == sample.metadata[ISODYN]["asked"]["truth"]


def _score(
    value: str, seed: str, variant: int, reason: str = "ok", strategy: str = "zeroshot"
) -> SampleScore:
    cell = {"model": MODEL, "strategy": strategy, "modality": "image", "seed_id": seed, "variant": variant,
            "repeat": 0}  # fmt: skip
    return SampleScore(
        score=Score(value=value, metadata={"reason": reason}), sample_metadata={ISODYN: {"cell": cell}}
    )


def test_metrics_leave_out_skipped_cells_and_take_a_seed_per_arm() -> None:
    scores = [
        _score(CORRECT, "a", 0), _score(CORRECT, "a", 1), _score(CORRECT, "b", 0), _score(INCORRECT, "b", 1),
        _score(NOANSWER, "b", 2, "skipped: no text"), _score(INCORRECT, "a", 0, strategy="cot3"),
        _score(CORRECT, "a", 1, strategy="cot3"),
    ]  # fmt: skip
    # seeds within arms: zeroshot a (1.0, worst 1), zeroshot b (0.5, worst 0), cot3 a (0.5, worst 0)
    assert a_avg()(scores) == pytest.approx((1.0 + 0.5 + 0.5) / 3)
    assert a_wst()(scores) == pytest.approx(1 / 3)
    assert graded_accuracy()(scores) == pytest.approx(4 / 6)


def test_isobench_and_hardset_tasks_run_isodyns_cells(tmp_path: Path) -> None:
    genomes = (Genome("dynamath_shifted_abs", 3), Genome("dynamath_point_distance", 5))
    wrong = Asked(0, False, True, "A", 1, False, "ok")
    trials = [
        Trial(Unit(MODEL, "zeroshot", Modality.LATEX, g.seed_id), Searcher.RANDOM, 0, g, {}, "truth",
              (wrong,), TrialStatus.CONFIRMED)
        for g in genomes
    ]  # fmt: skip
    write_hardset(tmp_path / "hard", trials, {g.seed_id: get_seed(g.seed_id) for g in genomes})
    answer = ScriptedReply(text='{"solution": "s", "short answer": "A"}')
    cache = str(tmp_path / "cache")
    with OpenAIStub(lambda request: answer) as stub:
        hard = inspect_run(stub, "hardset", {"path": str(tmp_path / "hard"), "modality": "latex",
                                             "cache_dir": cache}, tmp_path / "logs")  # fmt: skip
        iso = inspect_run(stub, "isobench", {"seeds": "isobench_parity", "variants": 3, "modality": "image",
                                             "cache_dir": cache}, tmp_path / "logs")  # fmt: skip
    hard_cells = [s.metadata[ISODYN]["cell"] for s in hard.samples or []]
    assert sorted(c["seed_id"].split("~")[0] for c in hard_cells) == sorted(g.seed_id for g in genomes)
    assert {c["variant"] for c in hard_cells} == {0}
    iso_cells = [s.metadata[ISODYN]["cell"] for s in iso.samples or []]
    assert [(c["seed_id"], c["variant"]) for c in iso_cells] == [("isobench_parity", v) for v in range(3)]
    assert all(s.scores[ISODYN].value in (CORRECT, INCORRECT) for s in iso.samples or [])


def test_the_entry_point_module_registers_the_three_tasks() -> None:
    from inspect_ai._util.registry import registry_lookup

    table = tomllib.loads((ROOT / "pyproject.toml").read_text())
    module = table["project"]["entry-points"]["inspect_ai"]["isodyn"]
    __import__(module)
    for name in ("dynamath", "isobench", "hardset"):
        assert registry_lookup("task", f"isodyn/{name}") is not None, name


def test_isodyn_and_exp_run_help_never_load_inspect() -> None:
    probe = (
        "import sys\n"
        "import isodyn, isodyn.cli, isodyn.commands.run\n"
        "from typer.testing import CliRunner\n"
        "result = CliRunner().invoke(isodyn.cli.app, ['run', '--help'])\n"
        "assert result.exit_code == 0, result.output\n"
        "print(sorted(m for m in sys.modules if m.split('.')[0] in ('inspect_ai', 'isodyn') and "
        "(m.startswith('inspect_ai') or m.startswith('isodyn.interop'))))\n"
    )
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src")}
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, env=env, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[]"


def test_a_model_without_vision_skips_image_cells_and_calls_nothing(tmp_path: Path) -> None:
    with OpenAIStub(lambda request: ScriptedReply()) as stub:
        args = {"seeds": "isobench_parity", "variants": 2, "modality": "image,latex", "vision": False,
                "cache_dir": str(tmp_path / "cache")}  # fmt: skip
        log = inspect_run(stub, "isobench", args, tmp_path / "logs")
        calls = len(stub.requests)
    scores = {str(s.id): s.scores[ISODYN] for s in log.samples or []}
    skipped = {words for words, score in scores.items() if score.value == NOANSWER}
    assert skipped == {words for words in scores if " image " in words} and len(skipped) == 2
    assert all(str(scores[w].metadata["reason"]).startswith("skipped: ") for w in skipped)
    assert calls == 2  # only the latex cells asked
    assert log.results is not None and log.results.scores[0].metrics["accuracy"].value in (0.0, 0.5, 1.0)


def test_settings_inspect_cannot_honour_are_refused() -> None:
    from isodyn.errors import ConfigError
    from isodyn.interop.inspect_plan import inspect_plan

    with pytest.raises(ConfigError, match="describer= and judge="):
        inspect_plan(["seeds=isobench_parity", "describer=openai/eyes", "vision=yes"], MODEL, True)
    plan = inspect_plan(["seeds=isobench_parity", "variants=2", "modalities=latex"], MODEL, True)
    assert {cell.model for cell in plan.grid.cells} == {MODEL} and len(plan.grid.cells) == 2
    assert set(plan.models) == {MODEL} and plan.config.models == (MODEL,)


def test_the_calls_carry_isodyns_temperature_and_max_tokens_unless_inspect_overrides(tmp_path: Path) -> None:
    # a model inspect knows (it treats an unknown openai/ name as a reasoning model, sent no temperature)
    model, args = "openai/gpt-4o-mini", {"seeds": "isobench_parity", "variants": 1, "modality": "latex"}
    with OpenAIStub(lambda request: ScriptedReply()) as stub:
        inspect_run(stub, "isobench", {**args, "temperature": 0.5, "max_tokens": 300}, tmp_path, model)
        inspect_run(stub, "isobench", args, tmp_path, model)
        inspect_run(stub, "isobench", {**args, "temperature": 0.5}, tmp_path, model, temperature=0.9)
        sent = [
            (r.get("temperature"), r.get("max_tokens") or r.get("max_completion_tokens"))
            for r in stub.requests
        ]
    assert sent == [(0.5, 300), (0.0, 4096), (0.9, 4096)]
