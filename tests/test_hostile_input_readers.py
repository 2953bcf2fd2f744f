"""Hostile input to the readers and the command line: a row that is not of the record's types is set
aside and named, a run from a newer isodyn is refused in one line, a damaged process.jsonl costs only
its damaged lines, the operating system's refusals end as one line and exit 2, only a run's own
folder is resumed into, and rich markup in what a user typed or a model is called is shown as text.

Commands run in this process (`main()` with its argv), so the whole file stays fast; one runs as a
subprocess, to see the real entry point print no traceback."""

from __future__ import annotations

import errno
import json
import math
import pathlib
import shutil
from pathlib import Path
from typing import Any

import pytest

from isodyn import cli
from isodyn.runs.config import parse_overrides
from isodyn.runs.folder import RunFolder
from isodyn.runs.results import DAMAGED_FILE, Call, CellResult, NewerRun, read_results, result_line
from isodyn.runs.rundir import open_run_dir, run_folders, run_identity
from isodyn.runs.runlock import RunLock
from isodyn.testing import OpenAIStub, ScriptedReply
from user_cli import exp


def cell(index: int, **changes: Any) -> dict[str, Any]:
    """A results.jsonl row as the runner writes it (variant `index`), with `changes`."""
    result = CellResult.from_row(dict(
        model="openai/m", strategy="zeroshot", modality="latex", seed_id="s1", variant=index,
        answer_type="multiple_choice", question="Even or odd?", choices=("even", "odd"), truth="A",
        reason="ok", correct=False, extracted="B", grader="isodyn", response="B",
        transcript=(Call(step="answer", model="openai/m", messages=({"role": "user", "content": "Q"},),
                         key="k", cache_hit=False, response="B").to_json(),),
    ))  # fmt: skip
    return {**json.loads(result_line(result)), **changes}


def write_run(directory: Path, *lines: dict[str, Any] | bytes | str) -> Path:
    """A run folder whose results.jsonl holds `lines`: rows (dicts) or raw lines, as given."""
    directory.mkdir(parents=True, exist_ok=True)
    (directory / "config.json").write_text(json.dumps({"models": ["openai/m"], "base_seed": 0}))
    data = b""
    for line in lines:
        if isinstance(line, dict):
            line = json.dumps(line, allow_nan=True) + "\n"
        data += line if isinstance(line, bytes) else line.encode()
    (directory / "results.jsonl").write_bytes(data)
    return directory


# --- results.jsonl: each row checked against CellResult's own annotations ---------------------------


@pytest.mark.parametrize(
    ("bad", "named"),
    [
        (cell(1, correct="maybe"), 'correct is "maybe", not true or false or null'),
        (cell(1, model=None), "model is null, not text"),
        (cell(1, transcript="hello"), 'transcript is "hello", not a list'),
        (cell(1, seed_id=7), "seed_id is 7, not text"),  # a number where text belongs
        (cell(1, variant=True), "variant is true, not a whole number"),
        (cell(1, notes=[1]), "notes is a list of 1, not an object"),
        (cell(1, choices=["even", 2]), "choices is a list whose item 1 is 2, not text"),
        (cell(1, transcript=[{"step": "answer", "prompt_tokens": "ten"}]), "item 0 is prompt_tokens"),
        (cell(1, schema="2"), 'schema is "2", not a whole number'),
        (cell(1, answer_type="telepathy"), 'answer_type is "telepathy", not one of'),
        ("[1, 2]\n", "a list of 2, not a JSON object"),  # a JSON list, not a row
        ('"just text"\n', "not a JSON object"),
        (json.dumps(cell(1, cost_usd=math.nan)) + "\n", "cost_usd is nan, not a finite number"),
        (json.dumps(cell(1, latency_s=math.inf)) + "\n", "latency_s is inf, not a finite number"),
        # a row written before the schema (no `schema` key) whose transcript migrating would read
        ({k: v for k, v in cell(1, transcript="oops").items() if k != "schema"}, "transcript is"),
        (
            {k: v for k, v in cell(1, prompt_tokens="many").items() if k != "schema"},
            "a schema-1 row that cannot be migrated (invalid literal for int()",
        ),
    ],
)
def test_a_row_that_does_not_fit_the_record_is_set_aside_and_named(
    tmp_path: Path, bad: Any, named: str
) -> None:
    run_dir = write_run(tmp_path / "run", cell(0), bad, cell(2))
    run = read_results(run_dir)
    assert [r.variant for r in run.results] == [0, 2]  # the rows around it are kept
    assert run.damaged == 1
    problems = run.problems() or ""
    assert "1 damaged line(s)" in problems and "line 2: " in problems and named in problems
    assert all(r.correct is False for r in run.results)  # "maybe" never counts as correct


