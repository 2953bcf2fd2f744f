"""A disk memo of variants and their renderings, so a cached rerun neither re-samples nor redraws.

Drawing a plot costs 30-90 ms; the reply cache key needs the image bytes, so without this memo a
fully cached rerun of image cells would be bound by matplotlib. The memo key is the variant's
content fingerprint, the modality, the render profile's digest (for any profile but the default, so
the default's entries keep their keys), and a hash of the rendering code (the seed's module, the shared
renderers and the core types), so editing a renderer invalidates its entries.

Each image drawn is kept once, under its content hash (`image_key`), the `sha256:<hex>` a cell's
transcript records in place of the image, so a viewer can show the picture a model was sent
(`stored_image`) without keeping every image in the run's folder. A representation is stored as
JSON naming its image by that hash (`codecs.representation_json`), a variant as its own JSON; an
entry of another shape, or an image whose bytes do not have its hash, is drawn again.
"""

from __future__ import annotations

import hashlib
import inspect
import sqlite3
from collections.abc import Callable
from dataclasses import replace
from functools import cache
from pathlib import Path

import isodyn.core
import isodyn.modalities
from isodyn.cache.codecs import dumps, loads, representation_from_json, representation_json, variant_from_json
from isodyn.cache.folder import Stores
from isodyn.cache.stores import CacheDamaged, open_store
from isodyn.core import Modality, Representation, Variant
from isodyn.generators.base import SeedProgram
from isodyn.modalities.profiles import DEFAULT_PROFILE, RenderProfile, derive, represent_under
from isodyn.models.requests import image_digest

Draw = Callable[[], Representation]


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

    def representation(
        self,
        seed: SeedProgram,
        variant: Variant,
        modality: Modality,
        profile: RenderProfile = DEFAULT_PROFILE,
    ) -> Representation:
        """The variant shown in `modality`, drawn under `profile` (a picture's look: see
        `modalities.profiles`), from the memo when it holds it. A profile that only post-processes
        pixels is derived from the default picture (itself memoized) instead of drawing again."""
        if modality is not Modality.IMAGE or profile.is_default:
            profile = DEFAULT_PROFILE  # a profile changes pictures only: text is memoized once
        make: Draw
        if profile.is_default or profile.needs_redraw:
            make = lambda: represent_under(profile, lambda: seed.representation(variant, modality))  # noqa: E731
        else:
            make = lambda: derive(profile, self.representation(seed, variant, modality))  # noqa: E731
        return self._remembered(seed, variant, modality, profile, make)

    def _remembered(
        self, seed: SeedProgram, variant: Variant, modality: Modality, profile: RenderProfile, make: Draw
    ) -> Representation:
        """`make()`, memoized under the variant, modality, rendering code and (unless default) the
        profile's digest: the default's key is the one every earlier picture was kept under."""
        if not seed.memoizable:
            drawn = make()
            self._keep_image(drawn)
            return drawn
        key = f"{variant.seed_id}|{variant.fingerprint()}|{modality.value}|{renderer_version(type(seed))}"
        if not profile.is_default:
            key += f"|render:{profile.digest}"
        found = self._stored_representation(key)
        if found is None:
            found = make()
            digest = self._keep_image(found)
            stored = dumps(representation_json(found, digest))
            if stored is not None:  # else (something JSON cannot hold in `extra`) it is drawn each time
                self._store.set(key, stored)
        return found

    def _stored_representation(self, key: str) -> Representation | None:
        """The representation stored under `key` with its image, or None (drawn again)."""
        decoded = representation_from_json(loads(self._store.get(key)))
        if decoded is None:
            return None
        representation, digest = decoded
        if digest is None:
            return representation
        png = self._store.get(image_key(digest))
        if type(png) is not bytes or image_digest(png) != digest:
            return None
        return replace(representation, image_png=png)

    def _keep_image(self, representation: Representation) -> str | None:
        """Store the representation's image under its digest (once); the digest, or None."""
        if representation.image_png is None:
            return None
        digest = image_digest(representation.image_png)
        self._store.add(image_key(digest), representation.image_png)
        return digest

    def variant(self, seed: SeedProgram, index: int, base_seed: int) -> Variant:
        """The seed's variant, memoized too: some seeds spend milliseconds in SymPy drawing one."""
        if not seed.memoizable:
            return seed.variant(index, base_seed)
        key = f"variant|{seed.seed_id}|{index}|{base_seed}|{renderer_version(type(seed))}"
        found = variant_from_json(loads(self._store.get(key)))
        if found is None:
            found = seed.variant(index, base_seed)
            stored = dumps(found.to_json())
            if stored is not None:
                self._store.set(key, stored)
        return found

    def close(self) -> None:
        self._store.close()


def stored_image(renders: Path, digest: str) -> bytes | None:
    """The PNG a transcript names by `digest` from the render store at `renders`, or None: when the
    store or the image is not there (an image drawn before images were kept by hash), or the entry
    is anything but bytes of that digest. Never unpickles (`SafeDisk`): a pickled entry is missing
    too. Creates nothing."""
    if not (renders / "cache.db").is_file():
        return None
    try:
        with open_store(renders, pickles=True) as store:
            found = store.get(image_key(digest))
    except (sqlite3.Error, OSError, CacheDamaged):  # damaged, unreadable, pickled: said missing
        return None
    return found if isinstance(found, bytes) and image_digest(found) == digest else None


def open_render_cache(cache_dir: Path) -> RenderCache:
    """The render cache of a cache folder (its `renders` store)."""
    return RenderCache(Stores(cache_dir).renders)
