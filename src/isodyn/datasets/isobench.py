"""IsoBench's published release as seeds: every released item is a seed with one variant.

What the release is (looked up with the search tool; sources below)
--------------------------------------------------------------------
IsoBench (Fu et al., arXiv 2404.01266) publishes its data on Hugging Face as `isobench/IsoBench`: ten
configurations, one per task, each with one split, `validation` (1,887 items with labels), stored as
parquet. The task (configuration) names are `math_breakpoint`, `math_convexity`, `math_parity`,
`graph_connectivity`, `graph_maxflow`, `graph_isomorphism`, `winner_id`, `puzzle`, `chemistry` and
`physics`; the repository tree has one folder per configuration. The fields, from the card's
`dataset_info` (an `image` feature is a struct `{"bytes": ..., "path": ...}` in parquet):

| task | fields | label |
| --- | --- | --- |
| math_parity | image, domain (float64), latex, code, id | string: even / odd / neither |
| math_convexity | image, domain (string, e.g. `x > 0`, or null), latex, code, id | string: convex / concave |
| math_breakpoint | image, domain (float64; `xlim` in an older card), latex, code, id | int64: the count |
| graph_connectivity | image, query_nodes_color, adjacency_matrix, query_node_1, query_node_2, id | bool |
| graph_maxflow | image, source_node (+ _color), sink_node (+ _color), adjacency_matrix, id | int64 |
| graph_isomorphism | image, adjacency_matrix_G, adjacency_matrix_H, id | bool |
| winner_id | image, anl, pgn, fen, id | string: White / Black / Draw |
| puzzle | image, anl, pgn, fen, id | string: the first move in coordinates, e.g. `a4b3` |
| chemistry, physics | image, question, choices, description, id | int64: 0-based index into `choices` |

`latex` is a display formula (`$$f(x) = ...$$`), `code` a SymPy expression (`f(x) = 2.23*Abs(x) + 6.64`),
`adjacency_matrix` a string such as `[[0, 1, 4], [0, 0, 6], [0, 0, 0]]` (capacities for max flow),
`choices` a string holding a Python list (IsoBench's evaluator reads it with `ast.literal_eval`),
`description` a sentence of text (`The temperature of each salmon increased.`).

Sources: the dataset card, https://huggingface.co/datasets/isobench/IsoBench/blob/main/README.md (the
`dataset_info` features and splits, and the TL;DR list of the ten subtasks), and its parquet tree,
https://huggingface.co/datasets/isobench/IsoBench/tree/refs%2Fconvert%2Fparquet (one folder per task);
IsoBench's evaluation code, github.com/IsoBench/IsoBench-Eval `src/task_evaluators.py` (fields used in
the prompts, `ast.literal_eval` of `choices`, bool labels read as yes/no), and its logged runs,
`isobench_results/gpt-5-nano/<task>.json`, which record every sample's `raw_sample_keys` and label
(e.g. puzzle and winner_id keys `image, anl, pgn, fen, label, id`; labels `White`, `a4b3`, `0`).

Not found, so chosen here (and read tolerantly):

- the file names inside a task folder: `<task>/validation-*.parquet` (what `push_to_hub` writes) and
  `<task>/validation/0000.parquet` (the parquet-converter branch) are both read; so is `<task>.parquet`;
- JSON and JSON-lines layouts (none is published): one record per item with the same field names, as a
  JSON list, a dict holding such a list (e.g. under `validation`), a dict of records keyed by id, or
  one record per line; a picture is `{"bytes": <base64>, "path": ...}`, a base64 string, a `data:` URL,
  or a path relative to the file;
- field names: each field also answers to a few aliases (`answer` for `label`, `options` for
  `choices`, `text` for `description`, `xlim` for `domain`, ...), matched exactly, then ignoring case;
- the float `domain` of parity and breakpoint items (a plotting range) is kept in the variant's params
  but not put into the question; convexity's string `domain` is;
- a puzzle label holding a line of moves counts by its first move; winner labels `1-0`, `0-1`,
  `1/2-1/2` are read as White, Black, Draw; a science label may also be a letter or a choice's text;
- no item carries a level, so every seed is `Level.UNDERGRADUATE` unless a `level` field says otherwise.

Seeds and modalities
--------------------
Each item becomes the seed `<task>-<n>` (n counts the task's items from 0, files in path order); the
release's own `id` is kept in the variant's params (`release_id`). Each seed has exactly one variant
(index 0); its modalities are the representations the item has:

| IsoBench representation | isodyn modality |
| --- | --- |
| image | IMAGE (PNG; other formats converted) |
| latex (math) | LATEX |
| adjacency matrix (graphs; both G and H for isomorphism) | LATEX |
| FEN (chess) | LATEX |
| code (SymPy, math) | CODE |
| PGN (chess) | CODE |
| ANL (chess) | STORY |
| description (science; any task's text description) | STORY |

What each task asks, and how its labels and answers are read, is in `isobench_tasks`.
"""

