"""A stub model that reads large pictures and fails on small ones, for the render-profile tests
(tests/test_view_profiles.py, tests/test_search_renders.py).

It knows a variant by its picture: `register` (or the search engine's `on_variant` hook) draws the
variant's default picture and keeps its truth under the PNG's SHA-256 (an image prompt's text is
often the same for every variant: the numbers are in the picture). A request whose picture is
narrower than `min_width` pixels gets a wrong number; one whose picture it knows, the truth; any
other, "?" (counted in `unknown`). The width is read from the PNG the request carries as a data URI,
so the stub sees exactly what a model would be sent under each render profile (`lowres` halves the
default picture's width).
"""

from __future__ import annotations

import base64
import hashlib
import io
import json
import threading
from typing import Any

from PIL import Image

from isodyn.core import Modality, Variant
from isodyn.generators.base import SEEDS, SeedProgram
from isodyn.testing import ScriptedReply

WRONG = "-98765"  # far from any truth of the seeds these tests use


def pictures(request: dict[str, Any]) -> list[bytes]:
    """The PNG bytes of every picture in a chat request (data URIs)."""
    found = []
    for message in request.get("messages", []):
        content = message.get("content")
        for part in content if isinstance(content, list) else ():
            if isinstance(part, dict) and part.get("type") == "image_url":
                found.append(base64.b64decode(part["image_url"]["url"].split(",", 1)[1]))
    return found


def picture_widths(request: dict[str, Any]) -> list[int]:
    """The pixel width of every picture in a chat request."""
    return [Image.open(io.BytesIO(png)).size[0] for png in pictures(request)]


def _reply(answer: str) -> ScriptedReply:
    return ScriptedReply(text=json.dumps({"solution": "read from the picture", "short answer": answer}))


class SmallPicturesFail:
    """A stub script: the truth of a picture it knows, a wrong number for any small picture."""

    def __init__(self, min_width: int) -> None:
        self.min_width = min_width
        self.widths: list[int] = []  # every picture's width, as asked
        self.unknown = 0  # requests with no picture it knows (nor a small one)
        self._truths: dict[str, str] = {}  # SHA-256 of a default picture -> the variant's truth
        self._seeds: dict[str, SeedProgram] = {}
        self._lock = threading.Lock()

    def register(self, variant: Variant) -> None:
        if variant.seed_id not in self._seeds:
            self._seeds[variant.seed_id] = SEEDS[variant.seed_id]()
        png = self._seeds[variant.seed_id].representation(variant, Modality.IMAGE).image_png
        assert png is not None, variant.seed_id
        with self._lock:
            self._truths[hashlib.sha256(png).hexdigest()] = variant.answer

    def on_variant(self, unit: Any, variant: Variant) -> None:
        """The search engine's hook: an image unit's variant is about to be asked."""
        if unit.modality is Modality.IMAGE:
            self.register(variant)

    def __call__(self, request: dict[str, Any]) -> ScriptedReply:
        found = pictures(request)
        widths = [Image.open(io.BytesIO(png)).size[0] for png in found]
        with self._lock:
            self.widths += widths
            truths = [self._truths.get(hashlib.sha256(png).hexdigest()) for png in found]
        if any(width < self.min_width for width in widths):
            return _reply(WRONG)
        if len(truths) == 1 and truths[0] is not None:
            return _reply(truths[0])
        with self._lock:
            self.unknown += 1
        return _reply("?")
