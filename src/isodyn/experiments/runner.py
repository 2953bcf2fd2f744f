"""Run an experiment: check everything, expand the grid, run cells concurrently, append each row.

Side effects live here (files, the cache, litellm); what a cell *means* comes from the pure layers.
"""

from __future__ import annotations

import asyncio
import contextlib
import gc
import hashlib
import json
import os
import re
import socket
import sqlite3
import tempfile
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime
from functools import cache
from pathlib import Path
from typing import Any

from isodyn.cache import ResponseCache, cache_key
from isodyn.cache.stores import claim, store_conflict
from isodyn.core import Modality, Representation, Variant
from isodyn.datasets import ReleaseError
from isodyn.datasets.kinds import load_dataset, resolved
from isodyn.errors import IsodynError
from isodyn.experiments.config import ConfigError, ExperimentConfig, vision_override
from isodyn.experiments.grid import MAX_CELLS, Cell, Grid, expand_grid, grid_size
from isodyn.experiments.llm import (
    Budget,
    BudgetExhausted,
    CachedClient,
    CacheMiss,
    Limits,
    RunLog,
    caused_by,
    error_reason,
    estimate_cost,
    exception_chain,
    redact,
)
from isodyn.experiments.memo import Replay, ReplayMemo
from isodyn.experiments.runlock import RunLock
from isodyn.generators import SeedProgram, all_seeds
from isodyn.generators.render_cache import RenderCache
from isodyn.models.catalog import ModelError, ModelInfo, describe_model, is_local, missing_api_key
from isodyn.models.engine import EngineCrashed
from isodyn.models.preflight import preflight
from isodyn.models.requests import ModelRequest, Reply, clean_reply, hash_images
from isodyn.record import Call, CellResult, Labels, Outcome, Status, Usage
from isodyn.results import load_rows, read_results, result_line
from isodyn.scoring import DEFAULT_GRADER, Question, Tolerance, score_reply
from isodyn.strategies import (
    CellContext,
    ComposedStrategy,
    Describer,
    Grading,
    ModelFacts,
    Preparation,
    Service,
    Services,
    StrategyError,
    parse_strategy,
)
from isodyn.strategies.fewshot import DEMO_INDEX_START

# `exp run` with no seeds named: a small grid that finishes in minutes on the embedded model.
DEFAULT_SEEDS = ("dynamath_shifted_abs", "isobench_parity", "isobench_connectivity")


@dataclass(frozen=True)
class Plan:
    """A checked experiment, ready to run: nothing in it can fail for a reason the user typed."""

    config: ExperimentConfig
    seeds: dict[str, SeedProgram]
    strategies: dict[str, ComposedStrategy]  # by canonical name
    models: dict[str, ModelInfo]
    describer: ModelInfo | None
    grid: Grid


def _alias_of(config: ExperimentConfig, model: str) -> tuple[str, str, str] | None:
    """(the short name, its vision fact, where it was defined) when `model` came from an alias."""
    for name, target, vision, source in config.aliases:
        if target == model:
            return name, vision, source
    return None


def _checked_model(name: str, config: ExperimentConfig) -> ModelInfo:
    alias = _alias_of(config, name)
    vision = vision_override(config, name)
    if vision == "auto" and alias and alias[1]:
        vision = alias[1]  # the alias table says whether it reads images
    try:
        info = describe_model(name, config.api_base, vision)  # type: ignore[arg-type]
    except ModelError as exc:
        if alias:
            raise ModelError(f"{exc} (alias {alias[0]!r} from {alias[2]})") from None
        raise
    missing = missing_api_key(name, config.api_base)
    if missing:
        raise ModelError(f"model {name!r} needs the environment variable {missing}; set it and run again")
    return info


def _checked_strategies(config: ExperimentConfig) -> dict[str, ComposedStrategy]:
    strategies = {}
    for spec in config.strategies:
        try:
            strategy = parse_strategy(spec)
        except StrategyError as exc:
            raise ConfigError(str(exc)) from exc
        accepted = strategy.modalities
        if accepted is not None and not accepted.intersection(config.modalities):
            needed = ", ".join(sorted(m.value for m in accepted))
            chosen = ", ".join(m.value for m in config.modalities)
            raise ConfigError(f"strategy {strategy.name} needs the {needed} modality; chosen: {chosen}")
        strategies[strategy.name] = strategy
    return strategies


