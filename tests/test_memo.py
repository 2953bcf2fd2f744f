"""The cell memo: a cached rerun replays each cell from one entry and yields the same rows."""

from __future__ import annotations

import asyncio
import json

import pytest

import isodyn.experiments.cells as cells
import isodyn.experiments.memo as memo_module
import isodyn.runs.rundir as rundir
from isodyn.experiments.memo import ReplayMemo
from isodyn.experiments.plan import plan_experiment
from isodyn.experiments.runner import execute
from isodyn.runs.config import parse_overrides
from isodyn.runs.rundir import new_run_dir
from isodyn.scoring import Score
from isodyn.testing import OpenAIStub, ScriptedReply
from isodyn.testing.scripts import prompt_text


def varied(request: dict) -> ScriptedReply:
    """A reply that depends on the prompt, so every call has its own text."""
    letter = "ABC"[len(prompt_text(request)) % 3]
    return ScriptedReply(
        text=json.dumps({"solution": f"s{len(prompt_text(request))}", "short answer": letter})
    )


def run(words: list[str]):
    plan = plan_experiment(parse_overrides(words))
    return asyncio.run(execute(plan, new_run_dir(plan.config)))


def comparable(rows: list[dict]) -> list[dict]:
    """Rows without what a replay rightly changes (every call is a cache hit)."""
    out = []
    for row in rows:
        row = {k: v for k, v in row.items() if k != "cache_hit"}
        row["transcript"] = [{k: v for k, v in t.items() if k != "cache_hit"} for t in row["transcript"]]
        out.append(row)
    return sorted(out, key=lambda r: json.dumps(rundir.cell_of(r)))


@pytest.fixture
def words(tmp_path):
    return [f"out={tmp_path / 'runs'}", f"cache_dir={tmp_path / 'cache'}", "models=openai/m",
            "seeds=isobench_parity,dynamath_venn_count", "modalities=latex,story", "variants=3",
            "strategies=zeroshot,sc@3,permute+cot3", "quiet=1"]  # fmt: skip


def test_rerun_from_the_memo_equals_the_first_run(words, tmp_path, monkeypatch) -> None:
    with OpenAIStub(varied) as stub:
        args = [*words, f"api_base={stub.base_url}"]
        first = run(args)
        calls = len(stub.requests)
        assert first.summary.calls_made == calls > 0
        store = ReplayMemo(tmp_path / "cache", parse_overrides(args))
        assert len(store) == first.summary.cells - first.summary.skipped
        store.close()

        drawn = []
        monkeypatch.setattr(cells.RunMaterials, "render", lambda self, v, m: drawn.append(m))
        again = run(args)
        assert again.summary.calls_made == 0 and len(stub.requests) == calls
        assert drawn == []  # nothing was drawn or prompted: every cell came from its memo entry
        assert again.summary.cache_hits == calls + first.summary.cache_hits
        assert comparable(again.rows) == comparable(first.rows)
        assert all(r["cache_hit"] for r in again.rows if r["transcript"])


def test_the_reply_is_graded_again_on_a_replay(words, monkeypatch) -> None:
    with OpenAIStub(varied) as stub:
        args = [*words, f"api_base={stub.base_url}", "strategies=zeroshot"]
        run(args)
        graded = []
        monkeypatch.setattr(
            cells, "score_reply", lambda *a, **_: graded.append(1) or Score(True, "Z", "ok", "t")
        )
        same = run(args)  # same code, grader and grading libraries: the graded rows are taken as they are
        assert not graded and "Z" not in {r["extracted"] for r in same.rows}
        # a grading library upgraded (or another grader): every reply is graded again
        monkeypatch.setattr(cells, "grading_stamp", lambda grader: f"{grader}|math-verify=99")
        again = run(args)
    assert {r["extracted"] for r in again.rows} == {"Z"} and all(r["correct"] for r in again.rows)
    assert len(graded) == len(again.rows)


def test_other_code_other_keys_and_the_reply_cache_still_answers(words, monkeypatch) -> None:
    with OpenAIStub(varied) as stub:
        args = [*words, f"api_base={stub.base_url}", "strategies=zeroshot"]
        first = run(args)
        memo_module.code_digest.cache_clear()
        monkeypatch.setattr(memo_module, "code_digest", lambda: "edited code")
        drawn = []
        original = cells.RunMaterials.render
        monkeypatch.setattr(
            cells.RunMaterials, "render", lambda self, v, m: drawn.append(m) or original(self, v, m)
        )
        again = run(args)
        assert again.summary.calls_made == 0 and len(drawn) == len(first.rows)
        assert comparable(again.rows) == comparable(first.rows)


def test_memo_key_covers_the_settings_that_reach_a_request(tmp_path) -> None:
    cell = cells.Cell("openai/m", "zeroshot", cells.Modality.LATEX, "isobench_parity", 0, 0)
    keys = set()
    for extra in (
        [],
        ["temperature=0.5"],
        ["max_tokens=99"],
        ["base_seed=1"],
        ["api_base=http://127.0.0.1:1"],
    ):
        store = ReplayMemo(tmp_path / "m", parse_overrides(extra))
        keys.add(store.key(cell))
        store.close()
    assert len(keys) == 5
    store = ReplayMemo(tmp_path / "m", parse_overrides(["concurrency=3", "max_cost=5"]))
    assert store.key(cell) in keys  # budget and concurrency do not change what is asked
    store.close()


def test_each_entry_is_json_that_reads_back_as_the_cell_it_replays(words, tmp_path) -> None:
    import orjson

    from isodyn.cache.stores import open_store
    from isodyn.experiments.memo import Replay

    with OpenAIStub(varied) as stub:
        run([*words, f"api_base={stub.base_url}"])
    with open_store(tmp_path / "cache" / "replays") as store:
        entries = [store.get(key) for key in store.iterkeys()]
    assert entries and all(type(entry) is bytes for entry in entries)
    for entry in entries:
        data = orjson.loads(entry)
        replay = Replay.from_json(orjson.loads(entry))
        assert replay is not None and replay.graded is not None
        assert replay.graded.calls == replay.calls and "transcript" not in data["graded"]  # kept once
        assert orjson.loads(orjson.dumps(replay.to_json())) == data
