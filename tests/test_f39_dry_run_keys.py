"""A dry run sends nothing, so it needs no key: it estimates the cost and says, in one line, which
keys the real run will need and which of them are not set. A real run without its key still stops
with one line (exit 2) before anything is sent. No test here reaches a network: a dry run calls
nothing, and the real run stops at its plan."""

from __future__ import annotations

import pytest

import user_cli
from isodyn.commands.run import RunRequest, estimate_run
from isodyn.experiments.plan import plan_experiment
from isodyn.models.catalog import ModelError

HOSTED = "openai/gpt-4o"
DUMMY_KEY = "sk-test-not-a-real-key-000000"  # never sent: nothing here makes a call


def words(tmp_path, *more: str) -> list[str]:
    return [f"models={HOSTED}", "seeds=isobench_parity", "modalities=latex", "variants=2",
            f"out={tmp_path / 'runs'}", f"cache_dir={tmp_path / 'cache'}", *more]  # fmt: skip


def key_lines(said) -> list[str]:
    return [notice.text for notice in said if "OPENAI_API_KEY" in notice.text]


def test_dry_run_without_the_key_estimates_and_names_the_key_not_set(tmp_path, monkeypatch) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    estimate = estimate_run(RunRequest.from_words(words(tmp_path, "dry_run=1")))
    assert estimate.calls_needed == estimate.cells > 0
    assert estimate.estimated_cost_usd > 0  # gpt-4o has a price in litellm's table
    [line] = key_lines(estimate.notices)
    assert "needs OPENAI_API_KEY" in line and "not set: OPENAI_API_KEY" in line
    [notice] = [n for n in estimate.notices if n.text == line]
    assert notice.kind == "warning"
    assert not (tmp_path / "runs").exists() and not (tmp_path / "cache").exists()


def test_dry_run_with_the_key_names_it_as_set(tmp_path, monkeypatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", DUMMY_KEY)
    estimate = estimate_run(RunRequest.from_words(words(tmp_path, "dry_run=1")))
    [line] = key_lines(estimate.notices)
    assert "needs OPENAI_API_KEY" in line and "not set" not in line
    assert DUMMY_KEY not in line
    assert [n.kind for n in estimate.notices if n.text == line] == ["note"]


def test_real_run_without_the_key_stops_at_its_plan(tmp_path, monkeypatch) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    with pytest.raises(
        ModelError, match="needs the environment variable OPENAI_API_KEY; set it and run again"
    ):
        plan_experiment(RunRequest.from_words(words(tmp_path)).config)


def test_server_of_your_own_needs_no_key_line(tmp_path, monkeypatch) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    request = RunRequest.from_words(words(tmp_path, "dry_run=1", "api_base=http://127.0.0.1:9/v1"))
    assert key_lines(estimate_run(request).notices) == []


def test_exp_dry_run_without_a_key_exits_0_with_the_estimate_and_one_key_line(tmp_path) -> None:
    done = user_cli.exp("run", *words(tmp_path, "dry_run=1"), cwd=tmp_path, timeout=120)
    assert done.returncode == 0, done.stderr
    said = done.stdout + done.stderr
    assert "estimated cost $" in " ".join(said.split())
    lines = [line for line in said.splitlines() if "OPENAI_API_KEY" in line]
    assert len(lines) == 1 and "not set: OPENAI_API_KEY" in lines[0], said
    assert not (tmp_path / "runs").exists()
