"""How `exp search` shows a search: one progress bar of calls against the most it may spend, then the
counts and where everything was written."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from rich.progress import BarColumn, MofNCompleteColumn, Progress, TaskID, TextColumn, TimeElapsedColumn

from isodyn.cli.terminal import console, say
from isodyn.commands.search import SearchHooks

if TYPE_CHECKING:
    from isodyn.commands.search import SearchResult
    from isodyn.search.trials import Trial


class SearchScreen(SearchHooks):
    def __init__(self) -> None:
        self.quiet = False
        self._progress: Progress | None = None
        self._task: TaskID | None = None
        self._confirmed = 0
        self._trials = 0

    def notice(self, line: str) -> None:
        say("warning:", "bold yellow", line)

    def started(self, units: int, most_calls: int, folder: Path) -> None:
        if not self.quiet:
            console.print(
                f"searching {units} unit(s) (model x strategy x modality x seed), at most {most_calls} calls "
                f"into {folder}",
                highlight=False,
                markup=False,
            )
        self._progress = Progress(
            TextColumn("calls"),
            BarColumn(),
            MofNCompleteColumn(),
            TextColumn("variants {task.fields[trials]}  confirmed failures {task.fields[confirmed]}"),
            TimeElapsedColumn(),
            console=console,
            disable=self.quiet,
        )
        self._progress.start()
        # at most: a search that finds nothing to try stops before it
        self._task = self._progress.add_task("calls", total=most_calls, trials=0, confirmed=0)

    def trial(self, trial: Trial) -> None:
        self._trials += 1
        self._confirmed += trial.confirmed
        if self._progress is not None and self._task is not None:
            self._progress.update(
                self._task, advance=trial.calls, trials=self._trials, confirmed=self._confirmed
            )

    def finished(self) -> None:
        self.close()

    def close(self) -> None:
        if self._progress is not None:
            self._progress.stop()
            self._progress = None


def search_text(done: SearchResult) -> str:
    t = done.totals
    lines = [
        f"{t.trials} variants tried in {t.units} unit(s): {t.confirmed} confirmed failures",
        f"calls {t.calls} ({t.calls_made} sent to a model, {t.calls - t.calls_made} from the cache), "
        f"cost ${t.cost_usd:.4f}",
    ]
    if not t.complete:
        lines.append(
            f"max_cost stopped the search: {t.undone} variants were not asked; run it again with more"
        )
    lines += [f"report   {done.report}", f"hard set {done.hardset}  (exp run dataset={done.hardset} ...)"]
    return "\n".join(lines)
