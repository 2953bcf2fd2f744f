"""`exp generate`: a dataset of variants on disk (items.jsonl, images/, dataset.json).

The chosen seeds' variants, balanced per class for classification tasks, are drawn by worker
processes; with `contact_sheet`, one PNG per topic tiles a few items of each seed.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from isodyn.cache.renders import open_render_cache
from isodyn.datasets.writer import DatasetRequest, build_dataset, check_size, default_workers, select_seeds
from isodyn.errors import ConfigError
from isodyn.runs.config import default_cache_dir, parse_key_values
from isodyn.runs.setting_values import bounded_int, positive_int

DEFAULT_VARIANTS = 10


def _names(value: str) -> tuple[str, ...]:
    return tuple(v.strip() for v in value.split(",") if v.strip())


def _yes(value: str) -> bool:
    return value.lower() in ("1", "true", "yes")


GENERATE_PARSERS: dict[str, Any] = {
    "task": _names, "topic": _names, "n": positive_int, "variants": positive_int, "out": Path,
    "contact_sheet": _yes, "base_seed": int,
    "workers": bounded_int(1, 256), "cache_dir": Path,  # workers are processes: bounded
}  # fmt: skip


def generate_request(words: Sequence[str]) -> DatasetRequest:
    """The dataset `exp generate key=value ...` asks for: seeds checked and the size bounded before
    any work (ConfigError naming the problem)."""
    chosen = parse_key_values(list(words), GENERATE_PARSERS)
    if "out" not in chosen:
        raise ConfigError("out=DIR is required")
    try:
        seeds = select_seeds(chosen.get("task", ()), chosen.get("topic", ()))
    except KeyError as exc:  # an unknown task or topic, with the valid ones
        raise ConfigError(exc.args[0]) from None
    variants = chosen.get("n", chosen.get("variants", DEFAULT_VARIANTS))
    check_size(len(seeds), variants)
    return DatasetRequest(
        seed_ids=tuple(seeds),
        variants=variants,
        base_seed=chosen.get("base_seed", 0),
        out=chosen["out"],
        cache_dir=chosen.get("cache_dir", default_cache_dir()),
        workers=chosen.get("workers", default_workers()),
        contact_sheet=chosen.get("contact_sheet", False),
        open_renderings=open_render_cache,
    )


@dataclass(frozen=True)
class GenerateResult:
    out: Path
    items_path: Path  # items.jsonl
    items: int
    images: int
    seeds: int
    contact_sheets: tuple[Path, ...]


def generate_dataset(request: DatasetRequest) -> GenerateResult:
    """Write the dataset, and dataset.json with its counts and seeds."""
    summary = build_dataset(request)
    described = {**summary, "seeds": list(request.seed_ids)}
    (request.out / "dataset.json").write_text(json.dumps(described, indent=2) + "\n")
    return GenerateResult(
        request.out, request.out / "items.jsonl", summary["items"], summary["images"],
        len(request.seed_ids), tuple(Path(p) for p in summary["contact_sheets"]),
    )  # fmt: skip
