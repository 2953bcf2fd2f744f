"""A reply cut off at the token limit (finish reason `length`) is an outcome: recorded on the call
and the cell, graded `truncated` (never read, never correct) by every grader, when the run grades it
and when it is graded again; kept by the reply cache and brought back on a hit."""

import asyncio
import json
import shutil

import orjson
import pytest

from isodyn.cache import ResponseCache, decode_reply, encode_reply
from isodyn.commands.run_notices import small_token_limit
from isodyn.core import Modality
from isodyn.experiments.plan import plan_experiment
from isodyn.experiments.regrade import rescore
from isodyn.experiments.runner import execute
from isodyn.generators import get_seed
from isodyn.models.engine import reply_room
from isodyn.models.local import CONTEXT_TOKENS
from isodyn.models.requests import DEFAULT_MAX_TOKENS, Reply
from isodyn.runs.config import ExperimentConfig, parse_overrides
from isodyn.runs.record import Status
from isodyn.runs.rundir import new_run_dir
from isodyn.scoring import GRADERS, Tolerance
from isodyn.scoring.extract import TRUNCATED
from isodyn.strategies.context import CellContext, Grading, ModelFacts, Services
from isodyn.strategies.modifiers import SelfConsistency
from isodyn.testing import OpenAIStub, ScriptedReply

SEED = "dynamath_shifted_abs"
VARIANTS = 3
CUT = 0  # the variant whose reply is cut off, its partial text holding the right answer


def shown(index: int) -> str:
    """What the latex cell of a variant shows (its questions are alike; its function differs)."""
    seed = get_seed(SEED)
    return seed.representation(seed.variant(index), Modality.LATEX).text


def planted(request: dict) -> ScriptedReply:
    """The right answer for every variant; variant CUT's reply stops mid-sentence at the limit."""
    prompt = request["messages"][-1]["content"]
    prompt = prompt if isinstance(prompt, str) else " ".join(p.get("text", "") for p in prompt)
    index = next(i for i in range(VARIANTS) if shown(i) in prompt)
    truth = get_seed(SEED).variant(index).answer
    if index == CUT:  # the partial text commits to the right answer, then is cut off: never read
        return ScriptedReply(
            text=f"Checking each option, the answer is {truth}. But wait", finish_reason="length"
        )
    return ScriptedReply(text=json.dumps({"solution": "s", "short answer": truth}))


@pytest.fixture
def words(tmp_path):
    return [
        f"out={tmp_path / 'runs'}", f"cache_dir={tmp_path / 'cache'}", f"seeds={SEED}",
        f"variants={VARIANTS}", "modalities=latex", "quiet=1", "models=openai/stub",
    ]  # fmt: skip


def run(words: list[str]):
    plan = plan_experiment(parse_overrides(words))
    return asyncio.run(execute(plan, new_run_dir(plan.config)))


def by_variant(rows: list[dict]) -> dict[int, dict]:
    return {row["variant"]: row for row in rows}


def test_a_cut_off_reply_is_truncated_and_a_complete_one_graded(words) -> None:
    with OpenAIStub(planted) as stub:
        first = run([*words, f"api_base={stub.base_url}"])
    rows = by_variant(first.rows)
    cut = rows[CUT]
    assert (cut["reason"], cut["correct"], cut["extracted"]) == ("truncated", False, None)
    assert (cut["method"], cut["ambiguity"], cut["finish_reason"]) == (TRUNCATED, TRUNCATED, "length")
    assert cut["transcript"][0]["finish_reason"] == "length"
    for variant in set(rows) - {CUT}:
        assert (rows[variant]["reason"], rows[variant]["correct"]) == ("ok", True)
        assert rows[variant]["finish_reason"] == "stop"
    assert first.summary.truncated == 1
    assert first.summary.correct == VARIANTS - 1


def test_the_cache_brings_the_finish_reason_back(words, tmp_path) -> None:
    """A rerun takes its cells from the memo; with the memo gone, from the reply cache: either way
    the cut-off reply is still truncated, and no call is made."""
    with OpenAIStub(planted) as stub:
        args = [*words, f"api_base={stub.base_url}"]
        run(args)
        memoized = run(args)
        shutil.rmtree(tmp_path / "cache" / "replays")
        cached = run(args)
        assert len(stub.requests) == VARIANTS
    for again in (memoized, cached):
        assert again.summary.calls_made == 0
        cut = by_variant(again.rows)[CUT]
        assert (cut["reason"], cut["finish_reason"]) == ("truncated", "length")
        assert sum(r["correct"] for r in again.rows) == VARIANTS - 1


def test_every_grader_grades_a_truncated_reply_truncated_again(words) -> None:
    with OpenAIStub(planted) as stub:
        first = run([*words, f"api_base={stub.base_url}"])
    results = first.folder.results().results
    for grader in GRADERS:
        regraded = {r.variant: r for r in rescore(results, Tolerance(), grader)}
        verdict = regraded[CUT].verdict
        assert verdict is not None and (verdict.reason, verdict.ambiguity) == ("truncated", TRUNCATED), grader
        assert verdict.grader == grader and regraded[CUT].outcome.status is Status.TRUNCATED
        assert not regraded[CUT].correct


