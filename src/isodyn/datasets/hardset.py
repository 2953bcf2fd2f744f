"""A search's hard set as a dataset: the variants `exp search` confirmed as failures, asked again
(`dataset=hardset:PATH`, or a plain `dataset=PATH` naming a folder that holds `hardset.jsonl`, or
that file itself).

`hardset.jsonl` holds one JSON object a line (written by `search.hardset.write_hardset`):

    {"id": "<seed_id>~<12 hex>", "genome": {...}, "seed_id": ..., "question": ..., "answer": ...,
     "fingerprint": ..., "found_by": [{"model", "strategy", "modality", "searcher"}, ...]}

The id's hex is the start of the sha256 of the genome's key (`item_id`). A hard variant is not
stored, it is remade: its genome names a registered seed, a variant index, a base seed and the
draws the search changed, and `generators.tape.realize` draws it again. The fingerprint pins the
variant the search saw: a file whose variants no longer match is refused, since the seed program
changed since the search wrote it (or the item was edited), and a run on it would ask other questions.

Each item is a seed of its own (`HardVariant`, id = the item id) with one variant, variant 0. Its
variants are fixed: a run's `base_seed` does not change them. Demonstrations (few-shot strategies
ask for variant indices from `DEMO_INDEX_START` on) are fresh variants of the item's real seed,
never a hard variant, so no hard variant's answer is shown as a worked example.

Everything read is hostile (a hard set is shared): the file must stay inside its folder, is read
within the file bound, holds at most the item bound of lines, each within the text bound (a line),
and each line is checked strictly. A bad line is a `ReleaseError` of one line naming the file and
the line.
"""

from __future__ import annotations

import hashlib
import json
import os
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from isodyn.core import DEMO_INDEX_START, JsonObject, Modality, Representation, Variant
from isodyn.datasets.contained import (
    ReleaseError,
    check_count,
    contained,
    limits,
    read_bounded,
    too_big,
)
from isodyn.datasets.kinds import DATASETS, DatasetKind
from isodyn.datasets.reader import one_line
from isodyn.generators import SeedProgram, all_seeds
from isodyn.generators.base import StandInSeed
from isodyn.generators.tape import Genome, TapeError, realize

HARDSET_FILE = "hardset.jsonl"
ID_HEX = 12  # hex digits of the genome key's sha256 in an item id
FIELDS = ("id", "genome", "seed_id", "question", "answer", "fingerprint", "found_by")
FOUND_BY_FIELDS = ("model", "strategy", "modality", "searcher")
MAX_NAME = 300  # characters of an id or a name in found_by
FINGERPRINT_HEX = 16  # Variant.fingerprint()'s length

# ------------------------------------------------------------------------------------------ format


@dataclass(frozen=True, order=True)
class FoundBy:
    """One search unit that confirmed a hard variant (values as `search.trials` writes them)."""

    model: str
    strategy: str
    modality: str
    searcher: str

    def label(self) -> str:
        return f"{self.model} · {self.strategy} · {self.modality} · {self.searcher}"

    def to_json(self) -> dict[str, str]:
        return {name: getattr(self, name) for name in FOUND_BY_FIELDS}


@dataclass(frozen=True)
class HardItem:
    """One line of hardset.jsonl: a confirmed failing variant and who found it."""

    id: str
    genome: Genome
    question: str
    answer: str
    fingerprint: str  # of `realize(seed, genome).variant`
    found_by: tuple[FoundBy, ...]

    @property
    def seed_id(self) -> str:
        return self.genome.seed_id

    def to_json(self) -> JsonObject:
        return {
            "id": self.id,
            "genome": self.genome.to_json(),
            "seed_id": self.seed_id,
            "question": self.question,
            "answer": self.answer,
            "fingerprint": self.fingerprint,
            "found_by": [unit.to_json() for unit in self.found_by],
        }


def item_id(genome: Genome) -> str:
    """A hard variant's id: its seed and a short hash of its genome (stable across writes)."""
    return f"{genome.seed_id}~{hashlib.sha256(genome.key().encode()).hexdigest()[:ID_HEX]}"


# ------------------------------------------------------------------------------------------ the file


def _names_file(path: Path) -> bool:
    """`path` is hardset.jsonl itself (not a folder of that name)."""
    return path.name == HARDSET_FILE and not os.path.isdir(path)


def is_hardset(path: Path) -> bool:
    """Whether a plain `dataset=PATH` names a hard set: the file itself, or a folder holding it.
    A link in its place counts, so reading it refuses it by name rather than as another kind."""
    return _names_file(path) or (os.path.isdir(path) and os.path.lexists(path / HARDSET_FILE))


