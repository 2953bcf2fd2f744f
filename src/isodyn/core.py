"""The small immutable objects every layer shares: a concrete variant and one rendering of it."""

from __future__ import annotations

import hashlib
import json
from dataclasses import asdict, dataclass, field
from enum import StrEnum
from typing import Any


class _Label(StrEnum):
    """A StrEnum that unpickles by member name, a plain attribute lookup (Enum's own way calls the
    class with the value); variants are unpickled from the caches on every cell of a rerun."""

    def __reduce_ex__(self, protocol: Any) -> tuple[Any, tuple[type, str]]:
        return getattr, (type(self), self.name)


class AnswerType(_Label):
    MULTIPLE_CHOICE = "multiple_choice"
    FLOAT = "float"
    INT = "int"
    TEXT = "text"


class Topic(_Label):
    """DynaMath's nine topics (Table 1) plus IsoBench's domains."""

    PLANE_GEOMETRY = "plane_geometry"
    SOLID_GEOMETRY = "solid_geometry"
    ANALYTIC_GEOMETRY = "analytic_geometry"
    ALGEBRA = "algebra"
    PUZZLE_TEST = "puzzle_test"
    GRAPH_THEORY = "graph_theory"
    STATISTICS = "statistics"
    SCIENTIFIC_FIGURE = "scientific_figure"
    ARITHMETIC = "arithmetic"
    ISO_MATH = "iso_math"
    ISO_ALGORITHMS = "iso_algorithms"
    ISO_GAMES = "iso_games"
    ISO_SCIENCE = "iso_science"


class Level(_Label):
    ELEMENTARY = "elementary"
    HIGH_SCHOOL = "high_school"
    UNDERGRADUATE = "undergraduate"


class Modality(_Label):
    """A representation of a variant. What each one is lives in `MODALITY_FACTS` (data, not branches
    across modules): a fifth representation is a member here, a line there, and the seeds'
    renderers for it."""

    IMAGE = "image"
    LATEX = "latex"
    CODE = "code"
    STORY = "story"

    @property
    def visual(self) -> bool:
        """Shown as a picture (needs a vision model) rather than as text."""
        return MODALITY_FACTS[self].visual

    @property
    def label(self) -> str:
        """How a prompt names the representation ("the LaTeX representation")."""
        return MODALITY_FACTS[self].label


@dataclass(frozen=True)
class ModalityFacts:
    visual: bool
    label: str


MODALITY_FACTS = {
    Modality.IMAGE: ModalityFacts(visual=True, label="image"),
    Modality.LATEX: ModalityFacts(visual=False, label="LaTeX"),
    Modality.CODE: ModalityFacts(visual=False, label="code"),
    Modality.STORY: ModalityFacts(visual=False, label="story"),
}
TEXT_MODALITIES = tuple(m for m in Modality if not m.visual)


class VariationType(_Label):
    """DynaMath's seven variation types (Section 3.2)."""

    NUMERICAL_VALUE = "numerical_value"
    GEOMETRIC_TRANSFORMATION = "geometric_transformation"
    FUNCTION_TYPE = "function_type"
    COLOR = "color"
    SYMBOLIC_SUBSTITUTION = "symbolic_substitution"
    GRAPH_STRUCTURE = "graph_structure"
    REAL_LIFE_CONTEXT = "real_life_context"


# A JSON object as it is read from or written to a file or the wire, before it becomes a typed record
# (or after it was one): results.jsonl rows, summaries, HTTP bodies, released items.
JsonObject = dict[str, Any]

# Variant indices from here on are demonstrations (few-shot, the hard set's fresh variants); an
# evaluation variant is always below it (the config refuses more variants), so none is both.
DEMO_INDEX_START = 1_000_000

# A cell's picture drawn as every run before render profiles drew it, and its question as drawn: the
# values of a cell's `render` and `perturbation` when a run asks for no other (issue 41).
DEFAULT_RENDER = "default"
NO_PERTURBATION = "none"


@dataclass(frozen=True)
class Variant:
    """One concrete question drawn from a seed program.

    `params` holds the structured object (coefficients, edges, ...) as plain JSON values, so the
    variant round-trips through JSON and every renderer can rebuild the object from it.
    """

    seed_id: str
    index: int
    base_seed: int
    topic: Topic
    level: Level
    answer_type: AnswerType
    question: str
    answer: str
    params: dict[str, Any]
    choices: tuple[str, ...] = ()
    solution: str = ""
    variation_types: tuple[VariationType, ...] = ()

    @property
    def variant_id(self) -> str:
        return f"{self.seed_id}/{self.index}"

    def to_json(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Variant:
        """The inverse of `to_json` (also reads a line of an `exp generate` dataset)."""
        fields_ = {f: data[f] for f in cls.__dataclass_fields__ if f in data}
        return cls(
            **{
                **fields_,
                "topic": Topic(data["topic"]),
                "level": Level(data["level"]),
                "answer_type": AnswerType(data["answer_type"]),
                "choices": tuple(data.get("choices", ())),
                "variation_types": tuple(VariationType(v) for v in data.get("variation_types", ())),
            }
        )

    def fingerprint(self) -> str:
        """A short content hash: two variants with the same fingerprint are the same question.
        Computed once per object (it is on the replay path of every cell)."""
        known = self.__dict__.get("_fingerprint")
        if known is None:
            payload = json.dumps(self.to_json(), sort_keys=True, default=str).encode()
            known = hashlib.sha256(payload).hexdigest()[:16]
            object.__setattr__(self, "_fingerprint", known)  # a memo, not a field
        return known


@dataclass(frozen=True)
class Representation:
    """A variant shown in one modality: the full problem text and, for images, the PNG bytes.

    `text` is everything the model reads (instructions, the object in text form when the modality
    is textual, the question and its choices); `image_png` is what it sees.
    """

    modality: Modality
    text: str
    image_png: bytes | None = None
    extra: dict[str, Any] = field(default_factory=dict)

    @property
    def needs_vision(self) -> bool:
        return self.image_png is not None
