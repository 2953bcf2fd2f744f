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

Answers: parity, convexity, connectivity and isomorphism (Yes/No), winner and the science tasks are
multiple choice, their question ending in DynaMath's inline `choices: (A) ..., (B) ...` and their truth
a letter; breakpoint and max flow are integers; puzzle is a text answer (the move).
"""

from __future__ import annotations

import ast
import base64
import binascii
import hashlib
import json
import math
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, ClassVar

from isodyn.core import AnswerType, Level, Modality, Representation, Topic, Variant
from isodyn.generators.base import SeedProgram, format_choices, letter
from isodyn.generators.contained import (
    check_count,
    check_fields,
    check_image,
    contained,
    limits,
    read_bounded,
    read_parquet_rows,
    read_text,
    too_big,
)
from isodyn.generators.release import ReleaseError, as_png

SPLIT = "validation"
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

YES_NO = ("Yes", "No")
INTEGER_ANSWER = "Answer with an integer."
MOVE_FORMAT = "the move in coordinate notation, e.g. e2e4 (a promotion adds the piece letter, e.g. e7e8q)"


@dataclass(frozen=True)
class Built:
    """The parts of one item's variant and renderings, task by task (`TaskSpec.build`)."""

    question: str
    answer: str
    choices: tuple[str, ...]
    intro: str  # the task statement, first in every rendering
    image_note: str  # what the picture shows, for the image rendering
    contents: dict[Modality, tuple[str, str]]  # text modality -> (lead, the representation as released)
    facts: dict[str, Any] = field(default_factory=dict)  # other released values (kept in params)


@dataclass(frozen=True)
class TaskSpec:
    name: str
    topic: Topic
    answer_type: AnswerType
    required: tuple[str, ...]  # fields that must be columns besides image and label
    any_of: tuple[str, ...]  # at least one of these must be a column (the task's text forms)
    build: Callable[[Row], Built]


class Row:
    """One released record with its fields resolved to canonical names; errors name file and item."""

    def __init__(self, values: dict[str, Any], columns: dict[str, str], where: str) -> None:
        self.values = values
        self.columns = columns
        self.where = where

    def get(self, name: str) -> Any:
        column = self.columns.get(name)
        return None if column is None else clean(self.values.get(column))

    def text(self, name: str) -> str:
        """The field as text ('' when absent); a list (a matrix) is written as JSON."""
        value = self.get(name)
        if value is None:
            return ""
        if isinstance(value, list | tuple):
            return json.dumps(value)
        return str(value).strip()

    def need(self, name: str) -> Any:
        value = self.get(name)
        if value is None or (isinstance(value, str) and not value.strip()):
            raise ReleaseError(f"{self.where} has no {name}")
        return value

    def fail(self, problem: str) -> ReleaseError:
        return ReleaseError(f"{self.where}: {problem}")


def clean(value: Any) -> Any:
    """Plain Python values: None for null/NaN, numpy scalars and arrays unwrapped."""
    if value is None:
        return None
    if hasattr(value, "tolist") and not isinstance(value, bytes | bytearray | str):
        value = value.tolist()  # numpy scalar or array (parquet list columns)
    if isinstance(value, float) and math.isnan(value):
        return None
    return value


def one_line(text: object, limit: int = 160) -> str:
    flat = " ".join(str(text).split())
    return flat if len(flat) <= limit else flat[: limit - 3] + "..."


# --------------------------------------------------------------------------------------- labels


def _word_label(row: Row, allowed: tuple[str, ...], extra: dict[str, str] | None = None) -> int:
    raw = row.need("label")
    word = str(raw).strip().lower()
    word = (extra or {}).get(word, word)
    lowered = [c.lower() for c in allowed]
    if word not in lowered:
        raise row.fail(f"label {one_line(repr(raw))} is not one of {', '.join(allowed)}")
    return lowered.index(word)


def _bool_label(row: Row) -> bool:
    raw = row.need("label")
    if isinstance(raw, bool):
        return raw
    word = str(raw).strip().lower()
    if word in ("true", "yes", "1", "1.0", "t", "y"):
        return True
    if word in ("false", "no", "0", "0.0", "f", "n"):
        return False
    raise row.fail(f"label {one_line(repr(raw))} is not true or false")


def _int_label(row: Row) -> int:
    raw = row.need("label")
    try:
        number = float(str(raw).strip())
    except ValueError:
        number = math.nan
    if isinstance(raw, bool) or not number.is_integer():
        raise row.fail(f"label {one_line(repr(raw))} is not an integer")
    return int(number)


