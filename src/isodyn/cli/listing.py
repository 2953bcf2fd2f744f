"""What `exp list KIND` shows of each plug-in kind: its table's title, columns and one entry's row.

`exp list` builds every kind's table in one loop over `registry_of(kind).entries()`; only the cells
differ per kind. A kind of `registry.KINDS` without a `Listing` here still lists: its entries' names
and summaries. Nothing here imports a kind's modules (`exp list graders` does not load the seeds):
a row reads the attributes of the registered object.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from isodyn.registry import Entry

Row = tuple[object, ...]


def name_and_summary(entry: Entry[Any]) -> Row:
    return entry.name, entry.summary


def _seed_row(entry: Entry[Any]) -> Row:
    seed = entry.value  # a SeedProgram class: a registered seed describes itself in class attributes
    space = seed.variant_space
    return (
        entry.name,
        seed.topic.value,
        seed.level.value,
        seed.answer_type.value,
        ", ".join(v.value for v in seed.variation_types),
        ", ".join(m.value for m in seed.modalities),
        f"{space:.2g}" if space >= 1e6 else str(space),
    )


def _strategy_row(entry: Entry[Any]) -> Row:
    cls = entry.value
    accepted = "all" if cls.modalities is None else ", ".join(sorted(m.value for m in cls.modalities))
    return entry.name, entry.summary, cls.source, cls.calls_per_cell, accepted


def _modifier_row(entry: Entry[Any]) -> Row:
    cls = entry.value
    return entry.name, entry.summary, cls.source, cls.calls_per_cell


def _render_row(entry: Entry[Any]) -> Row:
    profile = entry.value  # a RenderProfile; a user's entry names the isodyn.toml that defined it
    source = "built-in" if entry.defined_in.startswith("isodyn.") else entry.defined_in
    return entry.name, entry.summary, profile.digest, source


def _dataset_row(entry: Entry[Any]) -> Row:
    variants = getattr(entry.value, "variants", None)  # None: every trial of the release
    return f"{entry.name}:", entry.summary, "every trial" if variants is None else str(variants)


@dataclass(frozen=True)
class Listing:
    title: str
    columns: tuple[str, ...]
    row: Callable[[Entry[Any]], Row] = name_and_summary  # one cell per column
    # "module:function" returning entries listed after the registry's (the ones a user's config
    # file defines), imported only when this kind is listed
    more: str | None = None


LISTINGS: dict[str, Listing] = {
    "seeds": Listing(
        "Seed programs (generators)",
        ("seed", "topic", "level", "answer type", "variation types", "representations", "variants"),
        _seed_row,
    ),
    "strategies": Listing(
        "Base strategies (compose with modifiers: antimem+cot3, permute+sc@5+isosp)",
        ("name", "what it does", "source", "calls per cell", "modalities"),
        _strategy_row,
    ),
    "modifiers": Listing("Modifiers", ("name", "what it does", "source", "calls per cell"), _modifier_row),
    "graders": Listing("Graders (grader=NAME)", ("name", "what it does")),
    "metrics": Listing("Report metric sections, in order", ("name", "what it does")),
    "datasets": Listing(
        "Datasets (dataset=PREFIX:PATH; no prefix: a DynaMath release)",
        ("prefix", "what it reads", "variants by default"),
        _dataset_row,
    ),
    "renders": Listing(
        "Render profiles (renders=NAME,...; add one as [renders.NAME] in isodyn.toml)",
        ("name", "what it changes", "digest", "from"),
        _render_row,
        more="isodyn.modalities.profiles:user_render_entries",
    ),
}


def listing_of(kind: str) -> Listing:
    """How `exp list` shows `kind` (a kind without its own listing shows names and summaries)."""
    return LISTINGS.get(kind) or Listing(kind.capitalize(), ("name", "what it does"))