def _checked_seeds(config: ExperimentConfig) -> dict[str, SeedProgram]:
    if config.dataset is not None:
        keys = () if config.seeds == ("all",) else config.seeds
        try:
            released = load_dataset(config.dataset, keys)
        except ReleaseError as exc:
            raise ConfigError(str(exc)) from exc
        available = next(iter(released.values())).variant_space
        if config.variants > available:
            raise ConfigError(f"variants={config.variants}, but {config.dataset} has {available} trials")
        return released
    known_seeds = all_seeds()
    chosen = tuple(known_seeds) if config.seeds == ("all",) else config.seeds or DEFAULT_SEEDS
    unknown = [s for s in chosen if s not in known_seeds]
    if unknown:
        raise ConfigError(f"unknown seed {unknown[0]!r}; valid: {', '.join(known_seeds)}")
    if config.variants > DEMO_INDEX_START:
        raise ConfigError(f"variants must be at most {DEMO_INDEX_START} (higher indices are demonstrations)")
    return {s: known_seeds[s] for s in chosen}


def _checked_directory(path: Path, setting: str) -> None:
    """`path` is a directory, or can be made one, that this process may write in."""
    if path.exists() and not path.is_dir():
        raise ConfigError(f"{setting}={path} is a file; name a directory")
    existing = path
    while not existing.exists() and existing != existing.parent:
        existing = existing.parent
    if not existing.is_dir() or not os.access(existing, os.W_OK | os.X_OK):
        raise ConfigError(f"{setting}={path}: cannot write in {existing}")


def _checked_cache(root: Path) -> None:
    """The cache's store names in `root` are free or isodyn's (checked only: a dry run writes nothing)."""
    try:
        conflict = store_conflict(root) if root.is_dir() else None
    except OSError as exc:
        raise ConfigError(f"cache_dir={root}: cannot read it ({exc.strerror or exc})") from None
    if conflict:
        raise ConfigError(f"cache_dir={root} is not an isodyn cache ({conflict}); name another folder")


def _checked_vision(config: ExperimentConfig) -> None:
    """A list in vision= names models of the run (`vision=maybe` is a typo, not a model)."""
    if config.vision in ("auto", "yes", "no"):
        return
    named = set(config.models) | ({config.describer} if config.describer else set())
    unknown = [m for m in config.vision.split(",") if m not in named]
    if unknown:
        raise ConfigError(
            f"vision={config.vision}: {unknown[0]!r} is not a model of this run; use auto, yes, no, or "
            "a comma list of the run's models that read images"
        )


def plan_experiment(config: ExperimentConfig) -> Plan:
    """Validate every name in the config; raise ConfigError or ModelError before anything is written."""
    _checked_directory(config.out, "out")
    _checked_directory(config.cache_dir, "cache_dir")
    _checked_cache(config.cache_dir)
    _checked_vision(config)
    seeds = _checked_seeds(config)
    strategies = _checked_strategies(config)
    models = {name: _checked_model(name, config) for name in config.models}
    describer = _checked_model(config.describer, config) if config.describer else None
    if describer and not describer.vision:
        raise ConfigError(f"describer {describer.name} has no vision (name it in vision=MODEL if it does)")
    size = grid_size(
        len(config.models), len(strategies), config.modalities, seeds, config.variants, config.repeats
    )
    if size > MAX_CELLS:
        raise ConfigError(
            f"the grid has {size:,} cells, more than {MAX_CELLS:,}; choose fewer variants, repeats, "
            "seeds, strategies or models"
        )
    grid = expand_grid(
        config.models, tuple(strategies), config.modalities, seeds, config.variants, config.repeats
    )
    if not grid.cells:
        raise ConfigError("the grid is empty: no chosen seed renders any chosen modality")
    return Plan(config, seeds, strategies, models, describer, grid)


@dataclass
class RunOutcome:
    run_dir: Path
    summary: dict[str, Any]
    results: list[CellResult] = field(default_factory=list, repr=False)  # asyncio logs reprs

    @property
    def rows(self) -> list[dict[str, Any]]:
        """The results as results.jsonl holds them."""
        return [result.to_row() for result in self.results]


