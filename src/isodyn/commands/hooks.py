"""What a caller of `run_experiment` sees of a run while it goes.

Kept apart from `commands.run` and light to import (its types are imported for checking only), so
`exp` can define how it shows a run without loading the runner before a command needs it.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from isodyn.commands.notices import Notice
    from isodyn.experiments.batch import BatchProgress
    from isodyn.experiments.llm import CachedClient
    from isodyn.experiments.plan import Plan
    from isodyn.runs.folder import RunFolder
    from isodyn.runs.results import CellResult


class RunHooks:
    """Called in this order as a run goes; every method does nothing unless overridden."""

    def notice(self, notice: Notice) -> None:
        """A warning or a dataset line, given before the run starts."""

    def resumed(self, folder: RunFolder, finished: int) -> None:
        """An unfinished run is resumed: `finished` cells are kept and not run again."""

    def started(self, plan: Plan, done: Sequence[CellResult]) -> None:
        """The grid is about to run; `done` are the cells already finished."""

    def row(self, result: CellResult, client: CachedClient) -> None:
        """A cell finished (its row is written)."""

    def batch(self, progress: BatchProgress) -> None:
        """Batch jobs (batch=1) changed state, or the process stopped waiting for them (`note`)."""

    def finished(self) -> None:
        """The last cell is in; the report is written next. Not called when the run stops."""