from __future__ import annotations

import base64
import binascii
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from isodyn.core import Level, Modality, Variant
from isodyn.datasets.contained import ReleaseError, check_fields, contained, limits, too_big
from isodyn.datasets.isobench_tasks import TASKS, Built, Row, TaskSpec
from isodyn.datasets.kinds import DATASETS, DatasetKind
from isodyn.datasets.reader import (
    Located,
    checked_image,
    clean,
    find_image,
    label,
    one_line,
    read_image,
    read_records,
    resolve_columns,
)
from isodyn.datasets.release_item import Record, ReleasedSeed, Shown, image_digest
from isodyn.generators.base import SeedProgram

HELD_IMAGES_PER_FILE_BOUND = 4  # the pictures a release holds in memory: 4 x the data-file bound
DATA_SUFFIXES = (".parquet", ".jsonl", ".json")
# JSON files a Hugging Face download or `save_to_disk` puts next to the data: not items.
_METADATA_FILES = {"dataset_info.json", "dataset_infos.json", "dataset_dict.json", "state.json"}

# ------------------------------------------------------------------------------------------- fields

# canonical field -> accepted column names (exact match first, then ignoring case)
ALIASES: dict[str, tuple[str, ...]] = {
    "image": ("image", "img", "image_bytes", "png", "picture", "figure"),
    "label": ("label", "answer", "ground_truth", "gt", "truth", "target"),
    "id": ("id", "uid", "qid", "item_id", "sample_id"),
    "level": ("level",),
    "latex": ("latex", "tex", "latex_expr"),
    "code": ("code", "sympy", "sympy_code", "python"),
    "domain": ("domain", "xlim", "x_domain"),
    "adjacency_matrix": ("adjacency_matrix", "adj_matrix", "adjacency", "capacity_matrix", "matrix"),
    "adjacency_matrix_G": ("adjacency_matrix_G", "adj_matrix_G", "matrix_G", "G"),
    "adjacency_matrix_H": ("adjacency_matrix_H", "adj_matrix_H", "matrix_H", "H"),
    "query_node_1": ("query_node_1", "query_node1", "node_1", "node1"),
    "query_node_2": ("query_node_2", "query_node2", "node_2", "node2"),
    "query_nodes_color": ("query_nodes_color", "query_node_color", "query_color"),
    "source_node": ("source_node", "source"),
    "sink_node": ("sink_node", "sink"),
    "source_node_color": ("source_node_color", "source_color"),
    "sink_node_color": ("sink_node_color", "sink_color"),
    "fen": ("fen", "board_fen"),
    "pgn": ("pgn", "game_pgn"),
    "anl": ("anl", "board_anl"),
    "question": ("question", "query", "prompt"),
    "choices": ("choices", "options", "candidates"),
    "description": ("description", "text", "context", "caption"),
}

_LEVELS = {
    "elementary": Level.ELEMENTARY, "elementary school": Level.ELEMENTARY,
    "high school": Level.HIGH_SCHOOL, "undergraduate": Level.UNDERGRADUATE,
}  # fmt: skip

