"""How `exp run` shows a run: its notices, a progress bar per model while cells run, then the counts.

`RunScreen` is the terminal's `RunHooks`: `run_experiment` calls it as the run goes. The texts
after the run (the dry run's estimate, the run's counts and files) are built here and printed by
`exp`, which decides the exit code.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from rich.progress import BarColumn, MofNCompleteColumn, Progress, TaskID, TextColumn, TimeRemainingColumn
from rich.text import Text

from isodyn.cli.terminal import console, show_notice
from isodyn.commands.hooks import RunHooks
from isodyn.runs.record import Status

if TYPE_CHECKING:
    from isodyn.commands.notices import Notice
    from isodyn.commands.run import DryRunEstimate, RunResult
    from isodyn.experiments.batch import BatchProgress
    from isodyn.experiments.llm import CachedClient
    from isodyn.experiments.plan import Plan
    from isodyn.runs.config import ExperimentConfig
    from isodyn.runs.folder import RunFolder
    from isodyn.runs.results import CellResult


def progress_bars(quiet: bool) -> Progress:
    """One bar per model: cells done of its total, cache hits, calls in flight, errors, cost."""
    columns = [
        TextColumn("{task.description}", style="bold", markup=False),  # a model's name, as named
        BarColumn(),
        MofNCompleteColumn(),
        TextColumn(
            "hits {task.fields[hits]}  in flight {task.fields[in_flight]}  errors {task.fields[errors]}  "
            "${task.fields[cost]:.4f}"
        ),
        TimeRemainingColumn(),
    ]
    return Progress(*columns, console=console, disable=quiet, transient=False, refresh_per_second=4)


class RunScreen(RunHooks):
    """`exp run` on the terminal. `close` stops the bars (they stay on screen as they ended); `exp`
    calls it after saying an error, so the error is printed while the bars are still up."""

    def __init__(self) -> None:
        self._progress: Progress | None = None
        self._tasks: dict[str, TaskID] = {}
        self._errors: dict[str, int] = {}
        self._cost: dict[str, float] = {}
        self._hits: dict[str, int] = {}  # cache hits of the cells this process ran
        self._quiet = False

    def notice(self, notice: Notice) -> None:
        show_notice(notice)

    def resumed(self, folder: RunFolder, finished: int) -> None:
        said = f"resuming {folder.path}: {finished} cells already finished"
        console.print(said, highlight=False, markup=False)

    def started(self, plan: Plan, done: Sequence[CellResult]) -> None:
        said = shard_line(plan)
        if said and not plan.config.quiet:
            console.print(said, highlight=False, markup=False)
        self._quiet = plan.config.quiet
        self._progress = progress_bars(plan.config.quiet)
        self._progress.start()
        for model in plan.models:
            total = sum(c.model == model for c in plan.grid.cells)
            completed = sum(r.model == model for r in done)
            self._tasks[model] = self._progress.add_task(
                model, total=total, completed=completed, hits=0, in_flight=0, errors=0, cost=0.0
            )
            self._errors[model], self._cost[model], self._hits[model] = 0, 0.0, 0

    def batch(self, progress: BatchProgress) -> None:
        """A line per change of the batch jobs' states (below the bars, which stay as they are); the
        line on what to do next is said even when quiet."""
        if progress.note:
            console.print(Text(progress.note, style="bold yellow"))  # a Text: it names the user's out=
        elif not self._quiet:
            console.print(
                f"batch jobs: {progress.submitted} submitted, {progress.in_progress} in progress, "
                f"{progress.done} done, {progress.failed} failed; {progress.cells_waiting} cells waiting",
                highlight=False, markup=False,
            )  # fmt: skip

    def row(self, result: CellResult, client: CachedClient) -> None:
        model = result.model
        self._errors[model] += result.outcome.status is Status.ERROR
        self._cost[model] += result.cost_usd
        self._hits[model] += bool(result.cache_hit)
        gate = client.gates.get(model)
        if self._progress is not None:
            self._progress.update(
                self._tasks[model], advance=1, hits=self._hits[model], errors=self._errors[model],
                cost=self._cost[model], in_flight=gate.in_flight if gate else 0,
            )  # fmt: skip

    def finished(self) -> None:
        self.close()

    def close(self) -> None:
        if self._progress is not None:
            self._progress.stop()
            self._progress = None


def shard_line(plan: Plan) -> str | None:
    """`shard 2 of 8: 1,234 of the grid's 9,870 cells` for a shard's run; None for a whole grid."""
    from isodyn.experiments.grid import grid_size
    from isodyn.experiments.shard import shard_text

    config = plan.config
    if config.shard is None:
        return None
    whole = grid_size(
        len(plan.models), len(plan.strategies), config.modalities, plan.seeds, config.variants,
        config.repeats, plan.showings,
    )  # fmt: skip
    return shard_text(config.shard, len(plan.grid.cells), whole)


