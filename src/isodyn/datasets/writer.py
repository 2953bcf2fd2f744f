"""Write a dataset of generated variants: items.jsonl, images/*.png, optional contact sheets.

Format (one JSON object per line in items.jsonl):

    {"id": "isobench_parity/0", "seed_id": ..., "index": 0, "base_seed": 0, "topic": ..., "level": ...,
     "answer_type": ..., "question": ..., "choices": [...], "answer": "A", "solution": ...,
     "variation_types": [...], "params": {...},
     "representations": {"image": {"text": ..., "image": "images/isobench_parity-0.png"},
                         "latex": {"text": ..., "image": null}, ...}}

Images are rendered in worker processes (matplotlib is single-threaded and slow) and memoized in
the render cache, so a second `exp generate` of the same variants draws nothing.
"""

from __future__ import annotations

import gc
import io
import json
import os
from collections.abc import Callable, Iterator
from concurrent.futures import ProcessPoolExecutor
from contextlib import contextmanager
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Protocol

from isodyn.core import JsonObject, Modality, Representation, Topic, Variant
from isodyn.generators import SeedProgram, all_seeds

CONTACT_ITEMS = 4  # items per seed on a contact sheet


class Renderings(Protocol):
    """Where the drawings come from when a cache is named: the render cache (`cache.renders`)."""

    def representation(self, seed: SeedProgram, variant: Variant, modality: Modality) -> Representation: ...


@dataclass(frozen=True)
class DatasetRequest:
    seed_ids: tuple[str, ...]
    variants: int
    base_seed: int
    out: Path
    cache_dir: Path | None
    workers: int
    contact_sheet: bool
    # Opens the drawings kept in a cache folder; each worker process opens its own, so it is a class
    # or a module-level function (pickled by name). The caller names it: the cache sits above datasets.
    open_renderings: Callable[[Path], Renderings] | None = None


def select_seeds(tasks: tuple[str, ...], topics: tuple[str, ...]) -> dict[str, SeedProgram]:
    """Seeds named in `tasks` (ids, or ids without their group prefix) plus those of `topics`."""
    seeds = all_seeds()
    chosen: dict[str, SeedProgram] = {}
    for task in tasks:
        matches = [s for s in seeds if s == task or s.split("_", 1)[-1] == task]
        if not matches:
            raise KeyError(f"unknown task {task!r}; valid: {', '.join(seeds)}")
        chosen.update({m: seeds[m] for m in matches})
    valid_topics = {t.value for t in Topic}
    for topic in topics:
        if topic not in valid_topics:
            raise KeyError(f"unknown topic {topic!r}; valid: {', '.join(sorted(valid_topics))}")
        chosen.update({s: seed for s, seed in seeds.items() if seed.topic.value == topic})
    return chosen or seeds


@cache
def _renderings(opener: Callable[[Path], Renderings], cache_dir: str) -> Renderings:
    return opener(Path(cache_dir))  # one per worker process, kept open


def _item(
    seed_id: str, index: int, base_seed: int, cache: tuple[Callable[[Path], Renderings], str] | None, out: str
) -> JsonObject:
    """Build one item and write its image (runs in a worker process)."""
    seed = all_seeds()[seed_id]
    variant = seed.variant(index, base_seed)
    representations: dict[str, JsonObject] = {}
    for modality in seed.modalities:
        if cache:
            rep = _renderings(*cache).representation(seed, variant, modality)
        else:
            rep = seed.render(variant, modality)
        image_name = None
        if rep.image_png is not None:
            image_name = f"images/{seed_id}-{index}.png"
            (Path(out) / image_name).write_bytes(rep.image_png)
        representations[modality.value] = {"text": rep.text, "image": image_name}
    data = variant.to_json()
    return {"id": variant.variant_id, **data, "representations": representations}


# Every figure is a web of reference cycles, so drawing thousands keeps the cyclic collector busy: at
# the default threshold (700 new objects) it ran every few artists and took a fifth of the drawing
# time. Collecting 7x less often keeps memory within a few MB of the default's.
DRAWING_GC_THRESHOLD = (5000, 10, 10)


def _worker_gc() -> None:
    """A drawing worker's collector: imported modules frozen out of its sight, and run less often."""
    gc.collect()
    gc.freeze()
    gc.set_threshold(*DRAWING_GC_THRESHOLD)


@contextmanager
def _drawing_gc() -> Iterator[None]:
    """The drawing threshold for a serial build in the caller's process, then the caller's back."""
    before = gc.get_threshold()
    gc.set_threshold(*DRAWING_GC_THRESHOLD)
    try:
        yield
    finally:
        gc.set_threshold(*before)


def _jobs(request: DatasetRequest) -> Iterator[tuple[str, int]]:
    for seed_id in request.seed_ids:
        for index in range(request.variants):
            yield seed_id, index


