"""Several replicas of one OpenAI-compatible server (`api_base=URL1,URL2,...`, e.g. vLLM behind each
address): one model's calls are spread over them through litellm's Router, and a replica that is down
is skipped.

How the Router is set up, as read in the installed litellm (1.110: `litellm/router.py` and
`router_utils/cooldown_handlers.py`; the walk itself is decided in its Rust core, so each choice
below is checked against loopback stubs in tests/test_replicas.py):

- `simple-shuffle`: each call picks a replica at random (equal weights): an even spread without
  the bookkeeping of `least-busy`, and the only strategy weighted failover works with;
- `enable_weighted_failover` with `max_fallbacks = replicas - 1`: an attempt that fails (a refused
  connection, a timeout, any error) is sent at once to a replica this call has not tried, so one
  call is at most one attempt per replica;
- `num_retries=0`: the Router's own retry loop is off. Retries are isodyn's (`_call_with_retries`:
  backoff, Retry-After, the adaptive gate) and happen only when the whole set failed, so the two
  never multiply;
- `allowed_fails=0` with `cooldown_time`: a replica that fails (refused, 5xx, timeout, 401/404/429)
  is left out of every pick for `COOLDOWN_S` (a 429's Retry-After sets its own pause); a 400 does
  not cool a replica down (it is the request's fault).

When every replica is cooling down, the Router sends nothing and raises its RouterRateLimitError (a
ValueError with no reason isodyn knows, so it would end the cell at once): it becomes
`ReplicasCoolingDown`, a transient 503 whose Retry-After is the Router's "try again in" (the
cooldown's length, not what is left of it).

litellm is imported only when a Router is built: splitting an address needs nothing.
"""

from __future__ import annotations

from typing import Any

from isodyn.models.requests import replicas_of

COOLDOWN_S = 5.0  # litellm's own default; how long a failed replica is left out of the picks

# (model, replicas, key) -> its Router, built once: the Router keeps one HTTP client per replica,
# and building one per call would open a connection per call. The key is part of the identity so a
# changed key is never sent with an old Router; it is held in memory only.
_routers: dict[tuple[str, tuple[str, ...], str], Any] = {}


# Not an IsodynError: retried, then recorded as a cell's reason (error:unavailable); never shown as one.
class ReplicasCoolingDown(RuntimeError):
    """Every replica failed lately and is left out for a while: the whole set is failing, which
    isodyn retries like a 503 after the pause the Router names."""

    status_code = 503

    def __init__(self, message: str, retry_after_s: float) -> None:
        super().__init__(message)
        # where `retry_after_seconds` in experiments/call_errors.py looks, as on a litellm error
        self.litellm_response_headers = {"retry-after": f"{retry_after_s:g}"}


def replica_router(model: str, replicas: tuple[str, ...], api_key: str) -> Any:
    """The Router for `model` over `replicas` (one deployment each, all named `model`), built once.
    `api_key` is what call_litellm would send to one server: the `api_key_env` value or a
    placeholder, never another provider's key."""
    identity = (model, replicas, api_key)
    router = _routers.get(identity)
    if router is None:
        from isodyn.models.catalog import litellm_module

        router = litellm_module().Router(
            model_list=[
                {
                    "model_name": model,
                    "litellm_params": {"model": model, "api_base": base, "api_key": api_key},
                }
                for base in replicas
            ],
            routing_strategy="simple-shuffle",
            enable_weighted_failover=True,
            max_fallbacks=len(replicas) - 1,
            num_retries=0,
            allowed_fails=0,
            cooldown_time=COOLDOWN_S,
        )
        _routers[identity] = router
    return router


def _all_cooling_down(exc: BaseException) -> bool:
    # by name, as call_errors.py reads litellm's errors: importing litellm's types here would load litellm
    return any(cls.__name__ == "RouterRateLimitError" for cls in type(exc).__mro__)


async def complete_on_replicas(
    model: str, api_base: str, api_key: str, messages: list[dict[str, Any]], **kwargs: Any
) -> Any:
    """One chat completion from whichever replica the Router picks (another one if it fails)."""
    router = replica_router(model, replicas_of(api_base), api_key)
    try:
        return await router.acompletion(model=model, messages=messages, **kwargs)
    except Exception as exc:
        if not _all_cooling_down(exc):
            raise
        wait = getattr(exc, "cooldown_time", None)
        seconds = float(wait) if isinstance(wait, int | float) and wait > 0 else COOLDOWN_S
        raise ReplicasCoolingDown(
            f"every api_base replica failed lately and is cooling down; try again in {seconds:g} s",
            seconds,
        ) from exc
