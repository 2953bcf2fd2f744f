"""Several replicas of one server (`api_base=URL1,URL2`): calls spread over them through litellm's
Router, a replica that refuses connections is skipped, the cache key does not depend on which replica
answered. Against loopback stubs only (127.0.0.1), through litellm's ordinary path."""

from __future__ import annotations

import json
import socket
from pathlib import Path

from isodyn.experiments import llm
from isodyn.experiments.call_errors import error_reason, retry_after_seconds
from isodyn.experiments.llm import is_transient
from isodyn.models.catalog import describe_model
from isodyn.models.preflight import preflight, unreachable_replicas
from isodyn.models.replicas import ReplicasCoolingDown
from isodyn.testing import OpenAIStub, ScriptedReply

ANSWER = ScriptedReply(text=json.dumps({"solution": "s", "short answer": "A"}))


def closed_addresses(count: int) -> list[str]:
    """Addresses on 127.0.0.1 where nothing listens (each port bound, then let go): connections there
    are refused."""
    probes = [socket.socket() for _ in range(count)]
    for probe in probes:
        probe.bind(("127.0.0.1", 0))
    ports = [probe.getsockname()[1] for probe in probes]
    for probe in probes:
        probe.close()
    return [f"http://127.0.0.1:{port}/v1" for port in ports]


def run_words(api_base: str, root: Path, variants: int, **given: object) -> list[str]:
    settings = {"models": "openai/m", "api_base": api_base, "seeds": "isobench_parity",
                "modalities": "latex,code", "variants": variants, "out": root / "runs",
                "cache_dir": root / "cache", "quiet": 1, **given}  # fmt: skip
    return ["run", *(f"{key}={value}" for key, value in settings.items())]


def only_run(root: Path) -> Path:
    (run_dir,) = [p for p in (root / "runs").iterdir() if p.is_dir()]
    return run_dir


def rows(run_dir: Path) -> list[dict]:
    return [json.loads(line) for line in (run_dir / "results.jsonl").read_text().splitlines()]


def events(run_dir: Path) -> list[dict]:
    return [json.loads(line) for line in (run_dir / "log.jsonl").read_text().splitlines()]


def summary(run_dir: Path) -> dict:
    return json.loads((run_dir / "summary.json").read_text())


def keys(run_dir: Path) -> set[str]:
    return {call["key"] for row in rows(run_dir) for call in row["transcript"]}


def test_calls_are_spread_over_both_replicas(run_cli, tmp_path: Path) -> None:
    with OpenAIStub(lambda r: ANSWER) as a, OpenAIStub(lambda r: ANSWER) as b:
        done = run_cli(*run_words(f"{a.base_url},{b.base_url}", tmp_path, variants=24))
        assert done.code == 0, done.err
        got = (len(a.requests), len(b.requests))
    assert sum(got) == 48  # one request per call: nothing sent twice
    # a random pick per call: fewer than 12 of 48 on one replica has probability ~2e-4
    assert min(got) >= 12, got
    assert summary(only_run(tmp_path))["calls_made"] == 48


def test_a_replica_refusing_connections_is_skipped_without_isodyn_retries(run_cli, tmp_path: Path) -> None:
    (dead,) = closed_addresses(1)
    with OpenAIStub(lambda r: ANSWER) as alive:
        done = run_cli(*run_words(f"{alive.base_url},{dead}", tmp_path, variants=10))
        answered = len(alive.requests)
    assert done.code == 0, done.err
    warnings = [line for line in done.lines if line.startswith("warning:")]
    assert len(warnings) == 1 and dead in warnings[0] and "not answering" in warnings[0], done.err
    run_dir = only_run(tmp_path)
    results = rows(run_dir)
    assert len(results) == 20 and all(r["error"] is None and r["response"] == ANSWER.text for r in results)
    assert answered == 20
    log = events(run_dir)
    assert not [e for e in log if e["event"] in ("retry", "error")], log
    assert [e["attempt"] for e in log if e["event"] == "call"] == [0] * 20
    assert summary(run_dir)["retries"] == 0


