"""Issue 42, the logs: a run as an inspect log (`exp export inspect`), read by inspect's own reader
with every cell, and read back (`exp report LOG.eval`, `exp compare LOG.eval`) into the same records
and the same report as the run folder's."""

from __future__ import annotations

import base64
import hashlib
import json
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path

import pytest
from inspect_ai.log import EvalConfig as InspectEvalConfig
from inspect_ai.log import EvalDataset, EvalLog, EvalSample, EvalSpec, read_eval_log, write_eval_log
from inspect_ai.model import ChatMessageAssistant, ChatMessageUser, ContentImage, ContentText, ModelOutput
from inspect_ai.scorer import CORRECT, INCORRECT, Score

from isodyn.commands.inspect_logs import is_inspect_log
from isodyn.commands.rescore import RescoreRequest, rescore_run
from isodyn.commands.run import RunRequest, run_experiment
from isodyn.interop.inspect_log import export_log, write_log
from isodyn.interop.inspect_read import NotIsodynLog, read_log
from isodyn.models.requests import image_digest
from isodyn.runs.folder import RunFolder
from isodyn.runs.record import CellResult
from isodyn.runs.results import Run
from isodyn.scoring import Score as Score_
from isodyn.testing import OpenAIStub, ScriptedReply

# Replies chosen by the request's content (the same cell gets the same reply in every run): right,
# wrong, two options at once, cut off at the token limit, and a server error (the cell fails).
REPLIES = (
    ScriptedReply(text='{"solution": "s", "short answer": "A"}'),
    ScriptedReply(text='{"solution": "s", "short answer": "B"}'),
    ScriptedReply(text="It could be A or B."),
    ScriptedReply(text='{"solution": "long', finish_reason="length"),
    ScriptedReply(text="the server failed", status=500),
)


def _script(request: dict) -> ScriptedReply:
    digest = hashlib.sha256(json.dumps(request["messages"], sort_keys=True).encode()).digest()
    return REPLIES[digest[0] % len(REPLIES)]


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[RunFolder, RunFolder]]:
    """A stub run (image and LaTeX, zero-shot and IsoScratchPad: one and two calls a cell, a skipped
    arm) and its rescore by DynaMath's rules (two graders' scores a cell, the verdict not isodyn's)."""
    root = tmp_path_factory.mktemp("inspect-logs")
    with OpenAIStub(_script) as stub:
        words = [
            "models=openai/any", f"api_base={stub.base_url}", "vision=yes", "seeds=isobench_connectivity",
            "modalities=image,latex", "strategies=zeroshot,isosp", "variants=5", "max_retries=0",
            f"out={root / 'runs'}", f"cache_dir={root / 'cache'}", "quiet=1",
        ]  # fmt: skip
        done = run_experiment(RunRequest.from_words(words))
    rescored = rescore_run(RescoreRequest.from_words(done.folder, ["grader=dynamath"]))
    yield done.folder, rescored.folder


def _rows(results: list[CellResult]) -> dict[object, dict]:
    return {result.key: result.to_row() for result in results}


def test_the_stub_run_has_every_kind_of_cell(runs: tuple[RunFolder, RunFolder]) -> None:
    reasons = {r.reason.split(":")[0] for r in runs[0].results().results}
    assert {"ok", "extraction_failed", "truncated", "error", "skipped"} <= reasons
    assert {r.decided_by for r in runs[1].results().results if r.graded} == {"dynamath"}


def _judged(run: Run) -> Run:
    """The run as a judge would leave it: on every graded cell the judge's verdict, with its detail,
    and the isodyn grader's score kept beside it (two scores a cell; "isodyn" does not decide)."""
    judged = [
        r.overruled_by(Score_(True, "A", "ok", "judge", "clear", "judge", {"key": "k", "answer": "A"}))
        if r.graded else r
        for r in run.results
    ]  # fmt: skip
    return replace(run, results=judged)


