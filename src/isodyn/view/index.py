"""The compact index of a run's cells, built once and cached (keyed by its results), filtered on the server.

Opening a run of 50,000 cells must not mean parsing 200 MB of replies for every page: one pass
over results.jsonl keeps, per cell, what the list shows and filters on (identity, verdict, reason,
method, ambiguity, whether graders disagree, the truth and the answer read) and where its line is
(byte offset and length), so a cell's full line is read later by offset alone. Text columns are
stored as codes into a vocabulary, in numpy arrays, so a filter is a few vectorized comparisons
and a page is a slice of a precomputed sort order.

The index is cached in isodyn's cache folder (`ISODYN_CACHE_DIR`, ~/.cache/isodyn, under
`view-index/`), one file per run folder, keyed by the SHA-256 of the results.jsonl bytes it was
built from: it is served only for those very bytes. A derived file is not evidence: one inside the
run folder (as `.view-index.json` once was) could be planted, stamped with whatever key the
results would give, by whoever made the folder; none there is read. While serving, a change of
results.jsonl's size or modification time (a run still appending) makes the index be loaded again.
When the cache folder cannot be written the index lives in memory only.

Lines are read by the same rules as `results.read_results`: a damaged line is skipped and counted,
a second row of a cell already read is ignored, a row of a newer schema refuses the run
(`NewerRun`).
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import re
import threading
from collections.abc import Sequence
from dataclasses import dataclass, fields
from pathlib import Path
from typing import Any

import numpy as np
import orjson

from isodyn.atomic import write_atomic
from isodyn.cache.folder import Stores
from isodyn.core import DEFAULT_RENDER, NO_PERTURBATION
from isodyn.runs.config import default_cache_dir
from isodyn.runs.folder import RunFolder
from isodyn.runs.record import Cell, CellKey
from isodyn.runs.safe import UnsafeFile, read_bounded
from isodyn.view.scan import (
    CLEAR,
    CODED,
    NONE_FOUND,
    NOT_GRADED,
    NUMERIC,
    WRONG,
    LinesSeen,
    scan_results,
)

INDEX_VERSION = 2  # 2: keyed by results.jsonl's SHA-256
MAX_INDEX_BYTES = 1_000_000_000
VERDICTS = ("right", "wrong", "not graded")  # verdict codes 0, 1, 2
SORTS = ("seed", "failed")


@dataclass(frozen=True)
class FileKey:
    """results.jsonl's size and modification time, as this process last read it: a change means
    the run was appended to (never a key to a file on disk)."""

    size: int
    mtime_ns: int

    @classmethod
    def of(cls, path: Path) -> FileKey:
        found = path.stat()
        return cls(found.st_size, found.st_mtime_ns)


@dataclass(frozen=True)
class Filters:
    """What the list shows: each field None (any) or one value; `verdict` one of VERDICTS."""

    model: str | None = None
    strategy: str | None = None
    modality: str | None = None
    render: str | None = None
    perturbation: str | None = None
    topic: str | None = None
    seed_id: str | None = None
    reason: str | None = None
    method: str | None = None
    ambiguity: str | None = None
    verdict: str | None = None
    disagree: bool | None = None
    marked: bool | None = None

    @classmethod
    def from_query(cls, query: dict[str, str]) -> Filters:
        """Filters from a page's query words (empty: any); ValueError on a bad verdict or flag."""
        values: dict[str, Any] = {}
        for item in fields(cls):
            raw = query.get(item.name, "")
            if raw == "":
                continue
            if item.name in ("disagree", "marked"):
                if raw not in ("yes", "no"):
                    raise ValueError(f"{item.name} must be yes or no")
                values[item.name] = raw == "yes"
            elif item.name == "verdict" and raw not in VERDICTS:
                raise ValueError(f"verdict must be one of {', '.join(VERDICTS)}")
            else:
                values[item.name] = raw
        return cls(**values)


@dataclass(frozen=True)
class CellSummary:
    """One line of the list: a cell as the index knows it."""

    id: int
    cell: Cell  # sent flat: model, strategy, modality, seed_id, variant, repeat
    topic: str
    verdict: str  # right, wrong, not graded
    reason: str
    method: str
    ambiguity: str
    disagree: bool
    judged: bool
    truth: str
    extracted: str | None
    failed: int  # wrong variants (and repeats) of this seed in this arm
    graded: int  # graded cells of this seed in this arm
    marked: str | None = None  # "right" / "wrong" when a person marked the verdict

    def to_json(self) -> dict[str, Any]:
        """What the page reads of the row: the cell's values flat, after `id`, in field order."""
        return {
            "id": self.id, **self.cell.to_json(), "topic": self.topic, "verdict": self.verdict,
            "reason": self.reason, "method": self.method, "ambiguity": self.ambiguity,
            "disagree": self.disagree, "judged": self.judged, "truth": self.truth,
            "extracted": self.extracted, "failed": self.failed, "graded": self.graded, "marked": self.marked,
        }  # fmt: skip


