"""What a worst-variant search records: one `Trial` per variant it asked, in the order it asked them.

A search is made of `Unit`s, one per model x strategy x modality x seed; each spends its own budget
of calls. A trial is a variant (its `Genome`) asked once, and, when the model answered it wrongly with
a clear verdict, asked again `confirm` times on fresh repeats: it is `CONFIRMED` only when every
repeat is wrong with a clear verdict too. `trials.jsonl` holds one trial per line (`Trial.to_json`).
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

from isodyn.core import DEFAULT_RENDER, JsonObject, Modality
from isodyn.generators.tape import Genome, TapeError


class TrialStatus(StrEnum):
    PASSED = "passed"  # answered right
    CONFIRMED = "confirmed"  # wrong, clearly, and wrong again on every confirming repeat
    FLUKE = "fluke"  # wrong once, clearly, but right (or unreadable) on a confirming repeat
    UNCLEAR = "unclear"  # no clear answer (none found, several, unreadable): not a failure of reasoning
    ERROR = "error"  # a call failed
    SKIPPED = "skipped"  # not asked (the strategy does not apply, the model cannot see images)
    UNDONE = "undone"  # the budget (max_cost) ran out before its calls were made


# Trials that count as a variant tried (a skipped or undone one was never answered).
ANSWERED = frozenset({TrialStatus.PASSED, TrialStatus.CONFIRMED, TrialStatus.FLUKE, TrialStatus.UNCLEAR})


class Searcher(StrEnum):
    RANDOM = "random"  # fresh variant indices: DynaMath's draws, continued
    GUIDED = "guided"  # stratified draws, then mutations of failures (search/guided.py)
    BASELINE = "baseline"  # variants 0..9: DynaMath's own 10-variant worst case
    TRANSFER = "transfer"  # the hard set asked to a second model


@dataclass(frozen=True, slots=True)
class Unit:
    """One search: a model, a strategy, a modality and a seed."""

    model: str
    strategy: str
    modality: Modality
    seed_id: str

    def label(self) -> str:
        return f"{self.model} · {self.strategy} · {self.modality.value} · {self.seed_id}"


@dataclass(frozen=True, slots=True)
class Asked:
    """One ask of a trial's variant (the first, or a confirming repeat): what the grader said."""

    repeat: int
    correct: bool | None  # None: not graded (error, skipped)
    clear: bool  # the verdict's ambiguity is `clear`
    extracted: str | None
    calls: int  # calls the ask made (cached or not)
    cached: bool  # every call came from the cache
    status: str  # the cell's status word (ok, extraction_failed, error:kind, skipped: why)

    @property
    def clearly_wrong(self) -> bool:
        return self.correct is False and self.clear


@dataclass(frozen=True, slots=True)
class Trial:
    unit: Unit
    searcher: Searcher
    number: int  # 0-based order within the unit's searcher
    genome: Genome
    params: JsonObject  # the variant's params, for explaining what failures share
    answer: str  # the truth
    asks: tuple[Asked, ...]  # the first ask, then the confirming repeats in order
    status: TrialStatus
    parent: int | None = None  # the trial (number) this one mutated, for guided search
    changed: tuple[str, ...] = ()  # the params (top-level keys) that differ from the parent's
    render: str = DEFAULT_RENDER  # the render profile its pictures were drawn under (`renders=`)

    @property
    def calls(self) -> int:
        return sum(a.calls for a in self.asks)

    @property
    def answered(self) -> bool:
        return self.status in ANSWERED

    @property
    def confirmed(self) -> bool:
        return self.status is TrialStatus.CONFIRMED

    def to_json(self) -> JsonObject:
        """A line of trials.jsonl; `render` only when not the default (lines of searches without
        `renders=` are as they were)."""
        found: JsonObject = {
            "model": self.unit.model,
            "strategy": self.unit.strategy,
            "modality": self.unit.modality.value,
            "seed_id": self.unit.seed_id,
            "searcher": self.searcher.value,
            "number": self.number,
            "genome": self.genome.to_json(),
            "params": self.params,
            "answer": self.answer,
            "asks": [
                {
                    "repeat": a.repeat,
                    "correct": a.correct,
                    "clear": a.clear,
                    "extracted": a.extracted,
                    "calls": a.calls,
                    "cached": a.cached,
                    "status": a.status,
                }
                for a in self.asks
            ],
            "status": self.status.value,
            "parent": self.parent,
            "changed": list(self.changed),
        }
        if self.render != DEFAULT_RENDER:
            found["render"] = self.render
        return found

    @classmethod
    def from_json(cls, data: JsonObject) -> Trial:
        """A line of trials.jsonl (TapeError, KeyError or ValueError on a damaged one)."""
        unit = Unit(
            str(data["model"]), str(data["strategy"]), Modality(data["modality"]), str(data["seed_id"])
        )
        asks = tuple(
            Asked(
                int(a["repeat"]),
                a["correct"],
                bool(a["clear"]),
                a["extracted"],
                int(a["calls"]),
                bool(a["cached"]),
                str(a["status"]),
            )
            for a in data["asks"]
        )
        params = data["params"]
        if not isinstance(params, dict):
            raise TapeError("params must be an object")
        parent = data.get("parent")
        return cls(
            unit, Searcher(data["searcher"]), int(data["number"]), Genome.from_json(data["genome"]), params,
            str(data["answer"]), asks, TrialStatus(data["status"]), None if parent is None else int(parent),
            tuple(str(k) for k in data.get("changed", ())), str(data.get("render", DEFAULT_RENDER)),
        )  # fmt: skip


def status_of(asks: tuple[Asked, ...]) -> TrialStatus:
    """A trial's status from its asks (the first, then the confirming repeats)."""
    first = asks[0]
    if first.status.startswith("skipped"):
        return TrialStatus.SKIPPED
    if first.correct is None and first.status.startswith("error"):
        return TrialStatus.ERROR
    if first.correct:
        return TrialStatus.PASSED
    if not first.clearly_wrong:
        return TrialStatus.UNCLEAR
    confirming = asks[1:]
    if any(a.correct is None and a.status.startswith("error") for a in confirming):
        return TrialStatus.ERROR
    return TrialStatus.CONFIRMED if all(a.clearly_wrong for a in confirming) else TrialStatus.FLUKE