def test_a_row_set_aside_is_moved_out_when_the_run_resumes(tmp_path: Path) -> None:
    bad = json.dumps(cell(1, correct="maybe")) + "\n"
    run_dir = write_run(tmp_path / "run", cell(0), bad, cell(2))
    run = read_results(run_dir, repair=True)
    assert run.damaged == 1
    assert (run_dir / DAMAGED_FILE).read_text() == bad  # kept, not thrown away
    again = read_results(run_dir)
    assert again.damaged == 0 and [r.variant for r in again.results] == [0, 2]


def test_the_warning_names_only_a_file_that_exists(tmp_path: Path, run_cli) -> None:
    """A report reads a run as it is: it moves nothing, so its warning names no results.damaged.jsonl;
    a resume moves the line, and says where (issue 38)."""
    run_dir = write_run(tmp_path / "run", cell(0), "{cut\n", cell(2))
    done = run_cli("report", str(run_dir))
    assert done.code == 0, done.err
    assert "1 damaged line(s) of results.jsonl skipped; the first, line 2" in done.err
    assert DAMAGED_FILE not in done.err and not (run_dir / DAMAGED_FILE).exists()
    moved = read_results(run_dir, repair=True).problems() or ""
    assert f"(moved to {DAMAGED_FILE})" in moved and (run_dir / DAMAGED_FILE).is_file()


def test_a_row_of_a_newer_schema_refuses_the_run_and_rewrites_nothing(tmp_path: Path, run_cli) -> None:
    run_dir = write_run(tmp_path / "run", cell(0), "{not json\n", cell(1, schema=99))
    before = (run_dir / "results.jsonl").read_bytes()
    with pytest.raises(NewerRun, match="line 3 was written by a newer isodyn"):
        read_results(run_dir, repair=True)  # what a resume does: the damaged line 2 is not moved
    assert (run_dir / "results.jsonl").read_bytes() == before
    assert not (run_dir / DAMAGED_FILE).exists()
    done = run_cli("report", str(run_dir))
    assert done.code == 2 and len(done.lines) == 1, done.err
    assert done.lines[0].startswith("error: ") and "written by a newer isodyn (schema 99" in done.err


def test_unknown_fields_load_as_a_later_version_within_the_schema_may_add_them(tmp_path: Path) -> None:
    run = read_results(write_run(tmp_path / "run", cell(0, judged_by={"x": 1}, colour="red")))
    assert len(run.results) == 1 and run.damaged == 0 and run.problems() is None


def test_a_duplicated_cell_counts_once_with_its_first_verdict(tmp_path: Path) -> None:
    run = read_results(write_run(tmp_path / "run", cell(0), cell(0, correct=True, extracted="A")))
    assert [(r.variant, r.correct) for r in run.results] == [(0, False)]
    assert run.duplicates == 1 and "1 duplicate row(s)" in (run.problems() or "")


