"""`exp judge`: process evaluation (MM-MATH 3.3) of a finished run's solutions.

A judge model names the first wrong step of each wrong solution (with `every`, of every graded
one) and its error type; the judgements go to RUN_DIR/process.jsonl and their tables to
RUN_DIR/process.md. Judge calls go through the reply cache, so judging again costs nothing.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from isodyn.analysis.process import render_process_report
from isodyn.commands.judging import JudgeChoice, regrade_words
from isodyn.commands.notices import Notice, Notices, Notify
from isodyn.commands.runs import read_run
from isodyn.errors import ConfigError
from isodyn.experiments.regrade import open_client, process_evaluate
from isodyn.runs.config import default_cache_dir
from isodyn.runs.folder import RunFolder
from isodyn.runs.judgements import write_judgements


@dataclass(frozen=True)
class JudgeRequest:
    folder: RunFolder
    judge: JudgeChoice
    every: bool = False  # judge every graded solution, not only the wrong ones
    trust_run: bool = False  # the server and cache the run's config.json names may be used

    @classmethod
    def from_words(cls, folder: RunFolder, words: Sequence[str], trust_run: bool = False) -> JudgeRequest:
        """The request `exp judge RUN_DIR judge=MODEL ...` makes (ConfigError on a bad word)."""
        chosen = regrade_words(words)
        if "judge" not in chosen:
            raise ConfigError("judge=MODEL is required, e.g. judge=gpt-4o")
        return cls(folder, JudgeChoice.from_parsed(chosen), bool(chosen.get("all")), trust_run)


@dataclass(frozen=True)
class JudgeResult:
    folder: RunFolder  # its process.jsonl holds the judgements
    report_path: Path  # process.md
    report: str  # its Markdown
    judged: int  # solutions judged
    calls_made: int
    cache_hits: int
    cost_usd: float
    notices: tuple[Notice, ...] = ()


def judge_run(request: JudgeRequest, notify: Notify | None = None) -> JudgeResult:
    """Judge the run's solutions and write process.jsonl and process.md beside its results."""
    notices = Notices(notify)
    run = read_run(request.folder, notices)
    settings = request.judge.checked(run, request.trust_run, notices)
    client, store = open_client(settings.cache_dir or default_cache_dir())
    try:
        judged = asyncio.run(process_evaluate(run.results, settings, client, request.every))
    finally:
        store.close()
    write_judgements(request.folder.judgements_file, judged)
    records = [judgement.to_json() for judgement in judged]
    report = render_process_report(records, request.folder.name)
    report_path = request.folder.path / "process.md"
    report_path.write_text(report, encoding="utf-8")
    return JudgeResult(
        request.folder, report_path, report, len(records), client.calls_made, client.cache_hits,
        client.cost_usd, notices.said,
    )  # fmt: skip
