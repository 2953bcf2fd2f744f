"""A disk memo of variants and their renderings, so a cached rerun neither re-samples nor redraws.

Drawing a plot costs 30-90 ms; the reply cache key needs the image bytes, so without this memo a
fully cached rerun of image cells would be bound by matplotlib. The memo key is the variant's
content fingerprint, the modality, and a hash of the rendering code (the seed's module, the shared
renderers and the core types), so editing a renderer invalidates its entries.
"""

from __future__ import annotations

import hashlib
import inspect
from functools import cache
from pathlib import Path

import isodyn.core
import isodyn.modalities
from isodyn.cache.stores import open_store
from isodyn.core import Modality, Representation, Variant
from isodyn.generators.base import SeedProgram


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


class RenderCache:
    def __init__(self, directory: Path | str) -> None:
        self._store = open_store(directory)

    def representation(self, seed: SeedProgram, variant: Variant, modality: Modality) -> Representation:
        if not seed.memoizable:
            return seed.representation(variant, modality)
        key = f"{variant.seed_id}|{variant.fingerprint()}|{modality.value}|{renderer_version(type(seed))}"
        found = self._store.get(key)
        if found is None:
            found = seed.representation(variant, modality)
            self._store.set(key, found)
        return found

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