def test_a_byte_order_mark_at_the_start_is_read_past(tmp_path: Path) -> None:
    run_dir = write_run(
        tmp_path / "run", b"\xef\xbb\xbf" + result_line(CellResult.from_row(cell(0))), cell(1)
    )
    run = read_results(run_dir)
    assert [r.variant for r in run.results] == [0, 1] and run.damaged == 0


def test_a_ten_megabyte_line_is_read_or_set_aside_with_a_short_reason(tmp_path: Path) -> None:
    huge = "x" * 10_000_000
    run_dir = write_run(tmp_path / "run", cell(0, response=huge), cell(1, seed_id=[huge]), f"{huge}\n")
    run = read_results(run_dir)
    assert len(run.results) == 1 and run.results[0].response == huge  # a long reply is a reply
    assert run.damaged == 2
    assert len(run.problems() or "") < 300  # the reason quotes no megabytes


def test_a_config_or_summary_that_is_no_object_is_as_missing(tmp_path: Path) -> None:
    run_dir = write_run(tmp_path / "run", cell(0, question=""))
    (run_dir / "config.json").write_text('["base_seed", 3]')
    (run_dir / "summary.json").write_text("17")
    run = read_results(run_dir)
    assert run.config == {} and run.summary is None and len(run.results) == 1


# --- process.jsonl: judgements checked the same way --------------------------------------------------


def judgement(**changes: Any) -> dict[str, Any]:
    return {
        "model": "openai/m", "strategy": "zeroshot", "modality": "latex", "seed_id": "s1", "variant": 0,
        "repeat": 0, "topic": "algebra", "level": "high_school", "correct": False, "first_wrong_step": 1,
        "error_type": "calculation", "explanation": "x", "judge_readable": True, "judge_model": "j",
        "judge_key": "k", "judge_cache_hit": False, "judge_reply": "{}", **changes,
    }  # fmt: skip


def test_a_damaged_process_file_costs_its_damaged_lines_not_the_report(tmp_path: Path, run_cli) -> None:
    from isodyn.runs.judgements import read_judgements

    run_dir = write_run(tmp_path / "run", cell(0, topic="algebra"))
    lines = [json.dumps(judgement()), '{"model": "openai/m", "strat', json.dumps(judgement(variant="0")),
             json.dumps(judgement(error_type="made_up")), json.dumps(judgement(judge_readable=False,
             error_type="whatever the judge wrote"))]  # fmt: skip
    (run_dir / "process.jsonl").write_text("\n".join(lines) + "\n")
    read = read_judgements(run_dir / "process.jsonl")
    assert len(read.records) == 2 and read.damaged == 3  # an unreadable judgement is still one
    assert read.first_problem == "line 2: not JSON"
    done = run_cli("report", str(run_dir))
    assert done.code == 0, done.err
    assert "3 damaged line(s) of process.jsonl skipped" in done.err
    assert "Process evaluation" in (run_dir / "report.md").read_text() or "calculation" in done.out


# --- one line and exit 2 for the operating system's refusals ---------------------------------------


def refuse_under(monkeypatch: pytest.MonkeyPatch, blocked: Path, error: int = errno.EACCES) -> None:
    """Folders under `blocked` cannot be made (as for a user who may not write there; tests may run
    as root, whom chmod does not stop)."""
    real = pathlib.Path.mkdir

    def mkdir(self: Path, *args: Any, **kwargs: Any) -> None:
        if self == blocked or blocked in self.parents:
            raise OSError(error, "Permission denied" if error == errno.EACCES else "No space left on device",
                          str(self))  # fmt: skip
        real(self, *args, **kwargs)

    monkeypatch.setattr(pathlib.Path, "mkdir", mkdir)


