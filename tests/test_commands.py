"""The command pipelines called from Python, with no subprocess and no terminal: each takes a typed
request and returns a typed result, and a user-facing failure is an IsodynError."""

from __future__ import annotations

import json
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

import pytest

from isodyn.commands.cache import CacheRequest, CacheStats, Cleared, NoCache, Repaired, cache_command
from isodyn.commands.compare import CompareRequest, compare_runs
from isodyn.commands.generate import generate_dataset, generate_request
from isodyn.commands.hooks import RunHooks
from isodyn.commands.judge import JudgeRequest, judge_run
from isodyn.commands.judging import JudgeChoice
from isodyn.commands.notices import Notice
from isodyn.commands.report import ReportRequest, report_run
from isodyn.commands.rescore import RescoreRequest, rescore_run
from isodyn.commands.run import RunRequest, RunResult, estimate_run, run_experiment
from isodyn.commands.runs import RunNotFound
from isodyn.errors import ConfigError, IsodynError
from isodyn.runs.folder import RunFolder
from isodyn.testing import OpenAIStub, ScriptedReply
from user_cli import NO_KEYS

ANSWER = '{"solution": "f(-x) = f(x), so it is even.", "short answer": "A"}'
PROCESS = '{"first_wrong_step": 1, "error_type": "calculation", "explanation": "sign dropped"}'


def reply(request: dict) -> ScriptedReply:
    """A judge asked for a process verdict gets one; everyone else answers A."""
    asked = json.dumps(request["messages"])
    return ScriptedReply(text=PROCESS if "Reference solution" in asked else ANSWER)


class Recorder(RunHooks):
    """The hooks a run called, in order."""

    def __init__(self) -> None:
        self.calls: list[str] = []

    def notice(self, notice: Notice) -> None:
        self.calls.append(f"notice:{notice.kind}")

    def resumed(self, folder: RunFolder, finished: int) -> None:
        self.calls.append(f"resumed:{finished}")

    def started(self, plan, done: Sequence) -> None:
        self.calls.append(f"started:{len(done)}")

    def row(self, result, client) -> None:
        self.calls.append("row")

    def finished(self) -> None:
        self.calls.append("finished")


def run_words(stub: OpenAIStub, out: Path, cache: Path, *extra: str) -> list[str]:
    """A grid of 4 cells: one seed, two variants, two modalities, answered by the stub."""
    return [
        "models=openai/m", f"api_base={stub.base_url}", "seeds=isobench_parity", "modalities=latex,code",
        "variants=2", f"out={out}", f"cache_dir={cache}", "quiet=1", *extra,
    ]  # fmt: skip


@dataclass(frozen=True)
class Made:
    """A small finished run made in this process against the loopback stub, which stays up."""

    stub: OpenAIStub
    root: Path
    result: RunResult
    hooks: Recorder


@pytest.fixture(scope="module")
def made(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Made]:
    with pytest.MonkeyPatch.context() as patch, OpenAIStub(reply) as stub:
        for name in NO_KEYS:  # module scope runs before conftest's per-test isolation
            patch.delenv(name, raising=False)
        root = tmp_path_factory.mktemp("commands")
        hooks = Recorder()
        result = run_experiment(RunRequest.from_words(run_words(stub, root / "runs", root / "cache")), hooks)
        yield Made(stub, root, result, hooks)


def test_a_run_returns_its_folder_counts_and_files(made: Made) -> None:
    result = made.result
    assert result.folder.path.parent == made.root / "runs" and result.resumed == 0 and result.notices == ()
    assert (result.summary.cells, result.summary.errors, result.summary.left_undone) == (4, 0, 0)
    assert result.summary.calls_made == 4 and not result.summary.all_failed
    assert len(result.results) == 4 and len({r.modality for r in result.results}) == 2
    for path in (result.folder.results_file, result.folder.log_file, result.report_path):
        assert path.is_file() and path.parent == result.folder.path
    assert made.hooks.calls == ["started:0", "row", "row", "row", "row", "finished"]


def test_a_dry_run_estimates_and_writes_nothing(made: Made, tmp_path: Path) -> None:
    words = run_words(made.stub, tmp_path / "runs", tmp_path / "cache", "strategies=sc@3", "dry_run=1")
    estimate = estimate_run(RunRequest.from_words(words))
    assert (estimate.cells, estimate.models, estimate.strategies, estimate.seeds) == (4, 1, 1, 1)
    assert [n.kind for n in estimate.notices] == ["warning"]  # sc@3 at temperature 0
    assert "identical requests" in estimate.notices[0].text
    assert not (tmp_path / "runs").exists() and not (tmp_path / "cache").exists()


def test_a_bad_word_is_a_config_error_before_anything_runs() -> None:
    with pytest.raises(ConfigError, match="given twice"):
        RunRequest.from_words(["variants=1", "variants=2"])
    with pytest.raises(IsodynError, match="unknown setting 'bogus'"):
        RunRequest.from_words(["bogus=1"])


