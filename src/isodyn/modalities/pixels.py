"""A render profile's pixel choices: pure functions from PNG bytes to PNG bytes.

Applied after drawing, in a fixed order: resize (`downscale`, then `max_px`), palette (`gray`,
`lowcontrast`), blur, JPEG round trip. The result is PNG again (RGB, no metadata, `encode_png`'s
level), so equal input gives equal bytes in every process.
"""

from __future__ import annotations

import io
from typing import Protocol

import numpy as np
from PIL import Image, ImageFilter

from isodyn.modalities.images import encode_png

LOW_CONTRAST = 0.45  # ink keeps this share of its distance from white: black becomes #8c8c8c


class PixelChoices(Protocol):
    """What `post_process` reads of a render profile."""

    @property
    def downscale(self) -> float: ...
    @property
    def max_px(self) -> int | None: ...
    @property
    def palette(self) -> str: ...
    @property
    def blur(self) -> float: ...
    @property
    def jpeg_quality(self) -> int | None: ...


def post_process(choices: PixelChoices, png: bytes) -> bytes:
    """`png` with the pixel choices applied; the same bytes when there is none to apply."""
    if not has_pixel_choices(choices):
        return png
    image = Image.open(io.BytesIO(png)).convert("RGB")
    image = resized(image, choices.downscale, choices.max_px)
    if choices.palette == "gray":
        image = image.convert("L").convert("RGB")
    elif choices.palette == "lowcontrast":
        image = low_contrast(image)
    if choices.blur:
        image = image.filter(ImageFilter.GaussianBlur(choices.blur))
    if choices.jpeg_quality is not None:
        image = jpeg_round_trip(image, choices.jpeg_quality)
    return encode_png(np.asarray(image))


def has_pixel_choices(choices: PixelChoices) -> bool:
    return (
        choices.downscale != 1
        or choices.max_px is not None
        or choices.palette in ("gray", "lowcontrast")
        or bool(choices.blur)
        or choices.jpeg_quality is not None
    )


def resized(image: Image.Image, downscale: float, max_px: int | None) -> Image.Image:
    """Smaller by `downscale` per side, then so that no side exceeds `max_px` (never larger)."""
    factor = downscale
    if max_px is not None:
        factor = min(factor, max_px / max(image.size))
    if factor >= 1:
        return image
    size = (max(1, round(image.width * factor)), max(1, round(image.height * factor)))
    return image.resize(size, Image.Resampling.LANCZOS)


def low_contrast(image: Image.Image) -> Image.Image:
    """Every pixel moved towards white: white stays white, black becomes a mid gray."""
    ink = 255 - np.asarray(image, dtype=np.float32)
    return Image.fromarray((255 - ink * LOW_CONTRAST).round().astype(np.uint8))


def jpeg_round_trip(image: Image.Image, quality: int) -> Image.Image:
    """The picture as a JPEG of `quality` shows it (its compression artefacts), decoded again."""
    buf = io.BytesIO()
    image.save(buf, format="jpeg", quality=quality)
    buf.seek(0)
    return Image.open(buf).convert("RGB")