# The settings that decide which cells exist and what each asks; two commands that agree on these
# are the same run (so an unfinished one is resumed), whatever their concurrency or budget.
RUN_IDENTITY = ("models", "strategies", "modalities", "seeds", "variants", "base_seed", "repeats",
                "temperature", "max_tokens", "api_base", "describer", "vision")  # fmt: skip


def run_identity(config: ExperimentConfig) -> str:
    # The dataset only when there is one, so runs on generated seeds keep their identity.
    extra: dict[str, Any] = {"dataset": resolved(config.dataset)} if config.dataset is not None else {}
    if config.grader != DEFAULT_GRADER:  # the default is left out so earlier runs keep their identity
        extra["grader"] = config.grader
    # the same models and strategies in another order are the same run
    extra |= {"models": sorted(config.models), "strategies": sorted(config.strategies)}
    return config.digest(RUN_IDENTITY, **extra)[:12]


def run_lock_path(config: ExperimentConfig) -> Path:
    """The lock of a run identity under one `out` directory (kept in the cache, not among the runs)."""
    where = hashlib.sha256(str(config.out.resolve()).encode()).hexdigest()[:12]
    return config.cache_dir / "locks" / f"{where}-{run_identity(config)}.lock"


def is_complete(run_dir: Path) -> bool:
    """Finished, by its summary; a missing or damaged summary (a crash while writing it) is not."""
    try:
        return bool(json.loads((run_dir / "summary.json").read_text()).get("complete", True))
    except (OSError, ValueError, AttributeError):
        return False


def open_run_dir(config: ExperimentConfig, resume: bool = True) -> tuple[Path, list[CellResult]]:
    """The latest unfinished run with this identity (to resume, with its results), or a new directory."""
    identity = run_identity(config)
    earlier = run_folders(config.out, identity)
    if resume and earlier and not is_complete(earlier[-1]):
        # Taken before the read: setting damaged lines aside rewrites results.jsonl, which another
        # process (another cache_dir, so another run lock) may be appending to; it stops here.
        with RunLock(earlier[-1] / ".lock"):
            # a run that stopped before its first row resumes with none; damaged lines are set aside
            return earlier[-1], read_results(earlier[-1], repair=True, missing_ok=True).results
    stamp = datetime.now(UTC).strftime("%Y%m%d-%H%M%S")
    run_dir = config.out / f"{stamp}-{identity}"
    while run_dir.exists():  # two runs in the same second
        stamp += "x"
        run_dir = config.out / f"{stamp}-{identity}"
    run_dir.mkdir(parents=True)
    return run_dir, []


def run_folders(out: Path, identity: str) -> list[Path]:
    """The run folders of an identity under `out`, oldest first. Only the names `open_run_dir` gives
    (a stamp, an x per clash within a second, the identity) count: a folder whose name merely ends
    in the identity (a user's `old-<identity>` backup) is never resumed into."""
    if not out.is_dir():
        return []
    own = re.compile(rf"\d{{8}}-\d{{6}}x*-{re.escape(identity)}")
    return sorted(p for p in out.iterdir() if own.fullmatch(p.name) and p.is_dir())


def new_run_dir(config: ExperimentConfig) -> Path:
    """A fresh directory, never a resumed one."""
    return open_run_dir(config, resume=False)[0]


class _Materials:
    """Variants and renderings for strategies: variants made once per run, renderings memoized on disk."""

    def __init__(self, seeds: dict[str, SeedProgram], base_seed: int, renders: RenderCache) -> None:
        self.seeds = seeds
        self._base_seed = base_seed
        self._renders = renders
        self.variant = cache(self._variant)

    def _variant(self, seed_id: str, index: int) -> Variant:
        return self._renders.variant(self.seeds[seed_id], index, self._base_seed)

    def render(self, variant: Variant, modality: Modality) -> Representation:
        return self._renders.representation(self.seeds[variant.seed_id], variant, modality)


def _generation_params(config: ExperimentConfig, model: str, repeat: int, sample: int) -> dict[str, Any]:
    params: dict[str, Any] = {"temperature": config.temperature, "max_tokens": config.max_tokens}
    if is_local(model):
        # reproducible, distinct samples per repeat and sample for the local model
        params["seed"] = repeat * 1000 + sample
    return params


