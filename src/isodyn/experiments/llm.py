"""The network edge: one model call through litellm, behind the response cache."""

from __future__ import annotations

import time

from isodyn.cache import ModelRequest, Reply, ResponseCache, cache_key
from isodyn.models.catalog import is_local, litellm_module, missing_api_key
from isodyn.models.local import register_with_litellm

# litellm exception class -> the short reason recorded on a cell; the most specific class wins.
_ERROR_REASONS = {
    "RateLimitError": "rate_limit",
    "AuthenticationError": "auth",
    "PermissionDeniedError": "permission",
    "ContextWindowExceededError": "context_window",
    "ContentPolicyViolationError": "content_policy",
    "NotFoundError": "not_found",
    "BadRequestError": "bad_request",
    "Timeout": "timeout",
    "APIConnectionError": "connection",
    "ServiceUnavailableError": "unavailable",
    "InternalServerError": "server",
    "APIError": "api",
}


def error_reason(exc: BaseException) -> str:
    for cls in type(exc).__mro__:
        if cls.__name__ in _ERROR_REASONS:
            return f"error:{_ERROR_REASONS[cls.__name__]}"
    return f"error:{type(exc).__name__}"


async def call_litellm(request: ModelRequest) -> Reply:
    """Make one real call. The API key comes from the environment inside litellm, never from us."""
    litellm = litellm_module()
    if is_local(request.model):
        register_with_litellm()
    kwargs = dict(request.params)
    if request.api_base:
        kwargs["api_base"] = request.api_base
        if missing_api_key(request.model, None):
            kwargs["api_key"] = "no-key-required"  # a self-hosted server; not a secret
    started = time.perf_counter()
    response = await litellm.acompletion(model=request.model, messages=request.messages, **kwargs)
    latency = time.perf_counter() - started
    usage = getattr(response, "usage", None)
    try:
        cost = float(litellm.completion_cost(completion_response=response) or 0.0)
    except Exception:  # a model litellm has no price for (local, self-hosted)
        cost = 0.0
    return Reply(
        text=response.choices[0].message.content or "",
        prompt_tokens=int(getattr(usage, "prompt_tokens", 0) or 0),
        completion_tokens=int(getattr(usage, "completion_tokens", 0) or 0),
        cost_usd=cost,
        latency_s=latency,
    )


class CachedClient:
    """Replays a request from the cache, or calls litellm and stores the reply. Counts both."""

    def __init__(self, cache: ResponseCache) -> None:
        self.cache = cache
        self.calls_made = 0
        self.cache_hits = 0
        self.cost_usd = 0.0

    async def complete(self, request: ModelRequest) -> tuple[Reply, str, bool]:
        key = cache_key(request)
        cached = self.cache.get(key)
        if cached is not None:
            self.cache_hits += 1
            return cached, key, True
        self.calls_made += 1
        reply = await call_litellm(request)
        self.cost_usd += reply.cost_usd
        self.cache.put(key, reply)
        return reply, key, False

    async def reply(self, request: ModelRequest) -> Reply:
        """`complete` without the bookkeeping, for strategies that call outside a cell's transcript."""
        return (await self.complete(request))[0]