def hardset_file(path: Path) -> Path:
    """The hardset.jsonl that `path` names, resolved; refused when a link leads outside its folder
    (the folder itself may be a link: the user named it)."""
    folder, name = (path.parent, path.name) if _names_file(path) else (path, HARDSET_FILE)
    found = contained(folder, name, str(folder / name))
    if not found.is_file():
        raise ReleaseError(f"{folder}: no {HARDSET_FILE} (a hard set is the file `exp search` writes)")
    return found


def _lines(file: Path) -> list[bytes]:
    """The file's lines, within the file and item bounds (a final newline ends the last line)."""
    bounds = limits()
    data = read_bounded(file, bounds.file_bytes, str(file), "file_bytes")
    lines = data.split(b"\n")
    if lines[-1] == b"":
        lines.pop()
    check_count(len(lines), str(file), bounds.items)
    return lines


def _json_line(raw: bytes, number: int, where: str) -> JsonObject:
    """One line as a JSON object, within the line bound."""
    limit = limits().text_chars
    if len(raw) > limit:
        raise too_big(where, "the line", len(raw), limit, "text_chars")
    try:
        text = raw.decode("utf-8-sig" if number == 1 else "utf-8")
    except UnicodeDecodeError as exc:
        raise ReleaseError(f"{where} is not UTF-8 text (byte {exc.start + 1})") from None
    if not text.strip():
        raise ReleaseError(f"{where} is empty (one item a line)")
    try:
        value = json.loads(text)
    except RecursionError:
        raise ReleaseError(f"{where} is not valid JSON (nested too deep)") from None
    except ValueError as exc:  # JSONDecodeError, or an integer of too many digits
        raise ReleaseError(f"{where} is not valid JSON ({one_line(exc, 120)})") from None
    if not isinstance(value, dict):
        raise ReleaseError(f"{where} is a JSON {type(value).__name__}, not an object")
    return value


def _text(data: JsonObject, name: str, where: str, limit: int | None = None) -> str:
    value = data[name]
    if not isinstance(value, str) or (limit is not None and not 0 < len(value) <= limit):
        bound = f" of 1 to {limit} characters" if limit is not None else ""
        raise ReleaseError(f"{where}: field {name!r} must be a string{bound}")
    return value


def _found_by(value: Any, where: str) -> tuple[FoundBy, ...]:
    if not isinstance(value, list) or not value:
        raise ReleaseError(f"{where}: field 'found_by' must be a non-empty list of units")
    units = []
    for unit in value:
        if not isinstance(unit, dict) or set(unit) != set(FOUND_BY_FIELDS):
            raise ReleaseError(f"{where}: each of found_by is an object of {', '.join(FOUND_BY_FIELDS)}")
        units.append(FoundBy(*(_text(unit, name, f"{where} found_by", MAX_NAME) for name in FOUND_BY_FIELDS)))
    return tuple(units)


def _checked_fields(data: JsonObject, where: str) -> None:
    missing = [name for name in FIELDS if name not in data]
    if missing:
        raise ReleaseError(f"{where}: no field {missing[0]!r} (a hard-set item has {', '.join(FIELDS)})")
    unknown = sorted(set(data) - set(FIELDS))
    if unknown:
        raise ReleaseError(f"{where}: unknown field {one_line(repr(unknown[0]), 60)}")


def _item(data: JsonObject, where: str) -> HardItem:
    """A line's object as an item: every field checked, and its id recomputed from its genome."""
    _checked_fields(data, where)
    try:
        genome = Genome.from_json(data["genome"])
    except TapeError as exc:
        raise ReleaseError(f"{where}: its genome is refused ({one_line(exc, 120)})") from None
    said = _text(data, "id", where, MAX_NAME)
    if _text(data, "seed_id", where, MAX_NAME) != genome.seed_id:
        raise ReleaseError(f"{where}: seed_id {one_line(repr(data['seed_id']), 80)} is not its genome's")
    if said != item_id(genome):
        raise ReleaseError(
            f"{where}: id {one_line(repr(said), 80)} is not the one its genome gives ({item_id(genome)}): "
            "the item was edited"
        )
    fingerprint = _text(data, "fingerprint", where, FINGERPRINT_HEX)
    return HardItem(
        said, genome, _text(data, "question", where), _text(data, "answer", where), fingerprint,
        _found_by(data["found_by"], where),
    )  # fmt: skip


def _realized(item: HardItem, seed: SeedProgram, where: str) -> Variant:
    """The variant the item's genome makes now, refused unless it is the one the search saw."""
    try:
        variant = realize(seed, item.genome).variant
    except TapeError as exc:
        raise ReleaseError(f"{where}: its genome cannot be realized ({one_line(exc, 120)})") from None
    if variant.fingerprint() != item.fingerprint:
        raise ReleaseError(
            f"{where}: its genome makes a variant other than the one the search saw (fingerprint "
            f"{variant.fingerprint()}, the item says {one_line(item.fingerprint, 20)}): the seed program "
            "changed since the search wrote this hard set, or the item was edited"
        )
    if (variant.question, variant.answer) != (item.question, item.answer):
        raise ReleaseError(f"{where}: its question or answer is not its variant's: the item was edited")
    return variant


