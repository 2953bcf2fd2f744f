"""`dspy`: a prompt optimized by DSPy's BootstrapFewShot on generated training variants.

Per (model, modality) the strategy compiles a `problem -> reasoning, short_answer` ChainOfThought
program once, on variants whose indices start at `TRAIN_INDEX_START` (evaluation variants are below
`DEMO_INDEX_START`, few-shot demonstrations sit in between), so training and evaluation never share a
question. The metric is isodyn's own answer comparison.

Every model call DSPy makes goes through isodyn: a custom DSPy engine turns DSPy's request into an
isodyn `ModelRequest` and awaits the `Preparation` service's `complete` (training, cached but outside
any transcript) or the cell's `ask` (evaluation, cached and recorded), so it reaches litellm through
`CachedClient`, and a rerun replays it. DSPy's own response cache is off.

The compiled program is saved as JSON under `cache_dir/dspy/<key>.json`, where the key hashes
everything that shapes the optimization, and copied to `run_dir/dspy/<model>-<modality>.json`. A
later run with the same settings loads it and makes no optimization calls.

dspy is imported only when the strategy runs, so `import isodyn` stays fast without it.
"""

from __future__ import annotations

import asyncio
import hashlib
import importlib.util
import json
import os
import re
import shutil
import threading
from collections.abc import Callable, Coroutine
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from isodyn.core import TEXT_MODALITIES, JsonObject, Representation, Variant
from isodyn.models.catalog import is_local
from isodyn.models.requests import ModelRequest, Reply
from isodyn.prompts import format_answer
from isodyn.scoring import is_correct
from isodyn.strategies.base import Ask, Message, Strategy, register_base
from isodyn.strategies.compose import StrategyError
from isodyn.strategies.context import CellContext, Preparation, Service
from isodyn.strategies.zeroshot import answer_instruction

TRAIN_INDEX_START = 2_000_000
N_TRAIN = 8
MAX_BOOTSTRAPPED_DEMOS = 2
MAX_LABELED_DEMOS = 2
MAX_ROUNDS = 1
# Bump when the program, the prompt or the key layout changes: old saved programs stop matching.
PROGRAM_VERSION = 1
INSTRUCTIONS = (
    "Solve the math problem step by step, then give only the final answer, in the form the problem asks for."
)
INSTALL_HINT = "dspy strategy needs: pip install -e '.[dspy]'"
TRAIN_STEP = "dspy-optimize"

Call = Callable[[list[Message]], Coroutine[Any, Any, Reply]]


def _dspy() -> Any:
    try:
        import dspy
    except ImportError as exc:
        raise ImportError(INSTALL_HINT) from exc
    return dspy


_cache_lock = threading.Lock()
_cache_disabled = False


def _disable_dspy_cache() -> None:
    """isodyn's response cache is the only one: DSPy must never answer from (or write) its own."""
    global _cache_disabled
    with _cache_lock:
        if not _cache_disabled:
            _dspy().configure_cache(enable_disk_cache=False, enable_memory_cache=False)
            _cache_disabled = True


# ---------------------------------------------------------------------------------------- DSPy engines


def _openai_messages(request: Any) -> list[Message]:
    """DSPy's canonical request as the OpenAI-style messages isodyn sends, caches and records."""
    messages: list[Message] = []
    system = request.system
    if system is not None:
        text = system if isinstance(system, str) else "\n".join(part.text for part in system)
        messages.append({"role": "system", "content": text})
    for message in request.messages:
        if message.text is None:
            raise ValueError("the dspy strategy sends text only")
        messages.append({"role": message.role, "content": message.text})
    return messages


def _response(reply: Reply, model: str) -> Any:
    from dspy.lm15 import Message as LMMessage
    from dspy.lm15 import Response, TextPart, Usage

    usage = Usage(
        input_tokens=reply.prompt_tokens,
        output_tokens=reply.completion_tokens,
        total_tokens=reply.prompt_tokens + reply.completion_tokens,
    )
    message = LMMessage.assistant([TextPart(reply.text)])
    return Response(id=None, model=model, message=message, finish_reason="stop", usage=usage)


class _Aborted(BaseException):
    """A model call failed during optimization. A BaseException on purpose: BootstrapFewShot catches
    every Exception per training example, logs it and goes on calling; this one stops it at once."""


