"""DynaMath's released items as seeds, so strategies run on the paper's own variants (`dataset=PATH`).

Layout of the public release (DynaMath, arXiv 2411.00836): a folder with one subfolder per variant,
`trial1` .. `trial10`. Each holds `dataset.json`, a dict keyed "1".."501" whose items carry
`question`, `answer`, `image` (a path inside the subfolder, e.g. `image/169.png`), `answer_type`
(`multiple choice`, `float`, `free form`), `subject` and `level`. The dataset hub serves the same as
parquet splits, `sample_variant<N>*.parquet`, whose columns are mapped to these fields.

Each key becomes a seed whose id is the key; variant i is the item in folder `trial<i+1>`. A release
has no generator, no worked solutions and no text forms: its items are shown as images only. The
labels (subject, level, answer type) are DynaMath's vocabulary, which its seed programs
(`dynamath_programs`) use too.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from isodyn.core import AnswerType, JsonObject, Level, Topic, Variant
from isodyn.datasets.contained import (
    ReleaseError,
    check_count,
    check_fields,
    contained,
    limits,
    read_parquet_rows,
)
from isodyn.datasets.kinds import DATASETS, DatasetKind
from isodyn.datasets.reader import (
    checked_image,
    find_image,
    label,
    lookup,
    read_image,
    read_json,
    resolve_columns,
)
from isodyn.datasets.release_item import Record, ReleasedSeed, check_truth, image_digest

# ---------------------------------------------------------------------------------------- field map

TOPICS = {
    "plane geometry": Topic.PLANE_GEOMETRY, "pg": Topic.PLANE_GEOMETRY,
    "solid geometry": Topic.SOLID_GEOMETRY, "sg": Topic.SOLID_GEOMETRY,
    "analytic geometry": Topic.ANALYTIC_GEOMETRY, "ag": Topic.ANALYTIC_GEOMETRY,
    "algebra": Topic.ALGEBRA, "al": Topic.ALGEBRA,
    "puzzle test": Topic.PUZZLE_TEST, "pt": Topic.PUZZLE_TEST,
    "graph theory": Topic.GRAPH_THEORY, "gt": Topic.GRAPH_THEORY,
    "statistics": Topic.STATISTICS, "st": Topic.STATISTICS,
    "scientific figure": Topic.SCIENTIFIC_FIGURE, "sf": Topic.SCIENTIFIC_FIGURE,
    "arithmetic": Topic.ARITHMETIC, "ar": Topic.ARITHMETIC,
}  # fmt: skip
LEVELS = {
    "elementary school": Level.ELEMENTARY, "elementary": Level.ELEMENTARY,
    "high school": Level.HIGH_SCHOOL, "undergraduate": Level.UNDERGRADUATE,
}  # fmt: skip
ANSWER_TYPES = {
    "multiple choice": AnswerType.MULTIPLE_CHOICE, "multiple choices": AnswerType.MULTIPLE_CHOICE,
    "multichoice": AnswerType.MULTIPLE_CHOICE, "mcq": AnswerType.MULTIPLE_CHOICE,
    "choice": AnswerType.MULTIPLE_CHOICE, "float": AnswerType.FLOAT, "number": AnswerType.FLOAT,
    "numeric": AnswerType.FLOAT, "numerical": AnswerType.FLOAT, "decimal": AnswerType.FLOAT,
    "free form": AnswerType.TEXT, "freeform": AnswerType.TEXT, "text": AnswerType.TEXT,
    "string": AnswerType.TEXT, "single answer": AnswerType.TEXT, "open": AnswerType.TEXT,
    "open ended": AnswerType.TEXT, "int": AnswerType.INT, "integer": AnswerType.INT,
}  # fmt: skip

# The hub's parquet columns -> the release's item fields (several spellings seen in mirrors).
PARQUET_FIELDS = {
    "id": ("id", "qid", "question_id"),
    "question": ("question", "query"),
    "answer": ("ground_truth", "answer"),
    "answer_type": ("answer_type",),
    "subject": ("subject",),
    "level": ("knowledge_level", "level"),
    "image": ("decoded_image", "image"),
}

_TRIAL = re.compile(r"trial(\d+)$")
_SPLIT = re.compile(r"sample_variant(\d+)\D.*\.parquet$|sample_variant(\d+)\.parquet$")
_CHOICES_START = re.compile(r"\bchoices?\s*:", re.IGNORECASE)
_CHOICE = re.compile(r"\(([A-J])\)\s*(.*?)\s*(?=,?\s*\([A-J]\)|$)", re.DOTALL)
_BARE_START = re.compile(r"\(A\)")  # `(A) x (B) y` without the `Choices:` prefix
_OPTION_LINE = re.compile(r"^\s*\(?([A-J])\s*[.):：]\s*(.+?)\s*$")  # `A. x`, `A: [1, 2]`, `(A) x` per line


def parse_choices(question: str) -> tuple[str, ...]:
    """The options of a question, in every layout DynaMath's release writes them: after `Choices:` as
    `(A) x (B) y ...`, the same without the prefix, or one option a line (`A. x`, `A: [1, 2]`);
    () unless they run A, B, C, ... (at least two)."""
    start = _CHOICES_START.search(question)
    if start is not None and (found := _lettered(_CHOICE.findall(question[start.end() :]))):
        return found
    lines = _option_lines(question)
    if lines:
        return lines
    bare = list(_BARE_START.finditer(question))
    if bare:
        return _lettered(_CHOICE.findall(question[bare[-1].start() :]))
    return ()


def _lettered(found: list[tuple[str, str]]) -> tuple[str, ...]:
    letters = [letter for letter, _ in found]
    if len(found) < 2 or letters != list("ABCDEFGHIJ"[: len(found)]):
        return ()
    return tuple(text.strip().rstrip(",").strip() for _, text in found)


def _option_lines(question: str) -> tuple[str, ...]:
    """The last run of consecutive lines `A. x`, `B. y`, ... (one option a line)."""
    best: list[tuple[str, str]] = []
    run: list[tuple[str, str]] = []
    for line in question.splitlines():
        match = _OPTION_LINE.match(line)
        if match and match.group(1) == "ABCDEFGHIJ"[len(run)]:
            run.append((match.group(1), match.group(2)))
            continue
        if len(run) >= 2:
            best = run
        run = [(match.group(1), match.group(2))] if match and match.group(1) == "A" else []
    if len(run) >= 2:
        best = run
    return tuple(text for _, text in best)


# ------------------------------------------------------------------------------------------ reading


@dataclass(frozen=True)
class Release:
    """A release on disk: trial folders (`trial<N>/dataset.json` and images) or parquet splits.
    `trials` are the folders or files, in number order; `items(i)` gives trial i's items keyed by
    question id, each with `question`, `answer`, `answer_type`, `subject`, `level`."""

    root: Path
    trials: tuple[Path, ...]
    parquet: bool = False

    def source(self, index: int) -> Path:
        """The file trial `index` is read from (for messages)."""
        return self.trials[index] if self.parquet else self.trials[index] / "dataset.json"

    def items(self, index: int) -> dict[str, JsonObject]:
        path = self.source(index)
        stat = path.stat()
        loader = _load_parquet_items if self.parquet else _load_items
        return loader(path, stat.st_mtime_ns, stat.st_size)

    def image(self, index: int, key: str, item: JsonObject) -> tuple[str, bytes]:
        """(a reference to the image, its bytes), or ReleaseError naming the item: the path it names
        must stay inside the release, and the bytes be a picture within the image bound."""
        where = f"{self.source(index)} item {key}"
        if self.parquet:
            data = item.get("image_bytes")
            if not data:
                raise ReleaseError(f"{self.trials[index]}: item {key} has no image")
            return f"{self.trials[index].name}#{key}", checked_image(data, where)
        folder = self.trials[index]
        named = str(item.get("image", ""))
        if named:  # as named, then in image/ (a stale prefix); each refused if it leads outside
            stale = "image/" + named.replace("\\", "/").rsplit("/", 1)[-1]
            found = find_image(self.root, ((folder, named), (folder, stale)), where)
            if found is not None:
                data = read_image(found.path, where)
                return _shown(found.named, found.path, self.root), checked_image(data, where)
        raise ReleaseError(f"{folder}: item {key}'s image {named!r} is missing")


def _shown(named: Path, found: Path, root: Path) -> str:
    """The image as params show it: the path named, relative to the release root (the file it
    resolved to when symlinks make the name leave the root lexically)."""
    lexical = Path(os.path.normpath(named))
    if lexical.is_relative_to(root):
        return lexical.relative_to(root).as_posix()
    return found.relative_to(root.resolve()).as_posix()


@lru_cache(maxsize=64)
def _load_items(path: Path, mtime_ns: int, size: int) -> dict[str, JsonObject]:
    """Parsed once per version of the file (a run asks for each item many times)."""
    data = read_json(path)
    if not isinstance(data, dict) or not all(isinstance(v, dict) for v in data.values()):
        raise ReleaseError(f"{path}: expected a dict of items keyed by question number")
    bounds = limits()
    check_count(len(data), str(path), bounds.items)
    for key, item in data.items():
        check_fields(item, (), bounds.text_chars, f"{path} item {key}")
    return {str(k): v for k, v in data.items()}


@lru_cache(maxsize=16)
def _load_parquet_items(path: Path, mtime_ns: int, size: int) -> dict[str, JsonObject]:
    present, rows = read_parquet_rows(path, str(path))
    columns = resolve_columns(PARQUET_FIELDS, present, fold_case=False)
    for name, spellings in PARQUET_FIELDS.items():
        if name not in columns:
            raise ReleaseError(f"{path}: no column {' or '.join(spellings)} (columns: {', '.join(present)})")
    text_limit = limits().text_chars
    items = {}
    for record in rows:
        key = str(record[columns["id"]]).strip()
        key = str(int(float(key))) if re.fullmatch(r"\d+(\.0+)?", key) else key
        check_fields(record, (columns["image"],), text_limit, f"{path} item {key}")
        image = record[columns["image"]]
        data = image.get("bytes") if isinstance(image, dict) else image
        if data is not None and not isinstance(data, bytes | bytearray):
            raise ReleaseError(f"{path} item {key}: its image is a {type(data).__name__}, not bytes")
        fields = ("question", "answer", "answer_type", "subject", "level")
        items[key] = {
            **{name: record[columns[name]] for name in fields},
            "image_bytes": bytes(data) if data is not None else b"",
        }
    return items


def open_release(root: Path | str) -> Release:
    root = Path(root)
    if not root.is_dir():
        raise ReleaseError(f"dataset folder {root} does not exist")
    numbered = {}
    for child in root.iterdir():
        if (match := _TRIAL.fullmatch(child.name)) and (child / "dataset.json").is_file():
            contained(root, child / "dataset.json", str(root))  # a trial linked from elsewhere: refused
            numbered[int(match.group(1))] = child
    parquet = False
    if not numbered:
        for child in sorted(root.rglob("*.parquet")):
            if match := _SPLIT.search(child.name):
                contained(root, child, str(root))
                numbered.setdefault(int(match.group(1) or match.group(2)), child)
        parquet = bool(numbered)
    if not numbered:
        raise ReleaseError(
            f"{root}: no trial<N>/dataset.json folders nor sample_variant<N>.parquet files "
            "(DynaMath's layouts)"
        )
    numbers = sorted(numbered)
    if numbers != list(range(1, len(numbers) + 1)):
        raise ReleaseError(f"{root}: variants must be numbered 1..N, found {numbers}")
    return Release(root, tuple(numbered[n] for n in numbers), parquet)


# -------------------------------------------------------------------------------------------- seeds


class ReleasedItem(ReleasedSeed):
    """One released question; its variants are the trial folders."""

    def __init__(self, release: Release, key: str) -> None:
        first = release.items(0).get(key)
        if first is None:
            raise ReleaseError(f"{release.source(0)}: no item {key!r}")
        where = f"{release.source(0)} item {key}"
        self.release = release
        self.seed_id = key
        self.topic = lookup(TOPICS, first.get("subject"), "subject", where)
        self.level = lookup(LEVELS, first.get("level"), "level", where)
        self.warnings: list[str] = []
        answer_type = ANSWER_TYPES.get(label(first.get("answer_type")))
        if answer_type is None:  # one odd item must not refuse the release: kept as free text
            self.warnings.append(
                f"item {key}: unknown answer type {first.get('answer_type')!r}, read as free text"
            )
            answer_type = AnswerType.TEXT
        self.answer_type = answer_type
        self.variant_space = len(release.trials)

    def _item(self, index: int) -> JsonObject:
        item = self.release.items(index).get(self.seed_id)
        if item is None:
            raise ReleaseError(f"{self.release.source(index)}: no item {self.seed_id!r}")
        return item

    def record(self, index: int, base_seed: int = 0) -> Record:
        if not 0 <= index < len(self.release.trials):
            raise ReleaseError(
                f"item {self.seed_id} has {len(self.release.trials)} variants (trial folders); "
                f"there is no variant {index}"
            )
        item = self._item(index)
        question = str(item.get("question", "")).strip()
        reference, image = self.release.image(index, self.seed_id, item)
        multiple_choice = self.answer_type is AnswerType.MULTIPLE_CHOICE
        return Record(
            id=self.seed_id,
            index=index,
            topic=self.topic,
            level=self.level,
            answer_type=self.answer_type,
            question=question,
            answer=truth_of(item),
            image_sha256=image_digest(image),
            choices=parse_choices(question) if multiple_choice else (),
            source={"image": reference},
        )

    def picture(self, variant: Variant) -> bytes:
        return self.release.image(variant.index, self.seed_id, self._item(variant.index))[1]


def truth_of(item: JsonObject) -> str:
    """An item's answer as graded."""
    return str(item.get("answer", "")).strip()


