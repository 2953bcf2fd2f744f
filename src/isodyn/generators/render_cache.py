"""A disk memo of variants and their renderings, so a cached rerun neither re-samples nor redraws.

Drawing a plot costs 30-90 ms; the reply cache key needs the image bytes, so without this memo a
fully cached rerun of image cells would be bound by matplotlib. The memo key is the variant's
content fingerprint, the modality, and a hash of the rendering code (the seed's module, the shared
renderers and the core types), so editing a renderer invalidates its entries.

Each image drawn is also kept under its content hash (`image_key`), the `sha256:<hex>` a cell's
transcript records in place of the image, so a viewer can show the picture a model was sent
(`stored_image`) without keeping every image in the run's folder.
"""

from __future__ import annotations

import hashlib
import inspect
import sqlite3
from functools import cache
from pathlib import Path
from typing import Any

import diskcache
from diskcache.core import MODE_PICKLE

import isodyn.core
import isodyn.modalities
from isodyn.cache.stores import open_store
from isodyn.core import Modality, Representation, Variant
from isodyn.generators.base import SeedProgram
from isodyn.models.requests import image_digest


@cache
def _shared_sources_digest() -> str:
    digest = hashlib.sha256(Path(isodyn.core.__file__).read_bytes())
    for path in sorted(Path(isodyn.modalities.__file__).parent.glob("*.py")):
        digest.update(path.read_bytes())
    return digest.hexdigest()


@cache
def renderer_version(seed_class: type[SeedProgram]) -> str:
    source = Path(inspect.getfile(seed_class)).read_bytes()
    return hashlib.sha256(source + _shared_sources_digest().encode()).hexdigest()[:16]


def image_key(digest: str) -> str:
    """The store key of an image by its transcript digest (`sha256:<hex>`)."""
    return f"image|{digest}"


class RenderCache:
    def __init__(self, directory: Path | str) -> None:
        self._store = open_store(directory)

    def representation(self, seed: SeedProgram, variant: Variant, modality: Modality) -> Representation:
        if not seed.memoizable:
            drawn = seed.representation(variant, modality)
            self._keep_image(drawn)
            return drawn
        key = f"{variant.seed_id}|{variant.fingerprint()}|{modality.value}|{renderer_version(type(seed))}"
        found = self._store.get(key)
        if found is None:
            found = seed.representation(variant, modality)
            self._store.set(key, found)
            self._keep_image(found)
        return found

    def _keep_image(self, representation: Representation) -> None:
        if representation.image_png is not None:
            self._store.add(image_key(image_digest(representation.image_png)), representation.image_png)

    def variant(self, seed: SeedProgram, index: int, base_seed: int) -> Variant:
        """The seed's variant, memoized too: some seeds spend milliseconds in SymPy drawing one."""
        if not seed.memoizable:
            return seed.variant(index, base_seed)
        key = f"variant|{seed.seed_id}|{index}|{base_seed}|{renderer_version(type(seed))}"
        found = self._store.get(key)
        if found is None:
            found = seed.variant(index, base_seed)
            found.fingerprint()  # stored with the variant
            self._store.set(key, found)
        return found

    def close(self) -> None:
        self._store.close()


class _BytesOnly(diskcache.Disk):
    """Reads values without ever unpickling one: a viewer may be pointed at a cache it did not fill."""

    def fetch(self, mode: int, filename: str | None, value: Any, read: bool) -> Any:
        if mode == MODE_PICKLE:
            return None
        return super().fetch(mode, filename, value, read)


def stored_image(renders: Path, digest: str) -> bytes | None:
    """The PNG a transcript names by `digest` from the render store at `renders`, or None: when the
    store or the image is not there (an image drawn before images were kept by hash), or the entry
    is anything but bytes. Creates nothing."""
    if not (renders / "cache.db").is_file():
        return None
    try:
        with diskcache.Cache(str(renders), disk=_BytesOnly) as store:
            found = store.get(image_key(digest))
    except (sqlite3.Error, OSError):  # damaged or unreadable: the viewer says the image is missing
        return None
    return found if isinstance(found, bytes) and image_digest(found) == digest else None