def check_size(seeds: int, variants: int) -> None:
    """ConfigError when seeds x variants passes the item bound (ISODYN_MAX_ITEMS, 100,000 by
    default): every item is held in memory until items.jsonl is written, so `n=100000000` must stop
    here, before any work, as the run grid stops at its bound."""
    from isodyn.datasets.contained import ReleaseError, limits
    from isodyn.errors import ConfigError

    try:
        most = limits().items
    except ReleaseError as exc:
        raise ConfigError(str(exc)) from None
    if seeds * variants > most:
        raise ConfigError(
            f"{seeds:,} seeds x {variants:,} variants is {seeds * variants:,} items, more than {most:,}; "
            "choose fewer seeds or variants, or raise ISODYN_MAX_ITEMS"
        )


def build_dataset(request: DatasetRequest) -> JsonObject:
    """Write the dataset; returns counts (items, images, per-answer counts per seed)."""
    check_size(len(request.seed_ids), request.variants)
    (request.out / "images").mkdir(parents=True, exist_ok=True)
    jobs = list(_jobs(request))
    opener, folder = request.open_renderings, request.cache_dir
    cache = (opener, str(folder)) if opener and folder else None
    args = ([s for s, _ in jobs], [i for _, i in jobs], [request.base_seed] * len(jobs),
            [cache] * len(jobs), [str(request.out)] * len(jobs))  # fmt: skip
    if request.workers > 1 and len(jobs) > 1:
        with ProcessPoolExecutor(max_workers=request.workers, initializer=_worker_gc) as pool:
            # One seed's variants per chunk: a worker warms each seed's caches once, and the last
            # chunk, which the other worker may wait for, is small.
            chunk = max(1, min(request.variants, len(jobs) // (request.workers * 4)))
            items = list(pool.map(_item, *args, chunksize=chunk))
    else:
        with _drawing_gc():
            items = [_item(*a) for a in zip(*args, strict=True)]
    with (request.out / "items.jsonl").open("w", encoding="utf-8") as handle:
        for item in items:
            handle.write(json.dumps(item, ensure_ascii=False) + "\n")
    labels: dict[str, dict[str, int]] = {}
    for item in items:
        per_seed = labels.setdefault(item["seed_id"], {})
        per_seed[item["answer"]] = per_seed.get(item["answer"], 0) + 1
    sheets = write_contact_sheets(items, request.out) if request.contact_sheet else []
    return {
        "items": len(items),
        "images": sum(1 for i in items for r in i["representations"].values() if r["image"]),
        "labels": labels,
        "contact_sheets": [str(p) for p in sheets],
    }


def default_workers() -> int:
    return max(1, min(os.cpu_count() or 1, 8))


def contact_sheet_png(items: list[JsonObject], root: Path, title: str) -> bytes:
    """Tile the first few items of each seed: one row per seed, captioned with id and answer."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure
    from matplotlib.image import imread

    by_seed: dict[str, list[JsonObject]] = {}
    for item in items:
        if item["representations"].get(Modality.IMAGE.value, {}).get("image"):
            by_seed.setdefault(item["seed_id"], []).append(item)
    rows = sorted(by_seed)
    cols = max((min(len(v), CONTACT_ITEMS) for v in by_seed.values()), default=1)
    height = 3.2 * max(len(rows), 1) + 0.8
    fig = Figure(figsize=(3.6 * cols, height), dpi=80)
    FigureCanvasAgg(fig)
    fig.suptitle(title, fontsize=16, y=1 - 0.25 / height)
    for r, seed_id in enumerate(rows):
        for c, item in enumerate(by_seed[seed_id][:CONTACT_ITEMS]):
            ax = fig.add_subplot(len(rows), cols, r * cols + c + 1)
            path = root / item["representations"]["image"]["image"]
            ax.imshow(imread(io.BytesIO(path.read_bytes()), format="png"))
            ax.set_title(f"{item['id']}  answer: {item['answer']}", fontsize=9)
            ax.axis("off")
    fig.tight_layout(rect=(0, 0, 1, 1 - 0.7 / height))  # keep the title clear of the first row
    buffer = io.BytesIO()
    fig.savefig(buffer, format="png")
    return buffer.getvalue()


def write_contact_sheets(items: list[JsonObject], out: Path) -> list[Path]:
    """One contact sheet per topic: `contact_sheet-<topic>.png`."""
    paths = []
    topics = sorted({i["topic"] for i in items})
    for topic in topics:
        chosen = [i for i in items if i["topic"] == topic]
        path = out / f"contact_sheet-{topic}.png"
        path.write_bytes(
            contact_sheet_png(chosen, out, f"{topic}: {len({i['seed_id'] for i in chosen})} seeds")
        )
        paths.append(path)
    return paths
