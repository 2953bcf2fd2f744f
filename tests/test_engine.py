"""The engine at API scale, against the loopback server: faults, resume after kill -9, budget, shared
cache, the oracle, dry runs and cache maintenance."""

import asyncio
import json
import os
import signal
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

import pytest

from isodyn.experiments.plan import plan_experiment
from isodyn.experiments.runner import execute
from isodyn.runs.config import parse_overrides
from isodyn.runs.results import CellResult, load_rows, result_line
from isodyn.runs.rundir import open_run_dir
from isodyn.testing import OpenAIStub, ScriptedReply
from isodyn.testing.scripts import FaultMix, counting, oracle_from_items
from user_cli import exp

CELL = ("model", "strategy", "modality", "seed_id", "variant", "repeat")


def run(words: list[str]):
    plan = plan_experiment(parse_overrides(words))
    folder, done = open_run_dir(plan.config)
    return asyncio.run(execute(plan, folder, None, done))


def answer_a(request: dict) -> ScriptedReply:
    return ScriptedReply(text='{"solution": "s", "short answer": "A"}')


def test_fault_mix_every_cell_answered_or_recorded(tmp_path) -> None:
    mix = FaultMix(rate_limit=0.05, rate_limit_bare=0.05, server_error=0.05, timeout=0.05, malformed=0.05,
                   drop=0.03, timeout_delay_s=3.0, seed=4)  # fmt: skip
    with OpenAIStub(mix.wrap(answer_a)) as stub:
        outcome = run([f"out={tmp_path / 'runs'}", f"cache_dir={tmp_path / 'c'}", "models=openai/m",
                       f"api_base={stub.base_url}", "vision=yes", "variants=6", "timeout=1", "max_retries=8",
                       "concurrency=6", "quiet=1"])  # fmt: skip
    cells = len(
        plan_experiment(
            parse_overrides(["variants=6", "models=openai/m", "api_base=http://x", "vision=yes"])
        ).grid.cells
    )
    rows = outcome.rows
    assert len(rows) == cells and len({tuple(r[k] for k in CELL) for r in rows}) == cells
    assert {r["reason"] for r in rows} <= {"ok", "extraction_failed"}  # every fault was retried away
    assert all(r["extracted"] == "A" for r in rows)
    events = [json.loads(line) for line in outcome.folder.log_file.read_text().splitlines()]
    retried = Counter(e["reason"] for e in events if e["event"] == "retry")
    assert {"error:rate_limit", "error:server", "error:timeout"} <= set(retried)
    assert retried["error:malformed_reply"] + retried["error:api"] + retried["error:connection"] > 0
    assert outcome.summary.retries == sum(retried.values())
    assert (
        mix.counts.get("rate_limit", 0) + mix.counts.get("rate_limit_bare", 0) == retried["error:rate_limit"]
    )


def test_non_retryable_errors_are_recorded_and_redacted(tmp_path, monkeypatch) -> None:
    secret = "sk-planted-0123456789abcdef0123"
    monkeypatch.setenv("OPENAI_API_KEY", secret)

    def refuse(request: dict) -> ScriptedReply:
        return ScriptedReply(text=f"Incorrect API key provided: {secret}", status=401)

    with OpenAIStub(refuse) as stub:
        outcome = run([f"out={tmp_path / 'runs'}", f"cache_dir={tmp_path / 'c'}", "models=openai/m",
                       f"api_base={stub.base_url}", "seeds=isobench_parity", "modalities=latex", "variants=2",
                       "quiet=1"])  # fmt: skip
        assert len(stub.requests) == 2  # 401 is final: no retries
    assert {r["reason"] for r in outcome.rows} == {"error:auth"}
    assert all("[REDACTED]" in r["error"] for r in outcome.rows)
    for path in tmp_path.rglob("*"):
        if path.is_file():
            assert secret.encode() not in path.read_bytes(), path


