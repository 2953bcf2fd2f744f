"""The runs `exp merge` joins: each read as a folder from anyone (`read_shard_run`: every key of its
config.json known, every reply filed under the key of the request its row records), then checked
against the others (`checked_shards`): shards of one experiment, one isodyn version and one set of
prompt templates, and one N, each shard once, no cell in two runs. Every refusal is one line naming
the folder and the reason; nothing is written here.
"""

from __future__ import annotations

import json
import math
import os
import stat
from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from isodyn.datasets.contained import limits, read_bounded
from isodyn.datasets.kinds import resolved
from isodyn.errors import IsodynError
from isodyn.experiments.cells import untrusted_reply
from isodyn.runs.config import ExperimentConfig
from isodyn.runs.folder import RunFolder
from isodyn.runs.record import CellKey
from isodyn.runs.results import Run, read_results
from isodyn.runs.rundir import RUN_IDENTITY, run_identity
from isodyn.runs.saved_config import MADE_BY, MadeBy, saved_config
from isodyn.runs.summary import RunSummary


class MergeRefused(IsodynError, ValueError):
    """Runs that cannot be merged, or a folder that is no run; the message is one line."""


SPENT = ("calls_made", "cache_hits", "retries", "cost_usd", "seconds")  # a shard's summary must say


def shard_spending(data: Any) -> RunSummary | None:
    """What a shard's summary.json says it spent and whether it finished, checked: None for a summary
    that is not an object of such numbers (damaged, or written by hand). An older summary without
    left_undone, complete or not_renderable has none undone, is complete and rendered everything."""
    try:
        summary = RunSummary.from_json(data)
    except ValueError:
        return None
    counts = (summary.calls_made, summary.cache_hits, summary.retries, summary.left_undone)
    if not all(summary.has(key) for key in SPENT) or min(counts) < 0:
        return None
    if not all(math.isfinite(v) and v >= 0 for v in (summary.cost_usd, summary.seconds)):
        return None
    return summary


@dataclass(frozen=True)
class ShardRun:
    directory: Path
    config: ExperimentConfig
    made_by: MadeBy  # the isodyn version and prompt templates that made it
    run: Run
    spending: RunSummary | None  # None: no summary.json, or a damaged one (`shard_spending`)
    log: bytes  # log.jsonl as it was (empty when there is none)
    study: Path | None  # study.toml, when the run has one

    @property
    def shard(self) -> tuple[int, int]:
        assert self.config.shard is not None  # `read_shard_run` refuses a run without one
        return self.config.shard

    def unfinished(self) -> str | None:
        """Why this shard's cells are not all in, or None when it finished."""
        if self.spending is None:
            return "it has no readable summary.json (it stopped, or is still going)"
        if not self.spending.complete:
            return f"its summary says it is not complete ({self.spending.left_undone} cells left undone)"
        if self.run.damaged:
            return f"{self.run.damaged} damaged line(s) of its results.jsonl were skipped"
        return None


def _own_file(path: Path) -> Path | None:
    """A file of the run, or None when it has none. A run's own files are regular files that
    `exp run` wrote: a link (which could lead to any file of the user who merges, or to /dev/zero)
    or a FIFO is refused, never read."""
    try:
        info = path.lstat()
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise MergeRefused(f"{path}: cannot read it ({exc.strerror or exc})") from None
    if stat.S_ISLNK(info.st_mode):
        raise MergeRefused(f"{path} is a symbolic link; exp run never writes one, so it is not read")
    if not stat.S_ISREG(info.st_mode):
        raise MergeRefused(f"{path} is not a regular file")
    return path


def _bounded(path: Path, directory: Path) -> bytes:
    return read_bounded(path, limits().file_bytes, str(directory), "file_bytes", path.name)


def _json(path: Path | None, directory: Path) -> Any:
    """A small JSON file of the run, or None when it is missing or damaged."""
    if path is None:
        return None
    try:
        return json.loads(_bounded(path, directory))
    except (ValueError, RecursionError):  # not JSON, not UTF-8, or nested past Python's stack
        return None


def read_shard_run(folder: RunFolder) -> ShardRun:
    """The shard run in `folder`, read without writing a byte into it; MergeRefused when it is no
    run or no shard, and each file's own refusal (a link, over the file bound) as one line."""
    directory = folder.path
    if not directory.is_dir():
        why = "no such folder" if not directory.exists() else "it is not a folder"
        raise MergeRefused(f"{directory} is not a run folder ({why})")
    results, config_file = _own_file(folder.results_file), _own_file(folder.config_file)
    if results is None or config_file is None:
        missing = folder.results_file.name if results is None else folder.config_file.name
        raise MergeRefused(f"{directory} is not a run folder (no {missing})")
    data = _json(config_file, directory)
    if not isinstance(data, dict):
        raise MergeRefused(f"{config_file} is damaged (not a JSON object): cannot tell which run it is")
    config = saved_config(data, str(config_file))
    if config.shard is None:
        raise MergeRefused(
            f"{directory} is not a shard (its config.json names no shard=i/N); exp merge joins the runs "
            "of shard=1/N .. N/N of one experiment"
        )
    made_by = MadeBy.of(data, str(config_file))
    run = read_results(directory)  # damaged lines are skipped and counted, never moved: no repair
    _refuse_untrusted_rows(directory, config, run)
    log = _own_file(folder.log_file)
    spending = shard_spending(_json(_own_file(folder.summary_file), directory))
    study = _own_file(folder.study_file)
    log_bytes = _bounded(log, directory) if log else b""
    return ShardRun(directory, config, made_by, run, spending, log_bytes, study)