class _Bridge:
    """What an engine keeps: the replies it returned and the call failures DSPy may swallow.

    DSPy wraps (and during bootstrapping, ignores) exceptions from the engine; keeping the original
    lets the strategy fail a broken optimization and report the litellm error class on the cell.
    """

    def __init__(self, call: Call) -> None:
        self.call = call
        self.replies: list[Reply] = []
        self.failures: list[BaseException] = []

    def stream(self, request: Any) -> Any:
        raise NotImplementedError("the dspy strategy does not stream")


class _SyncEngine(_Bridge):
    """For DSPy's synchronous optimizers, run in a worker thread: each call hops to the event loop."""

    def __init__(self, call: Call, loop: asyncio.AbstractEventLoop) -> None:
        super().__init__(call)
        self.loop = loop

    def complete(self, request: Any) -> Any:
        future = asyncio.run_coroutine_threadsafe(self.call(_openai_messages(request)), self.loop)
        try:
            reply = future.result()
        except Exception as exc:
            self.failures.append(exc)
            raise _Aborted from exc
        self.replies.append(reply)
        return _response(reply, request.model)

    def close(self) -> None:
        pass


class _AsyncEngine(_Bridge):
    """For the evaluation call, awaited on the event loop itself."""

    async def complete(self, request: Any) -> Any:
        try:
            reply = await self.call(_openai_messages(request))
        except Exception as exc:
            self.failures.append(exc)
            raise
        self.replies.append(reply)
        return _response(reply, request.model)

    async def aclose(self) -> None:
        pass


def _lm(model: str, engine: _SyncEngine, async_engine: _AsyncEngine | None = None) -> Any:
    # No retries in DSPy: a failed call is recorded on the cell, as for every other strategy.
    return _dspy().LM(model, engine=engine, async_engine=async_engine, cache=False, num_retries=0)


def _adapter() -> Any:
    # No JSON fallback: an unparsable reply must not trigger a second, differently shaped call.
    return _dspy().ChatAdapter(use_json_adapter_fallback=False)


def _new_program() -> Any:
    dspy = _dspy()
    return dspy.ChainOfThought(dspy.Signature("problem -> short_answer", INSTRUCTIONS))


def _demo_count(program: Any) -> int:
    return sum(len(predictor.demos) for _, predictor in program.named_predictors())


# ---------------------------------------------------------------------------------------- training data


@dataclass(frozen=True)
class _Example:
    variant: Variant
    problem: str

    @property
    def label(self) -> str:
        return self.variant.variant_id


def problem_text(representation: Representation, variant: Variant) -> str:
    """The program's input: the variant in the cell's modality plus DynaMath's answer-type line."""
    return f"{representation.text}\n\n{answer_instruction(variant)}"


def training_split(ctx: CellContext) -> list[tuple[str, int]]:
    """`N_TRAIN` (seed, index) pairs, indices from `TRAIN_INDEX_START`, spread over every seed that
    renders the cell's modality (never an evaluation or a few-shot demonstration index)."""
    seeds = sorted(s for s, seed in ctx.materials.seeds.items() if ctx.modality in seed.modalities)
    return [(seeds[i % len(seeds)], TRAIN_INDEX_START + i) for i in range(N_TRAIN)]


def _generation(preparation: Preparation, model: str) -> JsonObject:
    params = dict(preparation.generation)
    if is_local(model):
        params["seed"] = 0  # as the runner's `_generation_params` for repeat 0, sample 0
    return params


