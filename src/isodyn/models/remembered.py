"""What litellm said about a model, remembered in the cache folder, so that planning a rerun does not
import litellm (seconds on 2 cores) when no call will be made.

An answer is kept under everything it depends on: the model, the server, the vision override and
litellm's version (its tables decide the answer); a key check also under the names of the
environment variables that are set (not their values). Only answers that let the run go on are
kept: an unknown model or a missing key is asked of litellm every time, so its message is fresh.
The file is the user's own cache; a damaged or planted one is ignored, never trusted for more than
the plain fields it must hold.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path

from isodyn.atomic import write_atomic
from isodyn.models.catalog import (
    ModelInfo,
    VisionOverride,
    describe_model,
    is_local,
    missing_api_key,
    needed_api_keys,
)

FILE_NAME = "models.json"
_MAX_BYTES = 1 << 20  # a few hundred models at most; a larger file is not ours


def _litellm_version() -> str:
    try:
        return version("litellm")
    except PackageNotFoundError:
        return "absent"


def _set_variables() -> str:
    """A digest of the names of the non-empty environment variables (a key set or unset changes it)."""
    names = sorted(name for name, value in os.environ.items() if value)
    return hashlib.sha256("\0".join(names).encode()).hexdigest()[:16]


def _read(path: Path) -> dict[str, object]:
    try:
        if path.is_symlink() or not path.is_file() or path.stat().st_size > _MAX_BYTES:
            return {}
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


class RememberedModels:
    """describe_model and missing_api_key, answered from `cache_dir/models.json` when they can be."""

    def __init__(self, cache_dir: Path | None) -> None:
        self._path = cache_dir / FILE_NAME if cache_dir is not None else None
        self._entries = _read(self._path) if self._path is not None else {}
        self._changed = False

    def describe(self, name: str, api_base: str | None, vision: VisionOverride) -> ModelInfo:
        if is_local(name):
            return describe_model(name, api_base, vision)  # answered without litellm anyway
        key = f"describe|{name}|{api_base}|{vision}|litellm={_litellm_version()}"
        found = self._entries.get(key)
        if isinstance(found, dict) and _is_info(found, name):
            return ModelInfo(name, str(found["provider"]), bool(found["vision"]), bool(found["known"]))
        info = describe_model(name, api_base, vision)
        self._remember(
            key, {"provider": info.provider, "vision": info.vision, "known": info.known_to_litellm}
        )
        return info

    def missing_key(self, name: str, api_base: str | None) -> str | None:
        if is_local(name) or api_base:
            return None  # answered without litellm anyway
        key = f"keys|{name}|{_set_variables()}|litellm={_litellm_version()}"
        if self._entries.get(key) is True:
            return None
        missing = missing_api_key(name, api_base)
        if missing is None:
            self._remember(key, True)
        return missing

    def needed_keys(self, name: str, api_base: str | None) -> tuple[str, ...]:
        """`needed_api_keys`, remembered: it depends on litellm's tables, not on what is set."""
        if is_local(name) or api_base:
            return ()
        key = f"needs|{name}|litellm={_litellm_version()}"
        found = self._entries.get(key)
        if isinstance(found, list) and all(isinstance(variable, str) for variable in found):
            return tuple(found)
        needed = needed_api_keys(name, api_base)
        self._remember(key, list(needed))
        return needed

    def _remember(self, key: str, value: object) -> None:
        self._entries[key] = value
        self._changed = True

    def save(self) -> None:
        """Write what was learnt, when the cache folder exists (a dry run or a failed plan writes
        nothing: the caller saves only after the plan is checked). A folder that cannot be written
        costs only the time of asking again."""
        if not self._changed or self._path is None or not self._path.parent.is_dir():
            return
        with contextlib.suppress(OSError):
            write_atomic(self._path, json.dumps(self._entries, sort_keys=True).encode())
        self._changed = False


def _is_info(entry: dict[str, object], name: str) -> bool:
    return (
        isinstance(entry.get("provider"), str)
        and isinstance(entry.get("vision"), bool)
        and isinstance(entry.get("known"), bool)
        and bool(name)
    )