@pytest.mark.parametrize("command", ["report", "rescore", "compare", "generate"])
def test_a_folder_that_cannot_be_written_is_one_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, run_cli, command: str
) -> None:
    runs = tmp_path / "runs"
    first = write_run(runs / "a", cell(0), cell(1, correct=True, extracted="A"))
    second = write_run(runs / "b", cell(0), cell(1))
    words = {
        "report": ["report", str(first)],
        "rescore": ["rescore", str(first)],
        "compare": ["compare", str(first), str(second)],
        "generate": ["generate", "task=isobench_parity", "n=1", f"out={runs / 'items'}"],
    }[command]
    refuse_under(monkeypatch, first if command == "report" else runs)
    done = run_cli(*words)
    assert done.code == 2 and len(done.lines) == 1, done.err
    assert done.lines[0].startswith("error: ") and done.lines[0].endswith(": Permission denied")
    assert str(runs) in done.err


def test_a_full_disk_during_a_run_is_one_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, run_cli
) -> None:
    from isodyn.experiments import runner

    def full(result: CellResult) -> bytes:
        raise OSError(errno.ENOSPC, "No space left on device", str(tmp_path / "runs" / "results.jsonl"))

    monkeypatch.setattr(runner, "result_line", full)
    from isodyn.runs import folder as run_folder

    real_write = run_folder.write_atomic

    def write_atomic(path: Path, data: bytes) -> None:
        if path.name == "summary.json":  # the cleanup's write fails too: two chained errors
            raise OSError(errno.ENOSPC, "No space left on device", str(path))
        real_write(path, data)

    monkeypatch.setattr(run_folder, "write_atomic", write_atomic)
    with OpenAIStub(lambda request: ScriptedReply(text='{"short answer": "A"}')) as stub:
        done = run_cli("run", "models=openai/m", f"api_base={stub.base_url}", "seeds=isobench_parity",
                       "variants=1", "modalities=latex", f"out={tmp_path / 'runs'}",
                       f"cache_dir={tmp_path / 'cache'}", "quiet=1")  # fmt: skip
    assert done.code == 2 and len(done.lines) == 1, done.err
    assert done.lines[0].startswith("error: the disk is full (no space left on the device) writing ")


def test_a_second_process_with_another_cache_stops_before_touching_the_run(tmp_path: Path, run_cli) -> None:
    with OpenAIStub(lambda request: ScriptedReply(text='{"short answer": "A"}')) as stub:
        words = ["models=openai/m", f"api_base={stub.base_url}", "seeds=isobench_parity", "variants=2",
                 "modalities=latex", f"out={tmp_path / 'runs'}", "quiet=1"]  # fmt: skip
        identity = run_identity(parse_overrides(words))
        run_dir = write_run(tmp_path / "runs" / f"20240101-000000-{identity}", cell(0), "{cut\n")
        before = (run_dir / "results.jsonl").read_bytes()
        with RunLock(run_dir / ".lock"):  # the first process, writing this run with its own cache
            done = run_cli("run", *words, f"cache_dir={tmp_path / 'other-cache'}")
    assert done.code == 2 and len(done.lines) == 1, done.err
    assert "already going in another process" in done.err
    assert (run_dir / "results.jsonl").read_bytes() == before  # not repaired under the other writer
    assert not stub.requests


def test_ctrl_c_is_left_as_it_was(monkeypatch: pytest.MonkeyPatch, run_cli) -> None:
    def interrupted(*args: Any) -> Any:
        raise KeyboardInterrupt

    monkeypatch.setattr(cli, "_study_and_words", interrupted)
    done = run_cli("run", "variants=1")
    assert done.code == 130 and "error" not in done.err and "Traceback" not in done.err


# --- only a run's own folder is resumed -------------------------------------------------------------


