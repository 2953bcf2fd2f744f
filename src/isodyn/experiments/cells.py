"""One cell of the grid turned into its record: the variant drawn, the strategy run with only the services it
declares, every call kept in order, the final reply graded (`run_cell`)."""

from __future__ import annotations

import socket
import sqlite3
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import replace
from functools import lru_cache
from pathlib import Path
from typing import Any

from isodyn.cache import cache_key
from isodyn.cache.renders import RenderCache
from isodyn.core import DEFAULT_RENDER, JsonObject, Modality, Representation, Variant
from isodyn.experiments.call_errors import caused_by, error_reason, exception_chain
from isodyn.experiments.llm import BudgetExhausted, CachedClient, CacheMiss
from isodyn.experiments.memo import Replay, ReplayMemo, grading_stamp
from isodyn.experiments.plan import Plan
from isodyn.experiments.redaction import redact
from isodyn.generators import SeedProgram
from isodyn.generators.perturb import number_digits, parse_perturbation, perturb
from isodyn.modalities.palette import names_a_color
from isodyn.modalities.profiles import DEFAULT_PROFILE, RenderProfile
from isodyn.models.catalog import is_local
from isodyn.models.engine import EngineCrashed
from isodyn.models.requests import CUT_OFF, ModelRequest, Reply, clean_reply, hash_images
from isodyn.runs.calls import Call, Usage
from isodyn.runs.config import ExperimentConfig
from isodyn.runs.record import LOCAL_FAILURE, Cell, CellResult, Labels, Outcome, Status, truncated_score
from isodyn.scoring import DEFAULT_GRADER, question_of, score_reply
from isodyn.strategies import (
    CellContext,
    ComposedStrategy,
    Describer,
    Grading,
    Materials,
    ModelFacts,
    Preparation,
    Service,
    Services,
)

VARIANTS_HELD = 4096  # a seed's stretch of the grid asks for at most `variants` of them


class RunMaterials:
    """Variants and renderings for strategies: variants memoized on disk and the recent ones in memory,
    renderings memoized on disk. A cell sees them through `for_cell`: its variant perturbed, its
    pictures drawn under its render profile."""

    def __init__(
        self,
        seeds: dict[str, SeedProgram],
        base_seed: int,
        renders: RenderCache,
        profiles: Mapping[str, RenderProfile] | None = None,
    ) -> None:
        self.seeds = seeds
        self._base_seed = base_seed
        self._renders = renders
        self._profiles = dict(profiles or {DEFAULT_RENDER: DEFAULT_PROFILE})
        # A variant is asked for by each of its cells (modalities, strategies, models, repeats), all
        # within its seed's stretch of the grid; a bounded memo keeps a long run's memory flat.
        self.variant = lru_cache(maxsize=VARIANTS_HELD)(self._variant)
        self.perturbed = lru_cache(maxsize=VARIANTS_HELD)(self._perturbed)

    def _variant(self, seed_id: str, index: int) -> Variant:
        return self._renders.variant(self.seeds[seed_id], index, self._base_seed)

    def _perturbed(self, seed_id: str, index: int, perturbation: str) -> Variant:
        seed = self.seeds[seed_id]
        return perturb(seed, self.variant(seed_id, index), parse_perturbation(perturbation))

    def render(
        self, variant: Variant, modality: Modality, profile: RenderProfile = DEFAULT_PROFILE
    ) -> Representation:
        return self._renders.representation(self.seeds[variant.seed_id], variant, modality, profile)

    def for_cell(self, cell: Cell) -> Materials:
        if cell.is_plain:
            return self
        return CellMaterials(self, cell, self._profiles[cell.render])


