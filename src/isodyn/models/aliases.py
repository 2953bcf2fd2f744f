"""Short model names: `gpt-4o`, `gemini`, `claude`, `qwen-vl` -> full litellm ids, with whether each
reads images.

A small built-in table, which a project's `isodyn.toml` (in the working folder) or the user's
`~/.config/isodyn/isodyn.toml` extends or overrides:

    [models]
    gemini = "gemini/gemini-2.0-flash"                       # an id
    my-vlm = { id = "openai/my-vlm", vision = true }         # an id and whether it reads images

Rows, reports and cache keys always hold the resolved id, so changing an alias never mixes two
models' results. A name that is no alias is used as written (a litellm id).
"""

from __future__ import annotations

import os
import tomllib
from dataclasses import dataclass
from pathlib import Path

from isodyn.models.catalog import ModelError


@dataclass(frozen=True)
class Alias:
    name: str
    model: str  # the litellm id
    vision: bool | None  # None: as litellm's table says
    source: str  # "built-in" or the file that set it


_BUILT_IN = {
    # OpenAI
    "gpt-4o": ("gpt-4o", True),
    "gpt-4o-mini": ("gpt-4o-mini", True),
    "gpt-4.1": ("gpt-4.1", True),
    "o4-mini": ("o4-mini", True),
    # Google
    "gemini": ("gemini/gemini-1.5-pro", True),
    "gemini-pro": ("gemini/gemini-1.5-pro", True),
    "gemini-flash": ("gemini/gemini-1.5-flash", True),
    # Anthropic
    "claude": ("anthropic/claude-3-5-sonnet-20240620", True),
    "claude-sonnet": ("anthropic/claude-3-5-sonnet-20240620", True),
    "claude-haiku": ("anthropic/claude-3-haiku-20240307", True),
    # open models through a hosted router
    "qwen-vl": ("openrouter/qwen/qwen-2.5-vl-72b-instruct", True),
    "llama-vision": ("openrouter/meta-llama/llama-3.2-90b-vision-instruct", True),
    # the embedded default
    "smollm2": ("local/smollm2-135m", False),
}


def config_files() -> list[Path]:
    """Where aliases are read from, later files overriding earlier ones."""
    home = Path(os.environ.get("XDG_CONFIG_HOME", Path.home() / ".config")) / "isodyn" / "isodyn.toml"
    return [home, Path.cwd() / "isodyn.toml"]


def _from_file(path: Path) -> dict[str, Alias]:
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except tomllib.TOMLDecodeError as exc:
        raise ModelError(f"{path}: {exc}") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise ModelError(f"{path}: cannot read it ({exc})") from None
    table = data.get("models", {})
    if not isinstance(table, dict):
        raise ModelError(f'{path}: [models] must be a table of name = "litellm id"')
    found = {}
    for name, value in table.items():
        if isinstance(value, str) and value.strip():
            found[name] = Alias(name, value.strip(), None, str(path))
        elif isinstance(value, dict) and isinstance(value.get("id"), str) and value["id"].strip():
            unknown = set(value) - {"id", "vision"}
            if unknown:
                raise ModelError(
                    f"{path}: models.{name} has unknown key {sorted(unknown)[0]!r}; use id, vision"
                )
            vision = value.get("vision")
            if vision is not None and not isinstance(vision, bool):
                raise ModelError(f"{path}: models.{name}.vision must be true or false")
            found[name] = Alias(name, value["id"].strip(), vision, str(path))
        else:
            raise ModelError(f'{path}: models.{name} must be "litellm id" or {{ id = "...", vision = true }}')
    return found


def aliases(files: list[Path] | None = None) -> dict[str, Alias]:
    """The alias table: built-in entries, then each config file's (later ones win)."""
    table = {name: Alias(name, model, vision, "built-in") for name, (model, vision) in _BUILT_IN.items()}
    for path in files if files is not None else config_files():
        if path.is_file():
            table.update(_from_file(path))
    return table


def resolve(name: str, table: dict[str, Alias] | None = None) -> Alias:
    """The alias `name` stands for (followed through aliases of aliases), or `name` itself as a
    litellm id."""
    table = aliases() if table is None else table
    entry = table.get(name)
    if entry is None:
        return Alias(name, name, None, "as written")
    model, vision, seen = entry.model, entry.vision, [name]
    while model in table and table[model].model != model:
        if model in seen:
            raise ModelError(f"model alias loop: {' -> '.join([*seen, model])} ({entry.source})")
        seen.append(model)
        vision = vision if vision is not None else table[model].vision
        model = table[model].model
    return Alias(name, model, vision, entry.source)