def test_export_writes_a_log_inspect_reads_with_every_cell(
    run_cli, runs: tuple[RunFolder, RunFolder]
) -> None:
    folder = runs[0]
    done = run_cli("export", "inspect", str(folder.path))
    assert done.code == 0, done.err
    path = folder.path.parent / f"{folder.name}.eval"
    log = read_eval_log(str(path), resolve_attachments=True)  # inspect keeps each image once, attached
    results = folder.results().results
    assert log.status == "success" and log.eval.task == f"isodyn/{folder.name}"
    assert log.eval.model == "openai/any"
    samples = {sample.id: sample for sample in log.samples or []}
    # ids the viewer keys by: one per cell, and the same on the next export of the run
    again = export_log(folder.results())
    assert again.eval.run_id == log.eval.run_id
    assert {s.id: s.uuid for s in again.samples or []} == {s.id: s.uuid for s in log.samples or []}
    assert len({s.uuid for s in log.samples or []}) == len(results)
    assert len(log.samples or []) == len(results) and set(samples) == {r.cell.words for r in results}
    for result in results:
        sample = samples[result.cell.words]
        assert sample.metadata["isodyn"]["cell"] == result.cell.to_json()
        assert sample.metadata["isodyn"]["asked"]["truth"] == result.truth == sample.target
        assert sample.metadata["isodyn"]["labels"]["topic"] == result.topic
        if not result.graded:
            assert sample.scores is None
            assert (sample.error is not None) == result.reason.startswith("error")
            continue
        verdict = sample.scores["isodyn"]
        assert verdict.value == (CORRECT if result.correct else INCORRECT)
        assert verdict.answer == result.extracted
        assert verdict.metadata == {
            "reason": result.reason, "method": result.method, "ambiguity": result.ambiguity,
            "grader": "isodyn",
        }  # fmt: skip
        assert result.method in verdict.explanation and result.ambiguity in verdict.explanation
        assert sample.output.completion == result.response
        assert sample.model_usage["openai/any"].input_tokens == result.prompt_tokens
        assert len(sample.events) == len(result.calls)
        # the question asked and, for a picture's cell, the picture itself, put back from the cache
        asked = sample.messages[-2]
        parts = asked.content if isinstance(asked.content, list) else [ContentText(text=asked.content)]
        assert result.question in " ".join(p.text for p in parts if isinstance(p, ContentText))
        first = sample.input[0].content
        if result.modality == "image":
            image = next(p for p in first if isinstance(p, ContentImage))
            sent = base64.b64decode(image.image.removeprefix("data:image/png;base64,"))
            assert image_digest(sent) == result.calls[0].messages[0]["content"][0]["image_url"]["url"]
        assert sample.messages[-1].text == result.response
    accuracy = log.results.scores[0].metrics["accuracy"].value
    graded = [r for r in results if r.graded]
    assert accuracy == pytest.approx(sum(bool(r.correct) for r in graded) / len(graded))


@pytest.mark.parametrize("which", [0, 1, 2], ids=["run", "rescored", "judged"])
@pytest.mark.parametrize("suffix", [".eval", ".json"])
def test_a_log_reads_back_as_the_same_records(
    tmp_path: Path, runs: tuple[RunFolder, RunFolder], which: int, suffix: str
) -> None:
    """Every column of every cell, the transcript with its image digests included, whoever decided
    the verdict: isodyn's grader, DynaMath's rules (a rescore), or a judge with the isodyn grader's
    score kept beside it (under "grader:isodyn", since "isodyn" is the verdict's key)."""
    run = runs[1 if which == 1 else 0].results()
    run = _judged(run) if which == 2 else run
    path = write_log(export_log(run), tmp_path / f"log{suffix}")  # no cache: images as placeholders
    read = read_log(path)
    assert _rows(read.results) == _rows(run.results)
    assert read.config is not None and "api_base" not in read.config and read.config["variants"] == 5
    assert read_eval_log(str(path), header_only=True).status == "success"
    assert export_log(replace(run, summary=None)).status == "cancelled"  # a run that stopped short
    graded = next(s for s in read_eval_log(str(path)).samples or [] if s.scores)
    assert graded.scores["isodyn"].metadata["grader"] == ("isodyn", "dynamath", "judge")[which]
    if which == 2:
        assert graded.scores["grader:isodyn"].metadata["grader"] == "isodyn"
        assert graded.scores["isodyn"].metadata["detail"] == {"key": "k", "answer": "A"}