class CellMaterials:
    """The run's materials as one cell sees them: its own variant under its perturbation (other
    variants, a strategy's demonstrations, as drawn), and every picture under its render profile."""

    def __init__(self, run: RunMaterials, cell: Cell, profile: RenderProfile) -> None:
        self.seeds = run.seeds
        self._run, self._cell, self._profile = run, cell, profile

    def variant(self, seed_id: str, index: int) -> Variant:
        if (seed_id, index) == (self._cell.seed_id, self._cell.variant):
            return self._run.perturbed(seed_id, index, self._cell.perturbation)
        return self._run.variant(seed_id, index)

    def render(self, variant: Variant, modality: Modality) -> Representation:
        return self._run.render(variant, modality, self._profile)


def _generation_params(config: ExperimentConfig, model: str, repeat: int, sample: int) -> dict[str, Any]:
    params: dict[str, Any] = {"temperature": config.temperature, "max_tokens": config.max_tokens}
    if is_local(model):
        # reproducible, distinct samples per repeat and sample for the local model
        params["seed"] = repeat * 1000 + sample
    return params


def call_request(
    config: ExperimentConfig, model: str, messages: list[JsonObject], repeat: int, step: str, sample: int
) -> ModelRequest:
    """The request a cell's call sends. The one place its parameters and server are chosen: the key
    of a call read back from a row (`recorded_key`) is computed from it too, so the two cannot drift."""
    params = _generation_params(config, model, repeat, sample)
    return ModelRequest(model, messages, params, config.api_base, repeat, step, sample)


def recorded_key(config: ExperimentConfig, cell: Cell, call: Call) -> str:
    """The cache key of the request `call` records for `cell` (its messages as recorded, images
    hashed), as the run computed it when it sent the call. A key written in a row is never used."""
    request = call_request(config, call.model, [], cell.repeat, call.step, call.sample)
    return cache_key(request, call.messages)


def untrusted_reply(config: ExperimentConfig, result: CellResult) -> str | None:
    """Why the replies a row holds cannot be taken (one clause), or None: a call that names a model
    the cell does not ask (neither its model nor the describer), or whose key is not the key of the
    request it records (a reply filed under another request's key would answer that request)."""
    askable = {result.cell.model, config.describer or result.cell.model}
    for call in result.transcript:
        if call.key is None:
            continue  # a call that failed returned nothing
        if call.model not in askable:
            return f"its call names the model {call.model[:60]!r}, which the cell does not ask"
        if call.key != recorded_key(config, result.cell, call):
            return "its cache key does not match the request it records"
    return None


def _color_lost(plan: Plan, cell: Cell, variant: Variant) -> str | None:
    """Why an image cell's question cannot be answered under its profile: a gray picture of a
    question that names a colour. Decided before anything is drawn, like a strategy's skip."""
    profile = plan.renders.get(cell.render)
    gray = cell.modality is Modality.IMAGE and profile is not None and profile.removes_color
    if gray and names_a_color(variant.question):
        return f"render {cell.render} removes the colours the question names"
    return None


def _labels(variant: Variant, seed: SeedProgram) -> Labels:
    varied = tuple(v.value for v in variant.variation_types)
    digits = number_digits(seed, variant.params) if "magnitude" in seed.perturbations else None
    return Labels(variant.topic.value, variant.level.value, varied, digits)


