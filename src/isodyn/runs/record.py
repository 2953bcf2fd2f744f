"""The cell record: one typed, self-sufficient result per grid cell, composed of the types it holds.

A `CellResult` is the cell's identity (`Cell`), the question as asked (`Question`, the graders' own
type: text, options as shown, truth, answer type, tolerance, solution), the variant's labels
(`Labels`), what happened (`Outcome`: a status and its detail), the verdicts by grader (`scores`, a
`Score` each; `decided_by` names the one the cell takes, so a rescore or a judge adds a score
instead of a sibling field), the final reply, the calls in order (`calls.Call`) and what they cost
(`calls.Usage`).

`results.jsonl` holds the record flat (`to_row`, schema 3): one column per `schema.Row` field, the verdict
in the columns the analysis reads, and every score under `scores` when there is more than one. The
flat names are also read-only properties of the record (`result.correct`, `result.model`), the
vocabulary every table and report uses; `schema.Column` names them for the analysis layer.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from enum import StrEnum
from typing import Any, NamedTuple

from isodyn.core import DEFAULT_RENDER, NO_PERTURBATION, AnswerType, JsonObject, Modality
from isodyn.models.requests import CUT_OFF
from isodyn.runs.calls import Call, Usage
from isodyn.runs.schema import COLUMNS, DEFAULTS, JUDGE, SCHEMA_VERSION, FlatColumn, migrate
from isodyn.scoring import DEFAULT_GRADER, Question, Score, Tolerance, get_grader
from isodyn.scoring.extract import TRUNCATED


class Status(StrEnum):
    """What happened to a cell."""

    OK = "ok"  # graded: an answer was read and compared (right or wrong)
    EXTRACTION_FAILED = "extraction_failed"  # graded: no answer could be read
    TRUNCATED = "truncated"  # graded, not correct: the final reply was cut off at the token limit
    SKIPPED = "skipped"  # not asked: the strategy does not apply (detail: why)
    ERROR = "error"  # asked, and a call failed (detail: the kind, "local" for this machine)


GRADED_STATUSES = frozenset({Status.OK, Status.EXTRACTION_FAILED, Status.TRUNCATED})

# A cell that failed on this machine (disk, permissions, a store), not at the model: the run is not
# complete, and resuming it runs the cell again, with every reply it had received reused.
LOCAL_FAILURE = "error:local"


@dataclass(frozen=True, slots=True)
class Outcome:
    """A cell's status, its detail (why it was skipped, the kind of error) and an error's message."""

    status: Status
    detail: str = ""
    message: str | None = None

    @property
    def graded(self) -> bool:
        return self.status in GRADED_STATUSES

    @property
    def reason(self) -> str:
        """The status in results.jsonl's words: ok, extraction_failed, skipped: why, error:kind."""
        if self.status is Status.SKIPPED:
            return f"skipped: {self.detail}" if self.detail else "skipped"
        if self.status is Status.ERROR:
            return f"error:{self.detail}"
        return self.status.value

    @classmethod
    def from_reason(cls, reason: str, message: str | None = None) -> Outcome:
        """The outcome a `reason` word names (anything unknown is an error of that name)."""
        if reason in GRADED_STATUSES:
            return cls(Status(reason), "", message)
        if reason.startswith("skipped"):
            return cls(Status.SKIPPED, reason.removeprefix("skipped").removeprefix(":").strip(), message)
        return cls(Status.ERROR, reason.removeprefix("error:"), message)


def truncated_score(grader: str) -> Score:
    """The verdict on a reply cut off at the token limit, whatever the grader: not read, not correct."""
    return Score(False, None, TRUNCATED, TRUNCATED, TRUNCATED, grader)


def grade(reply: str, asked: Question, grader: str, finish_reason: str | None) -> Score:
    """A final reply graded by the named grader; one cut off at the token limit is never read."""
    if finish_reason == CUT_OFF:
        return truncated_score(grader)
    return get_grader(grader)(reply, asked)


def status_of(reason: str) -> Status:
    """The status a results.jsonl `reason` word names (for a table's column of them)."""
    return Outcome.from_reason(reason).status


