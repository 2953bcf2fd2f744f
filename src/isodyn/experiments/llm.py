"""The network edge: model calls through litellm, behind the response cache, within limits.

- `ModelGate`: per model, calls in flight (adaptive: halved on HTTP 429, grown back one step per
  run of successes), requests and tokens per minute, and the pause a `Retry-After` asks for;
- `call_with_retries`: transient failures (429, 5xx, timeouts, dropped connections, unreadable
  replies) are retried with exponential backoff and full jitter, up to a bound; anything else
  (400, 401, content policy, any other 4xx but 408, a request the client refused to send) is final
  and recorded on the cell; a `Retry-After` is obeyed up to `min(timeout, 60 s)`;
- `Budget`: `max_cost` stops new calls once spent + in-flight estimates would pass it;
- `CachedClient`: replays from the cache, or calls and stores; counts calls, hits and cost;
- `RunLog`: one JSON line per event (call, retry, error), with secrets redacted.

What a failure was (its reason, its Retry-After) is read in `experiments/call_errors.py`; what is
redacted, in `experiments/redaction.py`.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import json
import math
import os
import random
import time
from collections import deque
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, TextIO

from isodyn.cache import ResponseCache, cache_key
from isodyn.experiments.call_errors import (
    EmptyReply,
    caused_by,
    error_reason,
    refused_locally,
    retry_after_seconds,
)
from isodyn.experiments.redaction import redact, redact_secrets, treat_as_secret
from isodyn.models.bounded import ReplyTooLarge, bound_replies
from isodyn.models.catalog import is_local, litellm_module, price_entry
from isodyn.models.engine import EngineCrashed
from isodyn.models.local import engine_count, register_with_litellm
from isodyn.models.replicas import complete_on_replicas
from isodyn.models.requests import (
    DEFAULT_MAX_TOKENS,
    ModelRequest,
    Reply,
    finish_reason_of,
    replicas_of,
    token_count,
)

_TRANSIENT = {
    "rate_limit", "timeout", "connection", "unavailable", "server", "malformed_reply", "api", "empty_reply",
}  # fmt: skip


def is_transient(exc: BaseException) -> bool:
    if isinstance(exc, BudgetExhausted) or refused_locally(exc):
        return False  # the same request would be refused again, and nothing was sent
    if caused_by(exc, EngineCrashed):
        return False  # the embedded engine died here: asking again only meets the same crash
    if caused_by(exc, ReplyTooLarge):
        return False  # the server would send the same oversized reply again
    status = getattr(exc, "status_code", None)
    if isinstance(status, int) and 400 <= status < 500 and status not in (408, 429):
        return False  # the server read the request and said no: asking again changes nothing
    if isinstance(status, int) and status >= 500:
        return True
    return error_reason(exc).removeprefix("error:") in _TRANSIENT


RETRY_AFTER_MAX_S = 60.0  # the longest pause a server's Retry-After can ask for (and `timeout`)


def capped_retry_after(exc: BaseException, limits: Limits) -> float | None:
    """The pause a failure asks for, never longer than the call's timeout or RETRY_AFTER_MAX_S: a
    server cannot stall a run beyond what `timeout` and `max_retries` allow."""
    seconds = retry_after_seconds(exc)
    return None if seconds is None else min(seconds, limits.retry_after_max_s, limits.timeout_s)


class RunLog:
    """Structured events, one JSON object per line; every string passes through `redact`."""

    def __init__(self, path: Path | None) -> None:
        self._handle: TextIO | None = path.open("a", encoding="utf-8") if path else None

    def event(self, kind: str, **fields: Any) -> None:
        if self._handle is None:
            return
        record = {"t": round(time.time(), 3), "event": kind, **fields}
        # strict JSON: a NaN here would be written as `NaN`, which no JSON reader accepts
        line = json.dumps(record, ensure_ascii=False, default=str, allow_nan=False)
        self._handle.write(redact(line) + "\n")
        self._handle.flush()

    def close(self) -> None:
        if self._handle:
            self._handle.close()


# ---- limits ------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Limits:
    concurrency: int = 8
    rpm: float | None = None  # requests per minute
    tpm: float | None = None  # tokens per minute (prompt estimate + max_tokens)
    max_retries: int = 6
    timeout_s: float = 120.0
    backoff_base_s: float = 1.0
    backoff_max_s: float = 60.0
    retry_after_max_s: float = RETRY_AFTER_MAX_S


class ModelGate:
    """Admission for one model's calls: an adaptive concurrency limit plus per-minute rate limits."""

    def __init__(self, limits: Limits) -> None:
        self.limits = limits
        self.limit = limits.concurrency
        self.in_flight = 0
        self._condition = asyncio.Condition()
        self._paused_until = 0.0
        self._successes = 0
        self._requests: deque[float] = deque()
        self._tokens: deque[tuple[float, int]] = deque()

    async def acquire(self, tokens: int) -> None:
        async with self._condition:
            while True:
                now = time.monotonic()
                wait = max(self._paused_until - now, self._rate_wait(now, tokens))
                if wait <= 0 and self.in_flight < self.limit:
                    break
                with contextlib.suppress(TimeoutError):  # woken by a release, or the wait is over
                    await asyncio.wait_for(self._condition.wait(), timeout=wait if wait > 0 else None)
            self.in_flight += 1
            self._requests.append(now)
            self._tokens.append((now, tokens))

    async def release(self) -> None:
        async with self._condition:
            self.in_flight -= 1
            self._condition.notify_all()

    def _rate_wait(self, now: float, tokens: int) -> float:
        for window in (self._requests,):
            while window and now - window[0] >= 60:
                window.popleft()
        while self._tokens and now - self._tokens[0][0] >= 60:
            self._tokens.popleft()
        wait = 0.0
        if self.limits.rpm and len(self._requests) >= self.limits.rpm:
            wait = max(wait, 60 - (now - self._requests[0]))
        if self.limits.tpm and self._tokens and sum(t for _, t in self._tokens) + tokens > self.limits.tpm:
            wait = max(wait, 60 - (now - self._tokens[0][0]))
        return wait

    def rate_limited(self, retry_after: float | None) -> None:
        """HTTP 429: halve the concurrency and pause new calls for Retry-After (if given)."""
        self.limit = max(1, self.limit // 2)
        self._successes = 0
        if retry_after:
            self._paused_until = max(self._paused_until, time.monotonic() + retry_after)

    def succeeded(self) -> None:
        """Grow the limit back by one after `limit` successes in a row (additive increase)."""
        self._successes += 1
        if self.limit < self.limits.concurrency and self._successes >= self.limit:
            self.limit += 1
            self._successes = 0


def backoff_delay(attempt: int, limits: Limits, rng: random.Random) -> float:
    """Exponential backoff with full jitter."""
    return rng.uniform(0, min(limits.backoff_max_s, limits.backoff_base_s * 2**attempt))


# ---- cost ----------------------------------------------------------------------------------------


# Not an IsodynError: control flow. The runner leaves the refused cell undone; the user reads
# "cells left undone" in the summary, never this exception.
class BudgetExhausted(RuntimeError):
    pass


def estimated_tokens(request: ModelRequest) -> tuple[float, int]:
    """An upper estimate of a call's tokens before it is made: prompt characters / 3 in, max_tokens out."""
    return len(json.dumps(request.messages)) / 3, int(request.params.get("max_tokens", DEFAULT_MAX_TOKENS))


def estimate_cost(request: ModelRequest) -> float:
    """Upper estimate of one call's cost from litellm's price table (`estimated_tokens`). Models
    without a price (local, self-hosted) cost 0."""
    return priced(request.model, *estimated_tokens(request))


def priced(model: str, prompt_tokens: float, output_tokens: float) -> float:
    """Tokens at litellm's flat prices per token (0 for a model without a price)."""
    if is_local(model):
        return 0.0
    prices = price_entry(model)
    return prompt_tokens * float(prices.get("input_cost_per_token") or 0) + output_tokens * float(
        prices.get("output_cost_per_token") or 0
    )


@dataclass
class Budget:
    limit_usd: float | None = None
    spent_usd: float = 0.0
    in_flight_usd: float = 0.0
    refused: int = 0

    def reserve(self, estimate: float) -> None:
        if self.limit_usd is not None and self.spent_usd + self.in_flight_usd + estimate > self.limit_usd:
            self.refused += 1
            raise BudgetExhausted(f"max_cost ${self.limit_usd} would be passed")
        self.in_flight_usd += estimate

    def settle(self, estimate: float, actual: float) -> None:
        self.in_flight_usd -= estimate
        self.spent_usd += actual


# ---- calls -----------------------------------------------------------------------------------------


@functools.cache
def has_price(model: str) -> bool:
    if is_local(model):
        return False
    entry = price_entry(model)
    return bool(entry.get("input_cost_per_token") or entry.get("output_cost_per_token"))


async def call_litellm(
    request: ModelRequest, timeout_s: float | None = None, api_key_env: str | None = None
) -> Reply:
    """Make one real call. A provider's key comes from the environment inside litellm. A server named
    by `api_base` gets no key unless the user names the variable holding one (`api_key_env=NAME`):
    a key for one provider is never sent to another server."""
    litellm = litellm_module()
    if is_local(request.model):
        register_with_litellm()
    kwargs = dict(request.params)
    if request.api_base and not is_local(request.model):
        kwargs["api_base"] = request.api_base
        kwargs["api_key"] = os.environ.get(api_key_env, "") if api_key_env else "no-key-required"
    if not is_local(request.model):
        bound_replies(litellm)  # a reply's body is read within ISODYN_MAX_REPLY_MB (models/bounded.py)
        # retries are ours (with the gate's backoff and a capped Retry-After), neither the SDK's nor
        # litellm's own wrapper's (num_retries, or litellm.num_retries if a library set it)
        kwargs["max_retries"] = 0
        kwargs["num_retries"] = 0
        if timeout_s:
            kwargs["timeout"] = timeout_s
    started = time.perf_counter()
    if len(replicas_of(kwargs.get("api_base"))) > 1:  # litellm's Router picks one (models/replicas.py)
        api_base, api_key = kwargs.pop("api_base"), kwargs.pop("api_key")
        response = await complete_on_replicas(request.model, api_base, api_key, request.messages, **kwargs)
    else:
        response = await litellm.acompletion(model=request.model, messages=request.messages, **kwargs)
    latency = time.perf_counter() - started
    usage = getattr(response, "usage", None)
    said = [token_count(getattr(usage, name, 0) or 0) for name in ("prompt_tokens", "completion_tokens")]
    prompt_tokens, completion_tokens = (count or 0 for count in said)
    if None in said:  # negative or not numbers: litellm's price of them would be too
        cost = priced(request.model, prompt_tokens, completion_tokens) if has_price(request.model) else 0.0
    else:
        cost = litellm_cost(litellm, response, request.model)
    choice = response.choices[0]
    return Reply(
        text=choice.message.content or "",
        prompt_tokens=prompt_tokens,
        completion_tokens=completion_tokens,
        cost_usd=cost,
        latency_s=latency,
        finish_reason=finish_reason_of(getattr(choice, "finish_reason", None)),
    )


def litellm_cost(litellm: Any, response: Any, model: str) -> float:
    """litellm's price of a reply's usage; 0 for a model without a price, and for a price below
    zero or not finite (it would give a budget back, or disable it and break JSON)."""
    if not has_price(model):  # litellm's cost lookup is slow and raises for unpriced models
        return 0.0
    cost = 0.0
    with contextlib.suppress(Exception):
        cost = float(litellm.completion_cost(completion_response=response, model=model) or 0.0)
    return cost if math.isfinite(cost) and cost >= 0 else 0.0


# Not an IsodynError: control flow. The replay pass catches it and runs the cell live.
class CacheMiss(LookupError):
    """Raised in replay-only mode when a call is not in the cache."""


@dataclass
class CachedClient:
    """Replays a request from the cache, or calls litellm within the model's gate and stores the reply."""

    cache: ResponseCache
    limits: Limits = field(default_factory=Limits)
    budget: Budget = field(default_factory=Budget)
    log: RunLog = field(default_factory=lambda: RunLog(None))
    calls_made: int = 0
    cache_hits: int = 0
    cost_usd: float = 0.0
    retries: int = 0
    gates: dict[str, ModelGate] = field(default_factory=dict)
    seed: int = 0
    api_key_env: str | None = None  # the variable holding the key for an `api_base` server, if any
    shared: int = 0  # requests answered by an identical request already in flight

    def __post_init__(self) -> None:
        self._rng = random.Random(self.seed)
        self._in_flight: dict[str, asyncio.Future[Reply]] = {}
        treat_as_secret(self.api_key_env)  # its value is a key, whatever the variable is called

    def gate(self, model: str) -> ModelGate:
        if model not in self.gates:
            # the embedded model answers one call per engine: more in flight would only queue
            limits = (
                replace(self.limits, concurrency=min(self.limits.concurrency, engine_count()))
                if is_local(model)
                else self.limits
            )
            self.gates[model] = ModelGate(limits)
        return self.gates[model]

    def cached(self, request: ModelRequest, hashed_messages: Any = None) -> tuple[Reply | None, str]:
        key = cache_key(request, hashed_messages)
        return self.cache.get(key), key

    async def complete(
        self, request: ModelRequest, replay_only: bool = False, hashed_messages: Any = None
    ) -> tuple[Reply, str, bool]:
        reply, key = self.cached(request, hashed_messages)
        if reply is not None:
            self.cache_hits += 1
            return reply, key, True
        if replay_only:
            raise CacheMiss(key)
        if key in self._in_flight:  # the same request is on its way: share its reply, pay once
            reply = await asyncio.shield(self._in_flight[key])
            self.shared += 1
            self.cache_hits += 1
            return reply, key, True
        future: asyncio.Future[Reply] = asyncio.get_running_loop().create_future()
        self._in_flight[key] = future
        try:
            reply = await self._call_with_retries(request, key)
        except Exception as exc:
            future.set_exception(exc)
            future.exception()  # retrieved: no "never retrieved" warning when nobody shared it
            raise
        except BaseException:  # cancelled: whoever shares the call is cancelled too
            future.cancel()
            raise
        finally:
            del self._in_flight[key]
        self.cache.put(key, reply)
        future.set_result(reply)
        return reply, key, False

    async def reply(self, request: ModelRequest) -> Reply:
        """`complete` without the bookkeeping, for strategies that call outside a cell's transcript."""
        return (await self.complete(request))[0]

    async def _call_with_retries(self, request: ModelRequest, key: str) -> Reply:
        gate = self.gate(request.model)
        estimate = estimate_cost(request)
        tokens = int(sum(estimated_tokens(request)))
        for attempt in range(self.limits.max_retries + 1):
            self.budget.reserve(estimate)
            await gate.acquire(tokens)
            failure: Exception | None = None
            spent = 0.0
            try:
                call = call_litellm(request, self.limits.timeout_s, self.api_key_env)
                # an in-process model is no network call: it is never timed out (it would retry)
                local = is_local(request.model)
                # a call on several replicas may time out on each in turn before one answers
                bound = self.limits.timeout_s * max(1, len(replicas_of(request.api_base))) + 5
                reply = await (call if local else asyncio.wait_for(call, timeout=bound))
                spent = reply.cost_usd
                if not reply.text.strip():
                    raise EmptyReply("the model answered with no text")
            except Exception as exc:
                failure = exc
            finally:
                await gate.release()
                self.budget.settle(estimate, spent)
            if failure is not None and refused_locally(failure):
                # nothing left this machine: not a call, and no use in retrying. Logged as
                # "refused", not "error": a resumed run counts every "error" as a request sent.
                self.log.event(
                    "refused", model=request.model, key=key, attempt=attempt, reason=error_reason(failure),
                    detail=str(failure)[:300],
                )  # fmt: skip
                raise failure
            self.calls_made += 1  # every request sent counts, answered or not
            if failure is None:
                gate.succeeded()
                self.cost_usd += spent
                reply = replace(reply, text=redact_secrets(reply.text))  # a server that echoes the key
                self.log.event(
                    "call", model=request.model, key=key, attempt=attempt,
                    latency_s=round(reply.latency_s, 4), prompt_tokens=reply.prompt_tokens,
                    completion_tokens=reply.completion_tokens, cost_usd=spent,
                )  # fmt: skip
                return reply
            reason = error_reason(failure)
            final = not is_transient(failure) or attempt == self.limits.max_retries
            retry_after = capped_retry_after(failure, self.limits)
            if reason == "error:rate_limit":
                gate.rate_limited(retry_after)
            wait = max(retry_after or 0.0, backoff_delay(attempt, self.limits, self._rng))
            self.log.event(
                "error" if final else "retry", model=request.model, key=key, attempt=attempt, reason=reason,
                detail=str(failure)[:300], wait_s=None if final else round(wait, 3), concurrency=gate.limit,
            )  # fmt: skip
            if final:
                raise failure
            self.retries += 1
            await asyncio.sleep(wait)
        raise AssertionError("unreachable")  # pragma: no cover