def test_only_a_folder_named_as_a_run_is_resumed(tmp_path: Path) -> None:
    config = parse_overrides(["models=openai/m", "api_base=http://127.0.0.1:9/v1", f"out={tmp_path}"])
    identity = run_identity(config)
    own = write_run(tmp_path / f"20240101-000000-{identity}", cell(0))
    (own / "summary.json").write_text('{"complete": true}')
    names = (f"old-{identity}", f"zz-20240101-000000-{identity}", f"20240101-000000-{identity}-copy")
    backups = [write_run(tmp_path / name, cell(0)) for name in names]  # a user's copies, unfinished
    (tmp_path / f"20991231-235959-{identity}").write_text("a file, not a run")
    assert run_folders(tmp_path, identity) == [RunFolder(own)]
    folder, done = open_run_dir(config)
    assert folder.path not in (own, *backups) and done == []  # a new run; no backup was resumed into
    assert all((b / "results.jsonl").read_bytes() == (own / "results.jsonl").read_bytes() for b in backups)
    clash = tmp_path / f"20240101-000000x-{identity}"  # the name a clash within one second gives
    write_run(clash, cell(0))
    shutil.rmtree(folder.path)
    assert open_run_dir(config) == (RunFolder(clash), read_results(clash).results)


def test_out_naming_a_file_is_one_line(tmp_path: Path, run_cli) -> None:
    (tmp_path / "afile").write_text("x")
    done = run_cli("run", "models=openai/m", "api_base=http://127.0.0.1:9/v1", f"out={tmp_path / 'afile'}")
    assert done.code == 2 and len(done.lines) == 1 and "is a file" in done.err, done.err


# --- rich markup in what the user typed or a model is called is text --------------------------------


@pytest.mark.parametrize("seeds", ["x[/]", "[red]typo", "[bold]a[/bold]", "back\\[x]"])
def test_markup_in_a_setting_is_quoted_exactly_in_its_error(tmp_path: Path, run_cli, seeds: str) -> None:
    done = run_cli("run", f"seeds={seeds}", f"out={tmp_path / 'runs'}", f"cache_dir={tmp_path / 'c'}")
    assert done.code == 2 and len(done.lines) == 1, done.err
    assert done.lines[0].startswith(f"error: unknown seed {seeds!r}; valid: ")
    assert not (tmp_path / "runs").exists()


def test_markup_in_model_names_and_paths_is_shown_as_written(tmp_path: Path, run_cli) -> None:
    out = tmp_path / "runs[/]"
    with OpenAIStub(lambda request: ScriptedReply(text='{"short answer": "A"}')) as stub:
        done = run_cli("run", "models=openai/x[/],openai/[red]y", f"api_base={stub.base_url}",
                       "seeds=isobench_parity", "variants=1", "modalities=latex", "strategies=sc@2",
                       f"out={out}", f"cache_dir={tmp_path / 'cache'}")  # fmt: skip
    assert done.code == 0, done.err
    assert "openai/x[/]" in done.out and "openai/[red]y" in done.out  # the results table
    assert "sends openai/x[/] identical requests" in done.err  # the warning, as written
    assert f"results: {out}/" in done.err
    (run_dir,) = out.iterdir()
    assert {r.model for r in read_results(run_dir).results} == {"openai/x[/]", "openai/[red]y"}


def test_markup_in_an_alias_target_is_shown_as_written(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, run_cli
) -> None:
    (tmp_path / "isodyn.toml").write_text('[models]\nodd = "openai/[/]"\n')
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "no-config"))
    listed = run_cli("list", "models")
    assert listed.code == 0 and "openai/[/]" in listed.out, listed.err
    done = run_cli("run", "models=odd", "seeds=isobench_parity", f"out={tmp_path / 'runs'}")
    assert done.code == 2 and len(done.lines) == 1, done.err
    assert "'openai/[/]'" in done.err and "OPENAI_API_KEY" in done.err


def test_the_real_entry_point_prints_no_traceback(tmp_path: Path) -> None:
    missing = tmp_path / "release[/]" / "[red]x"  # a command that imports no model library: fast
    done = exp("describe", str(missing), cwd=tmp_path, timeout=120)
    assert done.returncode == 2 and "Traceback" not in done.stderr, done.stderr
    assert done.stderr == f"error: dataset folder {missing} does not exist\n"