def _sha256(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()


def _slug(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9._-]+", "_", text).strip("_")


def _write_program(program: Any, path: Path, meta: JsonObject) -> None:
    """`program.save`, plus isodyn's metadata, written atomically (other processes may share the cache)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    temporary = path.with_name(f".{path.stem}.{os.getpid()}.{threading.get_ident()}.json")
    program.save(str(temporary))
    state = json.loads(temporary.read_text(encoding="utf-8"))
    state["isodyn"] = meta
    temporary.write_text(json.dumps(state, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    os.replace(temporary, path)


def _read_program(path: Path) -> tuple[Any, JsonObject]:
    """A saved program, read as JSON only: DSPy's `load` would unpickle a `.pkl` (code runs), and a
    predictor's own `lm` would send the cell to a model (and an address) of the file's choosing;
    isodyn saves neither, so either is refused (StrategyError naming the file)."""
    if path.suffix != ".json":
        raise StrategyError(f"DSPy program {path}: isodyn reads programs saved as JSON only")
    state = json.loads(path.read_text(encoding="utf-8"))
    predictors = state.values() if isinstance(state, dict) else ()
    if any(isinstance(saved, dict) and saved.get("lm") is not None for saved in predictors):
        raise StrategyError(
            f"DSPy program {path} names a model of its own, which isodyn never saves; delete it to "
            "optimize the program again"
        )
    program = _new_program()
    program.load(str(path), allow_pickle=False, allow_unsafe_lm_state=False)
    meta = state.get("isodyn") if isinstance(state, dict) else None
    return program, meta if isinstance(meta, dict) else {}


# ---------------------------------------------------------------------------------------- the strategy


@dataclass
class _Prepared:
    program: Any = None
    status: str = ""  # "optimized" (this run compiled it) or "reused" (loaded from the cache dir)
    path: Path | None = None  # the copy in the run directory
    meta: JsonObject = field(default_factory=dict)
    error: BaseException | None = None


@register_base
class DSPyOptimized(Strategy):
    name = "dspy"
    summary = "ChainOfThought with demonstrations bootstrapped by DSPy on a disjoint training split"
    source = "DSPy BootstrapFewShot (Khattab et al. 2023)"
    calls_per_cell = "1 (plus a one-time optimization per model)"
    memoizable = False  # it builds and saves its program in the run directory
    modalities = frozenset(TEXT_MODALITIES)
    # training variants and their renderings; a call, settings and folders to compile and keep a program
    needs = frozenset({Service.MATERIALS, Service.PREPARATION})
    writes_reasoning = True  # ChainOfThought: a reasoning field before the answer

    def __init__(self) -> None:
        # Instantiated when the plan is checked: a missing dspy fails there, before anything runs.
        if importlib.util.find_spec("dspy") is None:
            raise StrategyError(INSTALL_HINT)
        # One program per (run directory, key); cells of a run wait for the first to build it.
        self._prepared: dict[tuple[str, str], _Prepared] = {}
        self._locks: dict[tuple[str, str], asyncio.Lock] = {}

    async def run(
        self, variant: Variant, representation: Representation, ask: Ask, ctx: CellContext
    ) -> Reply:
        dspy = _dspy()
        prepared = await self._program(ctx)
        ctx.notes.update(
            dspy_program=prepared.status,
            dspy_program_path=str(prepared.path),
            dspy_demos=prepared.meta["demos"],
            dspy_train=prepared.meta["train"],
        )

        async def answer(messages: list[Message]) -> Reply:
            return await ask(messages, "answer")

        engine = _AsyncEngine(answer)
        # dspy.LM insists on a sync engine next to the async one; this one is never used.
        lm = _lm(ctx.solver.name, _SyncEngine(engine.call, asyncio.get_running_loop()), engine)
        try:
            with dspy.context(lm=lm, adapter=_adapter(), disable_history=True):
                prediction = await prepared.program.acall(problem=problem_text(representation, variant))
        except Exception as exc:
            if engine.failures:
                raise engine.failures[-1] from None  # the litellm error, so the cell records its reason
            if not engine.replies:
                raise
            # The model answered but not in DSPy's fields: score what it said.
            ctx.notes["dspy_parse"] = f"failed: {type(exc).__name__}"
            return engine.replies[-1]
        # The reply in the one answer format; keep the token counts of the underlying call.
        text = format_answer(str(prediction.reasoning), str(prediction.short_answer))
        return replace(engine.replies[-1], text=text)

    async def _program(self, ctx: CellContext) -> _Prepared:
        preparation = ctx.preparation
        model = ctx.solver.name
        examples = [
            _Example(variant, problem_text(ctx.materials.render(variant, ctx.modality), variant))
            for variant in (ctx.materials.variant(s, i) for s, i in training_split(ctx))
        ]
        params = _generation(preparation, model)
        key = self._key(ctx, model, params, examples)
        slot = (str(preparation.run_dir), key)
        lock = self._locks.setdefault(slot, asyncio.Lock())
        async with lock:
            prepared = self._prepared.get(slot)
            if prepared is None:
                prepared = await self._load_or_optimize(ctx, model, params, key, examples)
                self._prepared[slot] = prepared
        if prepared.error is not None:
            raise prepared.error  # every cell reports the failed optimization; it is not retried
        return prepared

    @staticmethod
    def _key(ctx: CellContext, model: str, params: dict[str, Any], examples: list[_Example]) -> str:
        document = {
            "version": PROGRAM_VERSION,
            "model": model,
            "api_base": ctx.preparation.api_base,
            "params": params,
            "modality": ctx.modality.value,
            "base_seed": ctx.base_seed,
            # the question and its rendering: a changed generator or renderer is a new training set
            "train": [
                [e.variant.seed_id, e.variant.index, e.variant.fingerprint(), _sha256(e.problem)]
                for e in examples
            ],
            "optimizer": {
                "name": "BootstrapFewShot",
                "max_bootstrapped_demos": MAX_BOOTSTRAPPED_DEMOS,
                "max_labeled_demos": MAX_LABELED_DEMOS,
                "max_rounds": MAX_ROUNDS,
            },
            "instructions": INSTRUCTIONS,
        }
        return _sha256(json.dumps(document, sort_keys=True, separators=(",", ":"), ensure_ascii=False))

    async def _load_or_optimize(
        self, ctx: CellContext, model: str, params: dict[str, Any], key: str, examples: list[_Example]
    ) -> _Prepared:
        preparation = ctx.preparation
        cached = preparation.cache_dir / "dspy" / f"{key}.json"
        in_run = preparation.run_dir / "dspy" / f"{_slug(model)}-{ctx.modality.value}.json"
        try:
            _disable_dspy_cache()
            status = "reused"
            if not cached.is_file():
                complete = preparation.complete

                async def call(messages: list[Message]) -> Reply:
                    request = ModelRequest(
                        model=model,
                        messages=messages,
                        params=params,
                        api_base=preparation.api_base,
                        repeat=0,
                        step=TRAIN_STEP,
                        sample=0,
                    )
                    return await complete(request)

                engine = _SyncEngine(call, asyncio.get_running_loop())
                program = await asyncio.to_thread(_optimize, model, engine, examples)
                meta = {
                    "key": key,
                    "model": model,
                    "modality": ctx.modality.value,
                    "train": [e.label for e in examples],
                    "train_index_start": TRAIN_INDEX_START,
                    "demos": _demo_count(program),
                    "optimization_calls": len(engine.replies),
                }
                _write_program(program, cached, meta)
                status = "optimized"
            in_run.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(cached, in_run)
            # Both runs evaluate the program as read back from JSON, so their prompts are identical.
            program, meta = _read_program(in_run)
            return _Prepared(program, status, in_run, meta)
        except Exception as exc:
            return _Prepared(error=exc)


def _optimize(model: str, engine: _SyncEngine, examples: list[_Example]) -> Any:
    """BootstrapFewShot, synchronous (DSPy's optimizers are): run it in a worker thread."""
    dspy = _dspy()
    truth = {e.problem: e.variant for e in examples}

    def metric(example: Any, prediction: Any, trace: Any = None) -> bool:
        variant = truth[example.problem]
        answer = str(getattr(prediction, "short_answer", "") or "")
        return is_correct(answer, variant.answer, variant.answer_type, variant.choices) is True

    trainset = [
        dspy.Example(problem=e.problem, short_answer=e.variant.answer).with_inputs("problem")
        for e in examples
    ]
    optimizer = dspy.BootstrapFewShot(
        metric=metric,
        max_bootstrapped_demos=MAX_BOOTSTRAPPED_DEMOS,
        max_labeled_demos=MAX_LABELED_DEMOS,
        max_rounds=MAX_ROUNDS,
        # Unparsable replies of a small model are expected and just yield no demo; a failed call
        # aborts through `_Aborted` instead.
        max_errors=len(examples) + 1,
    )
    try:
        with dspy.context(lm=_lm(model, engine), adapter=_adapter(), disable_history=True):
            return optimizer.compile(_new_program(), trainset=trainset)
    except _Aborted:
        raise engine.failures[0] from None  # the litellm error, so each cell records its reason