def cell_context(
    plan: Plan, cell: Cell, materials: Materials, client: CachedClient, run_dir: Path
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


async def run_cell(
    plan: Plan,
    cell: Cell,
    materials: RunMaterials,
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
        if replay.graded is not None and replay.grader == grading_stamp(plan.config.grader):
            return replay.graded
        scored = replay.scored_variant()
        seed = plan.seeds[cell.seed_id]
        return _scored(cell, scored, seed, replay.final, replay.notes, calls, plan.config.grader)
    shown = materials.for_cell(cell)
    variant = shown.variant(cell.seed_id, cell.variant)
    ctx = cell_context(plan, cell, shown, client, run_dir)
    reason = strategy.skip_reason(variant, cell.modality, ctx) or _color_lost(plan, cell, variant)
    if reason:
        skipped = Outcome(Status.SKIPPED, reason)
        labels = _labels(variant, plan.seeds[cell.seed_id])
        return CellResult(cell=cell, asked=question_of(variant), labels=labels, outcome=skipped)
    transcript: list[Call] = []
    try:
        reply = await _run_strategy(plan, cell, strategy, variant, shown, ctx, backend, transcript)
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
            cell=cell, asked=question_of(variant), labels=_labels(variant, plan.seeds[cell.seed_id]),
            outcome=failed, calls=calls,
            usage=replace(Usage.of(calls), cache_hit=None), notes=ctx.notes,
        )  # fmt: skip
    scored = ctx.scored_variant or variant
    result = _scored(
        cell, scored, plan.seeds[cell.seed_id], reply, ctx.notes, tuple(transcript), plan.config.grader
    )
    if memo is not None:
        other = None if scored is variant else scored.to_json()
        replayed = tuple(replace(call, cache_hit=True) for call in transcript)  # as a replay will be
        as_replayed = replace(result, calls=replayed, usage=Usage.of(replayed))
        stamp = grading_stamp(plan.config.grader)
        memo.put(
            cell,
            Replay(variant, replayed, reply.text, ctx.notes, other, as_replayed, stamp, reply.finish_reason),
        )
    return result


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
    seed: SeedProgram,
    final: Reply,
    notes: JsonObject,
    calls: tuple[Call, ...],
    grader: str = DEFAULT_GRADER,
) -> CellResult:
    """The result of a cell whose strategy finished: the final reply graded against `scored` (the
    variant the strategy asked about, which a permuting strategy may have reordered); a final reply
    cut off at the token limit is `truncated`, never read."""
    cut_off = final.finish_reason == CUT_OFF
    score = truncated_score(grader) if cut_off else score_reply(final.text, scored, grader=grader)
    return CellResult(
        cell=cell, asked=question_of(scored), labels=_labels(scored, seed),
        outcome=Outcome(Status(score.reason)), scores={score.grader: score}, decided_by=score.grader,
        response=final.text,
        finish_reason=final.finish_reason, calls=calls, usage=Usage.of(calls), notes=notes,
    )  # fmt: skip


async def _run_strategy(
    plan: Plan,
    cell: Cell,
    strategy: ComposedStrategy,
    variant: Variant,
    materials: Materials,
    ctx: CellContext,
    backend: Backend,
    transcript: list[Call],
) -> Reply:
    """Draw the cell's representation and run its strategy; every call is appended to `transcript`."""
    representation = materials.render(variant, cell.modality)

    async def ask(
        messages: list[JsonObject], step: str, *, model: str | None = None, sample: int = 0
    ) -> Reply:
        chosen = model or cell.model
        request = call_request(plan.config, chosen, messages, cell.repeat, step, sample)
        asked = Call(step=step, model=chosen, sample=sample, messages=hash_images(messages))
        place = len(transcript)
        transcript.append(asked)  # in call order, even if the call fails
        reply, key, hit = await backend(request, asked.messages)
        reply = clean_reply(reply)  # where a reply enters the record: text UTF-8 can encode
        transcript[place] = replace(
            asked, key=key, cache_hit=hit, response=reply.text, prompt_tokens=reply.prompt_tokens,
            completion_tokens=reply.completion_tokens, cost_usd=reply.cost_usd,
            latency_s=round(reply.latency_s, 4), finish_reason=reply.finish_reason,
        )  # fmt: skip
        return reply

    return await strategy.run(variant, representation, ask, ctx)


def _from_memo(memo: ReplayMemo, cell: Cell, client: CachedClient) -> tuple[tuple[Call, ...], Replay] | None:
    """The cell's calls from its memo entry (stored as cache hits, which they are now), or None."""
    replay = memo.get(cell)
    if replay is None:
        return None
    client.cache_hits += len(replay.calls)
    return replay.calls, replay