def _asked(variant: Variant) -> Question:
    """The question of a variant as its cell records it (compared with the default tolerance)."""
    return Question(
        variant.answer, variant.answer_type, variant.choices, variant.question,
        variant.params.get("answer_unit") == "%", Tolerance(), variant.solution,
    )  # fmt: skip


def _labels(variant: Variant) -> Labels:
    return Labels(variant.topic.value, variant.level.value, tuple(v.value for v in variant.variation_types))


def _context(
    plan: Plan, cell: Cell, materials: _Materials, client: CachedClient, run_dir: Path
) -> CellContext:
    """The cell as its strategy sees it: its facts, and only the services the strategy declared."""
    config = plan.config
    needs = plan.strategies[cell.strategy].needs
    solver = plan.models[cell.model]
    describer = plan.describer
    services = Services(
        materials=materials if Service.MATERIALS in needs else None,
        describer=(
            Describer(ModelFacts(describer.name, describer.vision) if describer else None)
            if Service.DESCRIBER in needs
            else None
        ),
        preparation=(
            Preparation(
                complete=_cleaned(client.reply),
                api_base=config.api_base,
                generation={"temperature": config.temperature, "max_tokens": config.max_tokens},
                run_dir=run_dir,
                cache_dir=config.cache_dir,
            )
            if Service.PREPARATION in needs
            else None
        ),
        grading=Grading(config.grader) if Service.GRADING in needs else None,
    )
    return CellContext(
        seed_id=cell.seed_id,
        index=cell.variant,
        modality=cell.modality,
        repeat=cell.repeat,
        base_seed=config.base_seed,
        solver=ModelFacts(solver.name, solver.vision),
        services=services,
    )


# (request, its messages with images hashed) -> (reply, cache key, cache hit)
Backend = Callable[[ModelRequest, Any], Awaitable[tuple[Reply, str, bool]]]


async def _run_cell(
    plan: Plan,
    cell: Cell,
    materials: _Materials,
    client: CachedClient,
    run_dir: Path,
    backend: Backend,
    memo: ReplayMemo | None = None,
) -> CellResult:
    """One cell's result. `backend` makes (or replays, or estimates) each call; a CacheMiss (replay-only
    pass) or BudgetExhausted propagates so the cell is left for later instead of recorded. With a
    `memo`, a cell that ran before is replayed from it, and a cell that runs now is stored in it."""
    strategy = plan.strategies[cell.strategy]
    if memo is not None and not (strategy.memoizable and plan.seeds[cell.seed_id].memoizable):
        memo = None
    remembered = _from_memo(memo, cell, client) if memo is not None else None
    if remembered is not None:
        calls, replay = remembered
        scored = replay.scored_variant()
        return _scored(cell, scored, replay.response, replay.notes, calls, plan.config.grader)
    variant = materials.variant(cell.seed_id, cell.variant)
    ctx = _context(plan, cell, materials, client, run_dir)
    reason = strategy.skip_reason(variant, cell.modality, ctx)  # decided before anything is drawn
    if reason:
        return CellResult(
            cell=cell, asked=_asked(variant), labels=_labels(variant), outcome=Outcome(Status.SKIPPED, reason)
        )
    transcript: list[Call] = []
    try:
        reply = await _run_strategy(plan, cell, strategy, variant, materials, ctx, backend, transcript)
    except (CacheMiss, BudgetExhausted):
        raise
    except Exception as exc:  # a failed call is recorded on its cell; the run goes on
        local = is_local_failure(exc)
        failed = Outcome.from_reason(
            LOCAL_FAILURE if local else error_reason(exc),
            redact(_local_cause(exc) if local else str(exc))[:500],
        )
        calls = tuple(transcript)
        return CellResult(
            cell=cell, asked=_asked(variant), labels=_labels(variant), outcome=failed, calls=calls,
            usage=replace(Usage.of(calls), cache_hit=None), notes=ctx.notes,
        )  # fmt: skip
    scored = ctx.scored_variant or variant
    if memo is not None:
        other = None if scored is variant else scored.to_json()
        memo.put(cell, Replay(variant, tuple(transcript), reply.text, ctx.notes, other))
    return _scored(cell, scored, reply.text, ctx.notes, tuple(transcript), plan.config.grader)


# A cell that failed on this machine (disk, permissions, a store), not at the model: the run is not
# complete, and resuming it runs the cell again, with every reply it had received reused.
LOCAL_FAILURE = "error:local"


