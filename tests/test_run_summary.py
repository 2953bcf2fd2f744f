"""summary.json has one type (`isodyn.runs.summary.RunSummary`): what `exp run`, `exp rescore` and
`exp merge` write, byte for byte as before it (the keys, their order and values below are those the
code before it wrote, for these very runs on the loopback stub), and what reading one keeps."""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

import isodyn.analysis.run_report as analysis_report
import isodyn.commands.merge as merge_command
import isodyn.commands.rescore as rescore_command
from isodyn.commands.merge import MergeRequest, merge_runs
from isodyn.commands.rescore import RescoreRequest, rescore_run
from isodyn.commands.run import RunRequest, run_experiment
from isodyn.runs.folder import RunFolder
from isodyn.runs.summary import (
    MERGE_KEYS,
    RESCORE_KEYS,
    RUN_KEYS,
    JudgeCalls,
    RunSummary,
    Spending,
    read_summary,
)
from isodyn.testing import OpenAIStub, ScriptedReply
from test_grading_runs import answer_a, write_judge_run
from user_cli import NO_KEYS

# ---- what the writers wrote before summary.json had one type ----------------------------------------
# `seconds` and `results_digest` vary from run to run ("X" here); a run folder's name is "RUN", the
# folder the runs are made in "ROOT".

# The keys every run wrote, in order (its counts, then what only some runs add).
_RUN = (
    "cells", "complete", "left_undone", "calls_made", "cache_hits", "retries", "cost_usd", "skipped",
    "errors", "extraction_failed", "truncated", "graded", "judged", "decided_by_judge", "correct",
    "not_renderable", "seconds",
)  # fmt: skip
_RESCORE = (
    "cells", "graded", "extraction_failed", "truncated", "correct", "changed_verdicts", "judged", "judge",
    "rescored_from",
)  # fmt: skip
_MERGE = (
    "cells", "complete", "left_undone", "calls_made", "cache_hits", "retries", "cost_usd", "skipped",
    "errors", "extraction_failed", "graded", "correct", "not_renderable", "seconds", "shards", "merged_from",
    "not_cached",
)  # fmt: skip
KEYS = {
    "run_fresh": (*_RUN, "results_digest"),
    "run_cached": (*_RUN, "results_digest"),
    "run_budget": (*_RUN, "results_digest", "max_cost"),
    "run_resumed": (*_RUN, "this_process", "results_digest", "max_cost"),
    "rescore_plain": _RESCORE,
    "rescore_judge": _RESCORE,
    "rescore_audit": (*_RESCORE, "audit"),
    "merge_whole": _MERGE,
    "merge_missing": _MERGE,
}