def release_summary(seeds: dict[str, ReleasedItem]) -> list[str]:
    """What a loaded release holds, for a person to check before any call: items and trials, the
    multiple-choice items whose options were parsed, items whose truth letter names no parsed option
    (by id), and each item's warnings."""
    if not seeds:
        return []
    release = next(iter(seeds.values())).release
    choice_items = [s for s in seeds.values() if s.answer_type is AnswerType.MULTIPLE_CHOICE]
    parsed, unmatched = 0, []
    for seed in choice_items:
        options_everywhere = True
        for index in range(len(release.trials)):
            item = release.items(index)[seed.seed_id]
            options = parse_choices(str(item.get("question", "")))
            truth = str(item.get("answer", "")).strip().upper()
            options_everywhere &= bool(options)
            if len(truth) != 1 or not "A" <= truth <= "J" or "ABCDEFGHIJ".index(truth) >= len(options):
                unmatched.append(f"{seed.seed_id} (trial {index + 1})")
        parsed += options_everywhere
    lines = [
        f"{release.root}: {len(seeds)} items x {len(release.trials)} trials; "
        f"{parsed} of {len(choice_items)} multiple-choice items have their options parsed in every trial"
    ]
    if unmatched:
        shown = ", ".join(unmatched[:20]) + (
            f" and {len(unmatched) - 20} more" if len(unmatched) > 20 else ""
        )
        lines.append(f"truth letter without a parsed option: {shown}")
    lines += [warning for seed in seeds.values() for warning in seed.warnings]
    return lines


