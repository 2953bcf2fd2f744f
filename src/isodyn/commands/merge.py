"""`exp merge RUN_DIR... [out=DIR] [cache_dir=DIR]`: the runs of shard=1/N .. N/N, each made on its own
machine, joined into the run one machine would have made.

The merged folder is named as `exp run` with the same settings and no shard names its run, under
`out` (default: the first run's parent), so that command finds it: complete, it is replayed into a
new folder; with shards missing, it is resumed and only their cells run. It holds every shard's
rows (each cell once), config.json without the shard, summary.json with the shards' totals, their
log lines, the study file and the report. Every reply the rows hold goes into the cache of
`cache_dir` (an entry already there is kept), so a rerun on this machine calls nothing. The shard
runs are only read.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import tempfile
import time
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path

from isodyn.analysis.run_report import write_report
from isodyn.atomic import write_atomic
from isodyn.cache import ResponseCache
from isodyn.cache.folder import Stores
from isodyn.cache.stores import claim
from isodyn.commands.notices import Notice, Notices, Notify
from isodyn.commands.report import split_words
from isodyn.commands.shard_runs import (
    MergeRefused,
    ShardRun,
    ShardSet,
    checked_shards,
    is_within,
    read_shard_run,
)
from isodyn.errors import ConfigError
from isodyn.experiments.cells import recorded_key
from isodyn.models.requests import Reply
from isodyn.runs.config import ExperimentConfig, default_cache_dir, parse_key_values, read_study
from isodyn.runs.folder import RunFolder
from isodyn.runs.record import CellResult, Status
from isodyn.runs.results import result_line
from isodyn.runs.rundir import new_run_dir, run_lock_path
from isodyn.runs.runlock import RunLock
from isodyn.runs.saved_config import run_config_bytes
from isodyn.runs.summary import MERGE_KEYS, MergedShards, RunSummary


@dataclass(frozen=True)
class MergeRequest:
    runs: tuple[RunFolder, ...]
    out: Path | None = None  # default: the first run's parent
    cache_dir: Path | None = None  # default: the user's cache (`default_cache_dir`)

    @classmethod
    def from_words(cls, words: Sequence[str]) -> MergeRequest:
        """The request `exp merge RUN_DIR... key=value ...` makes (ConfigError on a bad word)."""
        runs, settings = split_words(words)
        chosen = parse_key_values(settings, {"out": Path, "cache_dir": Path})
        if not runs:
            raise ConfigError("name the shard runs to merge: exp merge RUN_DIR... [out=DIR] [cache_dir=DIR]")
        return cls(tuple(RunFolder(run) for run in runs), chosen.get("out"), chosen.get("cache_dir"))


@dataclass(frozen=True)
class StoredReplies:
    stored: int  # replies the cache did not hold, now stored
    known: int  # replies it held already (kept as they were)
    unstored: int  # replies it could not take (a full disk): kept in results.jsonl only
    write_error: str | None = None


@dataclass(frozen=True)
class MergeResult:
    folder: RunFolder  # the merged run, its report.md among its files
    summary: RunSummary
    cache_dir: Path
    replies: StoredReplies
    results: list[CellResult] = field(repr=False)
    notices: tuple[Notice, ...] = ()

    def text(self) -> str:
        """What `exp merge` prints when it is done."""
        shards = self.summary.shards
        assert shards is not None  # a merged run's summary names them
        merged = ", ".join(str(i) for i in shards.merged)
        state = "complete" if self.summary.complete else "not complete"
        return (
            f"merged shards {merged} of {shards.of}: {self.summary.cells} cells, {state}\n"
            f"{self.replies.stored} replies stored in the cache {self.cache_dir} "
            f"({self.replies.known} were there already)\n"
            f"run:     {self.folder.path}\nreport:  {self.folder.report_file}"
        )


def merge_runs(request: MergeRequest, notify: Notify | None = None) -> MergeResult:
    """Check the shard runs, then write the merged run and fill the cache (see the module's note).
    The run is written whole or not at all: in a folder beside it, renamed into place at the end."""
    notices = Notices(notify)
    runs = [read_shard_run(folder) for folder in request.runs]
    for run in runs:
        _tell_set_aside(run, notices)
    shards = checked_shards(runs)
    out = request.out or runs[0].directory.resolve().parent  # the first run named
    cache_dir = request.cache_dir or default_cache_dir()
    _refuse_targets(out, cache_dir, shards.runs)
    config = replace(shards.runs[0].config, shard=None, out=out, cache_dir=cache_dir)
    claim(cache_dir)  # NotACache for a folder isodyn did not make
    results = [result for run in shards.runs for result in run.run.results]
    made_out = None if out.exists() else out  # removed again if the merge fails
    with RunLock(run_lock_path(config)):  # as `exp run` of these settings takes it: one at a time
        try:
            merged = new_run_dir(config)  # its name taken now (empty); its files are written beside it
        except BaseException:
            _unmade(made_out)
            raise
        try:
            replies, summary = _staged(merged, config, shards, results)
        except BaseException:
            _unmade(merged.path, made_out)
            raise
    _tell_unfinished(shards, replies, notices)
    return MergeResult(merged, summary, cache_dir, replies, results, notices.said)


def _staged(
    merged: RunFolder, config: ExperimentConfig, shards: ShardSet, results: list[CellResult]
) -> tuple[StoredReplies, RunSummary]:
    """The merged run written into a hidden folder beside `merged` (its files named as they will
    be), then renamed onto the empty `merged`: a failure on the way (a full disk) leaves no half."""
    staging = Path(tempfile.mkdtemp(prefix=f".{merged.name}.", suffix=".merging", dir=merged.path.parent))
    try:
        folder = RunFolder(staging / merged.name)  # the report is titled with the folder's name
        replies, summary = _write_run(folder, config, shards, results)
        os.replace(folder.path, merged.path)
    finally:
        shutil.rmtree(staging, ignore_errors=True)
    return replies, summary


def _unmade(*folders: Path | None) -> None:
    """After a failed merge: the empty folders it made (the run's, `out`) removed."""
    for folder in folders:
        if folder is not None:
            with contextlib.suppress(OSError):  # not empty: not only ours
                folder.rmdir()


def _write_run(
    folder: RunFolder, config: ExperimentConfig, shards: ShardSet, results: list[CellResult]
) -> tuple[StoredReplies, RunSummary]:
    """Every file of the merged run, written into `folder`; the replies stored in the cache."""
    folder.path.mkdir()
    folder.write_config(run_config_bytes(config, shards.runs[0].made_by))
    write_atomic(folder.results_file, b"".join(result_line(result) for result in results))
    write_atomic(folder.log_file, _joined_logs(shards))
    study = next((run.study for run in shards.runs if run.study is not None), None)
    if study is not None:  # read within the study bound, as `exp run` reads one
        write_atomic(folder.study_file, read_study(study).encode("utf-8"))
    replies = store_replies(results, config)
    summary = _summary(shards, results, replies)
    folder.write_summary(summary)
    write_report(folder, results)
    return replies, summary


def _refuse_targets(out: Path, cache_dir: Path, runs: Sequence[ShardRun]) -> None:
    """Nothing is written into a run that is read, nor over a file."""
    for setting, path in (("out", out), ("cache_dir", cache_dir)):
        if path.exists() and not path.is_dir():
            raise ConfigError(f"{setting}={path} is a file; name a directory")
        inside = next((run.directory for run in runs if is_within(path, run.directory)), None)
        if inside is not None:
            raise MergeRefused(
                f"{setting}={path} is inside the run {inside}; merge never writes into the runs it reads"
            )


def _joined_logs(shards: ShardSet) -> bytes:
    """The shards' log lines in shard order (a line cut by a crash ends where it was cut), then one
    `merge` event. Resuming the merged run counts the calls of the shards' events as spent."""
    parts = [run.log if run.log.endswith(b"\n") or not run.log else run.log + b"\n" for run in shards.runs]
    event = {
        "t": round(time.time(), 3), "event": "merge", "shards": list(shards.present), "of": shards.count,
        "missing": list(shards.missing), "from": [str(run.directory) for run in shards.runs],
    }  # fmt: skip
    return b"".join(parts) + (json.dumps(event, ensure_ascii=False) + "\n").encode()


def store_replies(results: Sequence[CellResult], config: ExperimentConfig) -> StoredReplies:
    """Every reply the rows' transcripts hold, into the reply cache of `config` under the key of the
    request its row records (recomputed as the run computes it, never read from the row), as a
    resumed run stores them (`runner._received`); a key the cache holds already keeps its entry."""
    store = ResponseCache(Stores(config.cache_dir).responses)
    stored = known = 0
    try:
        for result in results:
            for call in result.transcript:
                if call.key is None or call.response is None:
                    continue  # a call that failed returned nothing
                key = recorded_key(config, result.cell, call)
                if key in store:
                    known += 1
                    continue
                reply = Reply(call.response, call.prompt_tokens, call.completion_tokens, call.cost_usd,
                              call.latency_s)  # fmt: skip
                stored += store.put(key, reply)
    finally:
        store.close()
    return StoredReplies(stored, known, store.unstored, store.write_error)


def _summary(shards: ShardSet, results: Sequence[CellResult], replies: StoredReplies) -> RunSummary:
    """summary.json of the merged run (`MERGE_KEYS`): the rows' counts, the shards' spending summed."""
    spent = [run.spending for run in shards.runs if run.spending is not None]
    statuses = [result.outcome.status for result in results]
    unfinished = tuple(run.shard[0] for run in shards.runs if run.unfinished())
    return RunSummary(
        cells=len(results),
        # every shard given, finished, its rows whole, its replies cached
        complete=not shards.missing and not unfinished and not replies.unstored,
        left_undone=sum(s.left_undone for s in spent),
        calls_made=sum(s.calls_made for s in spent),
        cache_hits=sum(s.cache_hits for s in spent),
        retries=sum(s.retries for s in spent),
        cost_usd=round(sum(s.cost_usd for s in spent), 6),
        skipped=statuses.count(Status.SKIPPED),
        errors=statuses.count(Status.ERROR),
        extraction_failed=statuses.count(Status.EXTRACTION_FAILED),
        graded=statuses.count(Status.OK),
        correct=sum(bool(result.correct) for result in results),
        not_renderable=spent[0].not_renderable if spent else (),
        seconds=round(sum(s.seconds for s in spent), 3),  # machine time, not wall time
        shards=MergedShards(shards.count, tuple(shards.present), tuple(shards.missing), unfinished),
        merged_from=tuple(str(run.directory) for run in shards.runs),
        not_cached=replies.unstored,
        keys=MERGE_KEYS,
    )


def _tell_set_aside(run: ShardRun, notices: Notices) -> None:
    """A warning on the rows of a shard that were skipped (its folder is left as it is)."""
    said = []
    if run.run.damaged:
        said.append(
            f"{run.run.damaged} damaged line(s) of results.jsonl skipped (the first, {run.run.first_problem})"
        )
    if run.run.duplicates:
        said.append(f"{run.run.duplicates} duplicate row(s) of cells already read ignored")
    if said:
        notices.say("warning", f"{run.directory}: {'; '.join(said)}")


def _tell_unfinished(shards: ShardSet, replies: StoredReplies, notices: Notices) -> None:
    """A warning for each reason the merged run is not complete, and how to finish it."""
    if shards.missing:
        numbers = ", ".join(str(i) for i in shards.missing)
        notices.say(
            "warning",
            f"shard(s) {numbers} of {shards.count} missing: the merged run is not complete; merge again "
            "with them, or finish it here with `exp run` and the same settings without shard=",
        )
    for run in shards.runs:
        why = run.unfinished()
        if why:
            notices.say(
                "warning", f"shard {run.shard[0]} of {run.shard[1]} ({run.directory}) is not finished: {why}"
            )
    if replies.unstored:
        notices.say(
            "warning",
            f"{replies.unstored} replies could not be stored in the cache ({replies.write_error}); they are "
            "kept in results.jsonl, and the merged run is marked not complete so a rerun stores them",
        )
