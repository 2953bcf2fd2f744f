"""Seed programs. Importing this package discovers every seed module below it."""

from __future__ import annotations

import importlib
import pkgutil

from isodyn.generators.base import Draw, SeedProgram, UnsupportedModality, registered

__all__ = ["Draw", "SeedProgram", "UnsupportedModality", "all_seeds", "get_seed"]

_loaded = False


def _discover() -> None:
    global _loaded
    if _loaded:
        return
    for info in pkgutil.walk_packages(__path__, prefix=f"{__name__}."):
        importlib.import_module(info.name)
    _loaded = True


def all_seeds() -> dict[str, SeedProgram]:
    _discover()
    return {seed_id: cls() for seed_id, cls in sorted(registered().items())}


def get_seed(seed_id: str) -> SeedProgram:
    seeds = all_seeds()
    if seed_id not in seeds:
        raise KeyError(f"unknown seed {seed_id!r}; known: {', '.join(seeds)}")
    return seeds[seed_id]