def _parse_choices(row: Row) -> tuple[str, ...]:
    raw = row.need("choices")
    options: Any = raw
    if isinstance(raw, str):
        options = None
        for parse in (ast.literal_eval, json.loads):
            try:
                options = parse(raw)
                break
            except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
                continue
    if not isinstance(options, list | tuple) or not 2 <= len(options) <= 10:
        raise row.fail(f"choices {one_line(repr(raw))} are not a list of 2 to 10 options")
    return tuple(one_line(o, 10_000) for o in options)


def _choice_label(row: Row, choices: tuple[str, ...]) -> int:
    """A 0-based index into the choices (the release); a letter or the choice's text also do."""
    raw = row.need("label")
    word = str(raw).strip()
    if re.fullmatch(r"-?\d+(?:\.0+)?", word) and not isinstance(raw, bool):
        index = int(float(word))
        if 0 <= index < len(choices):
            return index
    elif len(word) == 1 and word.upper() in "ABCDEFGHIJ"[: len(choices)]:
        return "ABCDEFGHIJ".index(word.upper())
    elif word.lower() in [c.lower() for c in choices]:
        return [c.lower() for c in choices].index(word.lower())
    raise row.fail(f"label {one_line(repr(raw))} names none of the {len(choices)} choices")


# ------------------------------------------------------------------------------------------ tasks

_MATH_FIELDS = (("latex", Modality.LATEX), ("code", Modality.CODE), ("description", Modality.STORY))
_MATH_LEADS = {
    Modality.LATEX: "The function in LaTeX:",
    Modality.CODE: "The function as a SymPy expression:",
    Modality.STORY: "The function described in words:",
}


def _math_contents(row: Row) -> dict[Modality, tuple[str, str]]:
    found = {}
    for name, modality in _MATH_FIELDS:
        if content := row.text(name):
            found[modality] = (_MATH_LEADS[modality], content)
    return found


def _math_facts(row: Row) -> dict[str, Any]:
    domain = row.get("domain")
    return {} if domain is None else {"domain": domain}


def _parity(row: Row) -> Built:
    choices = ("even", "odd", "neither")
    answer = _word_label(row, choices)
    return Built(
        question="Is $f(x)$ an even function, an odd function, or neither? " + format_choices(choices),
        answer=letter(answer),
        choices=choices,
        intro=(
            "You are given a real-valued, scalar function $f(x)$. Determine whether it is even "
            "($f(-x) = f(x)$ for all $x$), odd ($f(-x) = -f(x)$ for all $x$), or neither."
        ),
        image_note="The image shows the graph of $f(x)$.",
        contents=_math_contents(row),
        facts=_math_facts(row),
    )


def _convexity(row: Row) -> Built:
    choices = ("convex", "concave")
    answer = _word_label(row, choices)
    domain = row.get("domain")
    stated = isinstance(domain, str) and domain.strip().strip("$")
    on = f" on the domain ${stated}$" if stated else ""
    return Built(
        question=f"Is $f(x)$ convex or concave{on}? " + format_choices(choices),
        answer=letter(answer),
        choices=choices,
        intro=f"You are given a real-valued, scalar function $f(x)$. Is it convex or concave{on}?",
        image_note="The image shows the graph of $f(x)$.",
        contents=_math_contents(row),
        facts=_math_facts(row),
    )


def _breakpoint(row: Row) -> Built:
    return Built(
        question=(
            "How many breakpoints does $f(x)$ have, that is, points where two linear pieces with different "
            f"slopes meet? {INTEGER_ANSWER}"
        ),
        answer=str(_int_label(row)),
        choices=(),
        intro="You are given a piecewise linear function $f(x)$. Count its breakpoints.",
        image_note="The image shows the graph of $f(x)$.",
        contents=_math_contents(row),
        facts=_math_facts(row),
    )


def _node(row: Row, name: str) -> int | str:
    value = row.need(name)
    if isinstance(value, float) and value.is_integer():
        return int(value)
    return value if isinstance(value, int) else str(value).strip()


def _story(row: Row, contents: dict[Modality, tuple[str, str]]) -> dict[Modality, tuple[str, str]]:
    if (text := row.text("description")) and Modality.STORY not in contents:
        contents[Modality.STORY] = ("The problem described in words:", text)
    return contents