def _showings_words(config: ExperimentConfig) -> str:
    """` x 3 renders (image cells) x 2 perturbations` for what a plain run does not ask."""
    words = ""
    if len(config.renders) > 1:
        words += f" x {len(config.renders)} renders (image cells)"
    if len(config.perturbations) > 1:
        words += f" x {len(config.perturbations)} perturbations"
    return words


def estimate_text(estimate: DryRunEstimate, config: ExperimentConfig) -> str:
    shard = f"shard {config.shard[0]} of {config.shard[1]}: " if config.shard else ""
    return (
        f"{shard}{estimate.cells} cells ({estimate.models} models x {estimate.strategies} strategies x "
        f"{len(config.modalities)} modalities x {estimate.seeds} seeds x {config.variants} variants x "
        f"{config.repeats} repeats{_showings_words(config)}, less what seeds cannot render); "
        f"{estimate.cached_cells} cached "
        f"({100 * estimate.cached_share:.0f}%), {estimate.skipped_cells} to be skipped; "
        f"{estimate.calls_needed} calls needed, "
        f"estimated cost ${estimate.estimated_cost_usd:.4f} (upper estimate: prompt characters / 3 + "
        f"max_tokens at litellm's prices); {estimate.cached_calls} calls already in the cache."
        + "".join(
            f"\n  {m.model}: {m.calls_needed} calls, ${m.estimated_cost_usd:.4f} live, "
            f"${m.batch_cost_usd:.4f} at batch prices (batch=1)"
            for m in estimate.per_model
        )
        + "\nNothing was called or written."
    )


def run_text(outcome: RunResult, config: ExperimentConfig) -> Text:
    """The run's counts, cells left undone by max_cost, and where its files are. A Text, not markup:
    the paths are the user's out=."""
    summary = outcome.summary
    shard = f"shard {config.shard[0]} of {config.shard[1]}: " if config.shard else ""
    said = Text(
        f"{shard}{summary.cells} cells: {summary.calls_made} calls, {summary.cache_hits} cache hits, "
        f"{summary.retries} retries, {summary.skipped} skipped, {summary.errors} errors, "
        f"${summary.cost_usd:.4f}, {summary.seconds:.1f} s"
    )
    if summary.left_undone and config.batch:
        said.append(f"\n{summary.left_undone} cells left undone", style="bold yellow")
        said.append(
            " (waiting on batch jobs, batch items failed with batch_fallback=undone, or max_cost); run the "
            "same command again to finish them"
        )
    elif summary.left_undone:
        said.append(f"\n{summary.left_undone} cells left undone", style="bold yellow")
        said.append(
            f" (max_cost ${config.max_cost}); run the same command with a larger max_cost to finish them"
        )
    said.append(
        f"\nresults: {outcome.folder.results_file}\nlog:     {outcome.folder.log_file}\n"
        f"report:  {outcome.report_path}"
    )
    return said