def test_rescore_writes_a_new_folder_beside_the_run(made: Made) -> None:
    run_dir = made.result.folder.path
    done = rescore_run(RescoreRequest.from_words(made.result.folder, ["grader=strict-json"]))
    assert done.folder.path.parent == run_dir.parent
    assert done.folder.name.startswith(f"{run_dir.name}-rescored-")
    assert done.grader == "strict-json" and len(done.results) == 4 and done.audit is None
    assert done.judged == 0 and done.judge_calls.calls_made == 0 and done.changed_verdicts == 0
    summary = json.loads(done.folder.summary_file.read_text())
    assert summary["cells"] == 4 and summary["rescored_from"] == str(run_dir)
    assert done.folder.report_file.is_file() and done.folder.results_file.is_file()


def test_rescore_refuses_an_audit_without_a_judge_and_a_folder_without_a_run(made: Made, tmp_path) -> None:
    with pytest.raises(ConfigError, match="audit=N needs judge=MODEL"):
        rescore_run(RescoreRequest(made.result.folder, audit=3))
    with pytest.raises(RunNotFound, match=r"no results\.jsonl") as caught:
        rescore_run(RescoreRequest(RunFolder(tmp_path)))
    assert isinstance(caught.value, FileNotFoundError) and isinstance(caught.value, IsodynError)


def test_judge_writes_process_files_and_replays_from_the_cache(made: Made) -> None:
    folder = made.result.folder
    wrong = sum(not r.correct for r in made.result.results if r.graded)
    assert wrong == 2  # variant 1 (truth B) in both modalities
    request = JudgeRequest(folder, JudgeChoice("openai/judge", api_base=made.stub.base_url))
    first = judge_run(request)
    # both wrong cells ask the judge the same thing (one question and reply in two modalities)
    assert first.judged == wrong and first.calls_made == 1 and first.cache_hits == 1
    assert first.folder == folder and folder.judgements_file.is_file()
    assert first.report_path == folder.path / "process.md" and first.report_path.read_text() == first.report
    again = judge_run(request)
    assert again.calls_made == 0 and again.cache_hits == wrong
    with pytest.raises(ConfigError, match="judge=MODEL is required"):
        JudgeRequest.from_words(folder, ["all=1"])


def test_report_and_compare_return_the_markdown_they_wrote(made: Made) -> None:
    folder = made.result.folder
    run_dir = folder.path
    report = report_run(ReportRequest.from_words([str(run_dir), "resamples=200"]))
    assert report.path == folder.report_file and report.html == folder.report_html_file
    assert report.markdown == report.path.read_text() and report.notices == ()
    compared = compare_runs(CompareRequest.from_words([str(run_dir), "by=modality", "resamples=200"]))
    assert compared.path == run_dir / "compare-by-modality.md"
    assert compared.markdown == compared.path.read_text()
    with pytest.raises(ConfigError, match="bad value for by"):
        CompareRequest.from_words([str(run_dir), "by=colour"])


def test_a_damaged_line_is_a_warning_notice_given_as_it_is_read(made: Made, tmp_path: Path) -> None:
    copy = tmp_path / "copy"
    copy.mkdir()
    lines = made.result.folder.results_file.read_text()
    RunFolder(copy).results_file.write_text(lines + "{cut\n")
    heard: list[Notice] = []
    report = report_run(ReportRequest((copy,)), heard.append)
    assert [n.kind for n in heard] == ["warning"] and report.notices == tuple(heard)
    assert "1 damaged line(s)" in heard[0].text


def test_generate_returns_its_counts(tmp_path: Path) -> None:
    words = [
        "task=isobench_parity",
        "n=2",
        f"out={tmp_path / 'ds'}",
        "workers=1",
        f"cache_dir={tmp_path / 'c'}",
    ]
    done = generate_dataset(generate_request(words))
    assert (done.items, done.seeds, done.contact_sheets) == (2, 1, ())
    assert (
        done.items_path == tmp_path / "ds" / "items.jsonl"
        and len(done.items_path.read_text().splitlines()) == 2
    )
    assert json.loads((tmp_path / "ds" / "dataset.json").read_text())["seeds"] == ["isobench_parity"]
    with pytest.raises(ConfigError, match="unknown task 'nope'"):
        generate_request(["task=nope", f"out={tmp_path}"])


def test_cache_stats_repair_and_clear(made: Made, tmp_path: Path) -> None:
    missing = cache_command(CacheRequest.from_words("stats", [f"cache_dir={tmp_path / 'none'}"]))
    assert missing == NoCache(tmp_path / "none", "stats")
    root = made.root / "cache"
    stats = cache_command(CacheRequest("stats", root))
    assert isinstance(stats, CacheStats) and stats.replies >= 4 and stats.last_run is not None
    assert cache_command(CacheRequest("repair", root)) == Repaired(root, ())
    with pytest.raises(ConfigError, match="prune needs older_than"):
        CacheRequest.from_words("prune", [f"cache_dir={root}"])


def test_a_cleared_cache_is_counted_and_the_next_run_pays_again(tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    with OpenAIStub(reply) as stub:
        run_experiment(RunRequest.from_words(run_words(stub, tmp_path / "runs", cache)))
        cleared = cache_command(CacheRequest("clear", cache))
        assert isinstance(cleared, Cleared) and cleared.replies == 4 and cleared.deleted == ()
        again = run_experiment(RunRequest.from_words(run_words(stub, tmp_path / "again", cache)))
        assert again.summary.calls_made == 4 and len(stub.requests) == 8
