"""One cell as the page shows it, read lazily: its line of results.jsonl by the offset the index
holds, checked as `results.read_results` checks a row, and turned into typed views (`CellView`).

Everything here is data from the run (replies, questions, model names): the page renders it as
text, never as markup. The span of the answer the grader read is computed here
(`isodyn.scoring.span.answer_span`) and sent as offsets in UTF-16 code units, the unit of
JavaScript's strings, so a reply with characters beyond the Basic Multilingual Plane (emoji,
mathematical letters) is highlighted where Python found it.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, fields
from pathlib import Path
from typing import Any

import orjson

from isodyn.core import DEFAULT_RENDER, NO_PERTURBATION
from isodyn.errors import IsodynError
from isodyn.runs.marks import Mark, graded_reading
from isodyn.runs.record import Cell, CellResult
from isodyn.runs.results import parsed_line, row_problem
from isodyn.runs.schema import JUDGE, migrate
from isodyn.scoring import Score
from isodyn.scoring.span import answer_span
from isodyn.view.index import CellIndex

DIGEST = re.compile(r"sha256:[0-9a-f]{64}")
Span = tuple[int, int]


class CellUnreadable(IsodynError, ValueError):
    """The cell's line is damaged, or results.jsonl changed under the index."""


@dataclass(frozen=True)
class Part:
    kind: str  # "text" or "image" (text: the image's digest, served at /image/DIGEST)
    text: str


@dataclass(frozen=True)
class MessageView:
    role: str
    parts: list[Part]


@dataclass(frozen=True)
class CallView:
    step: str
    model: str
    sample: int
    messages: list[MessageView]
    response: str | None  # None: the call failed
    cache_hit: bool | None
    prompt_tokens: int
    completion_tokens: int


@dataclass(frozen=True)
class ScoreView:
    grader: str
    correct: bool
    extracted: str | None
    reason: str
    method: str
    ambiguity: str | None
    decides: bool  # this score is the cell's verdict
    detail: list[tuple[str, str]]  # what a judge kept of its reading, as text


@dataclass(frozen=True)
class RepresentationView:
    """The same variant as another modality's cell of this run shows it."""

    cell: int
    modality: str
    question: str  # the problem as that cell's model read it (`shown_text`)
    images: list[str]
    render: str
    perturbation: str


@dataclass(frozen=True)
class ProfileView:
    """The same variant, arm, repeat and perturbation drawn under one render profile: the pictures
    that cell's model was sent, and what it made of them."""

    cell: int
    render: str
    images: list[str]
    verdict: str
    reason: str
    extracted: str | None  # the answer read, as the list keeps it (shortened)


@dataclass(frozen=True)
class ArmView:
    """Another arm's cell on the same variant and repeat (for the side-by-side view)."""

    cell: int
    model: str
    strategy: str
    modality: str
    render: str
    perturbation: str
    verdict: str


@dataclass(frozen=True)
class CellView:
    id: int
    cell: Cell  # sent flat: model, strategy, modality, seed_id, variant, repeat
    topic: str
    level: str
    answer_type: str
    question: str
    shown: str  # the problem as the model read it (`shown_text`): the representation itself
    choices: list[str]
    truth: str
    solution: str
    reason: str
    error: str | None
    verdict: str  # right, wrong, not graded
    graded_reading: str | None  # correct / wrong / none: the grader's reading in the corpus's words
    extracted: str | None
    method: str | None
    ambiguity: str | None
    grader: str | None
    reply: str | None
    span: Span | None  # [start, end) in UTF-16 code units of `reply`
    scores: list[ScoreView]
    judge: ScoreView | None
    calls: list[CallView]
    images: list[str]  # digests of the images the cell was shown
    representations: list[RepresentationView]
    profiles: list[ProfileView]  # this cell under every render profile the run drew (empty: one)
    arms: list[ArmView]
    failed: int  # wrong cells of this seed in this arm
    graded: int
    mark: Mark | None
    notes: str  # the cell's notes as JSON text (a permutation's order, ...)

    def to_json(self) -> dict[str, Any]:
        """What the page reads of the cell: the cell's values flat, after `id`, then every other
        field in order (the mark as its line spells it; the other views as they are)."""
        found: dict[str, Any] = {"id": self.id, **self.cell.to_json()}
        for name in _REST:
            found[name] = getattr(self, name)
        found["mark"] = self.mark.to_json() if self.mark is not None else None
        return found


_REST = tuple(f.name for f in fields(CellView) if f.name not in ("id", "cell"))


def read_line(results: Path, offset: int, length: int) -> bytes:
    handle = os.open(results, os.O_RDONLY | getattr(os, "O_CLOEXEC", 0))
    try:
        return os.pread(handle, length, offset)
    finally:
        os.close(handle)


