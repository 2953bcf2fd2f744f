"""Before a grid calls a model: can the model be called at all? (No request is sent.)

A missing package, a server that is not there or an address that is no address would otherwise
show up as one retried connection error per cell. Found here, they stop the run with one line
naming the fix. Hosted providers without `api_base` are not probed: that would need the network.
"""

from __future__ import annotations

import importlib.util
import socket
from urllib.parse import urlsplit

from isodyn.models.catalog import LOCAL_PROVIDER, is_local

PROBE_SECONDS = 3.0


def preflight(model: str, api_base: str | None) -> str | None:
    """Why `model` cannot be called, or None when nothing stands in the way that can be seen."""
    if is_local(model):
        return _local_problem(model)
    if api_base:
        return _server_problem(api_base)
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


def _server_problem(api_base: str) -> str | None:
    parts = urlsplit(api_base)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        return f"api_base {api_base!r} is not a server address; write it as http://HOST:PORT/v1"
    try:
        port = parts.port or (443 if parts.scheme == "https" else 80)
    except ValueError:
        return f"api_base {api_base!r} has a bad port"
    try:
        with socket.create_connection((parts.hostname, port), timeout=PROBE_SECONDS):
            return None
    except OSError as exc:
        reason = exc.strerror or type(exc).__name__
        return f"cannot reach api_base {api_base} ({reason}); start the server or fix the address"