def is_local_failure(exc: BaseException) -> bool:
    """A failure of this machine's disk or files rather than of the model or the network (socket
    errors, timeouts and refused connections are OSErrors too, and are not local)."""
    if isinstance(exc, sqlite3.Error) or caused_by(exc, EngineCrashed):
        return True  # a store failed, or the embedded engine's native code died on this CPU
    network = (ConnectionError, TimeoutError, socket.gaierror, socket.herror)
    return isinstance(exc, OSError) and not isinstance(exc, network)


def _local_cause(exc: BaseException) -> str:
    """What failed on this machine, in its own words (not litellm's wrapper and its traceback)."""
    local = (link for link in exception_chain(exc) if isinstance(link, (EngineCrashed, sqlite3.Error)))
    cause = next(local, exc)
    return str(cause) if isinstance(cause, EngineCrashed) else f"{type(cause).__name__}: {cause}"


Complete = Callable[[ModelRequest], Awaitable[Reply]]


def _cleaned(complete: Complete) -> Complete:
    """A strategy's call outside the transcript (a description): its text goes into later prompts."""

    async def cleaned(request: ModelRequest) -> Reply:
        return clean_reply(await complete(request))

    return cleaned


def _scored(
    cell: Cell,
    scored: Variant,
    text: str,
    notes: dict[str, Any],
    calls: tuple[Call, ...],
    grader: str = DEFAULT_GRADER,
) -> CellResult:
    """The result of a cell whose strategy finished: the final reply graded against `scored` (the
    variant the strategy asked about, which a permuting strategy may have reordered)."""
    score = score_reply(text, scored, grader=grader)
    return CellResult(
        cell=cell, asked=_asked(scored), labels=_labels(scored), outcome=Outcome(Status(score.reason)),
        scores={score.grader: score}, decided_by=score.grader, response=text, calls=calls,
        usage=Usage.of(calls), notes=notes,
    )  # fmt: skip


async def _run_strategy(
    plan: Plan,
    cell: Cell,
    strategy: ComposedStrategy,
    variant: Variant,
    materials: _Materials,
    ctx: CellContext,
    backend: Backend,
    transcript: list[Call],
) -> Reply:
    """Draw the cell's representation and run its strategy; every call is appended to `transcript`."""
    representation = materials.render(variant, cell.modality)

    async def ask(
        messages: list[dict[str, Any]], step: str, *, model: str | None = None, sample: int = 0
    ) -> Reply:
        chosen = model or cell.model
        request = ModelRequest(
            model=chosen,
            messages=messages,
            params=_generation_params(plan.config, chosen, cell.repeat, sample),
            api_base=plan.config.api_base,
            repeat=cell.repeat,
            step=step,
            sample=sample,
        )
        asked = Call(step=step, model=chosen, sample=sample, messages=hash_images(messages))
        place = len(transcript)
        transcript.append(asked)  # in call order, even if the call fails
        reply, key, hit = await backend(request, asked.messages)
        reply = clean_reply(reply)  # where a reply enters the record: text UTF-8 can encode
        transcript[place] = replace(
            asked, key=key, cache_hit=hit, response=reply.text, prompt_tokens=reply.prompt_tokens,
            completion_tokens=reply.completion_tokens, cost_usd=reply.cost_usd,
            latency_s=round(reply.latency_s, 4),
        )  # fmt: skip
        return reply

    return await strategy.run(variant, representation, ask, ctx)


def _from_memo(memo: ReplayMemo, cell: Cell, client: CachedClient) -> tuple[tuple[Call, ...], Replay] | None:
    """The cell's calls from its memo entry (every call a cache hit), or None."""
    replay = memo.get(cell)
    if replay is None:
        return None
    calls = tuple(replace(call, cache_hit=True) for call in replay.calls)
    client.cache_hits += len(calls)
    return calls, replay


def cell_of(row: dict[str, Any]) -> tuple[str, str, str, str, int, int]:
    """A results.jsonl row's cell (as `CellResult.cell`)."""
    return (row["model"], row["strategy"], row["modality"], row["seed_id"], row["variant"], row["repeat"])