def test_every_replica_down_stops_the_run_with_one_line(run_cli, tmp_path: Path) -> None:
    first, second = closed_addresses(2)
    done = run_cli(*run_words(f"{first},{second}", tmp_path, variants=2))
    assert done.code == 2
    assert len(done.lines) == 1, done.err
    (line,) = done.lines
    assert "cannot reach api_base" in line and first in line and second in line
    assert "Traceback" not in done.err


def test_a_rerun_with_one_replica_down_replays_every_reply(run_cli, tmp_path: Path) -> None:
    with OpenAIStub(lambda r: ANSWER) as a:
        with OpenAIStub(lambda r: ANSWER) as b:
            api_base = f"{a.base_url},{b.base_url}"
            done = run_cli(*run_words(api_base, tmp_path / "first", 6, cache_dir=tmp_path / "cache"))
            assert done.code == 0, done.err
            assert len(a.requests) and len(b.requests)  # both answered some: the keys cover both
        asked = len(a.requests)
        # B is gone now; the same settings in a new run folder, on the same cache
        again = run_cli(*run_words(api_base, tmp_path / "again", 6, cache_dir=tmp_path / "cache"))
        assert again.code == 0, again.err
        assert len(a.requests) == asked
    first, replay = only_run(tmp_path / "first"), only_run(tmp_path / "again")
    assert summary(replay)["calls_made"] == 0 and summary(replay)["cache_hits"] == 12
    assert len(keys(first)) == 12 and keys(replay) == keys(first)


def test_one_api_base_does_not_go_through_the_router(run_cli, tmp_path: Path, monkeypatch) -> None:
    async def no_router(*args: object, **kwargs: object) -> None:
        raise AssertionError("one api_base was sent through the Router")

    monkeypatch.setattr(llm, "complete_on_replicas", no_router)
    with OpenAIStub(lambda r: ANSWER) as stub:
        done = run_cli(*run_words(stub.base_url, tmp_path, variants=2))
        assert done.code == 0, done.err
        assert len(stub.requests) == 4
    assert summary(only_run(tmp_path))["errors"] == 0


def test_a_failing_set_is_retried_by_isodyn_one_attempt_per_replica(run_cli, tmp_path: Path) -> None:
    busy = ScriptedReply(status=503, text="busy")
    with OpenAIStub(lambda r: busy) as a, OpenAIStub(lambda r: busy) as b:
        words = run_words(
            f"{a.base_url},{b.base_url}", tmp_path, 1, modalities="latex", max_retries=2, timeout=1
        )
        done = run_cli(*words)
        sent = len(a.requests) + len(b.requests)
    assert done.code == 1, done.err  # every cell failed
    run_dir = only_run(tmp_path)
    (row,) = rows(run_dir)
    assert row["reason"] == "error:unavailable", row["reason"]
    log = events(run_dir)
    assert [e["attempt"] for e in log if e["event"] == "retry"] == [0, 1]
    assert summary(run_dir)["calls_made"] == 3
    # the first attempt asks both replicas; later ones at most both again (or none while they cool down)
    assert 2 <= sent <= 2 * 3
    assert len(a.requests) >= 1 and len(b.requests) >= 1


def test_every_replica_cooling_down_is_a_transient_failure_with_its_pause() -> None:
    cooling = ReplicasCoolingDown("every api_base replica is cooling down", 4.0)
    assert is_transient(cooling)
    assert error_reason(cooling) == "error:unavailable"
    assert retry_after_seconds(cooling) == 4.0


def test_preflight_needs_one_answering_replica_and_names_the_others() -> None:
    first, second = closed_addresses(2)
    with OpenAIStub() as stub:
        both = f"{stub.base_url},{first}"
        assert preflight("openai/m", both) is None
        warning = unreachable_replicas(both)
        assert warning and first in warning and stub.base_url not in warning
        assert unreachable_replicas(stub.base_url) is None  # one server: preflight's business
    stopped = preflight("openai/m", f"{first},{second}")
    assert stopped and "cannot reach api_base" in stopped and first in stopped and second in stopped
    assert unreachable_replicas(f"{first},{second}") is None  # the stop line says it, once


def test_a_replica_set_is_described_by_its_first_address() -> None:
    first, second = closed_addresses(2)
    info = describe_model("openai/m", f"{first},{second}")
    assert info.provider == "openai"
