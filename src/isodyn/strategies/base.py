"""Strategy: turns one variant, shown in one modality, into one or more model calls."""

from __future__ import annotations

import base64
from abc import ABC, abstractmethod
from collections.abc import Awaitable, Callable
from functools import cache
from typing import Any, ClassVar

import jinja2

from isodyn.cache import Reply
from isodyn.core import Representation, Variant

Message = dict[str, Any]
# `ask(messages, step)` makes (or replays from the cache) one model call for the cell.
Ask = Callable[[list[Message], str], Awaitable[Reply]]

_REGISTRY: dict[str, type[Strategy]] = {}


class Strategy(ABC):
    name: ClassVar[str]

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        _REGISTRY[cls.name] = cls

    def incompatibility(self, representation: Representation) -> str | None:
        """Why this strategy cannot run on `representation`, or None when it can."""
        return None

    @abstractmethod
    async def run(self, variant: Variant, representation: Representation, ask: Ask) -> Reply:
        """Make the calls and return the reply that is scored."""


def registered_strategies() -> dict[str, type[Strategy]]:
    return _REGISTRY


@cache
def _templates() -> jinja2.Environment:
    return jinja2.Environment(
        loader=jinja2.PackageLoader("isodyn.strategies", "templates"),
        undefined=jinja2.StrictUndefined,
        keep_trailing_newline=False,
        autoescape=False,  # prompts are plain text, not HTML
    )


def render_template(name: str, **values: Any) -> str:
    return _templates().get_template(name).render(**values).strip()


def png_data_uri(png: bytes) -> str:
    return "data:image/png;base64," + base64.b64encode(png).decode("ascii")


def user_message(text: str, images: list[bytes] | tuple[bytes, ...] = ()) -> Message:
    """An OpenAI-style user message: images first as data URIs, then the text."""
    if not images:
        return {"role": "user", "content": text}
    parts: list[dict[str, Any]] = [
        {"type": "image_url", "image_url": {"url": png_data_uri(i)}} for i in images
    ]
    parts.append({"type": "text", "text": text})
    return {"role": "user", "content": parts}
