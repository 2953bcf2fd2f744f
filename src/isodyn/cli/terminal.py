"""How `exp` writes to the terminal: labelled lines and notices on stderr, tables on stdout.

Markup is off everywhere: what is shown quotes settings, paths, model names and replies, where
`[red]` or `[/]` is text, so styles are given as rich Text objects instead.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any

from rich.console import Console
from rich.table import Table
from rich.text import Text

if TYPE_CHECKING:
    from isodyn.commands.notices import Notice
    from isodyn.runs.results import CellResult

console = Console(stderr=True, soft_wrap=True, markup=False)

_NOTICE_STYLES = {"warning": "bold yellow", "note": "bold yellow", "dataset": "bold"}


def say(label: str, style: str, text: str) -> None:
    """A styled label, then `text` exactly as given: rich markup is never read from the text, since
    it may hold a user's setting, a path, a model's name or anything a file said."""
    console.print(Text.assemble((label, style), " ", text), soft_wrap=True)


def show_notice(notice: Notice) -> None:
    """A command's notice as it arises: `warning: ...`, `note: ...` or `dataset: ...`."""
    say(f"{notice.kind}:", _NOTICE_STYLES[notice.kind], notice.text)


@contextmanager
def progress_line() -> Iterator[Callable[[str, int, int], None]]:
    """A progress line on stderr for a long command step, told (what, done, total); shown only on a
    terminal, and gone when the step ends (a pipe or a log gets nothing)."""
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    columns = (TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn())
    with Progress(*columns, console=console, transient=True, disable=not console.is_terminal) as bar:
        task = bar.add_task("", total=None)

        def told(what: str, done: int, total: int) -> None:
            bar.update(task, description=what, completed=done, total=total)

        yield told


def cells(*values: Any) -> list[Text]:
    """A table row shown as written (a rich Table reads markup from plain strings)."""
    return [Text(str(value)) for value in values]


def stdout_console() -> Console:
    """The terminal's width on a terminal; wide when piped, so no header or id is folded. Markup
    off: its tables hold names and ids from runs and config files, shown as written."""
    return Console(markup=False) if sys.stdout.isatty() else Console(width=240, markup=False)


def print_results_table(results: Sequence[CellResult]) -> None:
    """The robustness metrics of `results`, one row per model, strategy and modality."""
    from isodyn.analysis.metrics import robustness_table
    from isodyn.analysis.tables import format_value
    from isodyn.runs.results import results_frame

    frame = robustness_table(results_frame(results, copy_calls=False))  # no transcript is shown
    table = Table(title="DynaMath robustness (A in %)")
    for column in ("model", "strategy", "modality", "graded", "skipped", "A_avg", "A_wst", "RR"):
        table.add_column(column, overflow="fold")
    for record in frame.to_dict("records"):
        table.add_row(
            *cells(
                record["model"],
                record["strategy"],
                record["modality"],
                record["graded"],
                record["skipped"],
                *(format_value(record[k], percent=k != "RR") for k in ("A_avg", "A_wst", "RR")),
            )
        )
    stdout_console().print(table)
