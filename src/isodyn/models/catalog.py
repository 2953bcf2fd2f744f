"""What isodyn knows about a model before calling it: can litellm route it, can it see, has it a key.

Only the embedded model is answered without importing litellm (whose import takes seconds), so a
cached rerun on the default model never loads it.
"""

from __future__ import annotations

import contextlib
import functools
import gc
import os
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any, Literal
from unittest import mock

from isodyn.errors import IsodynError
from isodyn.models.local import LOCAL_MODELS, LOCAL_PROVIDER
from isodyn.models.requests import replicas_of

VisionOverride = Literal["auto", "yes", "no"]


class ModelError(IsodynError, ValueError):
    """A model that cannot be used as configured; the message is one line for the user."""


@contextlib.contextmanager
def collection_paused() -> Iterator[None]:
    """The cyclic garbage collector off meanwhile, then as it was: an import that builds thousands
    of classes (litellm's, pydantic models) has the collector rescan them over and over, a fifth of
    litellm's import time here. (Not frozen after: litellm's HTTP transports would then outlive the
    collection at exit and fail in their finalizers.)"""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


def litellm_module():
    # Keep litellm from fetching its price list over the network at import time.
    os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
    with collection_paused() if "litellm" not in sys.modules else contextlib.nullcontext():
        import litellm

    litellm.suppress_debug_info = True
    _price_only_what_has_a_price(litellm)
    return litellm


def _price_only_what_has_a_price(litellm: Any) -> None:
    """litellm prices every reply as it arrives, even for a model its table has no price for (a
    server of your own): cProfile put the failed look-ups at a third of its time per call against
    a loopback server (timed without the profiler, the saving was within noise). isodyn prices
    replies itself (`llm.call_litellm`, only for models with a price), so litellm's own pricing is
    skipped for models without one; it returns what it returns when it cannot price (None).
    Installed once; a litellm without the hook is left as it is."""
    original = getattr(litellm, "response_cost_calculator", None)
    if original is None or getattr(original, "isodyn_wrapped", False):
        return
    table = litellm.model_cost

    @functools.wraps(original)
    def response_cost_calculator(*args: Any, **kwargs: Any) -> Any:
        model = kwargs.get("model")
        if isinstance(model, str) and not _entry_in(table, model):
            return None
        return original(*args, **kwargs)

    response_cost_calculator.isodyn_wrapped = True  # type: ignore[attr-defined]
    litellm.response_cost_calculator = response_cost_calculator


def _entry_in(table: dict[str, Any], model: str) -> dict[str, Any]:
    """A model's entry in litellm's price table, under its full id or without its provider prefix
    (`openai/gpt-4o` is priced as `gpt-4o`); {} when it has none."""
    return table.get(model) or table.get(model.split("/", 1)[-1]) or {}


def price_entry(model: str) -> dict[str, Any]:
    """litellm's prices and facts for `model` ({} for a model its table does not know)."""
    return _entry_in(litellm_module().model_cost, model)


@dataclass(frozen=True)
class ModelInfo:
    name: str
    provider: str
    vision: bool
    known_to_litellm: bool  # in litellm's price and capability table


def is_local(name: str) -> bool:
    return name.startswith(f"{LOCAL_PROVIDER}/")


def describe_model(name: str, api_base: str | None, vision: VisionOverride = "auto") -> ModelInfo:
    """Check that `name` can be called and say whether it reads images; raise ModelError if not."""
    if is_local(name):
        model_id = name.removeprefix(f"{LOCAL_PROVIDER}/")
        if model_id not in LOCAL_MODELS:
            embedded = ", ".join(f"{LOCAL_PROVIDER}/{m}" for m in LOCAL_MODELS)
            raise ModelError(f"unknown local model {name!r}; embedded models: {embedded}")
        return ModelInfo(name, LOCAL_PROVIDER, vision == "yes", True)
    litellm = litellm_module()
    try:
        # several replicas (`URL1,URL2`) serve one model: the first tells the provider as well as any
        first = replicas_of(api_base)[0] if api_base else None
        _, provider, _, _ = litellm.get_llm_provider(model=name, api_base=first)
    except Exception as exc:
        raise ModelError(
            f"unknown model {name!r}: litellm cannot route it; use a litellm id such as gpt-4o, "
            "anthropic/claude-3-5-sonnet-20240620, gemini/gemini-1.5-pro, "
            f"{LOCAL_PROVIDER}/smollm2-135m, or openai/NAME with api_base=URL for your own server; "
            "short names: exp list models"
        ) from exc
    known = bool(_entry_in(litellm.model_cost, name))
    if vision == "auto":
        try:
            sees = bool(litellm.supports_vision(model=name, custom_llm_provider=provider))
        except Exception:
            sees = False
    else:
        sees = vision == "yes"
    return ModelInfo(name, provider, sees, known)


def missing_api_key(name: str, api_base: str | None) -> str | None:
    """The environment variable a hosted model still needs, or None.

    A custom `api_base` (a server of your own, e.g. vLLM on loopback, or several replicas of one) is
    assumed not to need one.
    """
    if is_local(name) or api_base:
        return None
    check = litellm_module().validate_environment(model=name)
    missing = check.get("missing_keys") or []
    return ", ".join(missing) or None


def needed_api_keys(name: str, api_base: str | None) -> tuple[str, ...]:
    """The environment variables a hosted model needs, set or not (for a dry run to name them); ()
    for the embedded model and a server of your own (`missing_api_key`'s rule).

    litellm names only the variables that are missing, read from `os.environ`: it is asked with the
    environment emptied for the moment of the question (during planning, before any thread of the
    run starts), then given back whole."""
    if is_local(name) or api_base:
        return ()
    litellm = litellm_module()
    with mock.patch.dict(os.environ, clear=True):
        check = litellm.validate_environment(model=name)
    return tuple(check.get("missing_keys") or ())
