"""The layout of a cache folder: `Stores(cache_dir)` names each store and file isodyn keeps there.

Every other module asks `Stores` for a path (`Stores(cache_dir).responses`), never spells a store's
name: a folder renamed here is renamed everywhere. Opening a store stays with its owner
(`ResponseCache`, `RenderCache`, `memo_store`, `stores.open_store`); this module only names paths,
and imports nothing of isodyn's, so every module of the cache can use it.

Names that modules below the cache write there themselves (they may not import it) are spelled
here too, for the cache commands, and checked against their owners by tests/test_cache_stores.py:
`locks` and `last_run.json` (`runs.rundir`), `models.json` (`models.remembered.FILE_NAME`), `dspy`
(`strategies.dspy_strategy`) and `programs` (`datasets.dynamath_runs`).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

RESPONSES = "responses"  # model replies (`ResponseCache`)
REPLAYS = "replays"  # the cell memo (`experiments.memo.memo_store`)
RENDERS = "renders"  # drawings (`renders.RenderCache`)
STORE_NAMES = (RESPONSES, REPLAYS, RENDERS)  # the diskcache stores, in the order they are checked
CLEARED_NAMES = (RESPONSES, REPLAYS)  # what `exp cache clear` empties (drawings are no replies)
MARKER = "isodyn-cache.json"  # isodyn's claim on the folder (`stores.mark`)
LOCKS = "locks"  # run locks (`runs.rundir`)
LAST_RUN = "last_run.json"  # what the last run counted (`runs.rundir`, read by `exp cache stats`)
MODELS = "models.json"  # what litellm said about a model (`models.remembered`)
VIEW_INDEX = "view-index"  # the viewer's cached indexes (`view.index`)
DSPY = "dspy"  # optimized DSPy programs (`strategies.dspy_strategy`)
PROGRAMS = "programs"  # DynaMath's program cache (`datasets.dynamath_runs`)
# Every other name a run or a command of isodyn leaves in a cache folder.
OTHER_NAMES = (LOCKS, DSPY, PROGRAMS, VIEW_INDEX, LAST_RUN, MODELS, MARKER)


@dataclass(frozen=True)
class Stores:
    """The paths of one cache folder (`root`). Naming a path creates nothing."""

    root: Path

    def __post_init__(self) -> None:
        object.__setattr__(self, "root", Path(self.root))

    @property
    def responses(self) -> Path:
        return self.root / RESPONSES

    @property
    def replays(self) -> Path:
        return self.root / REPLAYS

    @property
    def renders(self) -> Path:
        return self.root / RENDERS

    @property
    def stores(self) -> tuple[Path, ...]:
        """Every diskcache store (responses, replays, renders)."""
        return tuple(self.root / name for name in STORE_NAMES)

    @property
    def cleared(self) -> tuple[Path, ...]:
        """The stores `exp cache clear` empties: replies and the cell memo, not the drawings."""
        return tuple(self.root / name for name in CLEARED_NAMES)

    @property
    def marker(self) -> Path:
        return self.root / MARKER

    @property
    def locks(self) -> Path:
        return self.root / LOCKS

    @property
    def last_run(self) -> Path:
        return self.root / LAST_RUN

    @property
    def models(self) -> Path:
        return self.root / MODELS

    @property
    def view_index(self) -> Path:
        return self.root / VIEW_INDEX

    @property
    def dspy(self) -> Path:
        return self.root / DSPY

    @property
    def programs(self) -> Path:
        return self.root / PROGRAMS