def summarize(
    results: list[CellResult], client: CachedClient, grid: Grid, seconds: float, left_undone: int
) -> dict[str, Any]:
    statuses = [r.outcome.status for r in results]
    return {
        "cells": len(results),
        "complete": left_undone == 0,
        "left_undone": left_undone,
        "calls_made": client.calls_made,
        "cache_hits": client.cache_hits,
        "retries": client.retries,
        "cost_usd": round(client.cost_usd, 6),
        "skipped": statuses.count(Status.SKIPPED),
        "errors": statuses.count(Status.ERROR),
        "extraction_failed": statuses.count(Status.EXTRACTION_FAILED),
        "graded": statuses.count(Status.OK),
        "correct": sum(bool(r.correct) for r in results),
        "not_renderable": [f"{seed}:{modality.value}" for seed, modality in grid.not_renderable],
        "seconds": round(seconds, 3),
    }


ProgressHook = Callable[[CellResult, CachedClient], None]
SPENDING = ("calls_made", "cache_hits", "retries", "cost_usd")


def earlier_spending(log_path: Path, done: list[CellResult]) -> dict[str, float]:
    """What earlier processes of a resumed run spent: requests, retries and cost from their events
    in log.jsonl (every request sent leaves one), cache hits from the transcripts of their cells."""
    spent = dict.fromkeys(SPENDING, 0.0)
    spent["cache_hits"] = float(sum(bool(c.cache_hit) for r in done for c in r.transcript))
    if not done or not log_path.is_file():
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


def _limits(config: ExperimentConfig) -> Limits:
    return Limits(
        concurrency=config.concurrency, rpm=config.rpm, tpm=config.tpm, max_retries=config.max_retries,
        timeout_s=config.timeout,
    )  # fmt: skip


async def execute(
    plan: Plan,
    run_dir: Path,
    on_row: ProgressHook | None = None,
    done: list[CellResult] | None = None,
) -> RunOutcome:
    """Run every cell not in `done`; append each finished result to results.jsonl at once.

    Pass 1 replays, one cell after another, every cell whose calls are all cached (no task, no
    gate: a replay is a few dictionary look-ups). Pass 2 runs the rest concurrently through the
    per-model gates. A cell refused by the budget is left undone (no row), so rerunning the same
    command with a larger budget resumes it. summary.json says whether the run is complete.
    """
    started = time.perf_counter()
    lock = RunLock(run_dir / ".lock").acquire()  # one writer per run directory, whoever calls
    try:
        return await _execute(plan, run_dir, on_row, done, started)
    finally:
        lock.release()


