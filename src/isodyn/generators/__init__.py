"""Seed programs. `SEEDS` (generators/base.py) finds every seed module on first read."""

from __future__ import annotations

from isodyn.generators.base import SEEDS, Draw, SeedProgram, UnsupportedModality

__all__ = ["SEEDS", "Draw", "SeedProgram", "UnsupportedModality", "all_seeds", "get_seed"]


def all_seeds() -> dict[str, SeedProgram]:
    """One instance of every seed program, by id in the registry's order (by id)."""
    return {entry.name: entry.value() for entry in SEEDS.entries()}


def get_seed(seed_id: str) -> SeedProgram:
    seeds = all_seeds()
    if seed_id not in seeds:
        raise KeyError(f"unknown seed {seed_id!r}; known: {', '.join(seeds)}")
    return seeds[seed_id]
