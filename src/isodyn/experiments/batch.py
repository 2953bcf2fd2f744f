"""Batch mode (`batch=1`): the run's cache misses sent as provider batch jobs instead of live calls.

`run_batches` takes the cells the replay pass could not finish and works in rounds: collect the
requests they need (each cell run with a backend that notes every cache miss), send the new ones as
jobs (deduplicated by cache key, one model and at most `batch_size` requests a job), wait for the
jobs, and store every reply in the response cache, where a later run replays it. A multi-step
strategy's next request is known only after its first reply, so rounds go on until no cell needs a
new request. What it returns goes to the live pass: the cells now fully cached (replayed there), and
with batch_fallback=live the cells whose items failed or expired.

Jobs are recorded in RUN/batches.jsonl (`batch_ledger`): a process that stops waiting (`batch_wait`,
Ctrl-C, a crash) leaves their cells undone, and the same command polls the jobs again; a request a
pending job holds is never sent again. Each reply is logged as a `call` event (with its batch id and
its cost at the batch price), so a resumed run's totals count it once.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import Any

from isodyn.cache import cache_key
from isodyn.experiments.batch_jobs import (
    MAX_FILE_BYTES,
    Endpoint,
    ItemResult,
    estimate_batch_cost,
    provider_of,
    request_line,
    results,
    status,
    submit,
)
from isodyn.experiments.call_errors import error_reason
from isodyn.experiments.cells import Backend, RunMaterials, run_cell
from isodyn.experiments.llm import BudgetExhausted, CachedClient, CacheMiss, RunLog, is_transient
from isodyn.experiments.plan import Plan
from isodyn.experiments.redaction import redact_secrets
from isodyn.models.requests import ModelRequest, replicas_of
from isodyn.runs.batch_ledger import BatchJob, BatchLedger
from isodyn.runs.folder import RunFolder
from isodyn.runs.record import Cell


@dataclass(frozen=True)
class PollTiming:
    """How often pending jobs are polled: first after `first_s`, then `growth` times longer each
    time, never more than `max_s` apart (providers finish in minutes to a day)."""

    first_s: float = 10.0
    growth: float = 1.5
    max_s: float = 300.0


POLL = PollTiming()  # module-level so tests can make it fast


@dataclass(frozen=True)
class BatchProgress:
    """Batch jobs of this run as this process knows them, and the cells waiting on them. `note` is
    a line for the user when the process stops with cells undone."""

    submitted: int
    in_progress: int
    done: int
    failed: int
    cells_waiting: int
    note: str = ""


BatchHook = Callable[[BatchProgress], None]


@dataclass(frozen=True)
class BatchParts:
    """What the runner lends batch mode: `backend` replays (from the cache or earlier rows of the
    run) and raises CacheMiss for a request nobody holds."""

    materials: RunMaterials
    client: CachedClient
    folder: RunFolder
    backend: Backend
    log: RunLog


@dataclass
class BatchOutcome:
    live: list[Cell]  # for the live pass: fully cached now, or items failed with fallback=live
    undone: int  # cells left for a later run (jobs still pending, or items failed with undone)


@dataclass
class _Round:
    """One collection over the waiting cells."""

    ready: list[Cell] = field(default_factory=list)  # every call cached: the live pass replays them
    failed: list[Cell] = field(default_factory=list)  # an item of theirs failed in a job
    refused: list[Cell] = field(default_factory=list)  # max_cost refused an item of theirs
    waiting: list[Cell] = field(default_factory=list)
    wanted: dict[str, ModelRequest] = field(default_factory=dict)  # by cache key, for waiting cells


async def run_batches(
    plan: Plan, cells: list[Cell], parts: BatchParts, on_progress: BatchHook | None = None
) -> BatchOutcome:
    """Send what `cells` need as batch jobs, in rounds, until none needs a new request or
    `batch_wait` has passed; the cells for the live pass, and how many were left undone."""
    return await _BatchRun(plan, parts, on_progress).run(cells)


class _BatchRun:
    def __init__(self, plan: Plan, parts: BatchParts, on_progress: BatchHook | None) -> None:
        self.plan = plan
        self.config = plan.config
        self.parts = parts
        self.client = parts.client
        self.log = parts.log
        self.ledger = BatchLedger(parts.folder.path)
        self.on_progress = on_progress
        # the first replica: a job is polled where it was made, so the ledger names the server
        self.server = replicas_of(self.config.api_base)[0] if self.config.api_base else None
        self.active = {job.batch_id: job for job in self.ledger.pending()}  # earlier processes' too
        self.known = len(self.active)
        self.done = 0
        self.failed_jobs = 0
        self.failed_keys: dict[str, str] = {}  # key -> why, for this process
        self.refused_keys: set[str] = set()
        self.reserved: dict[str, float] = {}  # key -> the budget estimate held for it
        self.waiting = 0
        self._shown: BatchProgress | None = None

    async def run(self, cells: list[Cell]) -> BatchOutcome:
        deadline = time.monotonic() + self.config.batch_wait
        live: list[Cell] = []
        undone = failed_undone = 0
        waiting = cells
        polled = False
        if self.active:
            self.log.event("batch_resume", jobs=len(self.active))
        while True:
            found = await self._collect(waiting)
            live += found.ready
            if self.config.batch_fallback == "live":
                live += found.failed
            else:
                failed_undone += len(found.failed)
            undone += len(found.refused)
            waiting = found.waiting
            self.waiting = len(waiting)
            if await self._submit(found.wanted):
                continue  # items failed to go out: their cells are sorted again, none resubmitted
            self._show()
            if not waiting:
                break
            if not self.active:  # cannot happen (every key of an ended job is stored or failed)
                undone += len(waiting)
                break
            if polled and time.monotonic() >= deadline:
                undone += len(waiting)
                self._show(self._wait_note(len(waiting)))
                break
            await self._wait(deadline)
            polled = True
        if failed_undone:
            self._show(
                f"{failed_undone} cells left undone: batch items of theirs failed or expired "
                "(batch_fallback=undone); run the same command again to send them again"
            )
        self.log.event(
            "batch_end", live=len(live), undone=undone + failed_undone, jobs_pending=len(self.active)
        )
        return BatchOutcome(live, undone + failed_undone)

    # ---- collect -------------------------------------------------------------------------------

    async def _collect(self, cells: list[Cell]) -> _Round:
        """Run each cell with a backend that notes its cache misses and sort the cells by them.
        Bookkeeping, not the run: the cache hits it makes are not counted."""
        found = _Round()
        pending = {key for job in self.active.values() for key in job.keys}
        hits = self.client.cache_hits
        for cell in cells:
            missed: dict[str, ModelRequest] = {}
            try:
                await run_cell(
                    self.plan, cell, self.parts.materials, self.client, self.parts.folder.path,
                    self._noting(missed),
                )  # fmt: skip
            except CacheMiss:
                # a cell whose samples run together (sc@k) noted only the first miss: let the others
                # reach theirs, so one round collects them all
                await asyncio.sleep(0)
            if not missed:
                found.ready.append(cell)
            elif any(key in pending for key in missed):  # never asked elsewhere while a job holds it
                found.waiting.append(cell)
                settled = self.failed_keys.keys() | self.refused_keys  # not sent again by this process
                found.wanted.update((k, r) for k, r in missed.items() if k not in settled)
            elif any(key in self.failed_keys for key in missed):
                found.failed.append(cell)
            elif any(key in self.refused_keys for key in missed):
                found.refused.append(cell)
            else:
                found.waiting.append(cell)
                found.wanted.update(missed)
        self.client.cache_hits = hits
        return found

    def _noting(self, missed: dict[str, ModelRequest]) -> Backend:
        backend = self.parts.backend

        async def noting(request: ModelRequest, hashed: Any) -> Any:
            try:
                return await backend(request, hashed)
            except CacheMiss:
                missed[cache_key(request, hashed)] = request
                raise

        return noting

    # ---- submit --------------------------------------------------------------------------------

    async def _submit(self, wanted: dict[str, ModelRequest]) -> bool:
        """Send the wanted requests no pending job holds, one model per job; True when some of them
        failed to go out (their keys are failed now)."""
        pending = {key for job in self.active.values() for key in job.keys}
        by_model: dict[str, dict[str, ModelRequest]] = {}
        for key, request in wanted.items():
            if key not in pending:
                by_model.setdefault(request.model, {})[key] = request
        before = len(self.failed_keys)
        for model, requests in by_model.items():
            name, provider = provider_of(model, self.server)
            endpoint = Endpoint(provider, self.server, self.config.api_key_env, self.config.timeout)
            for chunk in self._chunks(requests, name, provider):
                await self._send(model, endpoint, chunk)
        return len(self.failed_keys) > before

    def _chunks(self, requests: dict[str, ModelRequest], name: str, provider: str) -> list[dict[str, bytes]]:
        """The requests' lines in jobs of at most batch_size lines and MAX_FILE_BYTES; a request that
        cannot be written (parameters the model refuses) or that max_cost refuses is set aside."""
        chunks: list[dict[str, bytes]] = [{}]
        size = 0
        for key, request in requests.items():
            try:
                line = request_line(key, request, name, provider)
            except Exception as exc:  # as live: the same request would fail there, recorded on its cell
                self._fail(key, f"{error_reason(exc)}: {exc}")
                continue
            try:
                estimate = estimate_batch_cost(request)
                self.client.budget.reserve(estimate)
            except BudgetExhausted:
                self.refused_keys.add(key)
                continue
            self.reserved[key] = estimate
            if len(chunks[-1]) >= self.config.batch_size or (
                chunks[-1] and size + len(line) > MAX_FILE_BYTES
            ):
                chunks.append({})
                size = 0
            chunks[-1][key] = line
            size += len(line)
        return [chunk for chunk in chunks if chunk]

    async def _send(self, model: str, endpoint: Endpoint, chunk: dict[str, bytes]) -> None:
        try:
            batch_id, file_id = await submit(endpoint, b"".join(chunk.values()), self.parts.folder.name)
        except Exception as exc:
            self.log.event(
                "batch_error",
                model=model,
                requests=len(chunk),
                reason=error_reason(exc),
                detail=str(exc)[:300],
            )
            self.failed_jobs += 1
            for key in chunk:
                self._fail(key, error_reason(exc))
            return
        job = BatchJob(batch_id, file_id, model, endpoint.provider, endpoint.api_base, tuple(chunk))
        self.ledger.submitted(job)  # before anything else: a crash from here on loses no job
        self.log.event("batch_submitted", model=model, batch_id=batch_id, requests=len(chunk))
        self.active[batch_id] = job
        self.known += 1

    def _fail(self, key: str, why: str) -> None:
        self.failed_keys[key] = why
        self.client.budget.settle(self.reserved.pop(key, 0.0), 0.0)

    # ---- wait and store ------------------------------------------------------------------------

    async def _wait(self, deadline: float) -> None:
        """Poll every active job until all have ended or the deadline passed (polled at least once)."""
        interval = POLL.first_s
        while True:
            await asyncio.gather(*(self._poll(job) for job in list(self.active.values())))
            self._show()
            left = deadline - time.monotonic()
            if not self.active or left <= 0:
                return
            await asyncio.sleep(min(interval, left))
            interval = min(interval * POLL.growth, POLL.max_s)

    def _endpoint(self, job: BatchJob) -> Endpoint:
        return Endpoint(job.provider, job.api_base, self.config.api_key_env, self.config.timeout)

    async def _poll(self, job: BatchJob) -> None:
        endpoint = self._endpoint(job)
        try:
            state = await status(endpoint, job.batch_id)
        except Exception as exc:
            lost = not is_transient(exc)  # the provider says no such job: it will never answer
            self.log.event("batch_poll_error", batch_id=job.batch_id, reason=error_reason(exc), lost=lost)
            if lost:
                self._ended(job, "lost", {})
            return
        if not state.final:
            return
        try:
            found = await results(endpoint, job.model, state)
        except Exception as exc:  # the files could not be read now: a later run reads them again
            self.log.event(
                "batch_error", batch_id=job.batch_id, reason=error_reason(exc), detail=str(exc)[:300]
            )
            del self.active[job.batch_id]
            self.failed_jobs += 1
            for key in job.keys:
                self._fail(key, f"batch {state.status}, output unreadable")
            return
        self._ended(job, state.status, found)

    def _ended(self, job: BatchJob, state: str, found: dict[str, ItemResult]) -> None:
        """Store the job's replies, fail the rest of its keys, and record that it ended."""
        answered = 0
        for key in job.keys:
            item = found.get(key)
            if item is None or item.reply is None:
                why = item.error if item and item.error else f"not answered (batch {state})"
                self._fail(key, why)
                self.log.event("batch_item_failed", batch_id=job.batch_id, key=key, reason=why)
                continue
            reply = replace(item.reply, text=redact_secrets(item.reply.text))  # a server that echoes the key
            self.client.calls_made += 1
            self.client.cost_usd += reply.cost_usd
            self.client.budget.settle(self.reserved.pop(key, 0.0), reply.cost_usd)
            # a "call" event: what `rundir.earlier_spending` counts when the run is resumed
            self.log.event(
                "call", model=job.model, key=key, attempt=0, batch_id=job.batch_id, latency_s=0.0,
                prompt_tokens=reply.prompt_tokens, completion_tokens=reply.completion_tokens,
                cost_usd=reply.cost_usd,
            )  # fmt: skip
            if not self.client.cache.put(key, reply):  # paid, but its cells cannot replay it
                self._fail(key, "could not be stored in the cache")
                continue
            answered += 1
        self.ledger.ended(job, state, answered, len(job.keys) - answered)
        self.log.event("batch_ended", batch_id=job.batch_id, status=state, answered=answered)
        del self.active[job.batch_id]
        if state == "completed":
            self.done += 1
        else:
            self.failed_jobs += 1

    # ---- progress ------------------------------------------------------------------------------

    def _show(self, note: str = "") -> None:
        progress = BatchProgress(
            self.known,
            len(self.active),
            self.done,
            self.failed_jobs,
            self.waiting if self.active else 0,
            note,
        )
        if self.on_progress and (note or progress != self._shown):
            self.on_progress(progress)
        self._shown = progress

    def _wait_note(self, cells: int) -> str:
        jobs = len(self.active)
        return (
            f"{cells} cells wait on {jobs} batch job{'s' if jobs != 1 else ''} still running at the provider "
            f"(ids in {self.ledger.path}); run the same command again to collect them"
        )
