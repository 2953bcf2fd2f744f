"""What a run's summary counts, kept as each row is recorded: a run holds counts, not its rows, so its
memory does not grow with the grid (the rows are in results.jsonl)."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

from isodyn.runs.record import JUDGE, LOCAL_FAILURE, CellResult, Status


@dataclass
class RowTally:
    cells: int = 0
    statuses: Counter[Status] = field(default_factory=Counter)
    judged: int = 0  # cells the judge was asked about
    decided_by_judge: int = 0
    correct: int = 0
    local_failures: int = 0
    first_local_error: str | None = None  # what the first cell that failed on this machine said

    def add(self, result: CellResult) -> None:
        self.cells += 1
        self.statuses[result.outcome.status] += 1
        self.judged += JUDGE in result.scores
        self.decided_by_judge += result.decided_by == JUDGE
        self.correct += bool(result.correct)
        if result.reason == LOCAL_FAILURE:
            self.local_failures += 1
            if self.local_failures == 1:
                self.first_local_error = result.error

    def counts(self) -> dict[str, int]:
        """The summary's counts of rows, by the names summary.json gives them."""
        return {
            "cells": self.cells,
            "skipped": self.statuses[Status.SKIPPED],
            "errors": self.statuses[Status.ERROR],
            "extraction_failed": self.statuses[Status.EXTRACTION_FAILED],
            "truncated": self.statuses[Status.TRUNCATED],
            "graded": self.statuses[Status.OK],
            "judged": self.judged,
            "decided_by_judge": self.decided_by_judge,
            "correct": self.correct,
        }
