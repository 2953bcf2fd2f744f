"""A run folder from someone else: the server, key and cache its config.json names are not used by
`exp judge`, `exp rescore` or `exp report` unless the user names them or passes --trust-run; and a
resumed run trusts a reply from its rows only under the key recomputed from the request the row
records (issue 38, harms 3, 5 and 9)."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

import pytest

import isodyn.analysis.run_report as analysis_report
from isodyn.commands.run import RunRequest, run_experiment
from isodyn.testing import OpenAIStub, ScriptedReply

AMBIGUOUS = "It could be A or C."  # the rules cannot read it: a judge is asked
RUN_WORDS = ("models=openai/m", "seeds=isobench_parity", "variants=2", "modalities=latex", "quiet=1")


def _answer(request: dict) -> ScriptedReply:
    return ScriptedReply(text=AMBIGUOUS)


def _judge_reply(request: dict) -> ScriptedReply:
    return ScriptedReply(text=json.dumps({"final answer": "A"}))


def _made_run(root: Path, stub: OpenAIStub, *more: str) -> Path:
    words = [
        *RUN_WORDS,
        f"api_base={stub.base_url}",
        f"out={root / 'runs'}",
        f"cache_dir={root / 'c'}",
        *more,
    ]
    return run_experiment(RunRequest.from_words(words)).folder.path


@dataclass(frozen=True)
class Foreign:
    run_dir: Path
    planted_cache: Path  # the cache_dir its config.json names, inside the folder
    theirs: OpenAIStub  # the server its config.json names


@pytest.fixture
def foreign(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    """A finished run whose config.json was edited by its sender: its cache inside the folder, its
    server theirs."""
    # only this patch is undone: monkeypatch.undo() would also undo conftest's own cache isolation
    with monkeypatch.context() as patched, OpenAIStub(_answer) as made_on:
        patched.setattr(analysis_report, "write_report", lambda folder, *a, **k: folder.report_file)
        run_dir = _made_run(tmp_path, made_on)
    with OpenAIStub(_judge_reply) as theirs:
        config = json.loads((run_dir / "config.json").read_text())
        planted = run_dir / "planted-cache"
        config |= {"cache_dir": str(planted), "api_base": theirs.base_url}
        (run_dir / "config.json").write_text(json.dumps(config))
        yield Foreign(run_dir, planted, theirs)


JUDGING = {
    "judge": ("judge", "judge=openai/judge", "all=1"),
    "rescore": ("rescore", "judge=openai/judge"),
}


@pytest.mark.parametrize("command", list(JUDGING))
def test_the_folders_server_and_cache_are_not_used(foreign: Foreign, run_cli, command: str) -> None:
    with OpenAIStub(_judge_reply) as mine:
        done = run_cli(*JUDGING[command][:1], str(foreign.run_dir), *JUDGING[command][1:],
                       f"api_base={mine.base_url}")  # fmt: skip
        assert done.code == 0, done.err
        assert len(mine.requests) > 0
    assert foreign.theirs.requests == []
    assert not foreign.planted_cache.exists()
    notes = [line for line in done.lines if "config.json" in line]
    assert len(notes) == 1 and notes[0].startswith("note:"), done.err
    assert "cache_dir=" in notes[0] and "--trust-run" in notes[0] and "api_base=" not in notes[0]


@pytest.mark.parametrize("command", list(JUDGING))
def test_no_server_named_is_no_call_to_theirs(foreign: Foreign, run_cli, command: str) -> None:
    """Without an api_base of the user's own, the judge is the hosted model, which needs a key here."""
    done = run_cli(*JUDGING[command][:1], str(foreign.run_dir), *JUDGING[command][1:])
    assert done.code == 2, done.err
    assert done.lines[-1].startswith("error:") and "OPENAI_API_KEY" in done.lines[-1]
    assert f'api_base="{foreign.theirs.base_url}"' in done.err and "--trust-run" in done.err
    assert foreign.theirs.requests == []
    assert not foreign.planted_cache.exists()


@pytest.mark.parametrize("command", list(JUDGING))
def test_trust_run_takes_the_folders_settings(foreign: Foreign, run_cli, command: str) -> None:
    done = run_cli(*JUDGING[command][:1], str(foreign.run_dir), *JUDGING[command][1:], "--trust-run")
    assert done.code == 0, done.err
    assert len(foreign.theirs.requests) > 0
    assert (foreign.planted_cache / "responses").is_dir()
    assert "config.json" not in done.err  # nothing ignored, nothing said


