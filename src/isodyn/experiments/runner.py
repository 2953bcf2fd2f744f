"""Executing a planned run: replay what the cache holds, run the rest concurrently, append each record
to results.jsonl as it finishes, and write the summary (`execute`); `estimate.dry_run` counts and
prices a run instead.

Side effects live here (files, the cache, litellm); what a cell *means* comes from the pure layers.
"""

from __future__ import annotations

import asyncio
import functools
import gc
import hashlib
import time
from collections.abc import Callable, Coroutine
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, BinaryIO

from isodyn.cache import ResponseCache, cache_key
from isodyn.cache.folder import Stores
from isodyn.cache.renders import RenderCache
from isodyn.cache.stores import claim
from isodyn.errors import IsodynError
from isodyn.experiments.batch import BatchHook, BatchParts, run_batches
from isodyn.experiments.cells import RunMaterials, recorded_key, run_cell, untrusted_reply
from isodyn.experiments.grid import Grid
from isodyn.experiments.llm import (
    Budget,
    BudgetExhausted,
    CachedClient,
    CacheMiss,
    Limits,
    RunLog,
)
from isodyn.experiments.memo import ReplayMemo
from isodyn.experiments.plan import Plan
from isodyn.experiments.regrade import judge_during_run, judge_settings, needs_judge
from isodyn.experiments.tally import RowTally
from isodyn.models.preflight import preflight
from isodyn.models.requests import ModelRequest, Reply
from isodyn.runs.config import ExperimentConfig
from isodyn.runs.folder import RunFolder
from isodyn.runs.record import Cell, CellResult
from isodyn.runs.results import result_line
from isodyn.runs.rundir import (
    earlier_spending,
    own_results,
    remember_last_run,
    without_local_failures,
    without_untrusted,
)
from isodyn.runs.runlock import RunLock
from isodyn.runs.saved_config import MadeBy, run_config_bytes
from isodyn.runs.summary import RunSummary
from isodyn.runs.verdict_book import kept_by_the_run


@dataclass
class RunOutcome:
    """A finished run: its folder and summary. Its rows are read from results.jsonl when first asked
    for (the run held counts, not rows, so its memory did not grow with the grid)."""

    folder: RunFolder
    summary: RunSummary

    @functools.cached_property
    def results(self) -> list[CellResult]:
        return list(self.folder.results().results)

    @property
    def rows(self) -> list[dict[str, Any]]:
        """The results as results.jsonl holds them."""
        return [result.to_row() for result in self.results]


def summarize(
    tally: RowTally, client: CachedClient, grid: Grid, seconds: float, left_undone: int
) -> RunSummary:
    counts = tally.counts()
    return RunSummary(
        cells=counts["cells"],
        complete=left_undone == 0,
        left_undone=left_undone,
        calls_made=client.calls_made,
        cache_hits=client.cache_hits,
        retries=client.retries,
        cost_usd=round(client.cost_usd, 6),
        skipped=counts["skipped"],
        errors=counts["errors"],
        extraction_failed=counts["extraction_failed"],
        truncated=counts["truncated"],
        graded=counts["graded"],
        judged=counts["judged"],
        decided_by_judge=counts["decided_by_judge"],
        correct=counts["correct"],
        not_renderable=tuple(f"{seed}:{modality.value}" for seed, modality in grid.not_renderable),
        not_perturbable=tuple(f"{seed}:{name}" for seed, name in grid.not_perturbable) or None,
        seconds=round(seconds, 3),
    )


ProgressHook = Callable[[CellResult, CachedClient], None]


def _limits(config: ExperimentConfig) -> Limits:
    return Limits(
        concurrency=config.concurrency, rpm=config.rpm, tpm=config.tpm, max_retries=config.max_retries,
        timeout_s=config.timeout,
    )  # fmt: skip


