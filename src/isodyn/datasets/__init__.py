"""Importers of the papers' releases: each release's items as seeds (`dataset=PATH`, `dataset=KIND:PATH`).

- `kinds`: `DATASETS`, the registry of dataset kinds (one per release, plus third-party ones from
  the `isodyn.datasets` entry points), and the dispatch of a `dataset=` value to its kind;
- `release_item`: the one adapter from a release item (`Record`) to a `Variant` and its renderings;
- `reader`: the one reader of release files (JSON, JSON lines, parquet) and the one image check;
- one module per release, holding its field map and tasks: `dynamath`, `isobench`, `mmmath`,
  `dynamath_programs` (and the modules they split off).

Every importer raises `ReleaseError` with a one-line message. It is defined beside the bounds it
enforces (`datasets.contained`, which study files, `exp generate` and model replies use as well) and imported
from here.
"""

from __future__ import annotations

from isodyn.datasets.contained import ReleaseError

__all__ = ["ReleaseError"]
