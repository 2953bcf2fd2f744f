"""Issue 42, the acceptance that joins the two halves: `exp report` on the log `inspect eval
isodyn/dynamath` writes gives the tables of `exp report` on isodyn's own run of the same cells, on the
same replies (the loopback stub's oracle answers each prompt alike, whichever tool sends it).

It runs once the tasks (`isodyn.interop.inspect_tasks`) are beside the logs; alone, it is skipped."""

from __future__ import annotations

from pathlib import Path

import pytest

from isodyn.interop.inspect_read import read_log
from isodyn.runs.folder import RunFolder
from isodyn.testing import OpenAIStub

pytest.importorskip("isodyn.interop.inspect_tasks")
tasks = pytest.importorskip("test_inspect_tasks")  # its stub oracle and its `inspect eval` in Python

# The report's facts: the run's settings and summary, which live in its folder (config.json,
# summary.json) and which a log of `inspect eval` does not carry; every other section is compared.
FACTS = "Run"


def _sections(path: Path) -> dict[str, str]:
    """report.md by its `## ` sections (the title line, which names the folder, left out), each table
    with its columns in name order: a column's place follows the order the rows were written in, and a
    run writes its cells as they finish, so two runs of one grid may place them differently."""
    text = path.read_text(encoding="utf-8").split("\n", 1)[1]
    return {part.split("\n", 1)[0]: _columns_sorted(part) for part in text.split("\n## ")[1:]}


def _columns_sorted(section: str) -> str:
    lines = section.splitlines()
    out: list[str] = []
    i = 0
    while i < len(lines):
        if not lines[i].startswith("|"):
            out.append(lines[i])
            i += 1
            continue
        table = []
        while i < len(lines) and lines[i].startswith("|"):
            table.append([cell.strip() for cell in lines[i].strip("|").split("|")])
            i += 1
        order = sorted(range(len(table[0])), key=lambda c: (c > 0, table[0][c]))  # the row names first
        out += ["|".join(row[c] for c in order if c < len(row)) for row in table]
    return "\n".join(out)


def test_report_on_a_task_log_equals_report_on_the_run(run_cli, tmp_path: Path) -> None:
    cache = [f"cache_dir={tmp_path / 'cache'}"]
    oracle = tasks.Oracle([*tasks.GRID, *cache])
    with OpenAIStub(oracle) as stub:
        done = run_cli("run", *tasks.GRID, *cache, f"out={tmp_path / 'runs'}", "quiet=1",
                       f"models={tasks.MODEL}", f"api_base={stub.base_url}", "vision=yes")  # fmt: skip
        assert done.code == 0, done.err
        args = {"seeds": ",".join(tasks.SEEDS), "variants": 2, "modality": "latex,image",
                "strategy": "zeroshot,cot3", "cache_dir": str(tmp_path / "cache")}  # fmt: skip
        log = tasks.inspect_run(stub, "dynamath", args, tmp_path / "logs")
    (run_dir,) = (tmp_path / "runs").iterdir()
    folder = RunFolder(run_dir)
    log_path = Path(log.location)
    # cell by cell: the verdict and what decided it, the reply, the question, the labels, the tokens
    columns = ("correct", "extracted", "reason", "method", "ambiguity", "grader", "response", "truth",
               "question", "answer_type", "choices", "topic", "level", "variation_types", "prompt_tokens",
               "completion_tokens")  # fmt: skip
    ours = {r.key: {c: r.to_row()[c] for c in columns} for r in folder.results().results}
    theirs = {r.key: {c: r.to_row()[c] for c in columns} for r in read_log(log_path).results}
    assert len(ours) == 24 and theirs == ours
    assert run_cli("report", str(run_dir), "resamples=200").code == 0
    done = run_cli("report", str(log_path), "resamples=200")
    assert done.code == 0, done.err
    expected = _sections(folder.report_file)
    got = _sections(log_path.with_name(f"{log_path.stem}-report") / "report.md")
    assert set(got) == set(expected) and len(expected) > 5
    assert [title for title in expected if got[title] != expected[title]] == [FACTS]
    assert "- models: openai/stub" in expected[FACTS] and "- models:" not in got[FACTS]
    compared = run_cli("compare", str(log_path), "by=strategy", "resamples=200")
    assert compared.code == 0 and "cot3" in compared.out, compared.err
