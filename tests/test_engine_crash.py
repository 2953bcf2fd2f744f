"""The embedded engine on a machine it was not built for (issue 25): llama.cpp compiled for another
CPU dies of SIGILL. Stand-ins that die the same way (`isodyn.testing.engines`) take the place of the
engine's child process, so the failure is built without special hardware: the run stops with exit 2
and one line naming the signal and the fix, keeps every finished cell, and a resume completes it."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from isodyn.models import local
from isodyn.models.engine import EngineCrashed, EngineProcess
from isodyn.models.local import gguf_path


@pytest.fixture
def engine_server(monkeypatch: pytest.MonkeyPatch):
    """Choose the engine child's entry point; every engine started here is closed afterwards."""
    engines: dict = {}
    monkeypatch.setattr(local, "_engines", engines)
    monkeypatch.setenv("ISODYN_LOCAL_ENGINES", "1")  # the stand-ins count the calls one engine takes

    def choose(name: str) -> None:
        for engine in engines.values():
            engine.close()
        engines.clear()
        monkeypatch.setattr(local, "server", f"isodyn.testing.engines:{name}")

    yield choose
    for engine in engines.values():
        engine.close()


def test_a_child_that_dies_of_sigill_is_one_line_naming_the_signal_and_the_fix() -> None:
    with pytest.raises(EngineCrashed) as crashed:
        EngineProcess(gguf_path(), 512, server="isodyn.testing.engines:die_of_sigill")
    said = str(crashed.value)
    assert "SIGILL (illegal instruction)" in said and "while loading" in said
    assert 'CMAKE_ARGS="-DGGML_NATIVE=OFF"' in said and "\n" not in said


def test_after_a_crash_every_call_fails_at_once_without_a_new_child() -> None:
    engine = EngineProcess(gguf_path(), 512, server="isodyn.testing.engines:answer_once_then_die")
    try:
        first = engine.chat([{"role": "user", "content": "1"}], {})
        assert json.loads(first["choices"][0]["message"]["content"])["short answer"] == "A"
        with pytest.raises(EngineCrashed, match="during a completion with SIGILL"):
            engine.chat([{"role": "user", "content": "2"}], {})
        pid = engine._process.pid
        with pytest.raises(EngineCrashed, match="SIGILL"):
            engine.chat([{"role": "user", "content": "3"}], {})
        assert engine._process.pid == pid and engine._process.poll() is not None
    finally:
        engine.close()


def run_words(tmp_path: Path) -> list[str]:
    return ["run", "seeds=dynamath_shifted_abs", "variants=2", "modalities=latex", "max_tokens=16",
            f"out={tmp_path / 'runs'}", f"cache_dir={tmp_path / 'cache'}", "quiet=1"]  # fmt: skip


def rows(out: Path) -> list[dict]:
    (run_dir,) = [p for p in out.iterdir() if p.is_dir()]
    return [json.loads(line) for line in (run_dir / "results.jsonl").read_text().splitlines()]


def summary(out: Path) -> dict:
    (run_dir,) = [p for p in out.iterdir() if p.is_dir()]
    return json.loads((run_dir / "summary.json").read_text())


def test_an_engine_that_cannot_run_here_stops_the_run_before_any_cell(tmp_path, run_cli, engine_server):
    engine_server("die_of_sigill")
    done = run_cli(*run_words(tmp_path))
    assert done.code == 2
    assert len(done.lines) == 1 and done.lines[0].startswith("error:"), done.err
    assert "SIGILL" in done.err and "GGML_NATIVE=OFF" in done.err and "Traceback" not in done.err
    assert rows(tmp_path / "runs") == []  # no cell was run, none was recorded as answered
    assert summary(tmp_path / "runs")["left_undone"] == 2


def test_a_crash_mid_run_keeps_finished_cells_and_a_resume_completes(tmp_path, run_cli, engine_server):
    engine_server("answer_once_then_die")
    crashed = run_cli(*run_words(tmp_path))
    assert crashed.code == 2 and "Traceback" not in crashed.err
    assert any("SIGILL" in line for line in crashed.lines), crashed.err
    first = rows(tmp_path / "runs")
    assert sorted(r["reason"] for r in first) == ["error:local", "ok"]
    assert summary(tmp_path / "runs")["complete"] is False

    engine_server("answer")  # the engine reinstalled portable: the same command resumes
    resumed = run_cli(*run_words(tmp_path))
    assert resumed.code == 0, resumed.err
    final = rows(tmp_path / "runs")
    assert sorted(r["reason"] for r in final) == ["ok", "ok"]
    # the finished cell was not asked again: one call, for the cell the crash cut off
    assert summary(tmp_path / "runs")["this_process"]["calls_made"] == 1


def test_the_engine_check_names_the_crash_the_test_fixture_skips_with(engine_server) -> None:
    engine_server("die_of_sigill")
    problem = local.engine_problem()
    assert problem is not None and "SIGILL" in problem  # tests/test_local_model.py skips with it
    engine_server("answer")
    assert local.engine_problem() is None


def test_the_embedded_model_runs_one_engine_per_core_and_overlapping_calls_use_them_all(
    engine_server, monkeypatch: pytest.MonkeyPatch
) -> None:
    from concurrent.futures import ThreadPoolExecutor

    monkeypatch.setenv("ISODYN_LOCAL_ENGINES", "2")
    assert local.engine_count() == 2
    engine_server("answer_slowly_with_pid")
    engine = local._engine(local.SMOLLM2_ID)
    assert len(engine.processes) == 2
    with ThreadPoolExecutor(2) as pool:
        answers = list(pool.map(lambda _: engine.chat([{"role": "user", "content": "hi"}], {}), range(2)))
    said = [a["choices"][0]["message"]["content"] for a in answers]
    assert len({s.split()[1] for s in said}) == 2  # two engines answered, at the same time
    import os

    assert all(s.endswith(f"threads {max(1, len(os.sched_getaffinity(0)) // 2)}") for s in said)
    monkeypatch.setenv("ISODYN_LOCAL_ENGINES", "junk")  # not a count from 1 to 16: one per core
    assert local.engine_count() == min(16, len(os.sched_getaffinity(0)))
