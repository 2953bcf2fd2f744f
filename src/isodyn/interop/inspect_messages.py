"""A cell's messages, as its transcript keeps them (OpenAI-style dicts, each image as `sha256:<hex>`),
and inspect's chat messages, both ways.

Exporting puts each image back from the run's render cache (inspect's viewer shows it); an image the
cache no longer has becomes a text placeholder that names its digest, which reading turns back into
the digest, so a transcript survives the trip unchanged either way.
"""

from __future__ import annotations

import base64
import binascii
import re
from collections.abc import Callable, Sequence
from typing import Any

from inspect_ai.model import (
    ChatMessage,
    ChatMessageAssistant,
    ChatMessageSystem,
    ChatMessageTool,
    ChatMessageUser,
    Content,
    ContentImage,
    ContentText,
)

from isodyn.core import JsonObject
from isodyn.models.requests import image_digest

# The picture a transcript names by digest, or None when it is not there any more.
ImageLookup = Callable[[str], bytes | None]

_PLACEHOLDER = "[image {digest}: not in the run's cache]"
_PLACEHOLDER_RE = re.compile(r"\[image (sha256:[0-9a-f]{64}): not in the run's cache\]")


def no_images(digest: str) -> bytes | None:
    """The lookup of a run whose cache is gone: every image is a placeholder."""
    return None


def to_chat(messages: Sequence[JsonObject], images: ImageLookup) -> list[ChatMessage]:
    """A call's messages as inspect's, each image as a PNG data URI when `images` has it."""
    return [_chat_message(message, images) for message in messages]


def from_chat(messages: Sequence[ChatMessage]) -> list[JsonObject]:
    """Inspect's messages as a transcript keeps them: text as text, each image by its digest."""
    return [_transcript_message(message) for message in messages]


def _chat_message(message: JsonObject, images: ImageLookup) -> ChatMessage:
    role = str(message.get("role", "user"))
    raw = message.get("content")
    content: str | list[Content] = raw if isinstance(raw, str) else _parts(raw or [], images)
    if role == "system":
        return ChatMessageSystem(content=content)
    if role == "assistant":
        return ChatMessageAssistant(content=content)
    if role == "tool":  # no strategy sends one; kept as what it said
        return ChatMessageTool(content=content)
    return ChatMessageUser(content=content)


def _parts(parts: Sequence[Any], images: ImageLookup) -> list[Content]:
    out: list[Content] = []
    for part in parts:
        if not isinstance(part, dict):
            out.append(ContentText(text=str(part)))
        elif part.get("type") == "image_url":
            url = str((part.get("image_url") or {}).get("url", ""))
            out.append(_image(url, images))
        else:
            out.append(ContentText(text=str(part.get("text", ""))))
    return out


def _image(url: str, images: ImageLookup) -> Content:
    if not url.startswith("sha256:"):  # a data URI or a link a transcript kept as it was
        return ContentImage(image=url)
    found = images(url)
    if found is None:
        return ContentText(text=_PLACEHOLDER.format(digest=url))
    return ContentImage(image="data:image/png;base64," + base64.b64encode(found).decode())


def _transcript_message(message: ChatMessage) -> JsonObject:
    content = message.content
    if isinstance(content, str):
        return {"role": message.role, "content": content}
    return {"role": message.role, "content": [_transcript_part(part) for part in content]}


def _transcript_part(part: Content) -> JsonObject:
    if isinstance(part, ContentImage):
        return {"type": "image_url", "image_url": {"url": _digest_of(part.image)}}
    if isinstance(part, ContentText):
        placeholder = _PLACEHOLDER_RE.fullmatch(part.text)
        if placeholder:
            return {"type": "image_url", "image_url": {"url": placeholder.group(1)}}
        return {"type": "text", "text": part.text}
    return {"type": "text", "text": str(getattr(part, "text", "") or part.type)}  # reasoning, audio...


def _digest_of(image: str) -> str:
    """A data URI's image by the digest of its bytes (as `hash_images` names it); a link as it is."""
    if not image.startswith("data:"):
        return image
    try:
        return image_digest(base64.b64decode(image.split(",", 1)[1]))
    except (IndexError, binascii.Error):
        return image
