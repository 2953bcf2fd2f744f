"""Run integrity through the real command line and the loopback stub: a run is owned by one process,
a damaged line never costs the finished rows after it, a run that stopped before its first row
resumes, and readers count each cell once and say what they set aside."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from isodyn.runs.results import DAMAGED_FILE, read_results
from isodyn.testing import OpenAIStub, ScriptedReply
from user_cli import exp, user_env

CELL = ("model", "strategy", "modality", "seed_id", "variant", "repeat")


def answer(request: dict) -> ScriptedReply:
    return ScriptedReply(text=json.dumps({"solution": "s", "short answer": "A"}))


def run_words(stub: OpenAIStub, tmp_path: Path, variants: int = 6) -> list[str]:
    return ["run", "models=openai/m", f"api_base={stub.base_url}", "seeds=isobench_parity",
            "modalities=latex,code", f"variants={variants}", f"out={tmp_path / 'runs'}",
            f"cache_dir={tmp_path / 'cache'}", "quiet=1"]  # fmt: skip


def cells(run_dir: Path) -> list[tuple]:
    rows = [json.loads(line) for line in (run_dir / "results.jsonl").read_text().splitlines()]
    return [tuple(r[k] for k in CELL) for r in rows]


def only_run(tmp_path: Path) -> Path:
    (run_dir,) = [p for p in (tmp_path / "runs").iterdir() if p.is_dir()]
    return run_dir


def test_the_same_command_twice_at_once_runs_once(tmp_path: Path) -> None:
    gate = threading.Event()

    def held(request: dict) -> ScriptedReply:
        gate.wait(timeout=120)  # the first process's calls wait until the second one has tried
        return answer(request)

    with OpenAIStub(held) as stub:
        words = run_words(stub, tmp_path, variants=4)
        first = subprocess.Popen([sys.executable, "-m", "isodyn", *words], stdout=subprocess.PIPE,
                                 stderr=subprocess.PIPE, text=True, env=user_env())  # fmt: skip
        deadline = time.time() + 60
        while time.time() < deadline and not stub.requests:
            time.sleep(0.05)  # the first process is in its grid, its calls held
        second = exp(*words)
        gate.set()
        _, err = first.communicate(timeout=300)
    assert first.returncode == 0, err
    assert second.returncode == 2 and "already going in another process" in second.stderr
    assert second.stderr.count("\n") <= 2 and "Traceback" not in second.stderr
    run_dir = only_run(tmp_path)
    assert len(cells(run_dir)) == len(set(cells(run_dir))) == 8
    assert len(stub.requests) == 8  # every cell asked once


def test_a_damaged_line_in_the_middle_costs_no_finished_row(tmp_path: Path) -> None:
    with OpenAIStub(answer) as stub:
        words = run_words(stub, tmp_path)
        assert exp(*words).returncode == 0
        run_dir = only_run(tmp_path)
        lines = (run_dir / "results.jsonl").read_text().splitlines(keepends=True)
        assert len(lines) == 12
        # damage line 3, drop the last two rows (an unfinished run), mark the run unfinished
        damaged = lines[2][: len(lines[2]) // 2] + "\x00garbage\n"
        (run_dir / "results.jsonl").write_text("".join([*lines[:2], damaged, *lines[3:10]]))
        summary = json.loads((run_dir / "summary.json").read_text())
        assert summary["calls_made"] == 12
        (run_dir / "summary.json").write_text(json.dumps({**summary, "complete": False}))
        report = exp("report", str(run_dir))
        assert report.returncode == 0 and "1 damaged line" in report.stderr
        assert "| m | zeroshot | code |" in report.stdout or "openai/m" in report.stdout
        asked_before = len(stub.requests)
        resumed = exp(*words)
        assert resumed.returncode == 0, resumed.stderr
    # only the three missing cells were run again, and their calls came from the cache
    assert len(stub.requests) == asked_before
    assert "resuming" in resumed.stderr
    assert sorted(cells(run_dir)) == sorted(set(cells(run_dir))) and len(cells(run_dir)) == 12
    assert (run_dir / DAMAGED_FILE).read_text() == damaged  # kept, not thrown away
    totals = json.loads((run_dir / "summary.json").read_text())
    assert totals["calls_made"] == 12 and totals["this_process"]["calls_made"] == 0  # the whole run's
    kept = [json.loads(line) for line in lines[3:10]]
    now = [json.loads(line) for line in (run_dir / "results.jsonl").read_text().splitlines()]
    assert all(row in now for row in kept)  # the rows after the damage are the same rows


def test_a_run_stopped_before_its_first_row_resumes(tmp_path: Path) -> None:
    with OpenAIStub(answer) as stub:
        words = run_words(stub, tmp_path, variants=2)
        assert exp(*words).returncode == 0
        run_dir = only_run(tmp_path)
        (run_dir / "results.jsonl").unlink()  # as if killed after config.json was written
        (run_dir / "summary.json").unlink()
        again = exp(*words)
    assert again.returncode == 0, again.stderr
    assert "Traceback" not in again.stderr
    assert len(cells(run_dir)) == 4


@pytest.mark.parametrize("content", ["{not json", "", '{"cells": 3'])
def test_a_damaged_summary_means_unfinished_not_a_crash(tmp_path: Path, content: str) -> None:
    with OpenAIStub(answer) as stub:
        words = run_words(stub, tmp_path, variants=2)
        assert exp(*words).returncode == 0
        run_dir = only_run(tmp_path)
        (run_dir / "summary.json").write_text(content)
        again = exp(*words)
    assert again.returncode == 0 and "Traceback" not in again.stderr
    assert json.loads((run_dir / "summary.json").read_text())["complete"] is True


def test_readers_count_each_cell_once_and_say_so(tmp_path: Path) -> None:
    with OpenAIStub(answer) as stub:
        assert exp(*run_words(stub, tmp_path, variants=2)).returncode == 0
    run_dir = only_run(tmp_path)
    rows = (run_dir / "results.jsonl").read_text()
    (run_dir / "results.jsonl").write_text(rows + rows)  # two processes wrote every cell
    run = read_results(run_dir)
    assert len(run.results) == 4 and run.duplicates == 4
    report = exp("report", str(run_dir))
    assert report.returncode == 0 and "4 duplicate row(s)" in report.stderr
    assert "| openai/m | zeroshot | code | 2 |" in report.stdout


@pytest.mark.parametrize(
    ("reply", "readable", "step", "error"),
    [
        ('{"first_wrong_step": 2, "error_type": "calculation", "explanation": "x"}', True, 2, "calculation"),
        ('{"first_wrong_step": null, "error_type": null, "explanation": "all right"}', True, None, None),
        ('{"verdict": "fine"}', False, None, None),  # ignored the schema: not "no error found"
        ('{"explanation": "looks good"}', False, None, None),
        ('{"first_wrong_step": 2, "error_type": null}', False, None, None),  # a wrong step without a type
        ('{"first_wrong_step": null, "error_type": "calculation"}', False, None, None),
        ('{"first_wrong_step": 9, "error_type": "calculation"}', False, None, None),  # no such step
        ("Every step is right.", False, None, None),
    ],
)
def test_a_judgement_without_the_required_fields_is_unreadable(reply, readable, step, error) -> None:
    from isodyn.analysis.process import NO_ERROR_FOUND, error_label
    from isodyn.scoring.judge import parse_process_reply

    verdict = parse_process_reply(reply, n_steps=3)
    assert verdict.readable is readable
    if readable:
        assert (verdict.first_wrong_step, verdict.error_type) == (step, error)
    record = {"judge_readable": verdict.readable, "error_type": verdict.error_type}
    assert (error_label(record) == NO_ERROR_FOUND) == (readable and error is None)


def _damage(cache_dir: Path, store: str = "responses") -> None:
    (cache_dir / store).mkdir(parents=True, exist_ok=True)
    (cache_dir / store / "cache.db").write_bytes(b"not a database, written over by something else" * 20)


def test_a_damaged_cache_gives_one_line_and_a_way_out(tmp_path: Path) -> None:
    cache_dir = tmp_path / "cache"
    with OpenAIStub(answer) as stub:
        words = run_words(stub, tmp_path, variants=2)
        assert exp(*words).returncode == 0
        _damage(cache_dir)
        for command in (words, ["cache", "stats", f"cache_dir={cache_dir}"]):
            done = exp(*command)
            assert done.returncode == 2, done.stderr
            assert "Traceback" not in done.stderr and "exp cache repair" in done.stderr
            assert str(cache_dir / "responses") in done.stderr
        repaired = exp("cache", "repair", f"cache_dir={cache_dir}")
        assert repaired.returncode == 0 and "set aside" in repaired.stderr
        assert len(list(cache_dir.glob("responses.damaged-*"))) == 1  # kept, not deleted
        assert exp(*words).returncode == 0  # a fresh store; the run goes on
        _damage(cache_dir, "replays")
        cleared = exp("cache", "clear", f"cache_dir={cache_dir}")
    assert cleared.returncode == 0 and "damaged store(s) deleted: replays" in cleared.stderr
    assert exp("cache", "stats", f"cache_dir={cache_dir}").returncode == 0


@pytest.mark.parametrize(
    ("words", "message"),
    [
        (["repeats=1000000000", "dry_run=1"], "bad value for repeats"),
        (["repeats=1000", "variants=1000", "seeds=all", "dry_run=1"], "more than 2,000,000"),
        (["timeout=0"], "bad value for timeout"),
        (["max_retries=-1"], "bad value for max_retries"),
        (["variants=2", "variants=3"], "variants is given twice"),
        (["concurrency=0"], "bad value for concurrency"),
        (["api_base="], "bad value for api_base"),
    ],
)
def test_settings_are_parsed_strictly_with_one_line(tmp_path: Path, words: list[str], message: str) -> None:
    started = time.time()
    done = exp("run", *words, f"out={tmp_path / 'runs'}", f"cache_dir={tmp_path / 'cache'}")
    assert done.returncode == 2 and message in done.stderr, done.stderr
    assert "Traceback" not in done.stderr and done.stderr.strip().count("\n") == 0
    assert time.time() - started < 60 and not (tmp_path / "runs").exists()


def test_the_run_identity_ignores_a_trailing_slash(tmp_path: Path) -> None:
    from isodyn.runs.config import parse_overrides
    from isodyn.runs.rundir import run_identity

    plain = parse_overrides(["api_base=http://127.0.0.1:9/v1", "models=openai/m"])
    slashed = parse_overrides(["api_base=http://127.0.0.1:9/v1/", "models=openai/m"])
    assert run_identity(plain) == run_identity(slashed)


def test_a_server_that_is_not_there_stops_the_run_before_the_grid(tmp_path: Path) -> None:
    import socket

    with socket.socket() as probe:  # a port nothing listens on
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    started = time.time()
    done = exp("run", "models=openai/m", f"api_base=http://127.0.0.1:{port}/v1", "seeds=isobench_parity",
               "variants=2", "modalities=latex", f"out={tmp_path / 'runs'}", f"cache_dir={tmp_path / 'c'}",
               "quiet=1")  # fmt: skip
    assert done.returncode == 2, done.stderr
    assert "cannot reach api_base" in done.stderr and "Traceback" not in done.stderr
    assert time.time() - started < 30  # no per-cell retries


def test_the_embedded_model_without_its_package_is_named_before_the_grid(monkeypatch) -> None:
    import importlib.util

    from isodyn.models.preflight import preflight

    real = importlib.util.find_spec

    def without_llama(name: str, *rest):
        return None if name == "llama_cpp" else real(name, *rest)

    monkeypatch.setattr(importlib.util, "find_spec", without_llama)
    problem = preflight("local/smollm2-135m", None)
    assert problem and "pip install -e '.[local]'" in problem


def test_a_run_in_which_every_call_failed_exits_non_zero(tmp_path: Path) -> None:
    with OpenAIStub(lambda request: ScriptedReply(status=401, text="unauthorized")) as stub:
        done = exp(*run_words(stub, tmp_path, variants=2), "max_retries=0")
    assert done.returncode == 1 and "every one of the 4 cells failed" in done.stderr


def _authorization(headers: dict[str, str]) -> str:
    return {k.lower(): v for k, v in headers.items()}.get("authorization", "")


def test_no_key_goes_to_a_custom_server_unless_named(tmp_path: Path, monkeypatch) -> None:
    planted = "sk-planted-0123456789abcdef"
    monkeypatch.setenv("OPENAI_API_KEY", planted)
    monkeypatch.setenv("MY_SERVER_KEY", "server-key-42")
    env = {**os.environ, "LITELLM_LOCAL_MODEL_COST_MAP": "True"}
    with OpenAIStub(answer) as stub:
        words = run_words(stub, tmp_path, variants=1)
        done = subprocess.run([sys.executable, "-m", "isodyn", *words], capture_output=True, text=True,
                              env=env, timeout=300)  # fmt: skip
        assert done.returncode == 0, done.stderr
        sent = [_authorization(h) for h in stub.headers]
        assert sent and not any(planted in value for value in sent)
        other = run_words(stub, tmp_path / "other", variants=1)
        named = subprocess.run([sys.executable, "-m", "isodyn", *other, "api_key_env=MY_SERVER_KEY"],
                               capture_output=True, text=True, env=env, timeout=300)  # fmt: skip
        assert named.returncode == 0, named.stderr
        later = [_authorization(h) for h in stub.headers[len(sent) :]]
        assert later and all(value == "Bearer server-key-42" for value in later)
    for path in tmp_path.rglob("*"):
        if path.is_file():
            data = path.read_bytes()
            assert planted.encode() not in data and b"server-key-42" not in data


def test_identical_requests_in_flight_share_one_call(tmp_path: Path) -> None:
    import asyncio

    from isodyn.cache import ResponseCache
    from isodyn.experiments.llm import CachedClient
    from isodyn.models.requests import ModelRequest

    def slow(request: dict) -> ScriptedReply:
        return ScriptedReply(text="4", delay_s=0.5)

    with OpenAIStub(slow) as stub:
        store = ResponseCache(tmp_path / "responses")
        client = CachedClient(store)
        request = ModelRequest("openai/m", [{"role": "user", "content": "2+2?"}], {"temperature": 0.0},
                               stub.base_url)  # fmt: skip

        async def both() -> list:
            return await asyncio.gather(*(client.complete(request) for _ in range(3)))

        replies = asyncio.run(both())
        store.close()
    assert len(stub.requests) == 1 and client.calls_made == 1
    assert [r[0].text for r in replies] == ["4", "4", "4"]
    assert sorted(r[2] for r in replies) == [False, True, True]  # one call, two shared


def test_an_empty_reply_is_retried_and_never_cached(tmp_path: Path) -> None:
    replies = iter(["", "  ", json.dumps({"solution": "s", "short answer": "A"})])

    def flaky(request: dict) -> ScriptedReply:
        return ScriptedReply(text=next(replies, "B"))

    with OpenAIStub(flaky) as stub:
        words = ["run", "models=openai/m", f"api_base={stub.base_url}", "seeds=isobench_parity", "variants=1",
                 "modalities=latex", f"out={tmp_path / 'runs'}", f"cache_dir={tmp_path / 'cache'}", "quiet=1",
                 "max_retries=3"]  # fmt: skip
        done = exp(*words)
    assert done.returncode == 0, done.stderr
    assert len(stub.requests) == 3
    (row,) = [json.loads(line) for line in (only_run(tmp_path) / "results.jsonl").read_text().splitlines()]
    assert row["response"].startswith("{") and row["extracted"] == "A"
