"""A run's directory over its life: its identity, a new folder or the unfinished one to resume, what earlier
processes of it spent, and what `exp cache stats` remembers of the last run."""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import re
import sys
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path

from isodyn.atomic import write_atomic
from isodyn.core import DEFAULT_RENDER, NO_PERTURBATION, JsonObject
from isodyn.datasets.kinds import resolved
from isodyn.runs.config import ExperimentConfig
from isodyn.runs.folder import RunFolder
from isodyn.runs.record import LOCAL_FAILURE, Cell, CellKey, CellResult
from isodyn.runs.results import DAMAGED_FILE
from isodyn.runs.runlock import RunLock
from isodyn.runs.summary import RunSummary
from isodyn.scoring import DEFAULT_GRADER
from isodyn.textsafe import visible

# The settings that decide which cells exist and what each asks; two commands that agree on these
# are the same run (so an unfinished one is resumed), whatever their concurrency or budget.
RUN_IDENTITY = ("models", "strategies", "modalities", "seeds", "variants", "base_seed", "repeats",
                "temperature", "max_tokens", "api_base", "describer", "vision")  # fmt: skip


def run_identity(config: ExperimentConfig) -> str:
    # The dataset only when there is one, so runs on generated seeds keep their identity.
    extra: JsonObject = {"dataset": resolved(config.dataset)} if config.dataset is not None else {}
    if config.shard is not None:  # each shard is a run of its own; `exp merge` joins them
        extra["shard"] = list(config.shard)
    if config.grader != DEFAULT_GRADER:  # the default is left out so earlier runs keep their identity
        extra["grader"] = config.grader
    if config.renders != (DEFAULT_RENDER,):  # the same: a run of plain pictures and questions keeps it
        extra["renders"] = sorted(config.renders)
    if config.perturbations != (NO_PERTURBATION,):
        extra["perturbations"] = sorted(config.perturbations)
    # the same models and strategies in another order are the same run
    extra |= {"models": sorted(config.models), "strategies": sorted(config.strategies)}
    return config.digest(RUN_IDENTITY, **extra)[:12]


def run_lock_path(config: ExperimentConfig) -> Path:
    """The lock of a run identity under one `out` directory (kept in the cache, not among the runs)."""
    where = hashlib.sha256(str(config.out.resolve()).encode()).hexdigest()[:12]
    return config.cache_dir / "locks" / f"{where}-{run_identity(config)}.lock"


def open_run_dir(config: ExperimentConfig, resume: bool = True) -> tuple[RunFolder, list[CellResult]]:
    """The latest unfinished run with this identity (to resume, with its results), or a new folder."""
    identity = run_identity(config)
    earlier = run_folders(config.out, identity)
    if resume and earlier and not earlier[-1].is_complete():
        # Taken before the read: setting damaged lines aside rewrites results.jsonl, which another
        # process (another cache_dir, so another run lock) may be appending to; it stops here.
        with RunLock(earlier[-1].lock_file):
            # a run that stopped before its first row resumes with none; damaged lines are set aside
            return earlier[-1], earlier[-1].results(repair=True, missing_ok=True).results
    stamp = datetime.now(UTC).strftime("%Y%m%d-%H%M%S")
    run_dir = config.out / f"{stamp}-{identity}"
    while run_dir.exists():  # two runs in the same second
        stamp += "x"
        run_dir = config.out / f"{stamp}-{identity}"
    run_dir.mkdir(parents=True)
    return RunFolder(run_dir), []


def unchanged_since(folder: RunFolder, config: ExperimentConfig, digest: str | None) -> RunFolder | None:
    """The latest earlier complete run of these settings whose rows (order and cache flags aside)
    are the ones `folder` just wrote, with its report: a cached rerun need not write it again."""
    if not digest:
        return None
    for earlier in reversed(run_folders(config.out, run_identity(config))):
        if earlier == folder or not earlier.is_complete():
            continue
        if _digest_of(earlier) != digest:
            return None  # the results changed since (or its summary cannot be read)
        if earlier.report_file.is_file():
            return earlier
    return None


def share_identical_results(
    folder: RunFolder, config: ExperimentConfig, digest: str | None
) -> RunFolder | None:
    """Make `folder`'s results.jsonl a hard link to that of the latest earlier complete run of these
    settings holding the same bytes (a cached rerun writes the rows of the rerun before it): one
    copy on disk; that run, or None (both kept as they are: no such run, or no link can be made
    here). Nothing appends to a file with other names (`own_results`) and a repair swaps in a new
    file, so neither run's rows can change the other's."""
    mine = folder.results_file
    for earlier in reversed(run_folders(config.out, run_identity(config))):
        if earlier == folder or not earlier.is_complete():
            continue
        if _digest_of(earlier) != digest or not digest:
            return None  # the results changed since
        theirs = earlier.results_file
        try:
            if mine.stat().st_size != theirs.stat().st_size or mine.read_bytes() != theirs.read_bytes():
                continue  # the same rows, other bytes (the cache flags of a first, live run)
            linked = folder.path / f".results.jsonl.{os.getpid()}.link"
            linked.unlink(missing_ok=True)
            os.link(theirs, linked)
            os.replace(linked, mine)
        except OSError:
            return None
        return earlier
    return None


def _digest_of(folder: RunFolder) -> str | None:
    """The results digest a run's summary.json records; None when it cannot be read."""
    summary = folder.summary()
    return summary.results_digest if summary is not None else None