@dataclass(frozen=True)
class Page:
    total: int
    page: int
    size: int
    rows: list[CellSummary]


@dataclass(frozen=True)
class Facet:
    value: str
    count: int


def natural_key(text: str) -> tuple[Any, ...]:
    """`seed2` before `seed10`: digits compared as numbers."""
    return tuple(int(part) if part.isdigit() else part for part in re.split(r"(\d+)", text))


def _packed(array: np.ndarray) -> str:
    """An array as base64 of little-endian 64-bit numbers (offsets pass 2**31 in a large run)."""
    return base64.b64encode(np.ascontiguousarray(array, dtype="<i8").tobytes()).decode("ascii")


def _unpacked(text: Any, size: int) -> np.ndarray:
    """An array the cache packed; ValueError when it is not `size` whole numbers."""
    if type(text) is not str:
        raise ValueError("not a packed array")
    raw = base64.b64decode(text, validate=True)
    if len(raw) != 8 * size:
        raise ValueError("a packed array of another length")
    return np.frombuffer(raw, dtype="<i8").astype(np.int64)


class CellIndex:
    """Every cell of a run, as columns: codes into vocabularies, numbers, and sort orders."""

    def __init__(
        self, key: FileKey, digest: str, vocab: dict[str, list[str]], codes: dict[str, np.ndarray],
        numbers: dict[str, np.ndarray], truth: list[str], extracted: list[str | None], seen: LinesSeen,
    ) -> None:  # fmt: skip
        self.key, self.digest, self.vocab, self.codes, self.numbers = key, digest, vocab, codes, numbers
        self.truth, self.extracted, self.seen = truth, extracted, seen
        self.lookup = {name: {value: code for code, value in enumerate(vocab[name])} for name in CODED}
        self.size = len(truth)
        self._derive()

    # --- building, caching, loading ---------------------------------------------------------------
    @classmethod
    def build(cls, results: Path) -> CellIndex:
        key = FileKey.of(results)
        data = results.read_bytes()
        columns, seen = scan_results(results, data)
        vocab = {name: list(columns.lookup[name]) for name in CODED}
        codes = {name: np.asarray(columns.codes[name], dtype=np.int64) for name in CODED}
        numbers = {name: np.asarray(columns.numbers[name], dtype=np.int64) for name in NUMERIC}
        digest = hashlib.sha256(data).hexdigest()
        return cls(key, digest, vocab, codes, numbers, columns.truth, columns.extracted, seen)

    def to_json(self) -> bytes:
        return orjson.dumps(
            {
                "version": INDEX_VERSION, "results_sha256": self.digest,
                "damaged": self.seen.damaged, "duplicates": self.seen.duplicates,
                "first_problem": self.seen.first_problem, "vocab": self.vocab,
                "codes": {name: _packed(self.codes[name]) for name in CODED},
                "numbers": {name: _packed(self.numbers[name]) for name in NUMERIC},
                "truth": self.truth, "extracted": self.extracted,
            }
        )  # fmt: skip

    @classmethod
    def from_json(cls, data: bytes, key: FileKey, digest: str) -> CellIndex | None:
        """The cached index when it was built from results.jsonl bytes of this SHA-256 and is
        whole; else None."""
        try:
            found = orjson.loads(data)
            if not isinstance(found, dict) or found.get("version") != INDEX_VERSION:
                return None
            if found.get("results_sha256") != digest:
                return None
            truth, extracted = found["truth"], found["extracted"]
            size = len(truth)
            vocab = {name: [str(v) for v in found["vocab"][name]] for name in CODED}
            codes = {name: _unpacked(found["codes"][name], size) for name in CODED}
            numbers = {name: _unpacked(found["numbers"][name], size) for name in NUMERIC}
            if len(extracted) != size:
                return None
            if any(size and (codes[n].min() < 0 or codes[n].max() >= len(vocab[n])) for n in CODED):
                return None
            if not all(type(t) is str for t in truth) or not all(
                e is None or type(e) is str for e in extracted
            ):
                return None
            problem = found["first_problem"]
            seen = LinesSeen(int(found["damaged"]), int(found["duplicates"]), problem and str(problem))
        except (orjson.JSONDecodeError, KeyError, TypeError, ValueError, OverflowError, binascii.Error):
            return None  # a damaged or planted cache is rebuilt, never trusted
        return cls(key, digest, vocab, codes, numbers, truth, extracted, seen)

    # --- derived columns and sort orders ----------------------------------------------------------
    def _derive(self) -> None:
        codes, numbers = self.codes, self.numbers
        arm = ("model", "strategy", "modality", "render", "perturbation", "seed_id")
        rank = {name: self._rank(name) for name in arm}
        group = np.zeros(self.size, dtype=np.int64)  # one number per (arm, seed), from the codes
        for name in arm:
            group = group * len(self.vocab[name]) + codes[name]  # well inside 64 bits for any run
        _, group = np.unique(group, return_inverse=True)
        verdict = numbers["verdict"]
        self.failed = np.bincount(group, weights=verdict == WRONG).astype(np.int64)[group]
        self.graded_count = np.bincount(group, weights=verdict != NOT_GRADED).astype(np.int64)[group]
        identity = [
            numbers["repeat"], rank["perturbation"], rank["render"], numbers["variant"], rank["modality"],
            rank["strategy"], rank["model"], rank["seed_id"],
        ]  # fmt: skip  # np.lexsort: the last key sorts first
        self.by_seed = np.lexsort(identity)
        self.by_failed = np.lexsort([*identity, -self.failed])
        self.seed_rank = rank["seed_id"]

    def _rank(self, name: str) -> np.ndarray:
        """Each cell's position of its value in the vocabulary sorted naturally."""
        vocab = self.vocab[name]
        order = sorted(range(len(vocab)), key=lambda code: natural_key(vocab[code]))
        ranks = np.empty(len(vocab), dtype=np.int64)
        ranks[order] = np.arange(len(vocab))
        return ranks[self.codes[name]] if len(vocab) else np.zeros(self.size, dtype=np.int64)

    # --- reading ----------------------------------------------------------------------------------
    def value(self, name: str, cell: int) -> str:
        return self.vocab[name][int(self.codes[name][cell])]

    def cell_key(self, cell: int) -> CellKey:
        variant, repeat = int(self.numbers["variant"][cell]), int(self.numbers["repeat"][cell])
        return (
            self.value("model", cell), self.value("strategy", cell), self.value("modality", cell),
            self.value("seed_id", cell), variant, repeat, self.value("render", cell),
            self.value("perturbation", cell),
        )  # fmt: skip

    def position(self, cell: int) -> tuple[int, int]:
        """Where the cell's line is in results.jsonl: (offset, length) in bytes."""
        return int(self.numbers["offset"][cell]), int(self.numbers["length"][cell])

    def verdict(self, cell: int) -> str:
        return VERDICTS[int(self.numbers["verdict"][cell])]

    def summary(self, cell: int, marked: str | None = None) -> CellSummary:
        numbers = self.numbers
        return CellSummary(
            cell, Cell.of(self.cell_key(cell)), self.value("topic", cell), self.verdict(cell),
            self.value("reason", cell), self.value("method", cell), self.value("ambiguity", cell),
            bool(numbers["disagree"][cell]), bool(numbers["judged"][cell]), self.truth[cell],
            self.extracted[cell], int(self.failed[cell]), int(self.graded_count[cell]), marked,
        )  # fmt: skip

    def find(self, key: Sequence[Any]) -> int | None:
        """The cell with this identity (model, strategy, modality, seed_id, variant, repeat[, render,
        perturbation]: a key without them names the default render and no perturbation)."""
        named = (*key[:4], *(key[6:8] if len(key) >= 8 else (DEFAULT_RENDER, NO_PERTURBATION)))
        mask = np.ones(self.size, dtype=bool)
        texts = ("model", "strategy", "modality", "seed_id", "render", "perturbation")
        for name, value in zip(texts, named, strict=True):
            code = self.lookup[name].get(str(value))
            if code is None:
                return None
            mask &= self.codes[name] == code
        mask &= (self.numbers["variant"] == key[4]) & (self.numbers["repeat"] == key[5])
        found = np.flatnonzero(mask)
        return int(found[0]) if len(found) else None

    # --- filtering --------------------------------------------------------------------------------
    def mask(self, filters: Filters, marked: np.ndarray | None = None) -> np.ndarray:
        mask = np.ones(self.size, dtype=bool)
        for name in CODED:
            value = getattr(filters, name)
            if value is not None:
                code = self.lookup[name].get(value)
                mask &= self.codes[name] == (-1 if code is None else code)
        if filters.verdict is not None:
            mask &= self.numbers["verdict"] == VERDICTS.index(filters.verdict)
        if filters.disagree is not None:
            mask &= self.numbers["disagree"].astype(bool) == filters.disagree
        if filters.marked is not None and marked is not None:
            mask &= marked == filters.marked
        return mask

    def query(
        self, filters: Filters, sort: str = "seed", page: int = 0, size: int = 100,
        marked: np.ndarray | None = None,
    ) -> tuple[int, np.ndarray]:  # fmt: skip
        """How many cells pass the filters, and the ids of the requested page, in `sort` order."""
        order = self.by_failed if sort == "failed" else self.by_seed
        chosen = order[self.mask(filters, marked)[order]]
        return len(chosen), chosen[page * size : (page + 1) * size]

    def review(self, marked: np.ndarray | None, include_marked: bool) -> np.ndarray:
        """The verdicts most worth a person's look, most doubtful first: graders disagreeing, then an
        ambiguous reading (several options or values, unreadable, not an option), then no answer."""
        graded = self.numbers["verdict"] != NOT_GRADED
        ambiguity = self.codes["ambiguity"]
        clear = self.lookup["ambiguity"].get(CLEAR, -1)
        none_found = self.lookup["ambiguity"].get(NONE_FOUND, -1)
        disagree = self.numbers["disagree"].astype(bool)
        doubtful = (
            (ambiguity != clear)
            & (ambiguity != none_found)
            & (ambiguity != self.lookup["ambiguity"].get("", -1))
        )
        priority = np.where(disagree, 0, np.where(doubtful, 1, np.where(ambiguity == none_found, 2, 3)))
        keep = graded & (priority < 3)
        if marked is not None and not include_marked:
            keep &= ~marked
        chosen = self.by_seed[keep[self.by_seed]]
        return chosen[np.argsort(priority[chosen], kind="stable")]

    def facets(self) -> dict[str, list[Facet]]:
        """Every value of each filterable column with its count, in natural order."""
        found: dict[str, list[Facet]] = {}
        for name in CODED:
            counts = np.bincount(self.codes[name], minlength=len(self.vocab[name]))
            pairs = [Facet(value, int(counts[code])) for code, value in enumerate(self.vocab[name])]
            found[name] = sorted(pairs, key=lambda f: natural_key(f.value))
        found["verdict"] = [
            Facet(value, int(np.count_nonzero(self.numbers["verdict"] == code)))
            for code, value in enumerate(VERDICTS)
        ]
        return found

    def same_variant(self, cell: int) -> np.ndarray:
        """Every cell of the same seed and variant (all arms and repeats), in seed order."""
        mask = (self.codes["seed_id"] == self.codes["seed_id"][cell]) & (
            self.numbers["variant"] == self.numbers["variant"][cell]
        )
        return self.by_seed[mask[self.by_seed]]

    def of_seed(self, seed_id: str) -> np.ndarray:
        code = self.lookup["seed_id"].get(seed_id)
        if code is None:
            return np.zeros(0, dtype=np.int64)
        mask = self.codes["seed_id"] == code
        return self.by_seed[mask[self.by_seed]]


