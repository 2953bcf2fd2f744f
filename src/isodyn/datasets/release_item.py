"""The one adapter from a release item to a variant (as inspect's `record_to_sample`).

A release module maps its fields to a `Record`: what one item gives for one variant, in isodyn's
terms. `record_to_variant` builds the `Variant` from it, and `represent` shows a variant in a
modality, from the variant alone plus the item's picture; `ReleasedSeed` is the seed both are called
through, so a release module writes only `record(index)` and `picture(variant)`.

A variant's params are, in order: where the item and its picture are in the release (`source`), the
picture's sha256, the texts a rendering shows besides the question (`shown`: an intro, a note on the
picture, and the item's text representations; a release without them shows the question alone), then
whatever else the release says (`details`). Renderings read these params, so a variant replayed
from a cache renders as the one drawn.
"""

from __future__ import annotations

import hashlib
import io
from abc import abstractmethod
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, ClassVar

from isodyn.core import AnswerType, Level, Modality, Representation, Topic, Variant, VariationType
from isodyn.datasets.contained import ReleaseError
from isodyn.datasets.reader import one_line
from isodyn.generators.base import SeedProgram
from isodyn.scoring.answer_match import truth_problem

PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"


@dataclass(frozen=True)
class Shown:
    """What every rendering of an item says besides its question."""

    intro: str  # the task statement, first in every rendering
    image_note: str  # what the picture shows, in the image rendering
    texts: Mapping[Modality, tuple[str, str]]  # text modality -> (lead, the representation as released)


@dataclass(frozen=True)
class Record:
    """What one release item gives for one variant, mapped to isodyn's terms."""

    id: str  # the seed id
    index: int  # the variant index
    topic: Topic
    level: Level
    answer_type: AnswerType
    question: str
    answer: str  # as graded: a letter for multiple choice
    image_sha256: str  # of the picture as released (`image_digest`)
    choices: tuple[str, ...] = ()
    solution: str = ""  # a worked solution, when the release has one (the judge's reference)
    source: Mapping[str, Any] = field(default_factory=dict)  # where the item and its picture are
    shown: Shown | None = None
    details: Mapping[str, Any] = field(default_factory=dict)  # anything else the release says


def image_digest(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def check_truth(answer_type: AnswerType, truth: str, where: str) -> None:
    """A ReleaseError (naming `where` and the value) for a truth that is not of its answer type: a float
    truth that is no number (`N/A`, `nan`, `3, 4`), an integer truth that is no integer, a
    multiple-choice truth that is no letter. No reply could be graded against it, and a run would
    find out only after paying for the calls."""
    problem = truth_problem(truth, answer_type)
    if problem is not None:
        kind = answer_type.value.replace("_", " ")
        raise ReleaseError(f"{where}: its answer {one_line(repr(truth), 60)} {problem} (answer type {kind})")


def record_to_variant(record: Record, base_seed: int = 0) -> Variant:
    """The variant a release item gives (a release has no variation types: its variants are files);
    its truth is checked (`check_truth`) whichever release it comes from."""
    check_truth(record.answer_type, record.answer, f"item {record.id} variant {record.index}")
    params: dict[str, Any] = {**record.source, "image_sha256": record.image_sha256}
    if record.shown is not None:
        params["intro"] = record.shown.intro
        params["image_note"] = record.shown.image_note
        params["representations"] = {m.value: list(pair) for m, pair in record.shown.texts.items()}
    params.update(record.details)
    return Variant(
        seed_id=record.id,
        index=record.index,
        base_seed=base_seed,
        topic=record.topic,
        level=record.level,
        answer_type=record.answer_type,
        question=record.question,
        answer=record.answer,
        params=params,
        choices=record.choices,
        solution=record.solution,
        variation_types=(),
    )


def represent(variant: Variant, modality: Modality, image: bytes | None) -> Representation:
    """`variant` shown in `modality`: the picture (`image`, as released) with the intro, the note on the
    picture and the question, or a text representation with the intro, its lead and the question."""
    params = variant.params
    if modality.visual:
        if image is None:
            raise ValueError(f"{variant.variant_id}: an image rendering needs the picture")
        parts = (params.get("intro", ""), params.get("image_note", ""), variant.question)
        return Representation(modality, "\n\n".join(p for p in parts if p), image_png=as_png(image))
    lead, content = params["representations"][modality.value]
    text = "\n\n".join(p for p in (params["intro"], lead, content, variant.question) if p)
    task = {"task": params["task"]} if "task" in params else {}  # a release of tasks (IsoBench) names it
    return Representation(modality, text, extra={**task, modality.value: content})


def as_png(data: bytes) -> bytes:
    """PNG bytes of an image file (released images are mostly PNG; others are converted)."""
    if data.startswith(PNG_SIGNATURE):
        return data
    from PIL import Image

    buffer = io.BytesIO()
    Image.open(io.BytesIO(data)).save(buffer, format="png")
    return buffer.getvalue()


class ReleasedSeed(SeedProgram):
    """A seed read from files: variant i is what `record(i)` gives, shown with `picture`. Not in the
    seed registry (its id is per instance)."""

    modalities: ClassVar[tuple[Modality, ...]] = (Modality.IMAGE,)
    variation_types: ClassVar[tuple[VariationType, ...]] = ()
    memoizable = False  # the files may change under the same id: always read them

    @abstractmethod
    def record(self, index: int, base_seed: int = 0) -> Record:
        """What the release gives for variant `index` (a ReleaseError when it has no such variant);
        `base_seed` matters only to a release that draws its variants (DynaMath's programs)."""

    @abstractmethod
    def picture(self, variant: Variant) -> bytes:
        """The bytes of the variant's picture, as released (checked)."""

    def variant(self, index: int, base_seed: int = 0) -> Variant:
        return record_to_variant(self.record(index, base_seed), base_seed)

    def render(self, variant: Variant, modality: Modality) -> Representation:
        return represent(variant, modality, self.picture(variant) if modality.visual else None)