WRITTEN = {
    "run_fresh": {
        "cells": 12,
        "complete": True,
        "left_undone": 0,
        "calls_made": 0,
        "cache_hits": 12,
        "retries": 0,
        "cost_usd": 0.0,
        "skipped": 0,
        "errors": 0,
        "extraction_failed": 0,
        "truncated": 0,
        "graded": 12,
        "judged": 0,
        "decided_by_judge": 0,
        "correct": 4,
        "not_renderable": [],
        "seconds": "X",
        "results_digest": "X",
    },
    "run_cached": {
        "cells": 12,
        "complete": True,
        "left_undone": 0,
        "calls_made": 0,
        "cache_hits": 12,
        "retries": 0,
        "cost_usd": 0.0,
        "skipped": 0,
        "errors": 0,
        "extraction_failed": 0,
        "truncated": 0,
        "graded": 12,
        "judged": 0,
        "decided_by_judge": 0,
        "correct": 4,
        "not_renderable": [],
        "seconds": "X",
        "results_digest": "X",
    },
    "run_budget": {
        "cells": 9,
        "complete": False,
        "left_undone": 3,
        "calls_made": 9,
        "cache_hits": 0,
        "retries": 0,
        "cost_usd": 0.009368,
        "skipped": 0,
        "errors": 0,
        "extraction_failed": 0,
        "truncated": 0,
        "graded": 9,
        "judged": 0,
        "decided_by_judge": 0,
        "correct": 3,
        "not_renderable": [],
        "seconds": "X",
        "results_digest": "X",
        "max_cost": 0.01,
    },
    "run_resumed": {
        "cells": 12,
        "complete": True,
        "left_undone": 0,
        "calls_made": 12,
        "cache_hits": 0,
        "retries": 0,
        "cost_usd": 0.012511,
        "skipped": 0,
        "errors": 0,
        "extraction_failed": 0,
        "truncated": 0,
        "graded": 12,
        "judged": 0,
        "decided_by_judge": 0,
        "correct": 4,
        "not_renderable": [],
        "seconds": "X",
        "this_process": {"calls_made": 3, "cache_hits": 0, "retries": 0, "cost_usd": 0.003143},
        "results_digest": "X",
        "max_cost": 1.0,
    },
    "rescore_plain": {
        "cells": 12,
        "graded": 0,
        "extraction_failed": 12,
        "truncated": 0,
        "correct": 0,
        "changed_verdicts": 4,
        "judged": 0,
        "judge": {"calls_made": 0, "cache_hits": 0, "cost_usd": 0.0},
        "rescored_from": "ROOT/fresh/RUN",
    },
    "rescore_judge": {
        "cells": 8,
        "graded": 7,
        "extraction_failed": 1,
        "truncated": 0,
        "correct": 2,
        "changed_verdicts": 0,
        "judged": 3,
        "judge": {"calls_made": 0, "cache_hits": 3, "cost_usd": 0.0},
        "rescored_from": "ROOT/judge/runs/r1",
    },
    "rescore_audit": {
        "cells": 8,
        "graded": 7,
        "extraction_failed": 1,
        "truncated": 0,
        "correct": 2,
        "changed_verdicts": 0,
        "judged": 3,
        "judge": {"calls_made": 6, "cache_hits": 0, "cost_usd": 0.0},
        "rescored_from": "ROOT/judge/runs/r1",
        "audit": {
            "sampled": 3,
            "clear_verdicts": 5,
            "agreement": 0.3333333333333333,
            "kappa": 0.14285714285714285,
            "kappa_low": 0.0,
            "kappa_high": 1.0,
            "disagreements": [
                {
                    "cell": "m/zeroshot/latex/isobench_parity#4",
                    "rules": "correct",
                    "rules_answer": "B",
                    "judge": "none",
                    "judge_answer": None,
                },
                {
                    "cell": "m/zeroshot/latex/isobench_parity#6",
                    "rules": "wrong",
                    "rules_answer": "(C) neither",
                    "judge": "none",
                    "judge_answer": None,
                },
            ],
        },
    },
    "merge_whole": {
        "cells": 24,
        "complete": True,
        "left_undone": 0,
        "calls_made": 24,
        "cache_hits": 0,
        "retries": 0,
        "cost_usd": 0.025508,
        "skipped": 0,
        "errors": 0,
        "extraction_failed": 0,
        "graded": 24,
        "correct": 9,
        "not_renderable": [],
        "seconds": "X",
        "shards": {"of": 3, "merged": [1, 2, 3], "missing": [], "unfinished": []},
        "merged_from": ["ROOT/shards/RUN", "ROOT/shards/RUN", "ROOT/shards/RUN"],
        "not_cached": 0,
    },
    "merge_missing": {
        "cells": 16,
        "complete": False,
        "left_undone": 0,
        "calls_made": 16,
        "cache_hits": 0,
        "retries": 0,
        "cost_usd": 0.017045,
        "skipped": 0,
        "errors": 0,
        "extraction_failed": 0,
        "graded": 16,
        "correct": 6,
        "not_renderable": [],
        "seconds": "X",
        "shards": {"of": 3, "merged": [1, 3], "missing": [2], "unfinished": []},
        "merged_from": ["ROOT/shards/RUN", "ROOT/shards/RUN"],
        "not_cached": 0,
    },
}


