"""A finished run read back for a command (rescore, judge, report, compare), with what was set aside.

`read_results` is the one reader of a run; here its missing results.jsonl becomes a user-facing
error, and the rows it skipped (damaged lines, duplicate cells, damaged judgements in process.jsonl)
become warnings, since the command goes on without them.
"""

from __future__ import annotations

from isodyn.commands.notices import Notices
from isodyn.errors import IsodynError
from isodyn.runs.folder import RunFolder
from isodyn.runs.results import Run


class RunNotFound(IsodynError, FileNotFoundError):
    """A folder that holds no run (no results.jsonl): the message names it."""


def read_run(folder: RunFolder, notices: Notices | None = None) -> Run:
    """The run in `folder`; with `notices`, one warning per kind of row set aside in reading it."""
    try:
        run = folder.results()
    except FileNotFoundError as exc:  # "no results.jsonl in DIR", said as it is
        raise RunNotFound(str(exc)) from exc
    if notices is not None:
        warn_about(run, notices)
    return run


def warn_about(run: Run, notices: Notices) -> None:
    """A warning on rows a reader set aside (damaged lines, duplicate cells), when there are any,
    and one on damaged judgements in the run's process.jsonl (which its report reads)."""
    for problems in (run.problems(), RunFolder(run.directory).judgements().problems()):
        if problems:
            notices.say("warning", f"{run.directory}: {problems}")