def read_cell(index: CellIndex, results: Path, cell: int) -> CellResult:
    """The cell's full record, from its line; CellUnreadable when that line is not the cell's row."""
    line = read_line(results, *index.position(cell))
    row, why = parsed_line(line)
    if row is not None:
        why = row_problem(row, f"{results} cell {cell}") or ""
    if row is None or why:
        raise CellUnreadable(f"this cell's line of results.jsonl is damaged: {why}")
    result = CellResult.from_row(migrate(row))
    if result.key != index.cell_key(cell):
        raise CellUnreadable("results.jsonl changed since the index was read; reload the page")
    return result


def utf16_span(text: str, span: Span | None) -> Span | None:
    """Python's character offsets as JavaScript's (UTF-16 code units); None when out of range."""
    if span is None:
        return None
    start, end = span
    if not (isinstance(start, int) and isinstance(end, int) and 0 <= start < end <= len(text)):
        return None

    def units(position: int) -> int:
        return position + sum(1 for ch in text[:position] if ord(ch) > 0xFFFF)

    return units(start), units(end)


def answer_offsets(
    reply: str | None, method: str | None, extracted: str | None, choices: Sequence[str] = ()
) -> Span | None:
    if not reply:
        return None
    try:
        found = answer_span(reply, method, extracted, tuple(choices))
    except Exception:  # a display aid must never keep a cell from opening
        return None
    return utf16_span(reply, found)


def _parts(content: Any) -> list[Part]:
    if isinstance(content, str):
        return [Part("text", content)]
    parts: list[Part] = []
    for item in content if isinstance(content, list) else [content]:
        if not isinstance(item, dict):
            parts.append(Part("text", str(item)))
        elif isinstance(item.get("text"), str):
            parts.append(Part("text", item["text"]))
        else:
            url = item.get("image_url")
            url = url.get("url") if isinstance(url, dict) else url
            if isinstance(url, str) and DIGEST.fullmatch(url):
                parts.append(Part("image", url))
            else:
                parts.append(Part("text", f"[image: {str(url)[:80]}]"))
    return parts


def call_views(result: CellResult) -> list[CallView]:
    views = []
    for call in result.calls:
        messages = [
            MessageView(str(m.get("role", "?")), _parts(m.get("content"))) if isinstance(m, Mapping)
            else MessageView("?", [Part("text", str(m))])
            for m in call.messages
        ]  # fmt: skip
        views.append(
            CallView(
                call.step,
                call.model,
                call.sample,
                messages,
                call.response,
                call.cache_hit,
                call.prompt_tokens,
                call.completion_tokens,
            )
        )
    return views


def shown_text(calls: Sequence[CallView], fallback: str) -> str:
    """What the model read of the problem: the text of the first call's last user message (the
    representation, as the strategy's prompt put it), or `fallback` (a cell never sent: skipped)."""
    for message in reversed(calls[0].messages if calls else []):
        if message.role == "user":
            text = "\n".join(part.text for part in message.parts if part.kind == "text")
            if text.strip():
                return text
    return fallback


def images_of(calls: Sequence[CallView]) -> list[str]:
    """The distinct image digests the calls showed, in order."""
    found: dict[str, None] = {}
    for call in calls:
        for message in call.messages:
            for part in message.parts:
                if part.kind == "image":
                    found.setdefault(part.text)
    return list(found)


def score_view(score: Score, decides: bool) -> ScoreView:
    detail = [
        (str(key), value if isinstance(value, str) else json_text(value))
        for key, value in (score.detail or {}).items()
    ]
    return ScoreView(score.grader, score.correct, score.extracted, score.reason, score.method or "",
                     score.ambiguity, decides, detail)  # fmt: skip


def _closeness(index: CellIndex, cell: int, other: int) -> tuple[bool, ...]:
    """How far `other` is from `cell` (False sorts first): a perturbed variant shows other numbers,
    so a cell of the same perturbation and render is the fair picture of "the same variant"."""
    differs = [
        bool(index.codes[name][other] != index.codes[name][cell])
        for name in ("perturbation", "render", "model", "strategy")
    ]
    return (*differs, bool(index.numbers["repeat"][other] != index.numbers["repeat"][cell]))


