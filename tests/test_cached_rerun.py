"""A cached rerun does no work it need not: litellm is not imported when no call is needed, the report
is written again only when the results changed, and what the cache folder remembers of a model is
never trusted beyond its plain fields."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from isodyn.models.catalog import ModelInfo
from isodyn.models.remembered import FILE_NAME, RememberedModels
from isodyn.testing import OpenAIStub

PLAN_AND_RUN = """
import asyncio, json, sys
from isodyn.runs.config import parse_overrides
from isodyn.experiments.plan import plan_experiment
from isodyn.runs.rundir import new_run_dir
from isodyn.experiments.runner import execute
plan = plan_experiment(parse_overrides(json.loads(sys.argv[1])))
outcome = asyncio.run(execute(plan, new_run_dir(plan.config)))
print(json.dumps({"calls": outcome.summary.calls_made, "hits": outcome.summary.cache_hits,
                  "litellm": "litellm" in sys.modules}))
"""


def fresh_process(words: list[str]) -> dict:
    done = subprocess.run(
        [sys.executable, "-c", PLAN_AND_RUN, json.dumps(words)], capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr[-2000:]
    return json.loads(done.stdout.splitlines()[-1])


@pytest.fixture
def words(tmp_path: Path) -> list[str]:
    return [f"out={tmp_path / 'runs'}", f"cache_dir={tmp_path / 'cache'}", "models=openai/m",
            "seeds=isobench_parity", "modalities=latex,code", "variants=2", "quiet=1"]  # fmt: skip


def test_a_cached_rerun_never_imports_litellm(words: list[str]) -> None:
    with OpenAIStub() as stub:
        args = [*words, f"api_base={stub.base_url}"]
        first = fresh_process(args)
        again = fresh_process(args)
        sent = len(stub.requests)
    assert first["calls"] == 4 and first["litellm"]  # calls need litellm
    assert again == {"calls": 0, "hits": 4, "litellm": False}
    assert sent == 4


def test_the_report_is_written_again_only_when_the_results_change(
    words: list[str], run_cli, tmp_path
) -> None:
    answer = {"text": '{"short answer": "A"}'}
    from isodyn.testing import ScriptedReply

    with OpenAIStub(lambda request: ScriptedReply(text=answer["text"])) as stub:
        args = [*words, f"api_base={stub.base_url}"]
        assert run_cli("run", *args).code == 0
        rerun = run_cli("run", *args)
        assert rerun.code == 0
        runs = sorted((tmp_path / "runs").iterdir())
        assert len(runs) == 2 and (runs[0] / "report.md").is_file()
        assert not (runs[1] / "report.md").exists()  # the same rows: the first run's report stands
        assert "report stands" in rerun.out + rerun.err
        summaries = [json.loads((r / "summary.json").read_text()) for r in runs]
        assert summaries[0]["results_digest"] == summaries[1]["results_digest"]
        assert summaries[1]["calls_made"] == 0
        # another grader reads the same replies differently: new results, a new report
        changed = run_cli("run", *args, "grader=strict-json")
        assert changed.code == 0
    newest = max((tmp_path / "runs").iterdir(), key=lambda p: p.stat().st_mtime_ns)
    assert (newest / "report.md").is_file()


def test_a_planted_or_damaged_models_file_is_not_trusted(tmp_path: Path, monkeypatch) -> None:
    asked = []

    def describe(name, api_base, vision="auto"):
        asked.append(name)
        return ModelInfo(name, "openai", False, False)

    monkeypatch.setattr("isodyn.models.remembered.describe_model", describe)
    (tmp_path / FILE_NAME).write_text("not json")
    known = RememberedModels(tmp_path)
    assert known.describe("openai/m", None, "auto").vision is False and asked == ["openai/m"]
    known.save()
    entries = json.loads((tmp_path / FILE_NAME).read_text())
    key = next(iter(entries))
    # a planted entry with the wrong types (a string where a yes/no belongs) is asked again
    entries[key] = {"provider": "openai", "vision": "yes", "known": True}
    (tmp_path / FILE_NAME).write_text(json.dumps(entries))
    known = RememberedModels(tmp_path)
    assert known.describe("openai/m", None, "auto").vision is False
    assert asked == ["openai/m", "openai/m"]
    known.save()
    # a well-formed entry is taken without asking; another vision override is another question
    RememberedModels(tmp_path).describe("openai/m", None, "auto")
    assert len(asked) == 2
    assert RememberedModels(tmp_path).describe("openai/m", None, "yes") is not None
    assert len(asked) == 3
    # a link in place of the file is never read
    target = tmp_path / "elsewhere.json"
    target.write_text(json.dumps({key: {"provider": "x", "vision": True, "known": True}}))
    (tmp_path / FILE_NAME).unlink()
    (tmp_path / FILE_NAME).symlink_to(target)
    assert RememberedModels(tmp_path).describe("openai/m", None, "auto").provider == "openai"


def test_the_first_call_leaves_before_the_later_cells_are_drawn(words: list[str], monkeypatch) -> None:
    """Cells are sent as they miss the cache, not after every cell was tried: with drawing made slow
    (10 ms a cell), the server hears the first request long before the last cell is tried."""
    import asyncio
    import time

    import isodyn.experiments.runner as runner
    from isodyn.experiments.plan import plan_experiment
    from isodyn.runs.config import parse_overrides
    from isodyn.runs.rundir import new_run_dir
    from isodyn.testing import ScriptedReply

    events: list[str] = []
    original = runner.run_cell

    async def slowly_drawn(plan, cell, materials, client, run_dir, backend, memo=None):
        if backend.__name__ == "replayed":
            time.sleep(0.01)  # drawing that holds the event loop, as a heavy figure does
            events.append("tried")
        return await original(plan, cell, materials, client, run_dir, backend, memo)

    monkeypatch.setattr(runner, "run_cell", slowly_drawn)
    with OpenAIStub(lambda request: events.append("request") or ScriptedReply()) as stub:
        args = [*words, f"api_base={stub.base_url}", "variants=40"]
        plan = plan_experiment(parse_overrides(args))
        outcome = asyncio.run(runner.execute(plan, new_run_dir(plan.config)))
    assert outcome.summary.calls_made == len(plan.grid.cells) == events.count("request")
    first_request = events.index("request")
    assert first_request < len(events) - 1 - events[::-1].index("tried")  # before the last cell was tried
    assert events[:first_request].count("tried") < len(plan.grid.cells) / 2