def index_path(run: RunFolder, store: Path | None = None) -> Path:
    """Where the index of `run` is cached: one file per run folder (by its resolved path), in
    `store` (default: the cache folder's view-index/), replaced when the run changes."""
    folder = store if store is not None else Stores(default_cache_dir()).view_index
    name = hashlib.sha256(str(run.path.resolve()).encode("utf-8", "surrogateescape")).hexdigest()
    return folder / f"{name[:32]}.json"


def sha256_of(path: Path) -> str:
    with path.open("rb") as handle:
        return hashlib.file_digest(handle, "sha256").hexdigest()


def load_index(run: RunFolder, store: Path | None = None) -> tuple[CellIndex, str | None]:
    """The run's index, from the cache when it was built from these very results.jsonl bytes, else
    built and cached; and why it could not be cached (None when it was, or came from the cache)."""
    results = run.results_file
    key = FileKey.of(results)
    path = index_path(run, store)
    try:
        if path.exists():
            cached = CellIndex.from_json(read_bounded(path, MAX_INDEX_BYTES), key, sha256_of(results))
            if cached is not None:
                return cached, None
    except (UnsafeFile, OSError):
        pass  # a cache that cannot be read is rebuilt
    index = CellIndex.build(results)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        write_atomic(path, index.to_json())
    except OSError as exc:
        return index, f"the index is kept in memory only ({exc.strerror or exc})"
    return index, None


class IndexHolder:
    """The current index of a run: rebuilt when results.jsonl changes (a run still appending)."""

    def __init__(self, folder: RunFolder) -> None:
        self.folder = folder
        self._lock = threading.Lock()
        self.index, self.note = load_index(self.folder)

    def current(self) -> CellIndex:
        try:
            key = FileKey.of(self.folder.results_file)
        except OSError:
            return self.index  # gone while serving: keep showing what was read
        with self._lock:
            if key != self.index.key:
                self.index, self.note = load_index(self.folder)
            return self.index