def own_results(folder: RunFolder) -> None:
    """Before a run appends to its results.jsonl: when the file has other names (shared with an
    identical earlier run), swap in a copy of its own, so the other names' file is never written."""
    path = folder.results_file
    try:
        shared = path.lstat().st_nlink > 1 and path.is_file() and not path.is_symlink()
    except OSError:
        return
    if shared:
        write_atomic(path, path.read_bytes())


def run_folders(out: Path, identity: str) -> list[RunFolder]:
    """The run folders of an identity under `out`, oldest first. Only the names `open_run_dir` gives
    (a stamp, an x per clash within a second, the identity) count: a folder whose name merely ends
    in the identity (a user's `old-<identity>` backup) is never resumed into."""
    if not out.is_dir():
        return []
    own = re.compile(rf"\d{{8}}-\d{{6}}x*-{re.escape(identity)}")
    return [RunFolder(p) for p in sorted(p for p in out.iterdir() if own.fullmatch(p.name) and p.is_dir())]


def new_run_dir(config: ExperimentConfig) -> RunFolder:
    """A fresh folder, never a resumed one."""
    return open_run_dir(config, resume=False)[0]


def cell_of(row: JsonObject) -> CellKey:
    """A results.jsonl row's cell (as `CellResult.cell`; a row without render or perturbation is a
    plain cell)."""
    return Cell.from_json(row).key


SPENDING = ("calls_made", "cache_hits", "retries", "cost_usd")


def earlier_spending(log_path: Path, done: list[CellResult]) -> dict[str, float]:
    """What earlier processes of a resumed run spent: requests, retries and cost from their events
    in log.jsonl (every request sent leaves one), cache hits from the transcripts of their cells."""
    spent = dict.fromkeys(SPENDING, 0.0)
    spent["cache_hits"] = float(sum(bool(c.cache_hit) for r in done for c in r.transcript))
    if not log_path.is_file():  # a run resumed with no row may still have paid (batch replies)
        return spent
    for line in log_path.read_text(encoding="utf-8", errors="replace").splitlines():
        try:
            event = json.loads(line)
        except ValueError:
            continue  # a line cut by a crash
        kind = event.get("event") if isinstance(event, dict) else None
        if kind in ("call", "retry", "error"):
            spent["calls_made"] += 1
            spent["retries"] += kind == "retry"
            spent["cost_usd"] += float(event.get("cost_usd") or 0.0)
    return spent


def without_local_failures(folder: RunFolder, done: list[CellResult]) -> list[CellResult]:
    """The resumed rows less the cells that failed on this machine, which run again; their rows
    leave results.jsonl (rewritten whole, atomically) so each cell keeps one row."""
    kept = [r for r in done if r.reason != LOCAL_FAILURE]
    if len(kept) < len(done):
        _drop_rows(folder, lambda row: row.get("reason") == LOCAL_FAILURE)
    return kept


def without_untrusted(
    folder: RunFolder, done: list[CellResult], untrusted: dict[Cell, str]
) -> list[CellResult]:
    """The resumed rows less those whose replies are not trusted (`untrusted`: cell -> why): their
    lines move to results.damaged.jsonl, as damaged lines do, their cells run again, and a warning
    on stderr names the first (as the reply cache warns: the run goes on)."""
    if not untrusted:
        return done
    cells = {cell.key for cell in untrusted}
    aside = _drop_rows(folder, lambda row: _cell_or_none(row) in cells)
    with folder.damaged_file.open("ab") as damaged:
        damaged.write(b"".join(aside))
    (cell, why), count = next(iter(untrusted.items())), len(untrusted)
    sys.stderr.write(
        f"warning: {folder.path}: {count} row(s) of results.jsonl not trusted, moved to {DAMAGED_FILE}; "
        f"the first, cell {visible(cell.words)}: {visible(why)}; "
        "their cells run again\n"
    )
    return [r for r in done if r.cell not in untrusted]


def _drop_rows(folder: RunFolder, dropped: Callable[[JsonObject], bool]) -> list[bytes]:
    """Rewrite results.jsonl (whole, atomically) without the rows `dropped` picks; their lines."""
    path = folder.results_file
    kept: list[bytes] = []
    gone: list[bytes] = []
    for line in path.read_bytes().splitlines(keepends=True):
        row = _row(line)
        (gone if row is not None and dropped(row) else kept).append(line)
    temporary = path.with_suffix(".jsonl.tmp")
    temporary.write_bytes(b"".join(kept))
    temporary.replace(path)
    return gone


def _row(line: bytes) -> JsonObject | None:
    try:
        row = json.loads(line)
    except ValueError:
        return None
    return row if isinstance(row, dict) else None


def _cell_or_none(row: JsonObject) -> CellKey | None:
    """The row's cell (as `cell_of`), or None for a row that does not name one."""
    try:
        cell = cell_of(row)
        hash(cell)
    except (KeyError, TypeError, ValueError):
        return None
    return cell


def remember_last_run(cache_dir: Path, summary: RunSummary, folder: RunFolder) -> None:
    """For `exp cache stats`: the last run's calls and hits."""
    lookups = summary.calls_made + summary.cache_hits
    record = {
        "run_dir": str(folder.path),
        "calls_made": summary.calls_made,
        "cache_hits": summary.cache_hits,
        "hit_rate": summary.cache_hits / lookups if lookups else None,
    }
    # only for `exp cache stats`; a full or read-only cache folder is said elsewhere
    with contextlib.suppress(OSError):
        (cache_dir / "last_run.json").write_text(json.dumps(record, indent=2) + "\n")