async def execute(
    plan: Plan,
    folder: RunFolder,
    on_row: ProgressHook | None = None,
    done: list[CellResult] | None = None,
    on_batch: BatchHook | None = None,
) -> RunOutcome:
    """Run every cell not in `done`; append each finished result to results.jsonl at once.

    One pass over the cells replays every cell whose calls are all cached (no task, no gate: a
    replay is a few dictionary look-ups) and starts each other cell as a task at once, so the first
    call leaves while later cells are still replayed or drawn; the tasks run concurrently through
    the per-model gates (with batch=1 the misses are held back for batch jobs first). A cell
    refused by the budget is left undone (no row), so rerunning the same command with a larger
    budget resumes it. summary.json says whether the run is complete.
    """
    started = time.perf_counter()
    lock = RunLock(folder.lock_file).acquire()  # one writer per run folder, whoever calls
    try:
        return await _execute(plan, folder, on_row, done, started, on_batch)
    finally:
        lock.release()


async def _execute(
    plan: Plan,
    folder: RunFolder,
    on_row: ProgressHook | None,
    done: list[CellResult] | None,
    started: float,
    on_batch: BatchHook | None = None,
) -> RunOutcome:
    config = plan.config
    claim(config.cache_dir)  # a run asks for a cache: the folder is marked as isodyn's
    if plan.remembered is not None:
        plan.remembered.save()  # the next plan of these models needs no litellm
    folder.write_config(run_config_bytes(config, MadeBy.here()))
    stores = Stores(config.cache_dir)
    earlier = earlier_spending(folder.log_file, done or [])
    log = RunLog(folder.log_file)
    parts = open_parts(plan, stores.responses, stores.renders, log)
    memo = ReplayMemo(config.cache_dir, config, {name: p.digest for name, p in plan.renders.items()})
    received, untrusted = _received(done or [], config, parts.responses)
    done = without_local_failures(folder, without_untrusted(folder, done or [], untrusted))
    finished = {r.cell for r in done}
    todo = [c for c in plan.grid.cells if c not in finished]  # a Cell equals its row's tuple
    log.event("start", cells=len(plan.grid.cells), resumed_rows=len(done), todo=len(todo))
    # The plan, the seeds and every imported module live until the end: take them out of the cyclic
    # collector's sight, or each full collection rescans them (a tenth of a cached rerun's time).
    gc.freeze()
    own_results(folder)  # never append through a link to an earlier run's rows
    try:
        # A large buffer: replayed rows are written in big blocks; live rows are flushed one by one.
        with (
            folder.results_file.open("ab", buffering=1 << 20) as lines,
            kept_by_the_run(folder.path) as keep_verdicts,  # so a report need not grade them again
        ):
            recorder = Recorder(lines, keep_verdicts, on_row)
            execution = Execution(plan, folder, parts, memo, received, recorder)
            for earlier_result in done:
                execution.recorder.count(earlier_result)
            await execution.run(todo, log, on_batch)
    finally:
        parts.close()
        memo.close()
    resumed = bool(done) or any(earlier.values())
    summary = execution.summary(time.perf_counter() - started, earlier if resumed else None)
    local_problem, summary = _local_problem(execution.recorder.tally, parts.responses, summary)
    folder.write_summary(summary)
    log.event(
        "end", cells=summary.cells, calls_made=summary.calls_made, cache_hits=summary.cache_hits,
        left_undone=summary.left_undone, cost_usd=summary.cost_usd,
    )  # fmt: skip
    log.close()
    remember_last_run(config.cache_dir, summary, folder)
    if execution.stopped:
        raise ModelUnavailable(execution.stopped)
    if local_problem:
        raise LocalFailure(local_problem)
    return RunOutcome(folder, summary)


@dataclass
class RunParts:
    """What a run and a dry run both work with: the reply cache, the drawings, the client in front of
    litellm and the seeds' variants."""

    responses: ResponseCache
    renders: RenderCache
    client: CachedClient
    materials: RunMaterials

    def close(self) -> None:
        self.responses.close()
        self.renders.close()