# model, strategy, modality, seed_id, variant, repeat, render, perturbation
CellKey = tuple[str, str, str, str, int, int, str, str]


class Cell(NamedTuple):
    """Which cell of the grid: a model, a strategy, a modality, a seed's variant, a repeat, the render
    profile its picture is drawn under and the perturbation of its question. A named tuple: it equals
    (and hashes as) the plain tuple of its values, which is how rows name a cell."""

    model: str
    strategy: str
    modality: Modality
    seed_id: str
    variant: int
    repeat: int = 0
    render: str = DEFAULT_RENDER
    perturbation: str = NO_PERTURBATION

    @property
    def key(self) -> CellKey:
        """The cell as plain values (what a results.jsonl row says)."""
        return (
            self.model, self.strategy, self.modality.value, self.seed_id, self.variant, self.repeat,
            self.render, self.perturbation,
        )  # fmt: skip

    @property
    def words(self) -> str:
        """The cell in one line of its values (render and perturbation only when not the default)."""
        return " ".join(str(value) for value in self.to_json().values())

    @property
    def is_plain(self) -> bool:
        """Drawn and asked as every run before render profiles and perturbations did."""
        return self.render == DEFAULT_RENDER and self.perturbation == NO_PERTURBATION

    def to_json(self) -> dict[str, str | int]:
        """The cell's values as marks, judgements and the viewer spell them: flat, in this order;
        the render and perturbation only when not the default (a plain cell's line is as before)."""
        data: dict[str, str | int] = dict(zip(CELL_FIELDS, self.key, strict=True))
        if self.render == DEFAULT_RENDER:
            del data["render"]
        if self.perturbation == NO_PERTURBATION:
            del data["perturbation"]
        return data

    @classmethod
    def of(cls, key: Sequence[Any]) -> Cell:
        """The cell a key of plain values names (model, strategy, modality, seed_id, variant,
        repeat[, render, perturbation]); ValueError when its modality is none of isodyn's."""
        model, strategy, modality, seed_id, variant, repeat, *drawn = key
        return cls(model, strategy, Modality(modality), seed_id, variant, repeat, *drawn)

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Cell:
        """The cell a flat JSON object names (a row, a mark, a judgement); a line written before
        render profiles reads as the default render and no perturbation. KeyError, ValueError or
        TypeError when it names none."""
        return cls(
            data["model"], data["strategy"], Modality(data["modality"]), data["seed_id"], data["variant"],
            data.get("repeat", 0), data.get("render", DEFAULT_RENDER),
            data.get("perturbation", NO_PERTURBATION),
        )  # fmt: skip


CELL_FIELDS = Cell._fields


@dataclass(frozen=True, slots=True)
class Labels:
    """What the variant is about: its topic, level and the ways it varies from its seed's others."""

    topic: str = ""
    level: str = ""
    variation_types: tuple[str, ...] = ()
    # digits of the largest quantity the seed's magnitude perturbation scales (None: it declares none),
    # the covariate that tells a drop on bigger numbers from one on a clause
    number_digits: int | None = None


