"""Grade once, read many times (issue 39): each grader's verdict on a reply is kept with the run
(RUN/verdicts.jsonl) and a later report reads it instead of grading again, with the same bytes."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from concurrent.futures import ProcessPoolExecutor
from dataclasses import replace
from pathlib import Path

import pytest

import isodyn.runs.verdict_book as verdict_book
from isodyn.analysis.grading import grader_sensitivity
from isodyn.analysis.metrics import Bootstrap
from isodyn.analysis.run_report import write_report
from isodyn.analysis.sections import SECTIONS
from isodyn.runs.folder import RunFolder
from isodyn.runs.results import CellResult, read_results
from isodyn.runs.verdict_book import VERDICTS_FILE, VerdictBook, graded_afresh, reply_digest
from isodyn.scoring import GRADERS
from isodyn.scoring.version import _code_files, grader_version

# Replies the four graders read differently: JSON, a box, an answer line, a bare number, nothing.
REPLIES = [
    '{"solution": "2+2", "short answer": "4"}',
    "Adding gives \\boxed{4}.",
    "We add the two.\nThe answer is 4",
    "4",
    "I am not sure, maybe 5 or 4.",
    '{"short answer": "5"}',
    "The sum is \\boxed{5}",
]
QUICK = Bootstrap(resamples=200)


def write_run(run_dir: Path, seeds: int = 8) -> Path:
    rows = []
    for seed in range(seeds):
        for variant in range(len(REPLIES)):
            for modality in ("latex", "image"):
                reply = REPLIES[(seed + variant + (modality == "image")) % len(REPLIES)]
                rows.append({
                    "model": "m", "strategy": "zeroshot", "modality": modality, "seed_id": f"s{seed:02d}",
                    "variant": variant, "repeat": 0, "topic": "arithmetic", "level": "elementary",
                    "answer_type": "int", "truth": "4", "choices": [], "question": "What is 2 + 2?",
                    "correct": None, "reason": "ok", "extracted": None, "response": reply,
                })  # fmt: skip
    run_dir.mkdir(parents=True)
    (run_dir / "results.jsonl").write_text("".join(json.dumps(row) + "\n" for row in rows))
    return run_dir


def results_of(run_dir: Path) -> list[CellResult]:
    return read_results(run_dir).results


@pytest.fixture
def grading_count(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """How many replies the verdict book grades (rather than reads)."""
    count = [0]
    real = verdict_book.grade

    def counted(*args, **kwargs):
        count[0] += 1
        return real(*args, **kwargs)

    monkeypatch.setattr(verdict_book, "grade", counted)
    return count


def test_a_second_report_reads_every_verdict_and_writes_the_same_bytes(
    tmp_path: Path, grading_count: list[int]
) -> None:
    run_dir = write_run(tmp_path / "kept" / "run")
    results = results_of(run_dir)
    write_report(RunFolder(run_dir), results, QUICK)
    first = (run_dir / "report.md").read_bytes()
    asked = len({reply_digest(r.response or "", r.finish_reason, r.asked) for r in results})
    assert grading_count[0] == len(GRADERS) * asked  # each distinct reply to a question once per grader
    assert (run_dir / VERDICTS_FILE).is_file()

    grading_count[0] = 0
    write_report(RunFolder(run_dir), results_of(run_dir), QUICK)
    assert grading_count[0] == 0
    assert (run_dir / "report.md").read_bytes() == first

    # the same run in a folder of the same name with no kept verdicts: graded afresh, same bytes
    fresh = write_run(tmp_path / "afresh" / "run")
    write_report(RunFolder(fresh), results_of(fresh), QUICK)
    assert (fresh / "report.md").read_bytes() == first
    assert (fresh / "report.html").read_bytes() == (run_dir / "report.html").read_bytes()


def test_the_sensitivity_table_from_kept_verdicts_equals_the_one_graded_afresh(tmp_path: Path) -> None:
    results = results_of(write_run(tmp_path / "run"))
    book = VerdictBook()
    first = grader_sensitivity(results, book.verdicts)
    again = grader_sensitivity(results, book.verdicts)
    afresh = grader_sensitivity(results, graded_afresh)
    assert book.added > 0
    assert first.equals(afresh) and again.equals(afresh)
    a_avg = afresh[afresh["metric"] == "A_avg"].iloc[0]
    assert len({a_avg[name] for name in GRADERS}) > 1  # the graders differ on these replies


def _planted(run_dir: Path, change) -> None:
    lines = [json.loads(line) for line in (run_dir / VERDICTS_FILE).read_text().splitlines()]
    (run_dir / VERDICTS_FILE).write_text("".join(json.dumps(change(line)) + "\n" for line in lines))


def test_a_kept_verdict_is_read_only_when_its_grader_version_is_the_current_one(tmp_path: Path) -> None:
    run_dir = write_run(tmp_path / "run")
    results = results_of(run_dir)
    write_report(RunFolder(run_dir), results, QUICK)
    afresh = grader_sensitivity(results)

    def all_right(line):
        return {**line, "correct": True, "reason": "ok"}

    _planted(run_dir, all_right)  # a book that says every reply is right: it is read
    planted = grader_sensitivity(results, VerdictBook.read(run_dir / VERDICTS_FILE).verdicts)
    assert set(planted.loc[planted["metric"] == "A_avg", "isodyn"]) == {"100.0"}

    _planted(run_dir, lambda line: {**line, "version": "0000000000000000"})  # another version: ignored
    book = VerdictBook.read(run_dir / VERDICTS_FILE)
    assert not book.known
    assert grader_sensitivity(results, book.verdicts).equals(afresh)


def test_lines_that_do_not_read_as_verdicts_are_graded_again(tmp_path: Path) -> None:
    run_dir = write_run(tmp_path / "run")
    results = results_of(run_dir)
    write_report(RunFolder(run_dir), results, QUICK)
    good = (run_dir / VERDICTS_FILE).read_text().splitlines()
    damaged = [
        "not json", "[1, 2]", json.dumps({"key": 3}), good[0][: len(good[0]) // 2],
        json.dumps({**json.loads(good[1]), "correct": "yes"}),  # a string where a bool belongs
        json.dumps({**json.loads(good[2]), "grader": "no-such-grader"}),
    ]  # fmt: skip
    (run_dir / VERDICTS_FILE).write_text("\n".join(damaged + good[3:]) + "\n")
    book = VerdictBook.read(run_dir / VERDICTS_FILE)
    assert len(book.known) == len(good) - 3
    assert grader_sensitivity(results, book.verdicts).equals(grader_sensitivity(results))
    assert book.added == 3


def test_a_verdicts_file_that_is_a_link_is_neither_read_nor_written_through(tmp_path: Path) -> None:
    run_dir = write_run(tmp_path / "run")
    elsewhere = tmp_path / "elsewhere.jsonl"
    elsewhere.write_text("someone else's file\n")
    (run_dir / VERDICTS_FILE).symlink_to(elsewhere)
    assert not VerdictBook.read(run_dir / VERDICTS_FILE).known
    write_report(RunFolder(run_dir), results_of(run_dir), QUICK)
    assert elsewhere.read_text() == "someone else's file\n"
    assert not (run_dir / VERDICTS_FILE).is_symlink()
    assert VerdictBook.read(run_dir / VERDICTS_FILE).known


def test_a_report_in_a_folder_it_cannot_write_the_verdicts_into_still_comes_out(tmp_path: Path) -> None:
    run_dir = write_run(tmp_path / "run")
    (run_dir / VERDICTS_FILE).mkdir()  # something in the way: not a file
    path = write_report(RunFolder(run_dir), results_of(run_dir), QUICK)
    assert "Grader sensitivity" in path.read_text()


def test_the_grader_version_covers_the_code_that_grades_and_is_the_same_in_every_process() -> None:
    files = {path.name for path in _code_files("isodyn")}
    assert {"graders.py", "extract.py", "answer_match.py", "record.py", "version.py"} <= files
    script = "from isodyn.scoring.version import grader_version as v; print(v('isodyn'), v('mmmath'))"
    printed = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True)
    assert printed.stdout.split() == [grader_version("isodyn"), grader_version("mmmath")]


def test_a_change_to_the_grading_code_gives_another_version(tmp_path: Path) -> None:
    """A copy of the package with one byte of the extraction rules changed names another version."""
    package = Path(verdict_book.__file__).parents[1]
    copy = tmp_path / "src" / "isodyn"
    shutil.copytree(package, copy, ignore=shutil.ignore_patterns("__pycache__"))
    script = "from isodyn.scoring.version import grader_version as v; print(v('isodyn'))"

    def version() -> str:
        env = {"PYTHONPATH": str(copy.parent), "PATH": ""}
        done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, env=env)
        assert done.returncode == 0, done.stderr
        return done.stdout.strip()

    before = version()
    assert before == grader_version("isodyn")
    extract = copy / "scoring" / "extract.py"
    extract.write_text(extract.read_text() + "\n# one more line\n")
    assert version() != before


def test_a_report_tells_its_progress_of_each_section_and_of_the_replies_it_grades(tmp_path: Path) -> None:
    run_dir = write_run(tmp_path / "run")
    told: list[tuple[str, int, int]] = []
    write_report(RunFolder(run_dir), results_of(run_dir), QUICK, progress=lambda *step: told.append(step))
    whats = [what for what, _, _ in told]
    assert {f"grading replies by {name}" for name in GRADERS} <= set(whats)
    assert [what for what in whats if what.startswith("section")] == [f"section {n}" for n in SECTIONS]
    told.clear()
    write_report(RunFolder(run_dir), results_of(run_dir), QUICK, progress=lambda *step: told.append(step))
    assert not [what for what, _, _ in told if what.startswith("grading")]  # all kept: none graded


def test_many_replies_are_graded_in_worker_processes_with_the_same_verdicts(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # every reply its own (a trailing newline more each), so that none is graded from another's verdict
    results = [replace(r, response=f"{r.response}{chr(10) * i}") for i, r in enumerate(results_of(
        write_run(tmp_path / "run", seeds=3)))]  # fmt: skip
    monkeypatch.setattr(verdict_book, "PARALLEL_FROM", 10)
    monkeypatch.setattr(verdict_book, "PROGRESS_EVERY", 7)  # several chunks, one cut mid-way
    chunks_from_workers: list[int] = []

    class Pool(ProcessPoolExecutor):
        def map(self, *args, **kwargs):  # type: ignore[override]
            for scores in super().map(*args, **kwargs):
                chunks_from_workers.append(len(scores))
                yield scores

    monkeypatch.setattr(verdict_book, "ProcessPoolExecutor", Pool)
    told: list[tuple[str, int, int]] = []
    book = VerdictBook(progress=lambda *step: told.append(step))
    for name in GRADERS:
        assert book.verdicts(results, name) == graded_afresh(results, name)
    assert sum(chunks_from_workers) == len(GRADERS) * len(results)  # all graded by the workers
    assert len(told) > len(GRADERS) * 2


def test_a_run_keeps_its_own_graders_verdicts_so_its_report_grades_only_the_others(
    tmp_path: Path, run_cli, grading_count: list[int]
) -> None:
    from isodyn.testing import OpenAIStub, ScriptedReply

    replies = iter(["The answer is 5", '{"short answer": "A"}', "\\boxed{B}", "no idea"] * 10)
    words = [f"out={tmp_path / 'runs'}", f"cache_dir={tmp_path / 'cache'}", "models=openai/m",
             "seeds=isobench_parity", "modalities=latex,code", "variants=3", "quiet=1"]  # fmt: skip
    with OpenAIStub(lambda request: ScriptedReply(text=next(replies))) as stub:
        assert run_cli("run", *words, f"api_base={stub.base_url}").code == 0
    (run_dir,) = (tmp_path / "runs").iterdir()
    results = results_of(run_dir)
    assert len(results) == 6 and all(r.graded for r in results)
    book = VerdictBook.read(run_dir / VERDICTS_FILE)
    by_grader = {name for name, _ in book.known}
    assert by_grader == set(GRADERS)  # the run's own (isodyn) as it graded, the others by its report
    asked = len({reply_digest(r.response or "", r.finish_reason, r.asked) for r in results})
    assert grading_count[0] == (len(GRADERS) - 1) * asked  # the report never graded isodyn's
    for result in results:  # what the run kept is the cell's verdict as results.jsonl holds it
        kept = book.verdicts([result], "isodyn")[0]
        assert kept is not None and (kept.correct, kept.extracted) == (result.correct, result.extracted)
    grading_count[0] = 0
    assert run_cli("report", str(run_dir), "resamples=100").code == 0
    assert grading_count[0] == 0


def test_a_run_never_appends_its_verdicts_through_a_link(tmp_path: Path) -> None:
    from isodyn.runs.verdict_book import kept_by_the_run

    run_dir = write_run(tmp_path / "run")
    results = [r.regraded("isodyn") for r in results_of(run_dir)]
    outside = tmp_path / "outside.jsonl"
    outside.write_text("theirs\n")
    (run_dir / VERDICTS_FILE).hardlink_to(outside)
    with kept_by_the_run(run_dir) as keep:
        keep(results[0])
    assert outside.read_text() == "theirs\n"  # the other name's file is never written
    assert (run_dir / VERDICTS_FILE).read_text().startswith("theirs\n{")
    (run_dir / VERDICTS_FILE).unlink()
    (run_dir / VERDICTS_FILE).symlink_to(outside)
    with kept_by_the_run(run_dir) as keep:  # a link: nothing kept, nothing written through it
        keep(results[0])
    assert outside.read_text() == "theirs\n" and (run_dir / VERDICTS_FILE).is_symlink()