async def _execute(
    plan: Plan, run_dir: Path, on_row: ProgressHook | None, done: list[CellResult] | None, started: float
) -> RunOutcome:
    config = plan.config
    claim(config.cache_dir)  # a run asks for a cache: the folder is marked as isodyn's
    (run_dir / "config.json").write_text(json.dumps(config.to_json(), indent=2, allow_nan=False) + "\n")
    cache_store = ResponseCache(config.cache_dir / "responses")
    renders = RenderCache(config.cache_dir / "renders")
    memo = ReplayMemo(config.cache_dir, config)
    earlier = earlier_spending(run_dir / "log.jsonl", done or [])
    received = _received(done or [], cache_store)
    done = _without_local_failures(run_dir, done or [])
    log = RunLog(run_dir / "log.jsonl")
    client = CachedClient(
        cache_store, _limits(config), Budget(config.max_cost), log, api_key_env=config.api_key_env
    )
    materials = _Materials(plan.seeds, config.base_seed, renders)
    results: list[CellResult] = list(done or [])
    finished = {r.cell for r in results}
    todo = [c for c in plan.grid.cells if c not in finished]  # a Cell equals its row's tuple
    log.event("start", cells=len(plan.grid.cells), resumed_rows=len(results), todo=len(todo))
    undone = 0
    stopped: str | None = None

    def reused(request: ModelRequest, hashed: Any) -> tuple[Reply, str, bool] | None:
        """A reply an earlier process of this run received (held by its rows): never paid twice."""
        if not received:
            return None
        key = cache_key(request, hashed)
        if key not in received:
            return None
        client.cache_hits += 1
        return received[key], key, True

    async def replayed(request: ModelRequest, hashed: Any) -> tuple[Reply, str, bool]:
        found = reused(request, hashed)
        return found or await client.complete(request, replay_only=True, hashed_messages=hashed)

    async def live(request: ModelRequest, hashed: Any) -> tuple[Reply, str, bool]:
        found = reused(request, hashed)
        return found or await client.complete(request, hashed_messages=hashed)

    # The plan, the seeds and every imported module live until the end: take them out of the cyclic
    # collector's sight, or each full collection rescans them (a tenth of a cached rerun's time).
    gc.freeze()
    try:
        # A large buffer: replayed rows are written in big blocks; live rows are flushed one by one.
        with (run_dir / "results.jsonl").open("ab", buffering=1 << 20) as lines:

            def record(result: CellResult, flush: bool = True) -> None:
                lines.write(result_line(result))
                if flush:
                    lines.flush()  # a crash loses at most the cells still in flight
                results.append(result)
                if on_row:
                    on_row(result, client)

            pending = []
            for cell in todo:
                try:
                    result = await _run_cell(plan, cell, materials, client, run_dir, replayed, memo)
                    record(result, flush=False)  # a replayed cell costs nothing to redo: no flush each
                except CacheMiss:
                    pending.append(cell)
            lines.flush()
            # Before the first live call: a model that cannot be called at all stops the run here
            # (its cells are left undone, nothing is paid), not one retried error per cell.
            stopped = _unavailable({c.model for c in pending}, config.api_base)
            if stopped:
                undone, pending = len(pending), []
            cells_in_flight = asyncio.Semaphore(max(1, config.concurrency * len(plan.models) * 2))

            async def guarded(cell: Cell) -> CellResult | None:
                async with cells_in_flight:
                    try:
                        return await _run_cell(plan, cell, materials, client, run_dir, live, memo)
                    except BudgetExhausted:
                        return None

            for task in asyncio.as_completed([guarded(c) for c in pending]):
                finished_cell = await task
                if finished_cell is None:
                    undone += 1
                else:
                    record(finished_cell)
    finally:
        cache_store.close()
        renders.close()
        memo.close()
    summary = summarize(results, client, plan.grid, time.perf_counter() - started, undone)
    if done:  # a resumed run: the totals cover every process that worked on it
        summary["this_process"] = {k: summary[k] for k in SPENDING}
        for key in SPENDING:
            summary[key] = (
                round(summary[key] + earlier[key], 6)
                if key == "cost_usd"
                else int(summary[key] + earlier[key])
            )
    if client.budget.limit_usd is not None:
        summary["max_cost"] = client.budget.limit_usd
    if stopped:
        summary["stopped"] = stopped
    local_problem = _local_problem(results, cache_store, summary)
    (run_dir / "summary.json").write_text(json.dumps(summary, indent=2, allow_nan=False) + "\n")
    log.event(
        "end", **{k: summary[k] for k in ("cells", "calls_made", "cache_hits", "left_undone", "cost_usd")}
    )
    log.close()
    _remember_last_run(config.cache_dir, summary, run_dir)
    if stopped:
        raise ModelUnavailable(stopped)
    if local_problem:
        raise LocalFailure(local_problem)
    return RunOutcome(run_dir, summary, results)


class ModelUnavailable(IsodynError, RuntimeError):
    """A model of the grid cannot be called at all; the cells that need it were left undone."""


class LocalFailure(ModelUnavailable):
    """Cells failed on this machine, or replies could not be cached: the run is not complete.
    A ModelUnavailable so that `exp run` says it as it says that one: one line, finished cells
    kept, exit 2."""


def _received(done: list[CellResult], cache_store: ResponseCache) -> dict[str, Reply]:
    """Every reply the resumed rows hold, by cache key; each one the cache lacks (it could not be
    stored then) is stored now if it can be. The runner reuses these instead of asking again."""
    received = {
        call.key: Reply(
            call.response, call.prompt_tokens, call.completion_tokens, call.cost_usd, call.latency_s
        )
        for result in done
        for call in result.transcript
        if call.key is not None and call.response is not None
    }
    for key, reply in received.items():
        if key not in cache_store:
            cache_store.put(key, reply)
    return received


def _without_local_failures(run_dir: Path, done: list[CellResult]) -> list[CellResult]:
    """The resumed rows less the cells that failed on this machine, which run again; their rows
    leave results.jsonl (rewritten whole, atomically) so each cell keeps one row."""
    kept = [r for r in done if r.reason != LOCAL_FAILURE]
    if len(kept) == len(done):
        return done
    path = run_dir / "results.jsonl"
    lines = [line for line in path.read_bytes().splitlines(keepends=True) if not _is_local_row(line)]
    temporary = path.with_suffix(".jsonl.tmp")
    temporary.write_bytes(b"".join(lines))
    temporary.replace(path)
    return kept