# other names a file or folder may use for a task (lower case, '-' read as '_')
TASK_ALIASES = {
    "parity": "math_parity", "even_odd": "math_parity",
    "convexity": "math_convexity", "convex_concave": "math_convexity",
    "breakpoint": "math_breakpoint", "breakpoints": "math_breakpoint", "math_breakpoints": "math_breakpoint",
    "connectivity": "graph_connectivity",
    "maxflow": "graph_maxflow", "max_flow": "graph_maxflow", "graph_max_flow": "graph_maxflow",
    "isomorphism": "graph_isomorphism",
    "winner": "winner_id", "winner_identification": "winner_id", "chess_winner": "winner_id",
    "puzzles": "puzzle", "chess_puzzle": "puzzle", "chess_puzzles": "puzzle",
}  # fmt: skip
_SPLIT_PART = re.compile(r"(?:^|[_.])(?:validation|valid|val|test|train)(?:[_.].*)?$")
_GENERIC = {"", "data", "default", "isobench", "validation"}


def task_of_name(name: str) -> str | None:
    """The task a file stem or folder name stands for; None for names that name no task (a shard)."""
    word = _SPLIT_PART.sub("", name.lower().replace("-", "_").replace(" ", "_"))
    if word in TASKS:
        return word
    return TASK_ALIASES.get(word)


def _is_generic(name: str) -> bool:
    word = _SPLIT_PART.sub("", name.lower().replace("-", "_"))
    return word in _GENERIC or re.fullmatch(r"[\d_]+|\d+_of_\d+", word) is not None


# ---------------------------------------------------------------------------------------- reading


@dataclass(frozen=True)
class Item:
    """One released item, read and checked."""

    seed_id: str
    task: TaskSpec
    file: Path
    label: str  # the file as shown in params and messages (relative to the release root)
    row: int  # position in its file
    release_id: str
    level: Level
    built: Built
    image: bytes

    @property
    def modalities(self) -> tuple[Modality, ...]:
        return (Modality.IMAGE, *(m for m in Modality if m in self.built.contents and not m.visual))


@dataclass(frozen=True)
class TaskFiles:
    task: str
    files: tuple[Path, ...]


def _data_files(root: Path) -> list[tuple[Path, str]]:
    """(file, task) for every data file under `root` (or `root` itself), in path order."""
    if not root.exists():
        raise ReleaseError(f"dataset path {root} does not exist")
    if root.is_file():
        if root.suffix.lower() not in DATA_SUFFIXES:
            raise ReleaseError(f"{root}: not a parquet, JSON or JSON-lines file")
        names = [root.stem, root.parent.name, root.parent.parent.name]
        return [(root, _task_for(root, names))]
    found = []
    for file in sorted(root.rglob("*")):
        rel = file.relative_to(root)
        if not file.is_file() or file.suffix.lower() not in DATA_SUFFIXES:
            continue
        if any(part.startswith(".") for part in rel.parts) or file.name.lower() in _METADATA_FILES:
            continue
        contained(root, file, str(root))  # a data file linked from outside the release is refused
        names = [file.stem, *reversed(rel.parts[:-1]), root.name]
        found.append((file, _task_for(file, names)))
    if not found:
        raise ReleaseError(f"{root}: no IsoBench files (*.parquet, *.json, *.jsonl) in it or its folders")
    return found


def _task_for(file: Path, names: list[str]) -> str:
    for name in names:
        if (task := task_of_name(name)) is not None:
            return task
    named = next((n for n in names if not _is_generic(n)), file.stem)
    raise ReleaseError(f"{file}: unknown IsoBench task {named!r}; expected one of {', '.join(TASKS)}")


def _grouped(found: list[tuple[Path, str]]) -> list[TaskFiles]:
    """Files per task in the release's task order; one task given in two formats is an error."""
    by_task: dict[str, list[Path]] = {}
    for file, task in found:
        files = by_task.setdefault(task, [])
        if files and files[0].suffix.lower() != file.suffix.lower():
            raise ReleaseError(f"task {task} is given twice: {files[0]} and {file}; keep one format")
        files.append(file)
    return [TaskFiles(task, tuple(by_task[task])) for task in TASKS if task in by_task]