def open_parts(plan: Plan, responses: Path, renders: Path, log: RunLog | None = None) -> RunParts:
    """The stores opened in the given folders and the client over them (a log and the budget for a
    run; neither for a dry run, which spends nothing)."""
    config = plan.config
    cache_store, drawings = ResponseCache(responses), RenderCache(renders)
    if log is None:
        client = CachedClient(cache_store, _limits(config))
    else:
        budget = Budget(config.max_cost)
        client = CachedClient(cache_store, _limits(config), budget, log, api_key_env=config.api_key_env)
    materials = RunMaterials(plan.seeds, config.base_seed, drawings, plan.renders)
    return RunParts(cache_store, drawings, client, materials)


@dataclass
class Recorder:
    """Where each finished cell goes: its line appended to results.jsonl, its verdicts kept, its counts
    tallied (the summary's, and the digest of the rows), and the progress hook told."""

    lines: BinaryIO
    keep_verdicts: Callable[[CellResult], None]
    on_row: ProgressHook | None
    tally: RowTally = field(default_factory=RowTally)
    fingerprint: ResultsFingerprint = field(default_factory=lambda: ResultsFingerprint())  # defined below

    def count(self, result: CellResult) -> None:
        """A row an earlier process wrote: counted, not written again."""
        self.tally.add(result)
        self.fingerprint.add(result_line(result))

    def record(self, result: CellResult, client: CachedClient, flush: bool = True) -> None:
        line = result_line(result)
        self.lines.write(line)
        self.keep_verdicts(result)
        self.fingerprint.add(line)
        if flush:
            self.lines.flush()  # a crash loses at most the cells still in flight
        self.tally.add(result)
        if self.on_row:
            self.on_row(result, client)


