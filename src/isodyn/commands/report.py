"""`exp report`: report.md and a standalone report.html for a run, or for results tables from outside.

An inspect log of isodyn's cells (`exp export inspect`, `inspect eval isodyn/...`) is reported as
its run, from a `-report` folder beside it. A table may be long form (seed_id, variant, correct,
...) or DynaMath's published wide form; several tables give one report with a row per model, written
into a `-report` folder beside the first. With a grader named, the run's saved replies are graded by
it first (nothing is called).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from isodyn.analysis.external import ExternalTableError, read_tables
from isodyn.analysis.findings import UnknownBaselineError, parse_baseline
from isodyn.analysis.metrics import Bootstrap
from isodyn.analysis.run_report import run_baseline, write_report
from isodyn.commands.inspect_logs import is_inspect_log, log_folder
from isodyn.commands.notices import Notice, Notices, Notify
from isodyn.commands.runs import read_run
from isodyn.errors import ConfigError
from isodyn.experiments.regrade import rescore
from isodyn.runs.config import parse_key_values
from isodyn.runs.folder import RunFolder
from isodyn.runs.results import CellResult, read_json, results_frame, write_results
from isodyn.runs.setting_values import grader_name, positive_int
from isodyn.runs.verdict_book import Progress
from isodyn.scoring import Tolerance


def _level(value: str) -> float:
    number = float(value)
    if not 0 < number < 1:
        raise ValueError("must be between 0 and 1, e.g. 0.95")
    return number


# The interval settings `exp report` and `exp compare` read.
BOOTSTRAP_PARSERS: dict[str, Any] = {"resamples": positive_int, "level": _level, "seed": int}


def split_words(words: Sequence[str]) -> tuple[list[Path], list[str]]:
    """Positional paths and key=value settings, in any order."""
    return [Path(w) for w in words if "=" not in w], [w for w in words if "=" in w]


@dataclass(frozen=True)
class ReportRequest:
    sources: tuple[Path, ...]  # one run directory or inspect log, or one or more tables
    bootstrap: Bootstrap = field(default_factory=Bootstrap)
    grader: str | None = None  # grade the run's saved replies again by this grader first
    baseline: tuple[str, str | None] | None = None  # (strategy, modality or None): the findings' baseline

    @classmethod
    def from_words(cls, words: Sequence[str]) -> ReportRequest:
        """The request `exp report SOURCE ... key=value ...` makes (ConfigError on a bad word)."""
        sources, settings = split_words(words)
        chosen = parse_key_values(
            settings, {**BOOTSTRAP_PARSERS, "grader": grader_name, "baseline": _baseline}
        )
        grader = chosen.pop("grader", None)
        baseline = chosen.pop("baseline", None)
        bootstrap = Bootstrap(**chosen)
        if not sources:
            raise ConfigError("name a run directory or one or more result tables")
        return cls(tuple(sources), bootstrap, grader, baseline)


def _baseline(value: str) -> tuple[str, str | None]:
    try:
        return parse_baseline(value)
    except UnknownBaselineError as exc:
        raise ConfigError(str(exc)) from None


@dataclass(frozen=True)
class ReportResult:
    path: Path  # report.md
    html: Path  # report.html
    markdown: str
    notices: tuple[Notice, ...] = ()


def report_run(
    request: ReportRequest, notify: Notify | None = None, progress: Progress | None = None
) -> ReportResult:
    """Write the report of a run (into its folder) or of tables (into a `-report` folder);
    `progress` hears of each step that takes a while."""
    notices = Notices(notify)
    first = request.sources[0]
    if len(request.sources) == 1 and is_inspect_log(first):  # its cells, as a run folder beside it
        folder = log_folder(first)
        results = read_run(folder, notices).results
    elif len(request.sources) > 1 or first.is_file():
        results, folder = _from_tables(request.sources, notices)
    else:
        folder = RunFolder(first)
        results = read_run(folder, notices).results
    if request.grader is not None:
        results = rescore(results, Tolerance(), request.grader)
    if request.baseline is not None:  # refused in one line before the minutes of work
        try:
            run_baseline(results_frame(results), read_json(folder.config_file), request.baseline)
        except UnknownBaselineError as exc:
            raise ConfigError(f"bad value for baseline: {exc}") from None
    path = write_report(folder, results, request.bootstrap, request.baseline, progress)
    return ReportResult(path, path.with_suffix(".html"), path.read_text(encoding="utf-8"), notices.said)


def _from_tables(sources: Sequence[Path], notices: Notices) -> tuple[list[CellResult], RunFolder]:
    """The tables' cells, saved as results.jsonl in the `-report` folder the report goes to."""
    if not all(p.is_file() for p in sources):
        raise ConfigError("several sources must all be result tables (files), not run directories")
    try:
        tables = read_tables(list(sources))
    except ExternalTableError:
        raise
    except ValueError as exc:  # a cell pandas or int() cannot read: the table's problem, said as it is
        raise ExternalTableError(str(exc)) from exc
    for note in tables.notes:
        notices.say("note", note)
    first = sources[0]
    stem = first.stem if len(sources) == 1 else f"{first.stem}-and-{len(sources) - 1}-more"
    folder = RunFolder(first.with_name(f"{stem}-report"))
    folder.path.mkdir(exist_ok=True)
    write_results(folder.results_file, tables.results)
    return tables.results, folder