def release_seeds(root: Path | str, keys: tuple[str, ...] = ()) -> dict[str, ReleasedItem]:
    """The release's items as seeds (all of them, or those in `keys`), in key order."""
    release = open_release(root)
    available = release.items(0)
    chosen = keys or tuple(sorted(available, key=lambda k: (len(k), k)))
    if not chosen:
        raise ReleaseError(f"{release.source(0)} has no items")
    missing = [k for k in chosen if k not in available]
    if missing:
        raise ReleaseError(f"no item {missing[0]!r} in {release.source(0)}")
    seeds = {key: ReleasedItem(release, key) for key in chosen}
    for index in range(len(release.trials)):  # a gap is reported now, not halfway through a run
        items = release.items(index)
        for key, seed in seeds.items():
            if key not in items:
                raise ReleaseError(f"{release.trials[index]}: no item {key!r}")
            check_truth(seed.answer_type, truth_of(items[key]), f"{release.source(index)} item {key}")
            release.image(index, key, items[key])
    return seeds


def describe_release(path: Path) -> list[str]:
    return release_summary(release_seeds(path))


def trial_count(path: Path) -> int:
    """The variants of a release: its trials."""
    return len(open_release(path).trials)


DATASETS.add(
    "dynamath",
    DatasetKind(
        name="dynamath",
        what="DynaMath's release (trial folders or parquet splits)",
        variants=None,
        load=release_seeds,
        describe=describe_release,
        count_variants=trial_count,
    ),
    order=10,
)