def _priced(request: dict) -> ScriptedReply:
    """A or B by the prompt (verdicts vary, the same cell gets the same reply), priced by its length."""
    tokens = len(json.dumps(request["messages"])) // 4
    letter = "AB"[hashlib.sha256(json.dumps(request["messages"]).encode()).digest()[0] % 2]
    return ScriptedReply(
        text=json.dumps({"short answer": letter}), prompt_tokens=tokens, completion_tokens=16
    )


def _run(words: list[str]) -> Path:
    return run_experiment(RunRequest.from_words(words)).folder.path


@pytest.fixture(scope="module")
def written(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, tuple[str, Path]]]:
    """Each case's summary.json text, and the folder its paths are under."""
    root = tmp_path_factory.mktemp("summaries")
    found: dict[str, tuple[str, Path]] = {}

    def keep(name: str, folder: Path) -> None:
        found[name] = ((folder / "summary.json").read_text(), root)

    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("ISODYN_CACHE_DIR", str(root / "default-cache"))
        patch.setenv("LITELLM_LOCAL_MODEL_COST_MAP", "True")
        for name in NO_KEYS:
            patch.delenv(name, raising=False)
        for module in (analysis_report, merge_command, rescore_command):  # reports cost seconds each
            patch.setattr(module, "write_report", lambda folder, results: folder.report_file)
        with OpenAIStub(_priced) as stub:
            words = [f"cache_dir={root / 'c'}", "models=gpt-4o", f"api_base={stub.base_url}",
                     "seeds=isobench_parity", "variants=12", "max_tokens=16", "concurrency=1",
                     "quiet=1"]  # fmt: skip
            runs = [f"out={root / 'runs'}", *words, "modalities=latex"]
            keep("run_budget", _run([*runs, "max_cost=0.01"]))
            keep("run_resumed", _run([*runs, "max_cost=1"]))
            fresh = _run([f"out={root / 'fresh'}", *words, "modalities=latex"])
            keep("run_fresh", fresh)
            keep("run_cached", _run([f"out={root / 'again'}", *words, "modalities=latex"]))
            rescored = rescore_run(RescoreRequest.from_words(RunFolder(fresh), ["grader=mmmath"]))
            keep("rescore_plain", rescored.folder.path)
            sharded = [f"out={root / 'shards'}", *words[1:], "modalities=latex,code"]
            shards = [_run([*sharded, f"cache_dir={root / f'c{i}'}", f"shard={i}/3"]) for i in (1, 2, 3)]
            folders = [RunFolder(shard) for shard in shards]
            whole = merge_runs(MergeRequest((*folders,), root / "merged", root / "m"))
            keep("merge_whole", whole.folder.path)
            part = merge_runs(MergeRequest((folders[0], folders[2]), root / "merged2", root / "m2"))
            keep("merge_missing", part.folder.path)
        with OpenAIStub(answer_a) as stub:
            run_dir, _ = write_judge_run(root / "judge")
            judge = ["judge=openai/judge", f"api_base={stub.base_url}"]
            audited = rescore_run(RescoreRequest.from_words(RunFolder(run_dir), [*judge, "audit=3"]))
            keep("rescore_audit", audited.folder.path)
            judged = rescore_run(RescoreRequest.from_words(RunFolder(run_dir), judge))
            keep("rescore_judge", judged.folder.path)
    yield found


def _masked(data: dict[str, Any], root: Path) -> dict[str, Any]:
    """The summary with what varies from run to run said as in `WRITTEN`."""
    text = re.sub(r"\d{8}-\d{6}x*-[0-9a-f]{12}", "RUN", json.dumps(data).replace(str(root), "ROOT"))
    masked = json.loads(text)
    return {key: "X" if key in ("seconds", "results_digest") else value for key, value in masked.items()}