class Execution:
    """One process's pass over a grid's unfinished cells, and the one owner of its counts: cells left
    undone, the model that stopped the run, and the cache hits of a replay that missed after all.

    Every cell is first replayed (no task, no gate: a replay is a few dictionary look-ups); a cell
    that misses starts as a task at once, so the first call leaves while later cells are still
    replayed or drawn. No more tasks than cells in flight are made: a 100,000-cell grid holds a few
    hundred started cells, not one task per cell."""

    def __init__(
        self, plan: Plan, folder: RunFolder, parts: RunParts, memo: ReplayMemo, received: dict[str, Reply],
        recorder: Recorder,
    ) -> None:  # fmt: skip
        self.plan, self.folder, self.parts, self.memo = plan, folder, parts, memo
        self.client, self.received, self.recorder = parts.client, received, recorder
        self.judge = judge_settings(plan.config)
        self.undone = 0
        self.stopped: str | None = None
        self.attempt_hits = 0  # cache hits of the cell being replayed, given back if it misses
        self.checked: set[str] = set()  # models whose server was checked before their first call
        self.in_flight: set[asyncio.Task[None]] = set()
        self.cells_in_flight = asyncio.Semaphore(max(1, plan.config.concurrency * len(plan.models) * 2))

    # --- where a cell's replies come from ------------------------------------------------------
    def reused(self, request: ModelRequest, hashed: Any) -> tuple[Reply, str, bool] | None:
        """A reply an earlier process of this run received (held by its rows): never paid twice."""
        if not self.received:
            return None
        key = cache_key(request, hashed)
        if key not in self.received:
            return None
        self.client.cache_hits += 1
        return self.received[key], key, True

    async def replayed(self, request: ModelRequest, hashed: Any) -> tuple[Reply, str, bool]:
        found = self.reused(request, hashed)
        answer = found or await self.client.complete(request, replay_only=True, hashed_messages=hashed)
        self.attempt_hits += 1  # a miss raised above
        return answer

    async def live(self, request: ModelRequest, hashed: Any) -> tuple[Reply, str, bool]:
        found = self.reused(request, hashed)
        return found or await self.client.complete(request, hashed_messages=hashed)

    # --- the pass ----------------------------------------------------------------------------------
    async def run(self, todo: list[Cell], log: RunLog, on_batch: BatchHook | None) -> None:
        config = self.plan.config
        pending: list[Cell] = []  # cache misses held back for batch jobs (batch=1)
        for cell in todo:
            self.attempt_hits = 0
            try:
                result = await run_cell(
                    self.plan, cell, self.parts.materials, self.client, self.folder.path, self.replayed,
                    self.memo,
                )  # fmt: skip
                if self.judge is not None and needs_judge(result):
                    await self._launch(functools.partial(self._judged_then_recorded, result))
                else:
                    self._record(result, flush=False)  # a replayed cell costs nothing to redo: no flush each
            except CacheMiss:
                # the attempt's hits (replies earlier cells already brought) count when it runs;
                # not a reset of the counter: calls in flight count theirs meanwhile
                self.client.cache_hits -= self.attempt_hits
                if config.batch:
                    pending.append(cell)
                else:
                    await self._start_live(cell)
            if self.in_flight:
                await asyncio.sleep(0)  # let the calls in flight take their replies
        self.recorder.lines.flush()
        if config.batch and pending:  # the misses as provider batch jobs (experiments/batch.py)
            parts = BatchParts(self.parts.materials, self.client, self.folder, self.replayed, log)
            batched = await run_batches(self.plan, pending, parts, on_batch)
            pending, self.undone = batched.live, self.undone + batched.undone
        for cell in pending:  # what batch jobs left to live calls
            await self._start_live(cell)
        while self.in_flight:
            await asyncio.gather(*self.in_flight)

    def summary(self, seconds: float, earlier: dict[str, float] | None) -> RunSummary:
        """The run's summary; with `earlier` (a resumed run, or replies batch jobs stored before any
        cell finished), the totals cover every process that worked on it."""
        summary = summarize(self.recorder.tally, self.client, self.plan.grid, seconds, self.undone)
        if earlier is not None:
            summary = replace(
                summary,
                this_process=summary.spending(),
                calls_made=int(summary.calls_made + earlier["calls_made"]),
                cache_hits=int(summary.cache_hits + earlier["cache_hits"]),
                retries=int(summary.retries + earlier["retries"]),
                cost_usd=round(summary.cost_usd + earlier["cost_usd"], 6),
            )
        return replace(
            summary,
            results_digest=self.recorder.fingerprint.hexdigest(),
            max_cost=self.client.budget.limit_usd,
            stopped=self.stopped or None,
        )

    def _record(self, result: CellResult, flush: bool = True) -> None:
        self.recorder.record(result, self.client, flush)

    async def _judged(self, result: CellResult) -> CellResult:
        """The cell with the judge's reading when the rules could not settle it (`judge=`)."""
        if self.judge is None:
            return result
        return await judge_during_run(result, self.judge, self.client)

    async def _launch(self, work: Callable[[], Coroutine[Any, Any, None]]) -> None:
        """Start `work` as a task once a cell may be in flight (waiting for one to end)."""
        await self.cells_in_flight.acquire()
        task = asyncio.create_task(work())
        self.in_flight.add(task)
        task.add_done_callback(self._ended)

    def _ended(self, task: asyncio.Task[None]) -> None:
        self.in_flight.discard(task)
        self.cells_in_flight.release()

    async def _guarded(self, cell: Cell) -> None:
        try:
            finished = await run_cell(
                self.plan, cell, self.parts.materials, self.client, self.folder.path, self.live, self.memo
            )
            finished = await self._judged(finished)
        except BudgetExhausted:
            self.undone += 1
            return
        self._record(finished)

    async def _judged_then_recorded(self, result: CellResult) -> None:
        """A replayed cell the judge reads (its call may be live): recorded once read."""
        try:
            result = await self._judged(result)
        except BudgetExhausted:
            self.undone += 1  # resumed later: its replies are cached, only the judge is asked
            return
        self._record(result)

    async def _start_live(self, cell: Cell) -> None:
        """Send a missed cell as soon as it may go. Before a model's first live call, it is checked
        once: one that cannot be called at all stops every new call (its cells are left undone,
        nothing is paid), not one retried error per cell."""
        if cell.model not in self.checked:
            self.checked.add(cell.model)
            self.stopped = self.stopped or _unavailable({cell.model}, self.plan.config.api_base)
        if self.stopped:
            self.undone += 1
            return
        await self._launch(functools.partial(self._guarded, cell))


