"""`exp run`: plan an experiment, then run its grid into a run folder and write its report.

`run_experiment` takes the run's lock (a second process with the same settings stops at once),
resumes the latest unfinished folder of the same run or makes a new one, runs every cell not yet
finished, and writes report.md; `estimate_run` is the dry run (no call, no file). What the caller
should see while the run goes (warnings, resuming, a finished cell) goes through `RunHooks`.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from isodyn.commands import run_notices
from isodyn.commands.hooks import RunHooks
from isodyn.commands.notices import Notice, Notices
from isodyn.errors import ConfigError, IsodynError
from isodyn.experiments.estimate import dry_run
from isodyn.experiments.plan import Plan, plan_experiment
from isodyn.experiments.runner import ModelUnavailable, RunOutcome, execute
from isodyn.models.catalog import collection_paused
from isodyn.runs.config import (
    ExperimentConfig,
    parse_overrides,
    read_study,
    refuse_study_key,
    repeated_key,
    study_words,
)
from isodyn.runs.folder import RunFolder
from isodyn.runs.results import CellResult
from isodyn.runs.rundir import open_run_dir, run_lock_path, share_identical_results, unchanged_since
from isodyn.runs.runlock import RunLock
from isodyn.runs.summary import RunSummary


class RunNotStarted(IsodynError):
    """The run's lock or folder could not be made (a read-only disk, a full one): nothing was called."""


class RunStopped(IsodynError):
    """A model of the grid cannot be called at all; the finished cells are kept in `folder`."""

    def __init__(self, message: str, folder: RunFolder) -> None:
        super().__init__(message)
        self.folder = folder


@dataclass(frozen=True)
class RunRequest:
    config: ExperimentConfig
    study: Path | None = None  # the study file the settings came from: copied into the run folder

    @classmethod
    def from_words(
        cls, words: Sequence[str], study: Path | None = None, trust_study: bool = False
    ) -> RunRequest:
        """The request of `exp run [STUDY.toml] key=value ...`: the study's settings, then the words
        (each key given once). Without `trust_study`, a study may not send a key to a server it
        names. ConfigError on a bad word."""
        twice = repeated_key(list(words))
        if twice:
            raise ConfigError(f"{twice} is given twice; give it once")
        from_study = study_words(study) if study else []
        config = parse_overrides([*from_study, *words])
        if study is not None and not trust_study:
            refuse_study_key(study, from_study, list(words), config)
        return cls(config, study)


@dataclass(frozen=True)
class ModelEstimate:
    """One model's calls still needed and their upper cost estimate, live and at batch prices."""

    model: str
    calls_needed: int
    estimated_cost_usd: float
    batch_cost_usd: float


@dataclass(frozen=True)
class DryRunEstimate:
    """The grid's size, its cached share and an upper cost estimate; nothing called or written."""

    cells: int
    cached_cells: int
    skipped_cells: int
    cached_share: float
    calls_needed: int
    estimated_cost_usd: float
    models: int
    strategies: int
    seeds: int
    notices: tuple[Notice, ...] = ()
    cached_calls: int = 0  # calls the cache already holds (a cell's calls each count)
    per_model: tuple[ModelEstimate, ...] = ()  # models with calls still needed


@dataclass(frozen=True)
class RunResult:
    folder: RunFolder  # its results.jsonl and log.jsonl
    report_path: Path  # report.md: the folder's, or that of an earlier run with the same results
    summary: RunSummary
    outcome: RunOutcome = field(repr=False)
    resumed: int = 0  # cells finished by an earlier process of this run
    notices: tuple[Notice, ...] = ()

    @property
    def results(self) -> list[CellResult]:
        """The run's rows, read from results.jsonl when first asked for."""
        return self.outcome.results