def _connectivity(row: Row) -> Built:
    u, v = _node(row, "query_node_1"), _node(row, "query_node_2")
    connected = _bool_label(row)
    color = row.text("query_nodes_color")
    contents = {}
    if matrix := row.text("adjacency_matrix"):
        contents[Modality.LATEX] = (
            "The graph as an adjacency matrix: the entry in row i and column j is 1 when nodes i and j are "
            "joined by an edge and 0 otherwise; nodes are numbered from 0.",
            matrix,
        )
    return Built(
        question=f"Are node {u} and node {v} connected by a path? " + format_choices(YES_NO),
        answer=letter(0 if connected else 1),
        choices=YES_NO,
        intro="You are given an undirected graph. Determine whether the two query nodes are connected.",
        image_note="The image shows the graph"
        + (f"; the query nodes {u} and {v} are drawn in {color}." if color else "."),
        contents=_story(row, contents),
        facts={"query_nodes": [u, v], "query_nodes_color": color},
    )


def _maxflow(row: Row) -> Built:
    s, t = _node(row, "source_node"), _node(row, "sink_node")
    s_color, t_color = row.text("source_node_color"), row.text("sink_node_color")
    contents = {}
    if matrix := row.text("adjacency_matrix"):
        contents[Modality.LATEX] = (
            "The network as a capacity matrix: the entry in row i and column j is the capacity of the edge "
            "from node i to node j, 0 when there is no such edge; nodes are numbered from 0.",
            matrix,
        )
    colors = [f"the source node {s} is drawn in {s_color}" if s_color else "",
              f"the sink node {t} in {t_color}" if t_color else ""]  # fmt: skip
    note = "; ".join(c for c in colors if c)
    return Built(
        question=f"What is the maximum flow from the source node {s} to the sink node {t}? {INTEGER_ANSWER}",
        answer=str(_int_label(row)),
        choices=(),
        intro=(
            "You are given a directed flow network whose edges have integer capacities. Find the maximum "
            "flow from the source node to the sink node."
        ),
        image_note="The image shows the flow network with the capacities on its edges"
        + (f"; {note}." if note else "."),
        contents=_story(row, contents),
        facts={"source_node": s, "sink_node": t, "source_node_color": s_color, "sink_node_color": t_color},
    )


def _isomorphism(row: Row) -> Built:
    g, h = row.text("adjacency_matrix_G"), row.text("adjacency_matrix_H")
    contents = {}
    if g and h:
        contents[Modality.LATEX] = (
            "The two graphs as adjacency matrices (the entry in row i and column j is 1 when nodes i and j "
            "are joined by an edge).",
            f"Graph G:\n{g}\n\nGraph H:\n{h}",
        )
    elif g or h:
        raise row.fail("has the adjacency matrix of only one of the graphs G and H")
    return Built(
        question="Are the graphs G and H isomorphic? " + format_choices(YES_NO),
        answer=letter(0 if _bool_label(row) else 1),
        choices=YES_NO,
        intro="You are given two undirected graphs, G and H. Determine whether they are isomorphic.",
        image_note="The image shows the two graphs G and H.",
        contents=_story(row, contents),
    )


def _side_to_move(fen: str) -> str:
    fields = fen.split()
    return {"w": "White", "b": "Black"}.get(fields[1], "") if len(fields) > 1 else ""


def _chess_contents(row: Row, what: str, game: str) -> dict[Modality, tuple[str, str]]:
    """FEN, PGN and ANL as released; the side to move (from the FEN) is stated with the ANL board."""
    contents = {}
    if fen := row.text("fen"):
        contents[Modality.LATEX] = (f"The {what} in Forsyth-Edwards Notation (FEN):", fen)
    if pgn := row.text("pgn"):
        contents[Modality.CODE] = (f"{game} in Portable Game Notation (PGN):", pgn)
    if anl := row.text("anl"):
        side = _side_to_move(fen)
        to_move = f" ({side} to move)" if side else ""
        contents[Modality.STORY] = (f"The {what} in Algebraic Notation Layout (ANL){to_move}:", anl)
    return _story(row, contents)


def _winner(row: Row) -> Built:
    choices = ("White", "Black", "Draw")
    results = {"1-0": "white", "0-1": "black", "1/2-1/2": "draw", "white wins": "white",
               "black wins": "black", "½-½": "draw"}  # fmt: skip
    answer = _word_label(row, choices, results)
    return Built(
        question="Who won the game? " + format_choices(choices),
        answer=letter(answer),
        choices=choices,
        intro="You are given a chess game that has ended. Determine its result: a win for White, a win for "
        "Black, or a draw.",
        image_note="The image shows the final position of the game.",
        contents=_chess_contents(row, "final position", "The game"),
    )


