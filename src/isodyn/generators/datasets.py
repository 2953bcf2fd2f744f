"""Which importer reads a `dataset=` value, and what it holds.

`dataset=PATH` is a DynaMath release (trial folders or parquet splits). A prefix names another
kind: `isobench:PATH` (IsoBench's release), `mmmath:PATH` (MM-MATH's problems and images),
`dynamath-programs:PATH` (DynaMath's own seed programs, drawing fresh variants). Every importer
returns seeds keyed by item id and raises `ReleaseError` with one line.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path

from isodyn.generators.base import SeedProgram
from isodyn.generators.release import ReleaseError


@dataclass(frozen=True)
class DatasetKind:
    name: str
    what: str
    variants: int | None  # the variants a run takes by default (None: every trial of the release)


KINDS = {
    "dynamath": DatasetKind("dynamath", "DynaMath's release (trial folders or parquet splits)", None),
    "isobench": DatasetKind("isobench", "IsoBench's release (one item per question, its representations)", 1),
    "mmmath": DatasetKind("mmmath", "MM-MATH's problems (JSON lines and images)", 1),
    "dynamath-programs": DatasetKind("dynamath-programs", "DynaMath's seed programs (fresh variants)", 3),
}


def split_spec(spec: str | Path) -> tuple[DatasetKind, Path]:
    """(the kind, the path) of a `dataset=` value; no known prefix means a DynaMath release."""
    text = str(spec)
    kind, sep, rest = text.partition(":")
    if sep and kind in KINDS:
        return KINDS[kind], Path(rest).expanduser()
    return KINDS["dynamath"], Path(text).expanduser()


def resolved(spec: str | Path) -> str:
    """The value with its path made absolute (for a run's identity)."""
    kind, path = split_spec(spec)
    absolute = str(path.resolve())
    return absolute if kind.name == "dynamath" else f"{kind.name}:{absolute}"


def _loader(kind: DatasetKind) -> Callable[[Path, tuple[str, ...]], Mapping[str, SeedProgram]]:
    if kind.name == "isobench":
        from isodyn.generators.isobench_release import load_isobench

        return load_isobench
    if kind.name == "mmmath":
        from isodyn.generators.mmmath_release import load_mmmath

        return load_mmmath
    if kind.name == "dynamath-programs":
        from isodyn.generators.dynamath_programs import load_programs

        return load_programs
    from isodyn.generators.release import release_seeds

    return release_seeds


def load_dataset(spec: str | Path, keys: tuple[str, ...] = ()) -> dict[str, SeedProgram]:
    kind, path = split_spec(spec)
    if not path.exists():
        raise ReleaseError(f"dataset {path} does not exist")
    seeds = _loader(kind)(path, keys)
    if not seeds:
        raise ReleaseError(f"{path}: no items ({kind.what})")
    return dict(seeds)


def default_variants(spec: str | Path) -> int:
    """How many variants a run on this dataset takes when `variants=` is not given."""
    kind, path = split_spec(spec)
    if kind.variants is not None:
        return kind.variants
    from isodyn.generators.release import open_release

    return len(open_release(path).trials)


def describe(spec: str | Path) -> list[str]:
    """What a dataset holds, a few lines, before any run."""
    kind, path = split_spec(spec)
    if kind.name == "isobench":
        from isodyn.generators.isobench_release import describe_isobench

        return [kind.what, *describe_isobench(path)]
    if kind.name == "mmmath":
        from isodyn.generators.mmmath_release import describe_mmmath

        return [kind.what, *describe_mmmath(path)]
    if kind.name == "dynamath-programs":
        from isodyn.generators.dynamath_programs import describe_programs

        return [kind.what, *describe_programs(path)]
    from isodyn.generators.release import release_seeds, release_summary

    return [kind.what, *release_summary(release_seeds(path))]
