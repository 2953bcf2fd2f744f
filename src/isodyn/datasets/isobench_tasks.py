"""IsoBench's ten tasks: what each item of a task asks, in every representation it has.

A task's builder (`TaskSpec.build`) reads one released record, its fields resolved to canonical names
(`Row`; the field map is `isobench.ALIASES`), and returns its question, truth, choices and texts
(`Built`). Parity, convexity, connectivity and isomorphism (Yes/No), winner and the science tasks are
multiple choice, their question ending in DynaMath's inline `choices: (A) ..., (B) ...` and their truth
a letter; breakpoint and max flow are integers; puzzle is a text answer (the move). Labels are read
tolerantly: a puzzle label holding a line of moves counts by its first move; winner labels `1-0`,
`0-1`, `1/2-1/2` are read as White, Black, Draw; a science label may be a 0-based index, a letter or a
choice's text. The float `domain` of parity and breakpoint items (a plotting range) is kept in the
variant's params but not put into the question; convexity's string `domain` is.
"""

from __future__ import annotations

import ast
import json
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from isodyn.core import AnswerType, JsonObject, Modality, Topic
from isodyn.datasets.contained import ReleaseError
from isodyn.datasets.reader import clean, one_line
from isodyn.generators.base import format_choices, letter
from isodyn.scoring.bounds import exact_decimal

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
    facts: JsonObject = field(default_factory=dict)  # other released values (kept in params)


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

    def __init__(self, values: JsonObject, columns: dict[str, str], where: str) -> None:
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
    number = None if isinstance(raw, bool) else exact_decimal(str(raw))  # exact: 2^53 + 1 stays itself
    if number is None or number.denominator != 1:
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


def _math_facts(row: Row) -> JsonObject:
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