def _representations(index: CellIndex, results: Path, cell: int) -> list[RepresentationView]:
    """The question of one cell of every other modality on this variant, as that cell was shown it
    (the closest such cell: same perturbation and render first)."""
    own = index.value("modality", cell)
    chosen: dict[str, int] = {}
    for other in map(int, index.same_variant(cell)):
        modality = index.value("modality", other)
        if modality == own:
            continue
        held = chosen.get(modality)
        if held is None or _closeness(index, cell, other) < _closeness(index, cell, held):
            chosen[modality] = other
    views = []
    for modality, other in chosen.items():
        try:
            result = read_cell(index, results, other)
        except CellUnreadable:
            continue
        calls = call_views(result)[:1]
        views.append(
            RepresentationView(
                other, modality, shown_text(calls, result.question), images_of(calls),
                index.value("render", other), index.value("perturbation", other),
            )
        )  # fmt: skip
    return views


def _same_but_render(index: CellIndex, cell: int) -> list[int]:
    """The cells that differ from `cell` by their render profile alone (itself included), the
    default profile first, then the others in the index's (natural) order."""
    same = ("model", "strategy", "modality", "perturbation")
    found = [
        other
        for other in map(int, index.same_variant(cell))
        if index.numbers["repeat"][other] == index.numbers["repeat"][cell]
        and all(index.codes[name][other] == index.codes[name][cell] for name in same)
    ]
    return sorted(found, key=lambda other: index.value("render", other) != DEFAULT_RENDER)


def _profiles(index: CellIndex, results: Path, cell: int, own_images: list[str]) -> list[ProfileView]:
    """The pictures of this variant under each render profile the run drew it in, as each cell's
    model was sent them; empty when the run drew it under one profile only."""
    cells = _same_but_render(index, cell)
    if len(cells) < 2:
        return []
    views = []
    for other in cells:
        if other == cell:
            images = own_images
        else:
            try:
                images = images_of(call_views(read_cell(index, results, other)))
            except CellUnreadable:
                continue  # a damaged line: that profile is left out, the others still shown
        views.append(
            ProfileView(other, index.value("render", other), images, index.verdict(other),
                        index.value("reason", other), index.extracted[other])
        )  # fmt: skip
    return views


def _arms(index: CellIndex, cell: int) -> list[ArmView]:
    repeat = index.numbers["repeat"][cell]
    arms = [
        ArmView(
            other,
            index.value("model", other),
            index.value("strategy", other),
            index.value("modality", other),
            index.value("render", other),
            index.value("perturbation", other),
            index.verdict(other),
        )
        for other in map(int, index.same_variant(cell))
        if other != cell and index.numbers["repeat"][other] == repeat
    ]
    # in the index's order, but within a model, strategy and modality the default render and the
    # unperturbed variant first (the picture every other arm is a change of)
    first: dict[tuple[str, ...], int] = {}
    for at, arm in enumerate(arms):
        first.setdefault((arm.model, arm.strategy, arm.modality), at)
        first.setdefault((arm.model, arm.strategy, arm.modality, arm.render), at)

    def order(a: ArmView) -> tuple[int, bool, int, bool]:
        group = (a.model, a.strategy, a.modality)
        return (first[group], a.render != DEFAULT_RENDER, first[(*group, a.render)],
                a.perturbation != NO_PERTURBATION)  # fmt: skip

    return sorted(arms, key=order)


def cell_view(index: CellIndex, results: Path, cell: int, mark: Mark | None) -> CellView:
    """Everything the page shows of one cell."""
    result = read_cell(index, results, cell)
    calls = call_views(result)
    images = images_of(calls)
    judge = result.scores.get(JUDGE)
    return CellView(
        id=cell, cell=result.cell, topic=result.topic,
        level=result.level, answer_type=result.answer_type, question=result.question,
        shown=shown_text(calls, result.question),
        choices=list(result.choices), truth=result.truth, solution=result.solution, reason=result.reason,
        error=result.error, verdict=index.verdict(cell),
        graded_reading=graded_reading(result.reason, result.correct), extracted=result.extracted,
        method=result.method, ambiguity=result.ambiguity, grader=result.decided_by, reply=result.response,
        span=answer_offsets(result.response, result.method, result.extracted, result.choices),
        scores=[score_view(s, name == result.decided_by) for name, s in result.scores.items()],
        judge=score_view(judge, result.decided_by == JUDGE) if judge is not None else None,
        calls=calls, images=images, representations=_representations(index, results, cell),
        profiles=_profiles(index, results, cell, images), arms=_arms(index, cell),
        failed=int(index.failed[cell]), graded=int(index.graded_count[cell]),
        mark=mark, notes=json_text(result.notes) if result.notes else "",
    )  # fmt: skip


def json_text(value: Any) -> str:
    """A value from the run as JSON text (a lone surrogate in it escaped, not an error)."""
    try:
        return orjson.dumps(value, default=str).decode()
    except TypeError:
        return json.dumps(value, default=str)