def test_a_reply_cached_before_finish_reasons_were_kept_reads_as_unknown(tmp_path) -> None:
    stored = orjson.loads(encode_reply(Reply("the answer is 3", 5, 4, 0.0, 0.1, "length"), 1.0))
    assert stored["finish_reason"] == "length"
    older = {k: v for k, v in stored.items() if k != "finish_reason"}  # as isodyn wrote entries before
    decoded = decode_reply(orjson.dumps(older))
    assert decoded is not None and decoded[0] == Reply("the answer is 3", 5, 4, 0.0, 0.1, None)
    cache = ResponseCache(tmp_path / "responses")
    cache._store.set("k", orjson.dumps(older))
    assert cache.get("k") == Reply("the answer is 3", 5, 4, 0.0, 0.1, None)
    cache.close()


def _context() -> CellContext:
    return CellContext(
        seed_id=SEED, index=0, modality=Modality.LATEX, repeat=0, base_seed=0,
        solver=ModelFacts("m", False), services=Services(grading=Grading("isodyn")),
    )  # fmt: skip


def vote(replies: list[Reply]) -> tuple[Reply, CellContext]:
    seed = get_seed(SEED)
    variant = seed.variant(0)
    ctx = _context()

    async def ask(messages, step, *, model=None, sample=0):
        return replies[sample]

    async def inner(v, rep, a):
        return await a([], "answer")

    representation = seed.representation(variant, Modality.LATEX)
    winner = asyncio.run(SelfConsistency(len(replies)).run(variant, representation, ask, ctx, inner))
    return winner, ctx


def test_self_consistency_votes_only_over_complete_samples() -> None:
    truth = get_seed(SEED).variant(0).answer
    wrong = next(letter for letter in "ABCD" if letter != truth)
    answer = lambda letter: json.dumps({"short answer": letter})  # noqa: E731
    cut_right = Reply(answer(truth), finish_reason="length")
    complete_wrong = Reply(answer(wrong), finish_reason="stop")
    # two cut-off samples name the truth, one complete sample names another option: the complete one wins
    winner, ctx = vote([cut_right, cut_right, complete_wrong])
    assert winner is complete_wrong
    assert ctx.notes["votes"][:2] == [None, None] and ctx.notes["truncated_samples"] == 2
    # every sample cut off: the first stands, and the cell will be graded truncated
    winner, _ = vote([cut_right, cut_right])
    assert winner.finish_reason == "length"


def test_max_tokens_is_4096_and_fits_the_embedded_model() -> None:
    assert ExperimentConfig().max_tokens == DEFAULT_MAX_TOKENS == 4096
    assert parse_overrides([]).max_tokens == 4096
    # the embedded engine's context holds the prompt and the reply: the reply gets what is left
    assert reply_room(4096, 300, CONTEXT_TOKENS) == CONTEXT_TOKENS - 300 - 64
    assert reply_room(512, 300, CONTEXT_TOKENS) == 512
    assert reply_room(4096, CONTEXT_TOKENS, CONTEXT_TOKENS) == 1  # the engine then refuses the prompt


def test_the_token_limit_reaches_the_server(words) -> None:
    with OpenAIStub(planted) as stub:
        run([*words, f"api_base={stub.base_url}"])
        assert {r["max_tokens"] for r in stub.requests} == {4096}


def test_a_small_limit_under_chain_of_thought_is_warned_before_the_run(words) -> None:
    base = [w for w in words if not w.startswith("models=")]
    said = small_token_limit(
        plan_experiment(parse_overrides([*base, "strategies=cot3,zeroshot", "max_tokens=512"]))
    )
    assert len(said) == 1 and "max_tokens=512" in said[0] and "cot3" in said[0] and "zeroshot" not in said[0]
    assert small_token_limit(plan_experiment(parse_overrides([*base, "strategies=cot3"]))) == []
    assert small_token_limit(plan_experiment(parse_overrides([*base, "max_tokens=512"]))) == []
    sc = small_token_limit(plan_experiment(parse_overrides([*base, "strategies=sc@3", "max_tokens=1024"])))
    assert len(sc) == 1 and "sc@3" in sc[0]


def test_a_dry_run_gives_the_same_warning(words) -> None:
    from isodyn.commands.run import RunRequest, estimate_run

    base = [w for w in words if not w.startswith("models=")]
    estimate = estimate_run(RunRequest.from_words([*base, "strategies=cot3", "max_tokens=512", "dry_run=1"]))
    assert [n.text for n in estimate.notices if n.kind == "warning" and "max_tokens=512" in n.text]


def test_a_batch_item_cut_off_is_truncated_too(words, monkeypatch) -> None:
    from isodyn.experiments import batch

    monkeypatch.setattr(batch, "POLL", batch.PollTiming(first_s=0.01, growth=2.0, max_s=0.05))
    chosen = [w for w in words if not w.startswith("models=")]
    with OpenAIStub(planted) as stub:
        done = run([*chosen, "models=openai/gpt-4o-mini", f"api_base={stub.base_url}", "batch=1"])
        assert stub.requests == [] and len(stub.batches.items) == VARIANTS  # answered in a batch job
    rows = by_variant(done.rows)
    assert (rows[CUT]["reason"], rows[CUT]["finish_reason"], rows[CUT]["correct"]) == (
        "truncated",
        "length",
        False,
    )
    assert all(rows[v]["correct"] and rows[v]["finish_reason"] == "stop" for v in set(rows) - {CUT})