def _is_local_row(line: bytes) -> bool:
    try:
        row = json.loads(line)
    except ValueError:
        return False
    return isinstance(row, dict) and row.get("reason") == LOCAL_FAILURE


def _local_problem(results: list[CellResult], cache_store: ResponseCache, summary: dict[str, Any]) -> str:
    """One line on what failed on this machine ('' when nothing did); marks the summary incomplete."""
    failed = [r for r in results if r.reason == LOCAL_FAILURE]
    if not failed and not cache_store.unstored:
        return ""
    summary.update(complete=False, local_failures=len(failed), not_cached=cache_store.unstored)
    said = []
    if failed:
        said.append(f"{len(failed)} cells failed on this machine ({failed[0].error})")
    if cache_store.unstored:
        said.append(
            f"{cache_store.unstored} replies could not be stored in the cache ({cache_store.write_error}); "
            "they are kept in results.jsonl"
        )
    return (
        f"{' and '.join(said)}; the run is not complete: fix what it names and run the same command "
        "again (replies already received are reused, not paid for again)"
    )


def _unavailable(models: set[str], api_base: str | None) -> str | None:
    """The first model (in name order) that cannot be called, as one line, or None."""
    for model in sorted(models):
        problem = preflight(model, api_base)
        if problem:
            return problem
    return None


def _remember_last_run(cache_dir: Path, summary: dict[str, Any], run_dir: Path) -> None:
    """For `exp cache stats`: the last run's calls and hits."""
    lookups = summary["calls_made"] + summary["cache_hits"]
    record = {
        "run_dir": str(run_dir),
        "calls_made": summary["calls_made"],
        "cache_hits": summary["cache_hits"],
        "hit_rate": summary["cache_hits"] / lookups if lookups else None,
    }
    # only for `exp cache stats`; a full or read-only cache folder is said elsewhere
    with contextlib.suppress(OSError):
        (cache_dir / "last_run.json").write_text(json.dumps(record, indent=2) + "\n")


async def dry_run(plan: Plan) -> dict[str, Any]:
    """Grid size, cached share and a cost estimate, without a call or a written file."""
    config = plan.config
    # Nothing is written: drawings go to a scratch directory, and a missing reply cache is not made.
    scratch = tempfile.TemporaryDirectory(prefix="isodyn-dry-run-")
    responses = config.cache_dir / "responses"
    cache_store = ResponseCache(responses if responses.is_dir() else Path(scratch.name) / "responses")
    renders = RenderCache(Path(scratch.name) / "renders")
    client = CachedClient(cache_store, _limits(config))
    materials = _Materials(plan.seeds, config.base_seed, renders)
    uncached_calls, estimate, cached_cells, skipped_cells = 0, 0.0, 0, 0

    async def estimated(request: ModelRequest, hashed: Any) -> tuple[Reply, str, bool]:
        nonlocal uncached_calls, estimate
        reply, key = client.cached(request, hashed)
        if reply is not None:
            return reply, key, True
        uncached_calls += 1
        estimate += estimate_cost(request)
        return Reply(text=""), key, False

    try:
        for cell in plan.grid.cells:
            result = await _run_cell(plan, cell, materials, client, Path("."), estimated)
            skipped = result.outcome.status is Status.SKIPPED
            skipped_cells += skipped
            cached_cells += bool(result.cache_hit) and not skipped  # a skipped cell is no cached one
    finally:
        cache_store.close()
        renders.close()
        scratch.cleanup()
    cells = len(plan.grid.cells)
    share = cached_cells / cells if cells else 0.0
    return {
        "cells": cells,
        "cached_cells": cached_cells,
        "skipped_cells": skipped_cells,
        "cached_share": share,
        "calls_needed": uncached_calls,
        "estimated_cost_usd": round(estimate, 4),
    }


__all__ = [
    "ModelError",
    "Plan",
    "RunOutcome",
    "dry_run",
    "execute",
    "load_rows",
    "open_run_dir",
    "plan_experiment",
]
