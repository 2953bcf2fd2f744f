"""Before a grid calls a model: can the model be called at all? (No request is sent.)

A missing package, a server that is not there or an address that is no address would otherwise
show up as one retried connection error per cell. Found here, they stop the run with one line
naming the fix. Hosted providers without `api_base` are not probed: that would need the network.
Several replicas (`api_base=URL1,URL2`): the run stops only when none answers; `unreachable_replicas`
names the ones that do not, for a warning.
"""

from __future__ import annotations

import importlib.util
import socket
from concurrent.futures import ThreadPoolExecutor
from urllib.parse import urlsplit

from isodyn.models.catalog import LOCAL_PROVIDER, is_local
from isodyn.models.requests import replicas_of

PROBE_SECONDS = 3.0


def preflight(model: str, api_base: str | None) -> str | None:
    """Why `model` cannot be called, or None when nothing stands in the way that can be seen."""
    if is_local(model):
        return _local_problem(model)
    if api_base:
        return _servers_problem(api_base)
    return None


def _local_problem(model: str) -> str | None:
    from isodyn.models.local import LocalModelUnavailable, engine_problem, gguf_path

    if importlib.util.find_spec("llama_cpp") is None:
        return (
            f"{model} needs the llama-cpp-python package, which is not installed; install it with: "
            "pip install -e '.[local]'"
        )
    model_id = model.removeprefix(f"{LOCAL_PROVIDER}/")
    try:
        gguf_path(model_id)
    except LocalModelUnavailable as exc:
        return str(exc)
    return engine_problem(model_id)  # loaded and tried in a child process: a native crash is a line


def _servers_problem(api_base: str) -> str | None:
    replicas = replicas_of(api_base)
    for address in replicas:
        problem = _address_problem(address)
        if problem:
            return problem  # not an address at all: no replica makes that right
    reasons = _unreachable(replicas)
    if len(replicas) == 1:
        reason = reasons.get(api_base)
        return reason and f"cannot reach api_base {api_base} ({reason}); start the server or fix the address"
    if len(reasons) < len(replicas):
        return None  # at least one answers: the Router sends every call to those that do
    said = "; ".join(f"{address}: {reason}" for address, reason in reasons.items())
    return (
        f"cannot reach api_base: none of its {len(replicas)} replicas answers ({said}); "
        "start a server or fix the addresses"
    )


def unreachable_replicas(api_base: str | None) -> str | None:
    """For several replicas of which some answer: one line naming those that do not (None when all
    answer, when there is one server, or when none answers: `preflight` stops the run then)."""
    replicas = replicas_of(api_base)
    if len(replicas) < 2 or any(_address_problem(address) for address in replicas):
        return None
    reasons = _unreachable(replicas)
    if not reasons or len(reasons) == len(replicas):
        return None
    said = ", ".join(f"{address} ({reason})" for address, reason in reasons.items())
    answering = len(replicas) - len(reasons)
    return (
        f"api_base replica{'s' if len(reasons) > 1 else ''} not answering: {said}; the run goes on with "
        f"the {answering} that answer{'s' if answering == 1 else ''} (one that comes back is used again)"
    )


def _address_problem(api_base: str) -> str | None:
    parts = urlsplit(api_base)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        return f"api_base {api_base!r} is not a server address; write it as http://HOST:PORT/v1"
    try:
        _port(api_base)
    except ValueError:
        return f"api_base {api_base!r} has a bad port"
    return None


def _port(api_base: str) -> int:
    parts = urlsplit(api_base)
    return parts.port or (443 if parts.scheme == "https" else 80)


def _unreachable(replicas: tuple[str, ...]) -> dict[str, str]:
    """Each address that does not accept a connection, with why, in the order given. Probed side by
    side: a replica that drops packets costs PROBE_SECONDS once, not once per replica."""
    if len(replicas) == 1:
        reason = _connect(replicas[0])
        return {replicas[0]: reason} if reason else {}
    with ThreadPoolExecutor(max_workers=min(len(replicas), 16)) as pool:
        reasons = list(pool.map(_connect, replicas))
    return {address: reason for address, reason in zip(replicas, reasons, strict=True) if reason}


def _connect(api_base: str) -> str | None:
    hostname = urlsplit(api_base).hostname or ""
    try:
        with socket.create_connection((hostname, _port(api_base)), timeout=PROBE_SECONDS):
            return None
    except OSError as exc:
        return exc.strerror or type(exc).__name__