def _report_tables(path: Path) -> str:
    """report.md without its title line (which names the folder)."""
    return path.read_text(encoding="utf-8").split("\n", 1)[1]


def test_report_on_the_log_equals_report_on_the_run(
    run_cli, tmp_path: Path, runs: tuple[RunFolder, RunFolder]
) -> None:
    for folder in runs:
        log = tmp_path / f"{folder.name}.eval"
        assert run_cli("export", "inspect", str(folder.path), f"out={log}").code == 0
        done = run_cli("report", str(folder.path), "resamples=200")
        assert done.code == 0, done.err
        from_log = run_cli("report", str(log), "resamples=200")
        assert from_log.code == 0, from_log.err
        expected = _report_tables(folder.report_file)
        assert "A_avg" in expected and "\n| " in expected  # tables, not an empty report
        assert _report_tables(tmp_path / f"{folder.name}-report" / "report.md") == expected
    compared = run_cli("compare", str(tmp_path / f"{runs[0].name}.eval"), "by=modality", "resamples=200")
    assert compared.code == 0, compared.err
    assert (tmp_path / f"{runs[0].name}-report" / "compare-by-modality.md").is_file()
    assert "image" in compared.out and "latex" in compared.out


def test_a_changed_verdict_in_the_log_changes_its_report(
    run_cli, tmp_path: Path, runs: tuple[RunFolder, RunFolder]
) -> None:
    """The comparison above can fail: one wrong cell marked right in the log moves the tables."""
    folder = runs[0]
    path = write_log(export_log(folder.results()), tmp_path / "edited.eval")
    log = read_eval_log(str(path))
    wrong = next(s for s in log.samples or [] if s.scores and s.scores["isodyn"].value == INCORRECT)
    wrong.scores["isodyn"].value = CORRECT
    write_eval_log(log, str(path))
    assert run_cli("report", str(folder.path), "resamples=200").code == 0
    assert run_cli("report", str(path), "resamples=200").code == 0
    assert _report_tables(tmp_path / "edited-report" / "report.md") != _report_tables(folder.report_file)


def _other_log(path: Path, metadata: dict) -> Path:
    sample = EvalSample(
        id="q1", epoch=1, input="What is 1+1?", target="2", metadata=metadata,
        messages=[ChatMessageUser(content="What is 1+1?"), ChatMessageAssistant(content="2")],
        output=ModelOutput.from_content("openai/other", "2"),
        scores={"match": Score(value=CORRECT, answer="2")},
    )  # fmt: skip
    log = EvalLog(
        status="success", samples=[sample],
        eval=EvalSpec(created="2026-01-01T00:00:00+00:00", task="other/task", model="openai/other",
                      dataset=EvalDataset(name="x"), config=InspectEvalConfig()),
    )  # fmt: skip
    write_eval_log(log, str(path))
    return path


def test_a_log_of_another_task_is_one_line_and_exit_2(run_cli, tmp_path: Path) -> None:
    path = _other_log(tmp_path / "other.eval", {})
    with pytest.raises(NotIsodynLog):
        read_log(path)
    done = run_cli("report", str(path))
    assert done.code == 2 and len(done.lines) == 1 and "no isodyn metadata" in done.err
    broken = tmp_path / "broken.eval"
    broken.write_bytes(b"not a zip")
    done = run_cli("report", str(broken))
    assert done.code == 2 and len(done.lines) == 1 and "not an inspect log" in done.err
    done = run_cli("compare", str(path), "by=modality")
    assert done.code == 2 and len(done.lines) == 1 and "no isodyn metadata" in done.err


@pytest.mark.parametrize(
    ("cell", "said"),
    [
        ({"model": "m", "strategy": "zeroshot", "modality": "smell", "seed_id": "s", "variant": 0}, "smell"),
        (
            {"model": "m", "strategy": "zeroshot", "modality": "image", "seed_id": "s", "variant": "x"},
            "variant",
        ),
        ({"model": "m", "strategy": "zeroshot", "modality": "image"}, "seed_id"),
    ],
)
def test_a_sample_naming_no_cell_is_one_line_and_exit_2(
    run_cli, tmp_path: Path, cell: dict, said: str
) -> None:
    path = _other_log(tmp_path / "bad.eval", {"isodyn": {"cell": cell}})
    done = run_cli("report", str(path))
    assert done.code == 2 and len(done.lines) == 1 and "sample 'q1'" in done.err and said in done.err, (
        done.err
    )