class ResultsFingerprint:
    """A digest of a run's rows that ignores their order and whether each call came from the cache:
    a cached rerun of a finished run has the same one, so its report need not be written again."""

    def __init__(self) -> None:
        self._sum = 0

    def add(self, line: bytes) -> None:
        # Inside a JSON string a quote is escaped, so this byte sequence is only ever the field.
        normal = line.replace(b'"cache_hit":true', b'"cache_hit":false')
        normal = normal.replace(b'"cache_hit": true', b'"cache_hit": false')  # json's spelling
        self._sum = (self._sum + int.from_bytes(hashlib.sha256(normal).digest(), "big")) % (1 << 256)

    def hexdigest(self) -> str:
        return f"{self._sum:064x}"


class ModelUnavailable(IsodynError, RuntimeError):
    """A model of the grid cannot be called at all; the cells that need it were left undone."""


class LocalFailure(ModelUnavailable):
    """Cells failed on this machine, or replies could not be cached: the run is not complete.
    A ModelUnavailable so that `exp run` says it as it says that one: one line, finished cells
    kept, exit 2."""


def _received(
    done: list[CellResult], config: ExperimentConfig, cache_store: ResponseCache
) -> tuple[dict[str, Reply], dict[Cell, str]]:
    """Every reply the resumed rows hold, by the key of the request each records (recomputed, never
    read from the row), and the rows not trusted, with why (`untrusted_reply`): their replies are
    not taken. Each reply the cache lacks (it could not be stored then) is stored now if it can be.
    The runner reuses these instead of asking again."""
    received: dict[str, Reply] = {}
    untrusted: dict[Cell, str] = {}
    for result in done:
        why = untrusted_reply(config, result)
        if why is not None:
            untrusted[result.cell] = why
            continue
        for call in result.transcript:
            if call.key is not None and call.response is not None:
                received[recorded_key(config, result.cell, call)] = Reply(
                    call.response,
                    call.prompt_tokens,
                    call.completion_tokens,
                    call.cost_usd,
                    call.latency_s,
                    call.finish_reason,
                )
    for key, reply in received.items():
        if key not in cache_store:
            cache_store.put(key, reply)
    return received, untrusted


def _local_problem(
    tally: RowTally, cache_store: ResponseCache, summary: RunSummary
) -> tuple[str, RunSummary]:
    """One line on what failed on this machine ('' when nothing did), and the summary, marked
    incomplete when something did."""
    failed = tally.local_failures
    if not failed and not cache_store.unstored:
        return "", summary
    summary = replace(summary, complete=False, local_failures=failed, not_cached=cache_store.unstored)
    said = []
    if failed:
        said.append(f"{failed} cells failed on this machine ({tally.first_local_error})")
    if cache_store.unstored:
        said.append(
            f"{cache_store.unstored} replies could not be stored in the cache ({cache_store.write_error}); "
            "they are kept in results.jsonl"
        )
    return (
        f"{' and '.join(said)}; the run is not complete: fix what it names and run the same command "
        "again (replies already received are reused, not paid for again)"
    ), summary


def _unavailable(models: set[str], api_base: str | None) -> str | None:
    """The first model (in name order) that cannot be called, as one line, or None."""
    for model in sorted(models):
        problem = preflight(model, api_base)
        if problem:
            return problem
    return None
