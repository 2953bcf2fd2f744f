"""A stub model that reads large pictures and fails on small ones, for the render-profile tests
(tests/test_view_profiles.py, tests/test_search_renders.py).

It answers every variant it was told of right (`RegionAnswerer` without regions), except when a
picture in the request is narrower than `min_width` pixels: then it commits to a wrong number. The
width is read from the PNG the request carries as a data URI, so the stub sees exactly what a model
would be sent under each render profile (`lowres` halves the default picture's width).
"""

from __future__ import annotations

import base64
import io
import json
import threading
from typing import Any

from PIL import Image

from isodyn.testing import ScriptedReply
from isodyn.testing.region_answerer import RegionAnswerer

WRONG = "-98765"  # far from any truth of the seeds these tests use


def picture_widths(request: dict[str, Any]) -> list[int]:
    """The pixel width of every picture in a chat request (data URIs of PNGs)."""
    widths = []
    for message in request.get("messages", []):
        content = message.get("content")
        for part in content if isinstance(content, list) else ():
            if isinstance(part, dict) and part.get("type") == "image_url":
                url = part["image_url"]["url"]
                data = base64.b64decode(url.split(",", 1)[1])
                widths.append(Image.open(io.BytesIO(data)).size[0])
    return widths


class SmallPicturesFail:
    """A stub script: right on the variants `answerer` knows, wrong whenever a picture is small."""

    def __init__(self, min_width: int, answerer: RegionAnswerer | None = None) -> None:
        self.min_width = min_width
        self.answerer = answerer or RegionAnswerer()
        self.widths: list[int] = []  # every picture's width, as asked
        self._lock = threading.Lock()

    def __call__(self, request: dict[str, Any]) -> ScriptedReply:
        widths = picture_widths(request)
        with self._lock:
            self.widths += widths
        if any(width < self.min_width for width in widths):
            return ScriptedReply(text=json.dumps({"solution": "too small to read", "short answer": WRONG}))
        return self.answerer(request)
