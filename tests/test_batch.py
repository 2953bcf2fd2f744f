"""Batch mode (batch=1): the whole cycle through litellm's files and batches API against the loopback
stub: jobs instead of live calls, replies in the cache, a stopped run resumed by polling, failed and
expired items, multi-step strategies over rounds, refusals and the dry run's prices."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import openai
import pytest

from isodyn.commands.run import RunRequest, estimate_run
from isodyn.experiments import batch
from isodyn.experiments.batch_jobs import batch_prices
from isodyn.experiments.plan import plan_experiment
from isodyn.experiments.runner import RunOutcome, execute
from isodyn.models.catalog import litellm_module
from isodyn.runs.config import parse_overrides
from isodyn.runs.rundir import open_run_dir
from isodyn.testing import OpenAIStub
from isodyn.testing.stub_batches import BatchBehaviour

SEED = "dynamath_shifted_abs"  # renders as an image and as LaTeX
MODEL = "openai/gpt-4o-mini"  # priced in litellm's table, batch prices included


@pytest.fixture(autouse=True)
def _fast_polls(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(batch, "POLL", batch.PollTiming(first_s=0.01, growth=2.0, max_s=0.05))


def settings(stub: OpenAIStub, tmp_path: Path, *extra: str) -> list[str]:
    chosen = {word.partition("=")[0] for word in extra}
    defaults = ["modalities=latex", "variants=2", "batch=1"]
    return [
        f"out={tmp_path / 'runs'}", f"cache_dir={tmp_path / 'cache'}", f"seeds={SEED}", "quiet=1",
        f"models={MODEL}", f"api_base={stub.base_url}",
        *[word for word in defaults if word.partition("=")[0] not in chosen], *extra,
    ]  # fmt: skip


def run(words: list[str], progress: list[batch.BatchProgress] | None = None) -> RunOutcome:
    plan = plan_experiment(parse_overrides(words))
    folder, done = open_run_dir(plan.config)
    hook = progress.append if progress is not None else None
    return asyncio.run(execute(plan, folder, done=done, on_batch=hook))


def rows(run_dir: Path) -> list[dict]:
    path = run_dir / "results.jsonl"
    return [json.loads(line) for line in path.read_text().splitlines()] if path.exists() else []


def ledger(run_dir: Path) -> list[dict]:
    return [json.loads(line) for line in (run_dir / "batches.jsonl").read_text().splitlines()]


def only_run(tmp_path: Path) -> Path:
    (run_dir,) = (tmp_path / "runs").iterdir()
    return run_dir


def batch_price(prompt_tokens: int, completion_tokens: int) -> float:
    entry = litellm_module().model_cost[MODEL.split("/")[1]]
    return (
        prompt_tokens * entry["input_cost_per_token_batches"]
        + completion_tokens * entry["output_cost_per_token_batches"]
    )


def test_a_batch_run_makes_no_live_call_and_a_live_rerun_replays_it(tmp_path: Path) -> None:
    progress: list[batch.BatchProgress] = []
    with OpenAIStub() as stub:
        words = settings(stub, tmp_path, "modalities=latex,image", "vision=yes")
        first = run(words, progress)
        desk = stub.batches
        assert stub.requests == []  # not one /chat/completions request
        assert (desk.files_uploaded, desk.batches_created, len(desk.items)) == (1, 1, 4)
        assert first.summary.complete and first.summary.calls_made == 4
        # the stub reports 10 prompt and 5 completion tokens a reply: priced at the batch price
        assert first.summary.cost_usd == pytest.approx(4 * batch_price(10, 5))
        calls = [e for e in map(json.loads, first.folder.log_file.read_text().splitlines())
                 if e["event"] == "call"]  # fmt: skip
        assert len(calls) == 4 and {c["batch_id"] for c in calls} == {"batch_stub_1"}
        assert [p.in_progress for p in progress] == [1, 0] and progress[-1].done == 1

        second = run([w for w in words if w != "batch=1"])  # a live run of the same grid
        assert stub.requests == [] and second.summary.calls_made == 0
        assert second.summary.cache_hits == 4
    key = lambda row: (row["modality"], row["variant"])  # noqa: E731
    assert sorted(first.rows, key=key) == sorted(second.rows, key=key)
    assert {r["reason"] for r in first.rows} == {"ok"}

    # a batch line's body is what litellm sends live for the same request
    with OpenAIStub() as live:
        run(settings(live, tmp_path / "live", "modalities=latex,image", "vision=yes", "batch=0"))
    sent = lambda bodies: sorted(  # noqa: E731
        json.dumps({k: b[k] for k in ("model", "messages", "temperature", "max_tokens")}, sort_keys=True)
        for b in bodies
    )
    assert sent(desk.items) == sent(live.requests)


def test_a_run_stopped_with_jobs_pending_polls_them_and_never_resubmits(tmp_path: Path, run_cli) -> None:
    with OpenAIStub() as stub:
        stub.batches.behaviour = BatchBehaviour(validating_s=0.0, complete_after_s=3600)
        words = ("run", *settings(stub, tmp_path, "batch_wait=0"))
        first = run_cli(*words)
        assert first.code == 0, first.err
        assert (
            "2 cells wait on 1 batch job still running" in first.err
            and "run the same command again" in first.err
        )
        run_dir = only_run(tmp_path)
        (submitted,) = ledger(run_dir)
        assert submitted["event"] == "submitted" and submitted["batch_id"] == "batch_stub_1"
        assert len(submitted["keys"]) == 2 and submitted["input_file_id"] == "file-stub-1"
        summary = json.loads((run_dir / "summary.json").read_text())
        assert summary["complete"] is False and summary["left_undone"] == 2 and rows(run_dir) == []

        still = run_cli(*words)  # the job has not ended: polled, nothing sent again
        assert still.code == 0 and "run the same command again" in still.err
        assert (stub.batches.files_uploaded, stub.batches.batches_created) == (1, 1)
        assert stub.batches.retrieves == 2

        stub.batches.finish_all()
        last = run_cli(*words)
        assert last.code == 0, last.err
        assert (stub.batches.files_uploaded, stub.batches.batches_created) == (1, 1)
        assert stub.requests == [] and stub.batches.retrieves == 3
    assert only_run(tmp_path) == run_dir  # the same run, resumed
    assert [r["reason"] for r in rows(run_dir)] == ["ok", "ok"]
    summary = json.loads((run_dir / "summary.json").read_text())
    assert summary["complete"] is True and summary["calls_made"] == 2
    assert ledger(run_dir)[-1] | {"t": 0} == {
        "t": 0,
        "event": "ended",
        "batch_id": "batch_stub_1",
        "status": "completed",
        "answered": 2,
        "failed": 0,
    }


def test_a_request_a_pending_job_holds_is_never_asked_live(tmp_path: Path) -> None:
    with OpenAIStub() as stub:
        # sc@2 in jobs of 1: the first sample's job expires unanswered, the second's is still running
        stub.batches.next_behaviours = [BatchBehaviour(expire=True), BatchBehaviour(complete_after_s=3600)]
        words = settings(stub, tmp_path, "variants=1", "strategies=sc@2", "batch_size=1", "batch_wait=0")
        first = run(words)
        assert stub.requests == []  # the failed sample waits with its cell: its sibling is in a job
        assert first.summary.left_undone == 1 and stub.batches.batches_created == 2

        stub.batches.finish_all()
        again = run(words)
        assert stub.requests == [] and stub.batches.batches_created == 3  # only the expired one again
    assert again.summary.complete is True and [r["reason"] for r in again.rows] == ["ok"]


@pytest.mark.parametrize(
    "behaviour",
    [BatchBehaviour(expire=True, answered_before_expiry=1), BatchBehaviour(malformed_output=True)],
    ids=["expired", "malformed output"],
)
def test_items_a_job_did_not_answer_are_called_live(tmp_path: Path, behaviour: BatchBehaviour) -> None:
    with OpenAIStub() as stub:
        stub.batches.behaviour = behaviour
        outcome = run(settings(stub, tmp_path, "variants=3"))
        answered = 1 if behaviour.expire else 0  # a malformed file answers nothing readable
        assert len(stub.batches.items) == (1 if behaviour.expire else 3)  # malformed: all, unreadable
        assert len(stub.requests) == 3 - answered  # the rest went live, once each
    assert outcome.summary.complete and outcome.summary.calls_made == 3
    assert {r["reason"] for r in outcome.rows} == {"ok"} and len(outcome.rows) == 3
    live_asked = {json.dumps(r["messages"]) for r in stub.requests}
    batch_answered = {json.dumps(b["messages"]) for b in stub.batches.items[:answered]}
    assert not live_asked & batch_answered  # what the job answered was not asked again


def test_fallback_undone_leaves_cells_for_a_rerun_that_pays_each_request_once(tmp_path: Path) -> None:
    with OpenAIStub() as stub:
        stub.batches.behaviour = BatchBehaviour(expire=True, answered_before_expiry=1)
        words = settings(stub, tmp_path, "variants=3", "batch_fallback=undone")
        first = run(words)
        assert first.summary.complete is False and first.summary.left_undone == 2
        assert len(first.rows) == 1 and stub.requests == []

        stub.batches.behaviour = BatchBehaviour()
        again = run(words)
        assert again.folder == first.folder
        assert stub.batches.batches_created == 2 and stub.requests == []
        assert len(stub.batches.items) == 3  # 1 + 2: no request answered twice
    assert again.summary.complete is True and len(rows(again.folder.path)) == 3
    assert again.summary.calls_made == 3 and again.summary.this_process.calls_made == 2
    assert again.summary.cost_usd == pytest.approx(3 * batch_price(10, 5), abs=1e-6)  # rounded to 6
    log = [json.loads(line) for line in again.folder.log_file.read_text().splitlines()]
    paid = [e["cost_usd"] for e in log if e["event"] == "call"]
    assert paid == pytest.approx([batch_price(10, 5)] * 3)  # each request once, at the batch price


def test_multi_step_strategies_finish_over_rounds_in_jobs_of_batch_size(tmp_path: Path) -> None:
    with OpenAIStub() as stub:
        words = settings(
            stub, tmp_path, "modalities=image", "vision=yes", "strategies=isosp,sc@3", "batch_size=5"
        )
        outcome = run(words)
        assert stub.requests == []
        desk = stub.batches
        # round 1: 2 descriptions + 2 x 3 samples = 8 requests in jobs of 5 and 3; round 2: 2 solves
        assert desk.batches_created == 3
        sizes = [len(b.lines) for b in desk.batches.values()]
        assert sizes == [5, 3, 2]
        second_round = [line["body"] for line in desk.batches["batch_stub_3"].lines]
        assert all(isinstance(m["content"], str) for b in second_round for m in b["messages"])  # text only
    assert outcome.summary.complete and outcome.summary.calls_made == 10
    assert len(outcome.rows) == 4 and {r["reason"] for r in outcome.rows} == {"ok"}
    isosp = [r for r in outcome.rows if r["strategy"] == "isosp"]
    assert all([c["step"] for c in r["transcript"]] == ["describe", "answer"] for r in isosp)


def test_a_server_gets_no_key_it_was_not_given(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    secret = "sk-planted-batch-4f7a9c0d1e2b3a4f"
    monkeypatch.setenv("OPENAI_API_KEY", secret)
    with OpenAIStub() as stub:
        outcome = run(settings(stub, tmp_path))
        heard = stub.batches.headers
    assert outcome.summary.complete and len(heard) >= 4  # upload, create, retrieve, download
    assert all(secret not in json.dumps(h) for h in heard)
    assert {v for h in heard for k, v in h.items() if k.lower() == "authorization"} == {
        "Bearer no-key-required"
    }


def test_batch_with_the_embedded_model_is_one_line_and_exit_2(tmp_path: Path, run_cli) -> None:
    done = run_cli("run", "batch=1", "models=local/smollm2-135m", f"out={tmp_path / 'runs'}",
                   f"cache_dir={tmp_path / 'cache'}")  # fmt: skip
    assert done.code == 2 and len(done.lines) == 1, done.err
    line = done.lines[0]
    assert "local/smollm2-135m" in line and "provider local" in line and "openai" in line
    assert not (tmp_path / "runs").exists()


def test_the_dry_run_prices_each_model_live_and_at_batch_prices(tmp_path: Path, run_cli) -> None:
    with OpenAIStub() as stub:
        words = settings(stub, tmp_path, "dry_run=1")
        estimate = estimate_run(RunRequest.from_words(words))
        (model,) = estimate.per_model
        assert (model.model, model.calls_needed, estimate.cached_calls) == (MODEL, 2, 0)
        assert model.batch_cost_usd == pytest.approx(model.estimated_cost_usd / 2, abs=1e-6)  # gpt-4o-mini
        shown = run_cli("run", *words)
        assert shown.code == 0 and f"{MODEL}: 2 calls, $" in shown.err and "at batch prices" in shown.err
        assert "0 calls already in the cache" in shown.err

        run([w for w in words if w != "dry_run=1"])
        after = run_cli("run", *words)
    assert "2 calls already in the cache" in after.err and "0 calls needed" in after.err


def test_batch_prices_fall_back_to_half_the_live_price(monkeypatch: pytest.MonkeyPatch) -> None:
    table = litellm_module().model_cost
    monkeypatch.setitem(table, "made-up-model", {"input_cost_per_token": 2e-6, "output_cost_per_token": 8e-6})
    assert batch_prices("openai/made-up-model") == pytest.approx((1e-6, 4e-6))
    monkeypatch.setitem(table, "made-up-model", {"input_cost_per_token": 2e-6, "output_cost_per_token": 8e-6,
                                                 "input_cost_per_token_batches": 3e-7,
                                                 "output_cost_per_token_batches": 5e-7})  # fmt: skip
    assert batch_prices("openai/made-up-model") == pytest.approx((3e-7, 5e-7))
    assert batch_prices("local/smollm2-135m") == (0.0, 0.0)


def test_the_stub_checks_files_and_cancels_as_openai_does() -> None:
    with OpenAIStub() as stub:
        client = openai.OpenAI(base_url=stub.base_url, api_key="no-key-required", max_retries=0)
        line = lambda i, model: {"custom_id": f"c{i}", "method": "POST", "url": "/v1/chat/completions",  # noqa: E731
                                 "body": {"model": model, "messages": []}}  # fmt: skip
        mixed = b"".join(json.dumps(line(i, m)).encode() + b"\n" for i, m in enumerate(["a", "b"]))
        uploaded = client.files.create(file=("in.jsonl", mixed), purpose="batch")
        refused = client.batches.create(
            input_file_id=uploaded.id, endpoint="/v1/chat/completions", completion_window="24h"
        )
        assert refused.status == "failed" and refused.errors.data[0].code == "mixed_models"

        stub.batches.behaviour = BatchBehaviour(complete_after_s=3600)
        one = client.files.create(file=("in.jsonl", json.dumps(line(0, "a")).encode()), purpose="batch")
        job = client.batches.create(
            input_file_id=one.id, endpoint="/v1/chat/completions", completion_window="24h"
        )
        assert client.batches.retrieve(job.id).status == "in_progress"
        assert client.batches.cancel(job.id).status == "cancelled"
        assert client.files.retrieve(one.id).bytes == len(json.dumps(line(0, "a")))
        with pytest.raises(openai.NotFoundError):
            client.batches.retrieve("batch_nope")
        counts = (stub.batches.files_uploaded, stub.batches.batches_created, stub.batches.cancels)
    assert counts == (2, 2, 1) and stub.batches.items == []
