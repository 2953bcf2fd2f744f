"""What is asked of a model and what comes back: the types strategies, the runner, the reply cache
and the litellm edge all speak.

- `ModelRequest`: one call (model, messages, generation parameters, api_base, and the repeat,
  step and sample that make otherwise equal calls distinct);
- `Reply`: its text, token counts, cost, latency and finish reason;
- `clean_reply`: a reply as the record holds it (a lone surrogate, which JSON can carry as
  `"\\ud800"` and UTF-8 cannot encode, becomes U+FFFD);
- `hash_images`: messages with each inline image replaced by the SHA-256 of its bytes, as the
  transcript shows them and the cache key hashes them.

Standard library only, and nothing from the rest of isodyn: whatever makes or answers a request can
depend on this module without pulling in the cache, the runner or litellm.
"""

from __future__ import annotations

import base64
import hashlib
import math
import re
from dataclasses import dataclass, field, replace
from functools import lru_cache
from typing import Any

from isodyn.core import JsonObject

# The token limit of a reply when none is set (`max_tokens=`): room for the chain of thought of current
# reasoning models; 512 cut most of them short.
DEFAULT_MAX_TOKENS = 4096


@dataclass(frozen=True)
class ModelRequest:
    model: str
    messages: list[JsonObject]
    params: JsonObject = field(default_factory=dict)
    api_base: str | None = None
    repeat: int = 0
    step: str = "answer"
    sample: int = 0


@dataclass(frozen=True)
class Reply:
    text: str
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cost_usd: float = 0.0
    latency_s: float = 0.0
    # why the model stopped, in litellm's (OpenAI's) words: "stop", "length" (cut off at the token
    # limit), "content_filter", ...; None: not known (a reply cached before it was kept)
    finish_reason: str | None = None


# The finish reason of a reply cut off at the token limit. litellm maps every provider's own word to
# it (Anthropic's `max_tokens`, Gemini's `MAX_TOKENS`: litellm_core_utils.core_helpers.map_finish_reason).
CUT_OFF = "length"


def finish_reason_of(value: Any) -> str | None:
    """A finish reason as a reply keeps it: a short word, or None for anything else."""
    return value if isinstance(value, str) and 0 < len(value) <= 64 else None


def token_count(value: Any) -> int | None:
    """A server's token count as a whole number >= 0; None for one that is negative, not finite or
    not a number (a negative count would make a negative cost, and a budget that grows as it is
    spent)."""
    if isinstance(value, bool):
        return None
    try:
        number = float(value)
    except (TypeError, ValueError, OverflowError):
        return None
    return int(number) if math.isfinite(number) and number >= 0 else None


_SURROGATE = re.compile("[\ud800-\udfff]")


def clean_text(text: str) -> str:
    """`text` with each lone surrogate replaced by U+FFFD (every other character kept)."""
    return _SURROGATE.sub("\ufffd", text) if _SURROGATE.search(text) else text


def clean_reply(reply: Reply) -> Reply:
    """The reply as the record holds it: text that UTF-8 can encode."""
    text = clean_text(reply.text)
    return reply if text is reply.text else replace(reply, text=text)


def hash_images(value: Any) -> Any:
    """A copy of a message structure with each inline image replaced by `sha256:<hex of its bytes>`."""
    if isinstance(value, dict):
        out = {k: hash_images(v) for k, v in value.items()}
        url = out.get("url")
        if isinstance(url, str) and url.startswith("data:"):
            out["url"] = _data_uri_digest(url)
        return out
    if isinstance(value, list):
        return [hash_images(v) for v in value]
    return value


def replicas_of(api_base: str | None) -> tuple[str, ...]:
    """The addresses `api_base` names (config.py joins several with ","): none, one, or replicas."""
    return tuple(api_base.split(",")) if api_base else ()


def image_digest(image: bytes) -> str:
    """How a transcript names an image: `sha256:<hex of its bytes>` (the render cache keeps each
    image drawn under this name, for a viewer to show)."""
    return "sha256:" + hashlib.sha256(image).hexdigest()


@lru_cache(maxsize=128)  # a key holds a whole image (tens of kB): the recent few, reused by a cell's calls
def _data_uri_digest(url: str) -> str:
    # by the decoded bytes, so the same pixels under another MIME label or encoding hash alike
    return image_digest(base64.b64decode(url.split(",", 1)[1]))
