"""Which cells of the grid shard i of N runs (`shard=i/N`): a partition every machine computes alike.

How a cell finds its shard. Each cell's identity (model, strategy, modality, seed, variant, repeat,
as JSON) is hashed with SHA-256; the digests alone decide, so the answer is the same on every
machine and Python version (the built-in `hash()` of a string changes with PYTHONHASHSEED). A cell
prefers the shard its digest names (mod N). Each shard takes the first floor(C/N) of the cells that
prefer it, in digest order; the cells left over go, in digest order, each to the next shard with
room after the one it prefers (N-1 wraps to 0), where room is the exact balance: every shard ends
with floor(C/N) or ceil(C/N) of the C cells.

Why not plain `digest mod N`: its shard sizes are binomial, so when N is close to the number of
cells many shards are empty (over a third of them when N = C) and the slowest shard sets the wall
time; here the sizes differ by at most one, and a shard is empty only when N > C. Why not dealing
the cells out in grid order: extending a grid (more variants, a model more) would move nearly every
cell to another shard, so each machine's own cache would replay little of what it had already paid
for. Here a cell stays in the shard it prefers unless it is among the last in digest order to
prefer it: extending a large grid moves a few per cent of its cells (`tests/test_shard.py`
measures it).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence
from typing import Any

import numpy as np

from isodyn.core import Modality
from isodyn.errors import ConfigError
from isodyn.experiments.grid import Grid
from isodyn.runs.record import Cell


def cell_digest(cell: Cell) -> bytes:
    """SHA-256 of the cell's identity: the JSON array [model, strategy, modality, seed, variant,
    repeat] as `json.dumps` spells it (ASCII, unambiguous whatever the names hold), then its render
    and perturbation when not the default, so a plain cell keeps the shard it had before them."""
    identity: list[str | int] = [
        cell.model, cell.strategy, cell.modality.value, cell.seed_id, cell.variant, cell.repeat,
    ]  # fmt: skip
    if not cell.is_plain:
        identity += [cell.render, cell.perturbation]
    return hashlib.sha256(json.dumps(identity).encode()).digest()


def cell_digests(cells: Sequence[Cell]) -> list[bytes]:
    """`cell_digest` of every cell, the same bytes hashed: the hash of the first four values is
    taken once per arm and seed and copied for each variant and repeat (a sixth of the time on a
    grid of millions of cells)."""
    heads: dict[tuple[str, str, Modality, str], Any] = {}
    digests = []
    for cell in cells:
        model, strategy, modality, seed_id, variant, repeat, render, perturbation = cell
        head = heads.get((model, strategy, modality, seed_id))
        if head is None:
            opening = json.dumps([model, strategy, modality.value, seed_id])[:-1]  # less its "]"
            head = heads[model, strategy, modality, seed_id] = hashlib.sha256(opening.encode())
        whole = head.copy()
        if cell.is_plain:
            whole.update(f", {variant}, {repeat}]".encode())
        else:
            whole.update(f", {variant}, {repeat}, {json.dumps(render)}, {json.dumps(perturbation)}]".encode())
        digests.append(whole.digest())
    return digests


def assign_shards(cells: Sequence[Cell], count: int) -> list[int]:
    """The shard (0-based) of each cell, by position, for `count` shards (see the module's note):
    the first pass (each shard's first floor(C/N) cells) is done by numpy at once; only the cells
    left over are placed one by one."""
    if count < 1:
        raise ValueError("count must be at least 1")
    if not cells:
        return []
    words = np.frombuffer(b"".join(cell_digests(cells)), dtype=">u8").reshape(-1, 4)
    order = words[:, 0]  # the order: the digest's first 8 bytes (a tie is broken by grid position)
    preferred = (words[:, 3] % np.uint64(count)).astype(np.int64)  # the preference: its last 8
    base, extra = divmod(len(cells), count)  # `extra` shards hold base + 1 cells, the others base
    by_shard = np.lexsort((order, preferred))  # stable: by preferred shard, then digest order
    starts = np.searchsorted(preferred[by_shard], np.arange(count))
    rank = np.empty(len(cells), dtype=np.int64)
    rank[by_shard] = np.arange(len(cells)) - starts[preferred[by_shard]]
    shard_of = np.where(rank < base, preferred, -1)
    sizes = np.bincount(shard_of[shard_of >= 0], minlength=count).tolist()
    left = np.flatnonzero(shard_of < 0)
    left = left[np.argsort(order[left], kind="stable")]
    larger = 0  # shards that took a base + 1st cell
    room = _Room([size < base + (extra > 0) for size in sizes])
    for index, wants in zip(left.tolist(), preferred[left].tolist(), strict=True):
        shard = room.find(wants)
        shard_of[index] = shard
        sizes[shard] += 1
        if sizes[shard] == base + 1:
            larger += 1
            room.close(shard)
            if larger == extra:  # no shard may take base + 1 any more: those at base are full too
                room = _Room([size < base for size in sizes])
        elif sizes[shard] == base and larger == extra:
            room.close(shard)
    return [int(shard) for shard in shard_of.tolist()]


class _Room:
    """The next shard with room at or after a preferred one, wrapping: each full shard points on to
    the next (paths shortened as they are walked), so a look-up costs next to nothing even when
    nearly every shard is full. There is always a shard with room while a cell is left: the
    shards' room adds up to the cells."""

    def __init__(self, open_: Sequence[bool]) -> None:
        count = len(open_)
        self._next = [i if open_[i] else (i + 1) % count for i in range(count)]

    def find(self, shard: int) -> int:
        path = []
        while self._next[shard] != shard:
            path.append(shard)
            shard = self._next[shard]
        for passed in path:
            self._next[passed] = shard
        return shard

    def close(self, shard: int) -> None:
        self._next[shard] = (shard + 1) % len(self._next)


def shard_grid(grid: Grid, shard: tuple[int, int]) -> Grid:
    """The cells of shard i of N (1-based), in grid order; ConfigError when it holds none."""
    index, count = shard
    owner = assign_shards(grid.cells, count)
    cells = tuple(cell for cell, at in zip(grid.cells, owner, strict=True) if at == index - 1)
    if not cells:
        size = len(grid.cells)
        raise ConfigError(
            f"shard={index}/{count} holds no cell: the grid has {size:,} cell{'' if size == 1 else 's'}; "
            f"choose N at most {size:,}"
        )
    return Grid(cells, grid.not_renderable, grid.not_perturbable)


def shard_text(shard: tuple[int, int], cells: int, grid_cells: int) -> str:
    """How a run says which shard it is: `shard 2 of 8: 1,234 of the grid's 9,870 cells`."""
    return f"shard {shard[0]} of {shard[1]}: {cells:,} of the grid's {grid_cells:,} cells"