@pytest.mark.parametrize("case", list(KEYS))
def test_each_writer_writes_what_it_wrote_before(written: dict[str, tuple[str, Path]], case: str) -> None:
    text, root = written[case]
    data = json.loads(text)
    assert tuple(data) == KEYS[case]  # the keys and their order: the file's format
    assert text == json.dumps(data, indent=2) + "\n"  # two spaces, one newline at the end
    # every value, nested keys in their order too
    assert json.dumps(_masked(data, root), indent=2) == json.dumps(WRITTEN[case], indent=2)
    assert RunSummary.from_json(data).to_text() == text  # read and written again: the same bytes


def test_the_layouts_are_the_writers_keys() -> None:
    assert KEYS["run_resumed"] == tuple(
        k for k in RUN_KEYS if k not in ("stopped", "local_failures", "not_cached", "not_perturbable")
    )
    assert KEYS["rescore_audit"] == RESCORE_KEYS and KEYS["merge_whole"] == MERGE_KEYS


def test_a_run_writes_its_keys_of_the_moment_in_their_places() -> None:
    """`stopped`, `local_failures` and `not_cached` follow `max_cost`, in that order, only when said."""
    summary = RunSummary(cells=2, results_digest="d", stopped="no key", local_failures=1, not_cached=0)
    assert tuple(summary.to_json())[-5:] == ("seconds", "results_digest", "stopped", "local_failures",
                                            "not_cached")  # fmt: skip
    assert "this_process" not in summary.to_json() and "max_cost" not in summary.to_json()
    assert "judge" not in RunSummary(judge=JudgeCalls(1, 2, 0.5)).to_json()  # not a run's key


def test_an_older_summary_is_read_with_defaults_and_written_as_it_was() -> None:
    older = {"cells": 4, "calls_made": 4, "cache_hits": 0, "retries": 0, "skipped": 1, "errors": 3,
             "cost_usd": 0.25, "seconds": 2.5}  # fmt: skip
    summary = RunSummary.from_json(older)
    assert (summary.complete, summary.left_undone, summary.truncated, summary.not_renderable) == (
        True,
        0,
        0,
        (),
    )
    assert summary.attempted == 3 and summary.all_failed and summary.results_digest is None
    assert not summary.has("truncated") and summary.has("errors")
    assert summary.to_json() == older and list(summary.to_json()) == list(older)


def test_unknown_keys_are_kept_in_their_places() -> None:
    data = {"cells": 1, "someday": {"a": [1]}, "this_process": {"calls_made": 1, "cache_hits": 0,
            "retries": 0, "cost_usd": 0.5}, "keys": "a key named keys"}  # fmt: skip
    summary = RunSummary.from_json(data)
    assert summary.extra == {"someday": {"a": [1]}, "keys": "a key named keys"}
    assert summary.this_process == Spending(1, 0, 0, 0.5)
    assert summary.to_json() == data and list(summary.to_json()) == list(data)


@pytest.mark.parametrize(
    "data",
    [17, [], {"cells": "3"}, {"complete": 1}, {"not_renderable": [3]}, {"calls_made": True},
     {"shards": {"of": 2, "merged": "1"}}, {"cells": None}],
)  # fmt: skip
def test_a_damaged_summary_is_refused(data: Any, tmp_path: Path) -> None:
    with pytest.raises(ValueError):
        RunSummary.from_json(data)
    (tmp_path / "summary.json").write_text(json.dumps(data))
    assert read_summary(tmp_path) is None and not RunFolder(tmp_path).is_complete()


def test_a_missing_or_cut_summary_reads_as_none(tmp_path: Path) -> None:
    assert read_summary(tmp_path) is None
    (tmp_path / "summary.json").write_text('{"cells": 3')
    assert read_summary(tmp_path) is None and not RunFolder(tmp_path).is_complete()
    (tmp_path / "summary.json").write_text('{"cells": 3, "max_cost": null}')  # null: an optional key unsaid
    assert read_summary(tmp_path) == RunSummary(cells=3, keys=("cells", "max_cost"))
    assert RunFolder(tmp_path).is_complete()