def test_a_report_calls_nothing_and_opens_no_store(foreign: Foreign, run_cli) -> None:
    done = run_cli("report", str(foreign.run_dir), "grader=mmmath")
    assert done.code == 0, done.err
    assert foreign.theirs.requests == []
    assert not foreign.planted_cache.exists()


def test_a_typed_cache_dir_is_used_and_the_folders_is_not_named(foreign: Foreign, run_cli, tmp_path) -> None:
    with OpenAIStub(_judge_reply) as mine:
        done = run_cli("judge", str(foreign.run_dir), "judge=openai/judge", "all=1",
                       f"api_base={mine.base_url}", f"cache_dir={tmp_path / 'mine'}")  # fmt: skip
    assert done.code == 0, done.err
    assert (tmp_path / "mine" / "responses").is_dir() and not foreign.planted_cache.exists()
    assert "config.json" not in done.err  # both named: nothing of the folder's was ignored


# ---- a resumed run trusts a reply only under the key its request gives ---------------------------


def _rows(run_dir: Path) -> list[dict]:
    return [json.loads(line) for line in (run_dir / "results.jsonl").read_text().splitlines()]


def _write_rows(run_dir: Path, rows: list[dict]) -> None:
    (run_dir / "results.jsonl").write_text("".join(json.dumps(row) + "\n" for row in rows))


def _planted(rows: list[dict], under: str) -> dict:
    """A copy of the first row for a cell outside the grid, its reply forged and filed under `under`."""
    row = json.loads(json.dumps(rows[0]))
    row["variant"] = 7
    row["transcript"][0] |= {"key": under, "response": "FORGED"}
    return row


def test_a_resumed_row_under_another_requests_key_is_set_aside(
    tmp_path: Path, run_cli, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(analysis_report, "write_report", lambda folder, *a, **k: folder.report_file)
    with OpenAIStub(_answer) as stub:
        run_dir = _made_run(tmp_path, stub)
        rows = sorted(_rows(run_dir), key=lambda r: r["variant"])
        victim_key = rows[1]["transcript"][0]["key"]  # the key of variant 1's request
        # variant 1 left undone, and a row that files a forged reply under its key
        _write_rows(run_dir, [rows[0], _planted(rows, victim_key)])
        (run_dir / "summary.json").unlink()  # unfinished: the next run resumes it
        asked = len(stub.requests)
        done = run_cli("run", *RUN_WORDS, f"api_base={stub.base_url}", f"out={tmp_path / 'runs'}",
                       f"cache_dir={tmp_path / 'fresh'}")  # fmt: skip
        assert done.code == 0, done.err
        assert len(stub.requests) == asked + 1  # variant 1 was asked again
    resumed = {r["variant"]: r for r in _rows(run_dir)}
    assert sorted(resumed) == [0, 1]  # the planted row left results.jsonl
    assert resumed[1]["response"] == AMBIGUOUS and resumed[1]["transcript"][0]["key"] == victim_key
    aside = (run_dir / "results.damaged.jsonl").read_text()
    assert "FORGED" in aside
    warned = [line for line in done.lines if "does not match the request it records" in line]
    assert len(warned) == 1 and warned[0].startswith("warning:"), done.err


def test_a_resumed_row_whose_key_matches_is_reused(tmp_path: Path, run_cli, monkeypatch) -> None:
    """The honest case: a row's reply is reused under its recomputed key (no call, nothing set aside)."""
    monkeypatch.setattr(analysis_report, "write_report", lambda folder, *a, **k: folder.report_file)
    with OpenAIStub(_answer) as stub:
        run_dir = _made_run(tmp_path, stub)
        (run_dir / "summary.json").unlink()
        asked = len(stub.requests)
        done = run_cli("run", *RUN_WORDS, f"api_base={stub.base_url}", f"out={tmp_path / 'runs'}",
                       f"cache_dir={tmp_path / 'fresh'}")  # fmt: skip
        assert done.code == 0, done.err
        assert len(stub.requests) == asked
    assert not (run_dir / "results.damaged.jsonl").exists()
    assert "does not match" not in done.err


def test_every_run_records_its_version_and_prompt_digest(tmp_path: Path, monkeypatch) -> None:
    import isodyn
    from isodyn.prompts import prompt_digest

    monkeypatch.setattr(analysis_report, "write_report", lambda folder, *a, **k: folder.report_file)
    with OpenAIStub(_answer) as stub:
        run_dir = _made_run(tmp_path, stub)
    config = json.loads((run_dir / "config.json").read_text())
    assert config["isodyn_version"] == isodyn.__version__
    assert config["prompt_digest"] == prompt_digest() and len(prompt_digest()) == 64