def _puzzle(row: Row) -> Built:
    raw = str(row.need("label")).strip()
    move = raw.split()[0].strip(".,;") if raw.split() else ""
    if not move:
        raise row.fail(f"label {one_line(repr(raw))} is not a move")
    side = _side_to_move(row.text("fen"))
    return Built(
        question=f"What is the first move of the best line for the side to move? Answer with {MOVE_FORMAT}.",
        answer=move,
        choices=(),
        intro=(
            "You are given a chess puzzle: a position in which a unique sequence of best moves exists (for "
            "example one leading to a forced checkmate)."
        ),
        image_note="The image shows the puzzle position." + (f" {side} is to move." if side else ""),
        contents=_chess_contents(
            row, "puzzle position", "The game up to the puzzle position (the position after its last move)"
        ),
    )


def _science(subject: str) -> Callable[[Row], Built]:
    def build(row: Row) -> Built:
        question = str(row.need("question")).strip()
        choices = _parse_choices(row)
        contents = {}
        if description := row.text("description"):
            contents[Modality.STORY] = ("What the picture shows, in words:", description)
        return Built(
            question=f"{question} {format_choices(choices)}",
            answer=letter(_choice_label(row, choices)),
            choices=choices,
            intro=f"You are given a multiple-choice {subject} question about a picture.",
            image_note="The image shows the picture the question is about.",
            contents=contents,
        )

    return build