@dataclass(frozen=True, slots=True, kw_only=True)
class CellResult:
    """One cell of the grid, as run and graded."""

    cell: Cell
    asked: Question
    labels: Labels = Labels()
    outcome: Outcome = Outcome(Status.OK)
    scores: Mapping[str, Score] = field(default_factory=dict)  # by grader
    decided_by: str | None = None  # the score that is the cell's verdict (None: not graded)
    response: str | None = None  # the final reply that was graded
    finish_reason: str | None = None  # the final reply's ("length": cut off); None: not known
    calls: tuple[Call, ...] = ()
    usage: Usage = field(default_factory=Usage)
    notes: JsonObject = field(default_factory=dict)
    schema: int = SCHEMA_VERSION

    # --- the verdict ------------------------------------------------------------------------------
    @property
    def verdict(self) -> Score | None:
        return self.scores.get(self.decided_by) if self.decided_by is not None else None

    @property
    def graded(self) -> bool:
        return self.outcome.graded

    def regraded(self, grader: str, tolerance: Tolerance | None = None) -> CellResult:
        """This cell graded again from its saved reply by the named grader; a cell that was
        skipped, failed or has no reply is returned as it is."""
        if not self.graded or self.response is None:
            return self
        asked = self.asked if tolerance is None else replace(self.asked, tolerance=tolerance)
        return replace(self, asked=asked).graded_by(grade(self.response, asked, grader, self.finish_reason))

    def graded_by(self, score: Score) -> CellResult:
        """This cell with `score` as its verdict (the reply, the calls, the other scores stay)."""
        others = {k: v for k, v in self.scores.items() if k not in (self.decided_by, score.grader)}
        return replace(
            self, scores={score.grader: score, **others}, decided_by=score.grader,
            outcome=Outcome(Status(score.reason)),
        )  # fmt: skip

    def overruled_by(self, score: Score) -> CellResult:
        """This cell with `score` as its verdict and every score it had kept beside it (a judge that
        read what the rules could not: the rules' verdict stays, for a report to count both)."""
        return replace(
            self, scores={score.grader: score, **{k: v for k, v in self.scores.items() if k != score.grader}},
            decided_by=score.grader, outcome=Outcome(Status(score.reason)),
        )  # fmt: skip

    def with_score(self, score: Score) -> CellResult:
        """This cell with one more score that does not decide it (a judge that found no answer)."""
        return replace(self, scores={**self.scores, score.grader: score})

    # --- the flat view: results.jsonl's columns -------------------------------------------------
    @property
    def key(self) -> CellKey:
        return self.cell.key

    @property
    def model(self) -> str:
        return self.cell.model

    @property
    def strategy(self) -> str:
        return self.cell.strategy

    @property
    def modality(self) -> str:
        return self.cell.modality.value

    @property
    def seed_id(self) -> str:
        return self.cell.seed_id

    @property
    def variant(self) -> int:
        return self.cell.variant

    @property
    def repeat(self) -> int:
        return self.cell.repeat

    @property
    def topic(self) -> str:
        return self.labels.topic

    @property
    def level(self) -> str:
        return self.labels.level

    @property
    def variation_types(self) -> tuple[str, ...]:
        return self.labels.variation_types

    @property
    def answer_type(self) -> str:
        return self.asked.answer_type.value

    @property
    def question(self) -> str:
        return self.asked.text

    @property
    def choices(self) -> tuple[str, ...]:
        return self.asked.choices

    @property
    def truth(self) -> str:
        return self.asked.truth

    @property
    def percent_question(self) -> bool:
        return self.asked.percent_question

    @property
    def solution(self) -> str:
        return self.asked.solution

    @property
    def tolerance(self) -> Tolerance:
        return self.asked.tolerance

    @property
    def abs_tol(self) -> float:
        return self.asked.tolerance.absolute

    @property
    def rel_tol(self) -> float:
        return self.asked.tolerance.relative

    @property
    def reason(self) -> str:
        return self.outcome.reason

    @property
    def error(self) -> str | None:
        return self.outcome.message

    @property
    def correct(self) -> bool | None:
        verdict = self.verdict
        return verdict.correct if verdict is not None else None

    @property
    def extracted(self) -> str | None:
        verdict = self.verdict
        return verdict.extracted if verdict is not None else None

    @property
    def method(self) -> str | None:
        verdict = self.verdict
        return verdict.method if verdict is not None else None

    @property
    def ambiguity(self) -> str | None:
        verdict = self.verdict
        return verdict.ambiguity if verdict is not None else None

    @property
    def grader(self) -> str | None:
        return self.decided_by

    @property
    def judge_extract(self) -> JsonObject | None:
        """The judge's reading, when a judge was asked."""
        judged = self.scores.get(JUDGE)
        return dict(judged.detail or {}) if judged is not None else None

    @property
    def transcript(self) -> tuple[Call, ...]:
        return self.calls

    @property
    def cache_hit(self) -> bool | None:
        return self.usage.cache_hit

    @property
    def prompt_tokens(self) -> int:
        return self.usage.prompt_tokens

    @property
    def completion_tokens(self) -> int:
        return self.usage.completion_tokens

    @property
    def cost_usd(self) -> float:
        return self.usage.cost_usd

    @property
    def latency_s(self) -> float:
        return self.usage.latency_s

    def to_row(self) -> JsonObject:
        """The results.jsonl form: flat, JSON-ready, every `Row` column (what `result_line` writes)."""
        row = self.flat()
        row["choices"] = list(self.choices)
        row["variation_types"] = list(self.variation_types)
        row["transcript"] = [call.to_json() for call in self.calls]
        return row

    def flat(self) -> JsonObject:
        """The columns (`schema.COLUMNS`, in order), their values as the record holds them (calls as
        `Call`s, tuples): what `result_line` writes."""
        return _FLAT(self)

    def scores_json(self, verdict: Score | None) -> JsonObject:
        """Every score, when the verdict (`self.verdict`, passed in: it is read once per row) is not
        the only one or keeps a detail; else none (the verdict columns say it all)."""
        if len(self.scores) <= 1 and (verdict is None or verdict.detail is None):
            return {}
        return {name: score_json(score) for name, score in self.scores.items()}

    @classmethod
    def from_row(cls, row: Mapping[str, Any]) -> CellResult:
        """A results.jsonl row of any schema version as the record (older rows are migrated); a
        column the row lacks reads as its default in `schema.COLUMNS`."""
        row = {**DEFAULTS, **migrate(row)}
        outcome = Outcome.from_reason(row["reason"], row["error"])
        scores = {name: score_from_json(name, value) for name, value in (row["scores"] or {}).items()}
        decided_by = row["grader"]
        if (outcome.graded or decided_by is not None) and decided_by not in scores:
            decided_by = decided_by or DEFAULT_GRADER
            verdict = Score(
                row["correct"], row["extracted"], row["reason"], row["method"], row["ambiguity"], decided_by
            )
            scores = {decided_by: verdict, **scores}
        return cls(
            cell=Cell(
                row["model"], row["strategy"], Modality(row["modality"]), row["seed_id"], row["variant"],
                row["repeat"], row["render"], row["perturbation"],
            ),
            asked=Question(
                row["truth"], AnswerType(row["answer_type"]), tuple(str(c) for c in row["choices"] or ()),
                row["question"], row["percent_question"], Tolerance(row["abs_tol"], row["rel_tol"]),
                row["solution"],
            ),
            labels=Labels(
                row["topic"], row["level"], tuple(row["variation_types"] or ()), row["number_digits"]
            ),
            outcome=outcome, scores=scores, decided_by=decided_by, response=row["response"],
            finish_reason=row["finish_reason"],
            calls=tuple(Call.from_json(t) for t in row["transcript"] or ()),
            usage=Usage(
                row["cache_hit"], row["prompt_tokens"], row["completion_tokens"], row["cost_usd"],
                row["latency_s"],
            ),
            notes=dict(row["notes"] or {}), schema=row["schema"],
        )  # fmt: skip


def flat_reader(columns: tuple[FlatColumn, ...] = COLUMNS) -> Callable[[CellResult], JsonObject]:
    """The function from a record to its columns, compiled from their sources: one dict display, as
    fast as one written by hand (it runs for every row a run writes)."""
    display = ", ".join(f"{c.name!r}: {c.source}" for c in columns)
    namespace: JsonObject = {}
    exec(f"def flat(record):\n    verdict = record.verdict\n    return {{{display}}}", namespace)
    return namespace["flat"]  # type: ignore[no-any-return]


_FLAT = flat_reader()


def score_json(score: Score) -> JsonObject:
    """A score as `scores` in a row holds it (its grader is its key)."""
    data: JsonObject = {
        "correct": score.correct, "extracted": score.extracted, "reason": score.reason,
        "method": score.method, "ambiguity": score.ambiguity,
    }  # fmt: skip
    if score.detail is not None:
        data["detail"] = dict(score.detail)
    return data


def score_from_json(grader: str, data: Mapping[str, Any]) -> Score:
    return Score(
        bool(data.get("correct")), data.get("extracted"), str(data.get("reason", "ok")),
        str(data.get("method", "")), data.get("ambiguity"), grader, data.get("detail"),
    )  # fmt: skip