def _planned(request: RunRequest, hooks: RunHooks) -> tuple[Plan, Notices]:
    """The checked plan, and the notices a user reads before the run starts (already told). Planning
    imports litellm and every seed's libraries: the collector waits till it is done (a second of the
    time to the first call on 2 cores)."""
    with collection_paused():
        plan = plan_experiment(request.config)
    notices = Notices(hooks.notice)
    for line in run_notices.identical_samples(plan) + run_notices.small_token_limit(plan):
        notices.say("warning", line)
    for line in run_notices.dataset_lines(plan):
        notices.say("dataset", line)
    for line in run_notices.unseen_images(plan):
        notices.say("warning", line)
    for line in run_notices.unreachable_replicas(plan):
        notices.say("warning", line)
    return plan, notices


def estimate_run(request: RunRequest, hooks: RunHooks | None = None) -> DryRunEstimate:
    """The dry run: what the grid would cost, without a call or a written file."""
    plan, notices = _planned(request, hooks or RunHooks())
    for kind, line in run_notices.api_keys(plan):
        notices.say(kind, line)
    estimate = asyncio.run(dry_run(plan))
    per_model = tuple(
        ModelEstimate(model, t["calls_needed"], t["estimated_cost_usd"], t["batch_cost_usd"])
        for model, t in estimate["per_model"].items()
    )
    return DryRunEstimate(
        estimate["cells"], estimate["cached_cells"], estimate["skipped_cells"], estimate["cached_share"],
        estimate["calls_needed"], estimate["estimated_cost_usd"], len(plan.models), len(plan.strategies),
        len(plan.seeds), notices.said, cached_calls=estimate["cached_calls"], per_model=per_model,
    )  # fmt: skip


def run_experiment(request: RunRequest, hooks: RunHooks | None = None) -> RunResult:
    """Run the grid (resuming an unfinished run of the same settings) and write its report.
    RunInUse when another process holds the run; RunStopped when a model cannot be called at all."""
    hooks = hooks or RunHooks()
    config = request.config
    plan, notices = _planned(request, hooks)
    lock = RunLock(run_lock_path(config))
    try:  # held for the whole run: a second `exp run` of the same run stops here
        lock.acquire()
    except OSError as exc:
        raise RunNotStarted(str(exc)) from exc
    try:
        folder, done = _opened(config)
        if done:
            hooks.resumed(folder, len(done))
        if request.study is not None:  # the file as it was used, read again within its bound
            folder.study_file.write_text(read_study(request.study), encoding="utf-8")
        hooks.started(plan, done)
        try:
            outcome = asyncio.run(execute(plan, folder, hooks.row, done, on_batch=hooks.batch))
        except ModelUnavailable as exc:
            raise RunStopped(f"{exc} (finished cells are kept in {folder.path})", folder) from exc
        hooks.finished()
        report = _report(folder, outcome, config, notices)
    finally:
        lock.release()
    return RunResult(folder, report, outcome.summary, outcome, len(done), notices.said)


def _report(folder: RunFolder, outcome: RunOutcome, config: ExperimentConfig, notices: Notices) -> Path:
    """report.md of the run, written only when its rows differ from those of the last finished run of
    the same settings (a cached rerun writes the same rows: that run's report stands)."""
    digest = outcome.summary.results_digest
    earlier = unchanged_since(folder, config, digest)
    if earlier is None:
        from isodyn.analysis.run_report import write_report  # seconds to import: only when written

        return write_report(folder, outcome.results)
    share_identical_results(folder, config, digest)  # one copy on disk
    notices.say(
        "note",
        f"the results are those of {earlier.path}, so its report stands; "
        f"`exp report {folder.path}` writes one here",
    )
    return earlier.report_file


def _opened(config: ExperimentConfig) -> tuple[RunFolder, list[CellResult]]:
    """The run folder to write (an unfinished one resumed, with its finished cells, or a new one)."""
    try:
        return open_run_dir(config)
    except OSError as exc:  # out cannot be written after all (a read-only disk, a full one)
        raise RunNotStarted(
            f"cannot write the run directory under {config.out}: {exc.strerror or exc}"
        ) from exc