def _refuse_untrusted_rows(directory: Path, config: ExperimentConfig, run: Run) -> None:
    """A row whose reply would be stored under a key its request does not give (or for a model its
    cell does not ask) is refused: merge would file that reply as the answer to another request."""
    for result in run.results:
        why = untrusted_reply(config, result)
        if why is not None:
            cell = result.cell.words
            raise MergeRefused(f"{directory}: the row of the cell {_shown(cell, 120)}: {why}")


@dataclass(frozen=True)
class ShardSet:
    runs: tuple[ShardRun, ...]  # in shard order
    count: int  # N
    missing: tuple[int, ...]  # shard numbers not given

    @property
    def present(self) -> tuple[int, ...]:
        return tuple(run.shard[0] for run in self.runs)


def checked_shards(runs: Sequence[ShardRun]) -> ShardSet:
    """The runs as shards of one run, in shard order; MergeRefused naming the first pair that are of
    different experiments or of different N, the same shard twice, or runs sharing a cell."""
    first = runs[0]
    for other in runs[1:]:
        _refuse_another_experiment(first, other)
        _refuse_other_code(first, other)
        if other.shard[1] != first.shard[1]:
            raise MergeRefused(
                f"{first.directory} is shard {_of(first)} and {other.directory} is shard {_of(other)}: "
                "merge the shards of one N"
            )
    by_index: dict[int, ShardRun] = {}
    for run in runs:
        twin = by_index.setdefault(run.shard[0], run)
        if twin is not run:
            same = twin.directory.resolve() == run.directory.resolve()
            where = f"{run.directory}, twice" if same else f"{twin.directory} and {run.directory}"
            raise MergeRefused(f"shard {_of(run)} is given twice: {where}")
    ordered = tuple(by_index[i] for i in sorted(by_index))
    _refuse_shared_cells(ordered)
    count = first.shard[1]
    return ShardSet(ordered, count, tuple(i for i in range(1, count + 1) if i not in by_index))


def _of(run: ShardRun) -> str:
    return f"{run.shard[0]} of {run.shard[1]}"


def _identity(run: ShardRun) -> str:
    try:
        return run_identity(replace(run.config, shard=None))
    except (OSError, ValueError, RuntimeError) as exc:  # a dataset path with a NUL, a link loop
        raise MergeRefused(f"{run.directory}/config.json: its dataset cannot be resolved ({exc})") from None


def _identity_value(config: ExperimentConfig, name: str) -> Any:
    """A setting as the run's identity takes it (models and strategies in any order are one run)."""
    if name in ("models", "strategies"):
        return sorted(getattr(config, name))
    if name == "dataset":
        return resolved(config.dataset) if config.dataset is not None else None
    return config.to_json()[name]


def _refuse_another_experiment(first: ShardRun, other: ShardRun) -> None:
    if _identity(first) == _identity(other):
        return
    for name in (*RUN_IDENTITY, "dataset", "grader"):
        mine, theirs = _identity_value(first.config, name), _identity_value(other.config, name)
        if mine != theirs:
            raise MergeRefused(
                f"{first.directory} and {other.directory} are runs of different experiments: {name} is "
                f"{_shown(mine)} in the first and {_shown(theirs)} in the second"
            )
    raise MergeRefused(f"{first.directory} and {other.directory} are runs of different experiments")


def _refuse_other_code(first: ShardRun, other: ShardRun) -> None:
    """Shards made by two isodyn versions, or with two sets of prompt templates, asked their cells
    differently: joined, they would pass for one run."""
    for name in MADE_BY:
        mine, theirs = getattr(first.made_by, name), getattr(other.made_by, name)
        if mine != theirs:
            raise MergeRefused(
                f"{first.directory} and {other.directory} were made by different code: {name} is "
                f"{_shown(mine, 70)} in the first and {_shown(theirs, 70)} in the second"
            )


def _shown(value: Any, limit: int = 60) -> str:
    text = json.dumps(value, ensure_ascii=True, default=str)  # a name's control characters escaped
    return text if len(text) <= limit else text[:limit] + "…"


def _refuse_shared_cells(runs: Sequence[ShardRun]) -> None:
    """Shards never share a cell: two that do are not what their configs say (a copy, a hand edit)."""
    owner: dict[CellKey, ShardRun] = {}
    for run in runs:
        for result in run.run.results:
            holder = owner.setdefault(result.key, run)
            if holder is not run:
                c = result.cell
                drawn = "" if c.is_plain else f" render {c.render} perturbation {c.perturbation}"
                raise MergeRefused(
                    f"{holder.directory} and {run.directory} overlap: both hold the cell {c.model} "
                    f"{c.strategy} {c.modality.value} {c.seed_id} variant {c.variant} repeat {c.repeat}"
                    f"{drawn}"
                )


def is_within(path: Path, folder: Path) -> bool:
    """`path` is `folder` or inside it (both resolved, links followed)."""
    return Path(os.path.realpath(path)).is_relative_to(os.path.realpath(folder))