def _check_columns(file: Path, task: TaskSpec, columns: list[str], resolved: dict[str, str]) -> None:
    missing = [name for name in ("image", "label", *task.required) if name not in resolved]
    if task.any_of and not any(name in resolved for name in task.any_of):
        missing.append(" or ".join(task.any_of))
    if missing:
        raise ReleaseError(
            f"{file}: not the columns of IsoBench's {task.name}: no {', '.join(missing)} "
            f"(found {one_line(', '.join(columns), 200)})"
        )


def image_bytes(value: Any, file: Path, where: str, root: Path | None = None) -> bytes:
    """The picture's bytes from a parquet struct, raw bytes, base64 text, a data URL or a path (which
    must stay inside `root`, default the file's folder), checked to be a picture within the bound."""
    value = clean(value)
    if isinstance(value, dict):
        data, path = clean(value.get("bytes")), clean(value.get("path"))
        if data is not None and data != b"" and data != "":
            return image_bytes(data, file, where, root)
        value = path
    bound = limits().image_bytes
    byte_list = isinstance(value, list) and value and all(isinstance(b, int) for b in value)
    if byte_list and len(value) > bound:
        raise too_big(where, "its image", len(value), bound, "image_bytes")
    if isinstance(value, bytes | bytearray | memoryview) or byte_list:
        data = bytes(value)
    elif isinstance(value, str) and value.strip():
        data = _image_from_text(value.strip(), file, where, root or file.parent, bound)
    else:
        raise ReleaseError(f"{where} has no image")
    if not data:
        raise ReleaseError(f"{where} has no image")
    return checked_image(data, where)