def test_kill_9_then_resume_repeats_no_finished_call(tmp_path) -> None:
    script, counts = counting(lambda request: ScriptedReply(text='{"short answer": "A"}', delay_s=0.15))
    with OpenAIStub(script) as stub:
        words = ["run", f"out={tmp_path / 'runs'}", f"cache_dir={tmp_path / 'c'}", "models=openai/m",
                 f"api_base={stub.base_url}", "seeds=isobench_parity,isobench_connectivity",
                 "modalities=latex", "variants=15", "concurrency=2", "quiet=1"]  # fmt: skip
        process = subprocess.Popen([sys.executable, "-m", "isodyn", *words], stdout=subprocess.DEVNULL,
                                   stderr=subprocess.DEVNULL)  # fmt: skip
        results = None
        deadline = time.time() + 120
        while time.time() < deadline:
            found = list((tmp_path / "runs").glob("*/results.jsonl")) if (tmp_path / "runs").exists() else []
            if found and len(found[0].read_text().splitlines()) >= 8:
                results = found[0]
                break
            time.sleep(0.05)
        assert results is not None, "the run never got going"
        os.kill(process.pid, signal.SIGKILL)
        process.wait()
        before = load_rows(results.parent)
        assert 8 <= len(before) < 30
        finished_prompts = {
            json.dumps(t["messages"], sort_keys=True) for r in before for t in r["transcript"]
        }
        done = exp(*words)
        assert done.returncode == 0, done.stderr
        assert "resuming" in done.stderr
    after = load_rows(results.parent)
    assert len(after) == 30 and len({tuple(r[k] for k in CELL) for r in after}) == 30
    assert [tuple(r[k] for k in CELL) for r in after[: len(before)]] == [
        tuple(r[k] for k in CELL) for r in before
    ]
    assert json.loads((results.parent / "summary.json").read_text())["complete"] is True
    # every request reached the server at most twice (killed while in flight), and no finished cell's twice
    asked = counts()
    assert all(n <= 2 for n in asked.values())
    repeated = {k for k, n in asked.items() if n == 2}
    assert len(repeated) <= 2  # at most the calls in flight at the kill (concurrency 2)
    texts = {json.dumps(req["messages"], sort_keys=True) for req in stub.requests}
    assert finished_prompts <= texts
    assert sum(asked.values()) <= 30 + 2


def test_budget_stop_then_resume_with_a_larger_budget(tmp_path) -> None:
    def priced(request: dict) -> ScriptedReply:
        # usage as a real tokenizer would report it: about 4 characters a token
        tokens = len(json.dumps(request["messages"])) // 4
        return ScriptedReply(text='{"short answer": "A"}', prompt_tokens=tokens, completion_tokens=16)

    with OpenAIStub(priced) as stub:
        words = [f"out={tmp_path / 'runs'}", f"cache_dir={tmp_path / 'c'}", "models=gpt-4o",
                 f"api_base={stub.base_url}", "seeds=isobench_parity", "modalities=latex", "variants=12",
                 "max_tokens=16", "concurrency=1", "quiet=1"]  # fmt: skip
        first = run([*words, "max_cost=0.01"])
        assert 0 < first.summary.cells < 12
        assert first.summary.left_undone == 12 - first.summary.cells
        assert first.summary.complete is False
        assert first.summary.cost_usd <= 0.01
        calls_before = len(stub.requests)
        second = run([*words, "max_cost=1"])
        assert second.folder == first.folder  # the same command resumed the unfinished run
        assert len(stub.requests) == calls_before + (12 - first.summary.cells)
    assert second.summary.complete is True and second.summary.cells == 12


def test_two_concurrent_runs_share_one_cache(tmp_path) -> None:
    with OpenAIStub(lambda r: ScriptedReply(text='{"short answer": "A"}', delay_s=0.05)) as stub:
        common = [f"cache_dir={tmp_path / 'shared'}", "models=openai/m", f"api_base={stub.base_url}",
                  "seeds=isobench_parity", "modalities=latex,code", "variants=10", "quiet=1"]  # fmt: skip
        procs = [
            subprocess.Popen(
                [sys.executable, "-m", "isodyn", "run", f"out={tmp_path / name}", *common],
                stdout=subprocess.DEVNULL,
                stderr=subprocess.PIPE,
                text=True,
            )
            for name in ("a", "b")
        ]
        for p in procs:
            assert p.wait(timeout=120) == 0, p.stderr.read()
        assert len(stub.requests) <= 40  # at worst both called every cell
    rows = [load_rows(next((tmp_path / name).iterdir())) for name in ("a", "b")]
    assert all(len(r) == 20 for r in rows)
    again = run([f"out={tmp_path / 'c'}", *common])
    assert again.summary.calls_made == 0


