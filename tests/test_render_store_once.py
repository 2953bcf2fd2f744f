"""The render store keeps each drawn image once (issue 39): under its digest, never again inside the
representation that names it, and drawing the same picture for another cell adds nothing."""

from __future__ import annotations

import base64
from pathlib import Path

import diskcache

from isodyn.cache.renders import RenderCache, image_key
from isodyn.core import Modality
from isodyn.generators import all_seeds
from isodyn.models.requests import image_digest

PNG_MAGIC = b"\x89PNG\r\n\x1a\n"


def _entries(directory: Path) -> dict[str, bytes]:
    """Every key of the store with its value's bytes, read straight from diskcache."""
    entries = {}
    with diskcache.Cache(str(directory)) as store:
        for key in store.iterkeys():
            value = store.get(key)
            entries[key] = value if isinstance(value, bytes) else str(value).encode()
    return entries


def test_each_drawn_image_is_stored_once_and_named_by_its_digest(tmp_path: Path) -> None:
    seeds = [s for s in all_seeds().values() if Modality.IMAGE in s.modalities and s.memoizable][:6]
    assert len(seeds) >= 3
    cache = RenderCache(tmp_path / "renders")
    drawn: dict[str, bytes] = {}
    for seed in seeds:
        for index in range(2):
            variant = cache.variant(seed, index, 0)
            png = cache.representation(seed, variant, Modality.IMAGE).image_png
            assert png is not None and png.startswith(PNG_MAGIC)
            drawn[image_digest(png)] = png
    cache.close()
    first = _entries(tmp_path / "renders")

    # each picture sits under its digest, byte for byte, and nowhere else: no other entry holds its
    # bytes, its base64, or any PNG at all
    for digest, png in drawn.items():
        assert first[image_key(digest)] == png
    others = {key: value for key, value in first.items() if not key.startswith("image|")}
    assert len(first) - len(others) == len(drawn)
    for key, value in others.items():
        assert PNG_MAGIC not in value, key
        assert base64.b64encode(PNG_MAGIC).rstrip(b"=")[:8] not in value, key
    assert sum(len(v) for v in others.values()) < sum(len(png) for png in drawn.values()) / 4

    # the same pictures for other cells (a second process, another strategy): read, not stored again
    again = RenderCache(tmp_path / "renders")
    for seed in seeds:
        for index in range(2):
            variant = again.variant(seed, index, 0)
            png = again.representation(seed, variant, Modality.IMAGE).image_png
            assert png is not None and image_digest(png) in drawn
    again.close()
    assert _entries(tmp_path / "renders") == first