_GRAPH_NODES = ("query_node_1", "query_node_2")
_MATH_FORMS = ("latex", "code")
_CHESS_FORMS = ("fen", "pgn", "anl")
TASKS: dict[str, TaskSpec] = {
    spec.name: spec
    for spec in (
        TaskSpec("math_parity", Topic.ISO_MATH, AnswerType.MULTIPLE_CHOICE, (), _MATH_FORMS, _parity),
        TaskSpec("math_convexity", Topic.ISO_MATH, AnswerType.MULTIPLE_CHOICE, (), _MATH_FORMS, _convexity),
        TaskSpec("math_breakpoint", Topic.ISO_MATH, AnswerType.INT, (), _MATH_FORMS, _breakpoint),
        TaskSpec("graph_connectivity", Topic.ISO_ALGORITHMS, AnswerType.MULTIPLE_CHOICE, _GRAPH_NODES,
                 ("adjacency_matrix", "description"), _connectivity),
        TaskSpec("graph_maxflow", Topic.ISO_ALGORITHMS, AnswerType.INT, ("source_node", "sink_node"),
                 ("adjacency_matrix", "description"), _maxflow),
        TaskSpec("graph_isomorphism", Topic.ISO_ALGORITHMS, AnswerType.MULTIPLE_CHOICE, (),
                 ("adjacency_matrix_G", "description"), _isomorphism),
        TaskSpec("winner_id", Topic.ISO_GAMES, AnswerType.MULTIPLE_CHOICE, (), _CHESS_FORMS, _winner),
        TaskSpec("puzzle", Topic.ISO_GAMES, AnswerType.TEXT, (), _CHESS_FORMS, _puzzle),
        TaskSpec("chemistry", Topic.ISO_SCIENCE, AnswerType.MULTIPLE_CHOICE, ("question", "choices"), (),
                 _science("chemistry")),
        TaskSpec("physics", Topic.ISO_SCIENCE, AnswerType.MULTIPLE_CHOICE, ("question", "choices"), (),
                 _science("physics")),
    )
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


def read_records(file: Path) -> list[dict[str, Any]]:
    """The file's records as dicts (parquet through pyarrow, JSON and JSON lines through json),
    within the file and item bounds."""
    try:
        if file.stat().st_size == 0:
            raise ReleaseError(f"{file} is empty")
    except OSError as exc:
        raise ReleaseError(f"{file}: cannot read it ({one_line(exc)})") from exc
    records: list[Any]
    if file.suffix.lower() == ".parquet":
        records = read_parquet_rows(file, str(file))[1]
    else:
        records = _json_records(file, read_text(file, str(file)))
    if not records:
        raise ReleaseError(f"{file} has no items")
    check_count(len(records), str(file), limits().items)
    for n, record in enumerate(records):
        if not isinstance(record, dict):
            raise ReleaseError(f"{file} item {n} is not a record of fields but {type(record).__name__}")
    return records


def _json_records(file: Path, text: str) -> list[Any]:
    if not text.strip():
        raise ReleaseError(f"{file} is empty")
    whole: Any = None
    if file.suffix.lower() == ".json":
        try:
            whole = json.loads(text)
        except json.JSONDecodeError:
            whole = None  # `Dataset.to_json` writes JSON lines even under a .json name
        except RecursionError:
            raise ReleaseError(f"{file}: cannot read it as JSON (nested too deep)") from None
    if whole is None:
        records: list[Any] = []
        most = limits().items
        for number, line in enumerate(text.splitlines(), 1):
            if not line.strip():
                continue
            check_count(len(records) + 1, str(file), most)  # stopped at the bound, not after
            try:
                records.append(json.loads(line))
            except json.JSONDecodeError as exc:
                raise ReleaseError(f"{file} line {number}: not JSON ({exc.msg})") from exc
            except RecursionError:
                raise ReleaseError(f"{file} line {number}: not JSON (nested too deep)") from None
        return records
    if isinstance(whole, list):
        return whole
    if isinstance(whole, dict):
        for key in (SPLIT, "data", "rows", "items", "examples"):
            if isinstance(whole.get(key), list):
                return list(whole[key])
        if not whole:
            return []
        if all(isinstance(v, dict) for v in whole.values()):  # records keyed by id
            return [value if "id" in value else {"id": key, **value} for key, value in whole.items()]
        if all(isinstance(v, list) for v in whole.values()) and len({len(v) for v in whole.values()}) == 1:
            return [dict(zip(whole, values, strict=True)) for values in zip(*whole.values(), strict=True)]
    raise ReleaseError(f"{file}: expected a list of records (or one record per line)")


def resolve_columns(columns: Iterable[str]) -> dict[str, str]:
    """Canonical field -> the file's column for it, by alias (exact, then ignoring case)."""
    present = list(columns)
    folded = {c.lower(): c for c in reversed(present)}
    found = {}
    for name, aliases in ALIASES.items():
        for alias in aliases:
            if alias in present:
                found[name] = alias
                break
        else:
            for alias in aliases:
                if alias.lower() in folded:
                    found[name] = folded[alias.lower()]
                    break
    return found


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
    return check_image(data, bound, where)


def _image_from_text(text: str, file: Path, where: str, root: Path, bound: int) -> bytes:
    if text.startswith("data:"):
        text = text.split(",", 1)[-1]
    elif len(text) < 1024:  # perhaps a path (base64 holds no '.', so a name with a suffix is a path)
        candidate = contained(root, text, where, base=file.parent)
        if candidate.is_file():
            return read_bounded(candidate, bound, where, "image_bytes", "its image")
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
    found = _LEVELS.get(re.sub(r"[\s_\-]+", " ", str(value)).strip().lower())
    if found is None:
        raise row.fail(f"unknown level {one_line(repr(value))}; expected one of {', '.join(sorted(_LEVELS))}")
    return found


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
            records = read_records(file)
            columns = list(dict.fromkeys(k for r in records for k in r))
            resolved = resolve_columns(columns)
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


class IsoBenchItem(SeedProgram):
    """One released IsoBench item: one variant, shown in the representations the item has.
    Not in the seed registry."""

    modalities: ClassVar[tuple[Modality, ...]] = (Modality.IMAGE,)  # each item sets its own
    variation_types = ()
    memoizable = False  # the files may change under the same id: always read them

    def __init__(self, item: Item) -> None:
        self.item = item
        self.seed_id = item.seed_id
        self.topic = item.task.topic
        self.level = item.level
        self.answer_type = item.task.answer_type
        self.variant_space = 1
        self.modalities = item.modalities  # type: ignore[misc]  # per item, not per class

    def variant(self, index: int, base_seed: int = 0) -> Variant:
        if index != 0:
            raise ReleaseError(f"item {self.seed_id} has 1 variant (index 0); there is no variant {index}")
        item, built = self.item, self.item.built
        return Variant(
            seed_id=self.seed_id,
            index=0,
            base_seed=base_seed,
            topic=self.topic,
            level=self.level,
            answer_type=self.answer_type,
            question=built.question,
            answer=built.answer,
            params={
                "task": item.task.name,
                "file": item.label,
                "row": item.row,
                "release_id": item.release_id,
                "image_sha256": hashlib.sha256(item.image).hexdigest(),
                "intro": built.intro,
                "image_note": built.image_note,
                "representations": {m.value: list(pair) for m, pair in built.contents.items()},
                **({"facts": built.facts} if built.facts else {}),
            },
            choices=built.choices,
            solution="",
            variation_types=(),
        )

    def render(self, variant: Variant, modality: Modality) -> Representation:
        params = variant.params
        if modality is Modality.IMAGE:
            text = "\n\n".join(p for p in (params["intro"], params["image_note"], variant.question) if p)
            return Representation(modality, text, image_png=as_png(self.item.image))
        lead, content = params["representations"][modality.value]
        text = "\n\n".join(p for p in (params["intro"], lead, content, variant.question) if p)
        return Representation(modality, text, extra={"task": params["task"], modality.value: content})


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