def test_oracle_accuracy_per_modality_comes_back_out(tmp_path) -> None:
    data = tmp_path / "data"
    assert (
        exp("generate", "task=parity", "n=60", f"out={data}", f"cache_dir={tmp_path / 'c'}").returncode == 0
    )
    items = [json.loads(line) for line in (data / "items.jsonl").read_text().splitlines()]
    oracle = oracle_from_items(items, {"image": 0.3, "latex": 0.9, "code": 0.6}, seed=2)
    with OpenAIStub(oracle) as stub:
        outcome = run([f"out={tmp_path / 'runs'}", f"cache_dir={tmp_path / 'c'}", "models=openai/m",
                       f"api_base={stub.base_url}", "vision=yes", "seeds=isobench_parity", "variants=60",
                       "quiet=1"])  # fmt: skip
    accuracy = {
        m: sum(r["correct"] for r in outcome.rows if r["modality"] == m) / 60
        for m in ("image", "latex", "code")
    }
    assert abs(accuracy["image"] - 0.3) < 0.15 and abs(accuracy["latex"] - 0.9) < 0.1
    assert abs(accuracy["code"] - 0.6) < 0.15


def test_dry_run_and_cache_commands(tmp_path) -> None:
    with OpenAIStub(answer_a) as stub:
        words = [f"out={tmp_path / 'runs'}", f"cache_dir={tmp_path / 'c'}", "models=openai/m",
                 f"api_base={stub.base_url}", "seeds=isobench_parity", "modalities=latex",
                 "variants=4"]  # fmt: skip
        dry = exp("run", *words, "dry_run=1")
        assert dry.returncode == 0 and "4 cells" in dry.stderr and "0 cached (0%)" in dry.stderr
        assert "4 calls needed" in dry.stderr
        assert not (tmp_path / "runs").exists() and stub.requests == []
        assert exp("run", *words, "quiet=1").returncode == 0
        dry = exp("run", *words, "dry_run=1")
        assert "4 cached (100%)" in dry.stderr and "0 calls needed" in dry.stderr
    stats = exp("cache", "stats", f"cache_dir={tmp_path / 'c'}")
    assert "4 replies" in stats.stderr and "last run: 0 hits, 4 calls" in " ".join(stats.stderr.split())
    assert "4 memoized cells" in stats.stderr
    prune = exp("cache", "prune", "older_than=1d", f"cache_dir={tmp_path / 'c'}")
    assert "removed 0 replies" in prune.stderr and "4 memoized cells" in prune.stderr
    clear = exp("cache", "clear", f"cache_dir={tmp_path / 'c'}")
    assert "removed 4 replies and 0 memoized cells" in " ".join(clear.stderr.split())
    bad = exp("cache", "prune", f"cache_dir={tmp_path / 'c'}")
    assert bad.returncode == 2 and "older_than" in bad.stderr


@pytest.mark.parametrize("word", ["max_cost=abc", "rpm=0", "timeout=-1"])
def test_engine_settings_are_checked(tmp_path, word) -> None:
    bad = exp("run", word, f"out={tmp_path}")
    assert bad.returncode == 2 and "bad value for" in bad.stderr


def test_truncated_last_line_is_dropped_on_resume(tmp_path) -> None:
    run_dir = tmp_path / "r"
    run_dir.mkdir()
    cell = CellResult.from_row(dict(model="m", strategy="zeroshot", modality="latex", seed_id="s", variant=0))
    good = result_line(cell).decode().rstrip("\n")
    (run_dir / "results.jsonl").write_text(good + "\n" + good[:5])
    assert [row["model"] for row in load_rows(run_dir, repair=True)] == ["m"]
    assert (run_dir / "results.jsonl").read_text() == good + "\n"
    assert Path(run_dir / "results.jsonl").stat().st_size == len(good) + 1
