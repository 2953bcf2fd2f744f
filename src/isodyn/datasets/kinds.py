"""Which importer reads a `dataset=` value, and what it holds: the registry of dataset kinds.

`dataset=PATH` is a DynaMath release (trial folders or parquet splits), unless a kind recognizes
PATH (`recognizes`: a search's hard set, a folder holding hardset.jsonl); a prefix names another kind:
`isobench:PATH` (IsoBench's release), `mmmath:PATH` (MM-MATH's problems and images),
`dynamath-programs:PATH` (DynaMath's own seed programs, drawing fresh variants), `hardset:PATH` (the
variants a worst-variant search confirmed as failures). Each kind is a
`DatasetKind` that its release module registers in `DATASETS`; the functions below look the kind up
there. A third-party package adds a kind by naming, in its pyproject.toml, a module that registers
one (or a `DatasetKind` itself):

    [project.entry-points."isodyn.datasets"]
    mine = "my_package.my_release"   # calls DATASETS.add("mine", DatasetKind("mine", ...))

Every importer returns seeds keyed by item id and raises `ReleaseError` with one line.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path

from isodyn.datasets.contained import ReleaseError
from isodyn.generators.base import SeedProgram
from isodyn.registry import Registry, first_line

Loader = Callable[[Path, tuple[str, ...]], Mapping[str, SeedProgram]]  # (path, keys or ()) -> seeds


@dataclass(frozen=True)
class DatasetKind:
    """One kind of dataset a `dataset=` value can name."""

    name: str  # the prefix: dataset=NAME:PATH
    what: str  # what it reads, one line (`exp list datasets`)
    variants: int | None  # the variants a run takes by default (None: `count_variants` of the dataset)
    load: Loader  # its items as seeds: all of them, or those named by the keys
    describe: Callable[[Path], list[str]]  # a few lines on what the dataset holds
    count_variants: Callable[[Path], int] | None = None  # with variants None: every trial of a release
    # Whether a plain dataset=PATH (no prefix) is of this kind (a hard set's folder); else DynaMath's.
    recognizes: Callable[[Path], bool] | None = None

    def __post_init__(self) -> None:
        # The registry says where an entry is defined from its `__module__`: for a kind, the module
        # that reads it (its loader's), not this one.
        object.__setattr__(self, "__module__", getattr(self.load, "__module__", __name__))


def _summary(value: object) -> str:
    return value.what if isinstance(value, DatasetKind) else first_line(value)


DATASETS: Registry[DatasetKind] = Registry(
    "dataset kind", packages=("isodyn.datasets",), group="isodyn.datasets", summary=_summary
)
PLAIN = "dynamath"  # the kind of a dataset= value with no known prefix


def split_spec(spec: str | Path) -> tuple[DatasetKind, Path]:
    """(the kind, the path) of a `dataset=` value; no known prefix means the kind that recognizes
    the path (a hard set's folder or file), else a DynaMath release."""
    text = str(spec)
    prefix, sep, rest = text.partition(":")
    if sep and prefix in DATASETS:
        return DATASETS[prefix], Path(rest).expanduser()
    path = Path(text).expanduser()
    claimed = (kind for kind in DATASETS.values() if kind.recognizes is not None and kind.recognizes(path))
    return next(claimed, DATASETS[PLAIN]), path


def resolved(spec: str | Path) -> str:
    """The value with its path made absolute (for a run's identity)."""
    kind, path = split_spec(spec)
    absolute = str(path.resolve())
    return absolute if kind.name == PLAIN else f"{kind.name}:{absolute}"


def load_dataset(spec: str | Path, keys: tuple[str, ...] = ()) -> dict[str, SeedProgram]:
    kind, path = split_spec(spec)
    if not path.exists():
        raise ReleaseError(f"dataset {path} does not exist")
    seeds = kind.load(path, keys)
    if not seeds:
        raise ReleaseError(f"{path}: no items ({kind.what})")
    return dict(seeds)


def default_variants(spec: str | Path) -> int:
    """How many variants a run on this dataset takes when `variants=` is not given."""
    kind, path = split_spec(spec)
    if kind.variants is not None:
        return kind.variants
    if kind.count_variants is None:
        raise ReleaseError(f"dataset kind {kind.name!r} says neither its variants nor how to count them")
    return kind.count_variants(path)


def describe(spec: str | Path) -> list[str]:
    """What a dataset holds, a few lines, before any run."""
    kind, path = split_spec(spec)
    return [kind.what, *kind.describe(path)]