def test_a_json_log_is_told_from_a_json_table(tmp_path: Path, runs: tuple[RunFolder, RunFolder]) -> None:
    log = write_log(export_log(runs[0].results()), tmp_path / "log.json")
    table = tmp_path / "table.json"
    table.write_text('[{"seed_id": "s", "variant": 0, "correct": true}]')
    assert is_inspect_log(log) and not is_inspect_log(table)
    assert is_inspect_log(tmp_path / "x.eval") is False  # no such file


def test_a_log_names_no_server_or_folder_of_this_machine(
    tmp_path: Path, runs: tuple[RunFolder, RunFolder]
) -> None:
    """The export leaves them out; a log that has them anyway (hand-written) is read without them."""
    log = export_log(runs[0].results())
    assert not {"api_base", "cache_dir", "out", "api_key_env"} & set(log.eval.metadata["isodyn"]["config"])
    log.eval.metadata["isodyn"]["config"]["api_base"] = "http://elsewhere"
    path = tmp_path / "planted.eval"
    write_eval_log(log, str(path))
    assert "api_base" not in (read_log(path).config or {})


def test_a_task_log_without_isodyn_extras_reads_from_the_contract(tmp_path: Path) -> None:
    """A sample as `inspect eval isodyn/...` writes it: the cell without its model (the eval names it),
    no outcome, no model events; the verdict from the isodyn score, the call from the messages."""
    cell = {"strategy": "zeroshot", "modality": "image", "seed_id": "s1", "variant": 3}
    asked = {"truth": "A", "answer_type": "multiple_choice", "choices": ["Yes", "No"], "question": "Q?"}
    labels = {"topic": "iso_algorithms", "level": "high_school", "variation_types": ["graph_structure"]}
    path = _other_log(tmp_path / "task.eval", {"isodyn": {"cell": cell, "asked": asked, "labels": labels}})
    log = read_eval_log(str(path))
    log.samples[0].scores = {"isodyn": Score(value=INCORRECT, answer="B", metadata={
        "reason": "ok", "method": "json", "ambiguity": "clear", "grader": "isodyn"})}  # fmt: skip
    second = log.samples[0].model_copy(update={"epoch": 2, "scores": None})  # inspect's --epochs 2
    log.samples.append(second)
    write_eval_log(log, str(path))
    result, again = read_log(path).results
    assert again.cell.words == "openai/other zeroshot image s1 3 1" and again.reason == "error:unscored"
    assert result.cell.words == "openai/other zeroshot image s1 3 0"
    assert (result.correct, result.extracted, result.reason, result.method) == (False, "B", "ok", "json")
    assert result.choices == ("Yes", "No") and result.topic == "iso_algorithms"
    assert result.response == "2" and len(result.calls) == 1
    assert result.calls[0].messages == [{"role": "user", "content": "What is 1+1?"}]


@pytest.mark.parametrize(
    ("words", "said"),
    [
        (["export", "csv", "x"], "name the format first"),
        (["export", "inspect", "/nonexistent/run"], "no results.jsonl"),
        (["export", "inspect", "x", "out=log.txt"], "ends in .eval or .json"),
        (["export", "inspect", "x", "y"], "name one run directory"),
    ],
)
def test_bad_export_words_are_one_line_and_exit_2(run_cli, words: list[str], said: str) -> None:
    done = run_cli(*words)
    assert done.code == 2 and len(done.lines) == 1 and said in done.err, done.err


def test_nothing_imports_inspect_until_a_log_is_named() -> None:
    code = (
        "import sys, isodyn, isodyn.cli, isodyn.commands.report, isodyn.commands.compare, "
        "isodyn.commands.export, isodyn.commands.run\n"
        "print(sorted(m for m in sys.modules if m.split('.')[0] == 'inspect_ai'))"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "[]"