def _image_from_text(text: str, file: Path, where: str, root: Path, bound: int) -> bytes:
    if text.startswith("data:"):
        text = text.split(",", 1)[-1]
    elif len(text) < 1024:  # perhaps a path (base64 holds no '.', so a name with a suffix is a path)
        found = find_image(root, ((file.parent, text),), where)
        if found is not None:
            return read_image(found.path, where)
        if re.search(r"\.\w{1,5}$", text):
            raise ReleaseError(f"{where}: image file {text!r} is missing")
    if len(text) > bound // 3 * 4 + 4:  # base64 takes 4 characters for 3 bytes
        raise too_big(where, "its image (base64)", len(text) // 4 * 3, bound, "image_bytes")
    try:
        return base64.b64decode(text, validate=True)
    except (binascii.Error, ValueError):
        raise ReleaseError(f"{where}: image is neither a file path nor base64 data") from None


def _level(row: Row) -> Level:
    value = row.get("level")
    if value is None:
        return Level.UNDERGRADUATE
    found = _LEVELS.get(label(value))
    if found is None:
        raise row.fail(f"unknown level {one_line(repr(value))}; expected one of {', '.join(sorted(_LEVELS))}")
    return found


def _with_id(located: Located) -> dict[str, Any]:
    """A record keyed by id in a JSON document carries its key as its id (unless it has one)."""
    value = located.value
    return {"id": located.key, **value} if located.keyed and "id" not in value else value


def read_release(root: Path | str) -> list[Item]:
    """Every item of the release at `root` (a folder or one file), checked; task order, then file order."""
    root = Path(root)
    base = root.parent if root.is_file() else root
    bounds = limits()
    held, most = 0, HELD_IMAGES_PER_FILE_BOUND * bounds.file_bytes
    items: list[Item] = []
    for group in _grouped(_data_files(root)):
        task = TASKS[group.task]
        count = 0
        for file in group.files:
            records = [_with_id(located) for located in read_records(file)]
            columns = list(dict.fromkeys(k for r in records for k in r))
            resolved = resolve_columns(ALIASES, columns)
            _check_columns(file, task, columns, resolved)
            picture = resolved["image"]
            shown = str(file.relative_to(base)) if file.is_relative_to(base) else str(file)
            for n, record in enumerate(records):
                seed_id = f"{task.name}-{count}"
                raw_id = clean(record.get(resolved["id"])) if "id" in resolved else None
                release_id = "" if raw_id is None else one_line(raw_id, 200)
                where = f"{file} item {n}" + (f" (id {release_id})" if release_id else "")
                check_fields(record, (picture,), bounds.text_chars, where)  # a huge field is no prompt
                row = Row(record, resolved, where)
                image = image_bytes(record.get(picture), file, where, base)
                held += len(image)  # every item keeps its picture: one file named by many rows adds up
                if held > most:
                    raise too_big(str(root), "the pictures its items hold", held, most, "file_bytes")
                built = task.build(row)
                items.append(Item(seed_id, task, file, shown, n, release_id, _level(row), built, image))
                count += 1
    return items


# ------------------------------------------------------------------------------------------- seeds


class IsoBenchItem(ReleasedSeed):
    """One released IsoBench item: one variant, shown in the representations the item has."""

    def __init__(self, item: Item) -> None:
        self.item = item
        self.seed_id = item.seed_id
        self.topic = item.task.topic
        self.level = item.level
        self.answer_type = item.task.answer_type
        self.variant_space = 1
        self.modalities = item.modalities  # type: ignore[misc]  # per item, not per class

    def record(self, index: int, base_seed: int = 0) -> Record:
        if index != 0:
            raise ReleaseError(f"item {self.seed_id} has 1 variant (index 0); there is no variant {index}")
        item, built = self.item, self.item.built
        source = {"task": item.task.name, "file": item.label, "row": item.row, "release_id": item.release_id}
        return Record(
            id=self.seed_id,
            index=0,
            topic=self.topic,
            level=self.level,
            answer_type=self.answer_type,
            question=built.question,
            answer=built.answer,
            image_sha256=image_digest(item.image),
            choices=built.choices,
            source=source,
            shown=Shown(built.intro, built.image_note, built.contents),
            details={"facts": built.facts} if built.facts else {},
        )

    def picture(self, variant: Variant) -> bytes:
        return self.item.image


def load_isobench(path: Path, keys: tuple[str, ...] = ()) -> dict[str, SeedProgram]:
    """The release's items as seeds (all, or those named in `keys`, in that order), ids `<task>-<n>`."""
    items = {item.seed_id: item for item in read_release(path)}
    missing = [k for k in keys if k not in items]
    if missing:
        example = next(iter(items))
        raise ReleaseError(f"no item {missing[0]!r} in {path} (ids look like {example!r})")
    chosen = keys or tuple(items)
    seeds: dict[str, SeedProgram] = {key: IsoBenchItem(items[key]) for key in chosen}
    return seeds


def describe_isobench(path: Path) -> list[str]:
    """A few lines saying what the release at `path` holds: tasks, items per task, representations."""
    items = read_release(path)
    by_task: dict[str, list[Item]] = {}
    for item in items:
        by_task.setdefault(item.task.name, []).append(item)
    lines = [f"{path}: IsoBench release, {len(items)} items in {len(by_task)} of {len(TASKS)} tasks"]
    for task, group in by_task.items():
        files = sorted({item.label for item in group})
        shown = {m: sum(m in item.modalities for item in group) for m in Modality}
        forms = ", ".join(
            m.value if n == len(group) else f"{m.value} ({n} of {len(group)})" for m, n in shown.items() if n
        )
        answer = TASKS[task].answer_type.value.replace("_", " ")
        where = files[0] if len(files) == 1 else f"{len(files)} files"
        count = f"{len(group)} item{'s' if len(group) != 1 else ''}"
        lines.append(f"  {task}: {count} from {where}; modalities {forms}; answers {answer}")
    return lines


DATASETS.add(
    "isobench",
    DatasetKind(
        name="isobench",
        what="IsoBench's release (one item per question, its representations)",
        variants=1,
        load=load_isobench,
        describe=describe_isobench,
    ),
    order=20,
)