# ------------------------------------------------------------------------------------------ seeds


class HardVariant(StandInSeed):
    """One hard variant as a seed of one variant: variant 0 (any index below the demonstrations')
    is the hard variant, whatever the run's base seed; a demonstration index draws a fresh variant
    of the real seed. Renderings are the real seed's, of the variant under the real seed's id.
    Never memoized (a stand-in): keyed by this module's source, not the real seed's renderer."""

    def __init__(self, item: HardItem, real: SeedProgram, variant: Variant) -> None:
        super().__init__(real, item.id, 1)
        self.item = item
        self.hard = variant  # as realized, at the genome's index, under the real seed's id

    def variant(self, index: int, base_seed: int = 0) -> Variant:
        # The grid finds a variant's seed by `variant.seed_id`: the item id, not the real seed's.
        drawn = self.real.variant(index, base_seed) if index >= DEMO_INDEX_START else self.hard
        return replace(drawn, seed_id=self.seed_id, index=index)

    def render(self, variant: Variant, modality: Modality) -> Representation:
        return self.real.representation(self._as_real(variant), modality)

    def _as_real(self, variant: Variant) -> Variant:
        """The variant as the real seed drew it (a renderer may read its seed id or index)."""
        index = variant.index if variant.index >= DEMO_INDEX_START else self.item.genome.index
        return replace(variant, seed_id=self.real.seed_id, index=index)


def read_hardset(path: Path) -> list[HardVariant]:
    """Every item of the hard set `path` names, checked and realized, in file order."""
    file = hardset_file(path)
    seeds = all_seeds()
    lines: dict[str, int] = {}  # item id -> the line it is on
    hard = []
    for number, raw in enumerate(_lines(file), start=1):
        where = f"{file} line {number}"
        item = _item(_json_line(raw, number, where), where)
        if item.id in lines:
            raise ReleaseError(f"{where} repeats item {item.id} of line {lines[item.id]}")
        lines[item.id] = number
        real = seeds.get(item.seed_id)
        if real is None:
            shown = one_line(repr(item.seed_id), 80)
            raise ReleaseError(f"{where}: unknown seed {shown} (not a seed of this isodyn)")
        hard.append(HardVariant(item, real, _realized(item, real, where)))
    return hard


def _chosen(hard: list[HardVariant], keys: Iterable[str], path: Path) -> list[HardVariant]:
    """The items `keys` name: an item id names its item, a real seed's id all of that seed's items."""
    picked: dict[str, HardVariant] = {}
    for key in keys:
        found = [h for h in hard if key in (h.seed_id, h.item.seed_id)]
        if not found:
            raise ReleaseError(f"no item or seed {one_line(repr(key), 80)} in the hard set {path}")
        picked.update((h.seed_id, h) for h in found)
    return list(picked.values())


def load_hardset(path: Path, keys: tuple[str, ...] = ()) -> dict[str, SeedProgram]:
    """The hard set's items as seeds by item id: all of them, or those `keys` name (item or seed ids)."""
    hard = read_hardset(path)
    chosen = _chosen(hard, keys, path) if keys else hard
    return {h.seed_id: h for h in chosen}


def _counted(counts: Counter[str], most: int = 10) -> str:
    """`a (3), b (1)`: the `most` commonest, then how many more."""
    shown = ", ".join(f"{name} ({count})" for name, count in counts.most_common(most))
    return shown + (f" and {len(counts) - most} more" if len(counts) > most else "")


def hardset_summary(file: Path, hard: Iterable[HardVariant]) -> list[str]:
    """How many items, of which seeds, found by whom."""
    items = list(hard)
    if not items:
        return [f"{file}: no items (the search confirmed no failing variant)"]
    seeds = Counter(h.item.seed_id for h in items)
    finders = Counter(unit.label() for h in items for unit in h.item.found_by)
    return [
        f"{file}: {len(items)} hard variants of {len(seeds)} seeds: {_counted(seeds)}",
        f"found by: {_counted(finders)}",
        "each is variant 0 of its own id; base_seed= does not change them (repeats= asks again)",
    ]


def describe_hardset(path: Path) -> list[str]:
    return hardset_summary(hardset_file(path), read_hardset(path))


DATASETS.add(
    "hardset",
    DatasetKind(
        name="hardset",
        what="a worst-variant search's hard set (hardset.jsonl: confirmed failing variants)",
        variants=1,
        load=load_hardset,
        describe=describe_hardset,
        recognizes=is_hardset,
    ),
    order=50,
)
