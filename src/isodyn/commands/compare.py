"""`exp compare`: a paired statistical comparison within a run, or of two runs on the same cells.

Within a run, strategies, models or modalities are compared; two runs are compared with each other
(by "run"). A run may also be an inspect log of isodyn's cells, read as `exp report` reads it. The
comparison (per-comparison and simultaneous intervals, McNemar, sign-flip permutation, Holm) is
written as compare-by-BY.md and .html with figures/forest-by-BY.png (with a baseline: compare-by-BY-
vs-BASELINE.* and figures/forest-by-BY-vs-BASELINE.png, so no comparison overwrites another's): into
the run's folder, or into a compare-A-vs-B folder beside the first of two runs. Cells only one of
two runs has are named in a warning and in the report's facts.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal, cast

import pandas as pd

from isodyn.analysis.compare_report import comparison_content, dropped_cells, report_names, unpaired_text
from isodyn.analysis.metrics import Bootstrap
from isodyn.analysis.paired import compare
from isodyn.analysis.run_report import write_content
from isodyn.commands.inspect_logs import run_folder
from isodyn.commands.notices import Notice, Notices, Notify
from isodyn.commands.report import BOOTSTRAP_PARSERS, split_words
from isodyn.commands.runs import read_run, warn_about
from isodyn.errors import ConfigError
from isodyn.runs.config import parse_key_values
from isodyn.runs.folder import RunFolder
from isodyn.runs.results import results_frame
from isodyn.textsafe import visible

CompareBy = Literal["strategy", "model", "modality", "run"]
COMPARE_BY = ("strategy", "model", "modality", "run", "render", "perturbation")


@dataclass(frozen=True)
class CompareRequest:
    runs: tuple[RunFolder, ...]  # one run (compare within it) or two (compare them)
    by: CompareBy
    baseline: str | None = None  # compare every other value with this one, not every pair
    bootstrap: Bootstrap = field(default_factory=Bootstrap)

    @classmethod
    def from_words(cls, words: Sequence[str]) -> CompareRequest:
        """The request `exp compare RUN_DIR [RUN_DIR2] key=value ...` makes (ConfigError if bad)."""
        paths, settings = split_words(words)
        chosen = parse_key_values(settings, {**BOOTSTRAP_PARSERS, "by": str, "baseline": str})
        if len(paths) not in (1, 2):
            raise ConfigError("give one run directory (compare within it) or two (compare the runs)")
        by = chosen.pop("by", "run" if len(paths) == 2 else "strategy")
        if by not in COMPARE_BY:
            raise ConfigError(f"bad value for by: {by!r}; valid: {', '.join(COMPARE_BY)}")
        baseline = chosen.pop("baseline", None)
        return cls(tuple(RunFolder(p) for p in paths), cast(CompareBy, by), baseline, Bootstrap(**chosen))


@dataclass(frozen=True)
class CompareResult:
    path: Path  # compare-by-BY[-vs-BASELINE].md
    html: Path
    markdown: str
    notices: tuple[Notice, ...] = ()


def compare_runs(request: CompareRequest, notify: Notify | None = None) -> CompareResult:
    """Compare, and write the comparison report."""
    notices = Notices(notify)
    folders = [run_folder(folder.path) for folder in request.runs]  # an inspect log: its cells' folder
    runs = [read_run(folder) for folder in folders]
    for run in runs:  # said once every run is read
        warn_about(run, notices)
    frames = {run.directory.name: results_frame(run.results).assign(run=run.directory.name) for run in runs}
    frame = pd.concat(list(frames.values()), ignore_index=True)
    if request.baseline is not None:
        check_baseline(frame, request.by, request.baseline)
    dropped = dropped_cells(frames) if len(frames) == 2 else []
    for cells in dropped:
        notices.say("warning", f"dropped: {cells.text}")
    comparison = compare(frame, request.by, request.baseline, request.bootstrap)
    # two runs: what they do not share is named above as dropped; within a run, cells of one arm
    # on items the other arm never graded (other seeds, a modality a seed lacks)
    left_out = unpaired_text(comparison) if len(runs) == 1 else None
    if left_out:
        notices.say("warning", left_out)
    first = folders[0]
    if len(folders) == 2:
        out = first.path.parent / f"compare-{first.name}-vs-{folders[1].name}"
        out.mkdir(exist_ok=True)
    else:
        out = first.path
    title = f"Paired comparison by {request.by}: " + " vs ".join(p.name for p in folders)
    if request.baseline is not None:
        title += f", each against {request.baseline}"
    content = comparison_content(comparison, title, request.bootstrap, dropped, left_out)
    path = write_content(out, content, report_names(request.by, request.baseline).stem)
    return CompareResult(path, path.with_suffix(".html"), path.read_text(encoding="utf-8"), notices.said)


def check_baseline(frame: pd.DataFrame, by: str, baseline: str) -> None:
    """ConfigError (one line, the valid values listed) unless `baseline` is a value of column `by`."""
    values = sorted({str(v) for v in frame[by].dropna().unique()}) if by in frame.columns else []
    if baseline not in values:
        shown = ", ".join(visible(v) for v in values) or "none"
        raise ConfigError(f"unknown baseline {visible(baseline)!r} for by={by}; valid: {shown}")
