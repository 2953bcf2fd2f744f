"""An isodyn plan as an inspect dataset: one Sample per cell of the grid, its input the variant as the
cell shows it (the text, and the picture as a data URI), its metadata the shared contract."""

from __future__ import annotations

from inspect_ai.dataset import MemoryDataset, Sample
from inspect_ai.model import ChatMessage, ChatMessageUser, Content, ContentImage, ContentText

from isodyn.core import Representation, Variant
from isodyn.generators import SeedProgram
from isodyn.generators.perturb import number_digits
from isodyn.interop.inspect_cells import ISODYN, cell_metadata
from isodyn.interop.inspect_plan import TaskSetup
from isodyn.runs.record import Cell, CellResult, Labels
from isodyn.scoring import question_of
from isodyn.strategies.base import png_data_uri


def variant_labels(variant: Variant, seed: SeedProgram) -> Labels:
    """The labels a run records for a variant (the solver replaces them with its record's own)."""
    digits = number_digits(seed, variant.params) if "magnitude" in seed.perturbations else None
    varied = tuple(v.value for v in variant.variation_types)
    return Labels(variant.topic.value, variant.level.value, varied, digits)


def shown_input(representation: Representation) -> list[ChatMessage]:
    """The variant as the cell's modality shows it: the picture first, as isodyn's prompts place it."""
    parts: list[Content] = []
    if representation.image_png:
        parts.append(ContentImage(image=png_data_uri(representation.image_png)))
    parts.append(ContentText(text=representation.text))
    return [ChatMessageUser(content=parts)]


def cell_sample(setup: TaskSetup, cell: Cell) -> Sample:
    materials = setup.parts.materials.for_cell(cell)
    variant = materials.variant(cell.seed_id, cell.variant)
    record = CellResult(
        cell=cell, asked=question_of(variant), labels=variant_labels(variant, setup.plan.seeds[cell.seed_id])
    )
    return Sample(
        id=cell.words,
        input=shown_input(materials.render(variant, cell.modality)),
        target=variant.answer,
        metadata={ISODYN: cell_metadata(record)},
    )


def plan_dataset(setup: TaskSetup, name: str) -> MemoryDataset:
    """Every cell of the plan's grid, in `exp run`'s order (drawn now, through isodyn's render cache)."""
    return MemoryDataset([cell_sample(setup, cell) for cell in setup.plan.grid.cells], name=name)
