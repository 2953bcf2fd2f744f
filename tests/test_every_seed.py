"""What every seed in the registry must do: render each declared modality, refuse the others, and give
the same variant and the same renderings for the same inputs.

What the renderings say about each seed's object (its numbers, edges, position, ...) is checked by the
group's own tests (test_dynamath_*.py, test_isobench_*.py, test_generators.py).
"""

from __future__ import annotations

import io
from pathlib import Path

import numpy as np
import pytest
from PIL import Image

from isodyn.core import AnswerType, Modality
from isodyn.generators import UnsupportedModality, all_seeds
from isodyn.generators.base import format_choices
from isodyn.modalities.images import MIN_PX, png_size

SEEDS = all_seeds()
PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"
# (base seed, index) of the variants rendered, of those drawn twice (the ones the group tests used), and
# of those of them rendered twice
RENDERED = (*((0, i) for i in range(6)), *((11, i) for i in range(5)))
REPEATED = ((7, 0), (7, 3), (7, 9), (7, 11), (5, 0), (5, 7), (3, 0), (3, 7), (0, 0), (0, 4))
RERENDERED = ((7, 0), (7, 3), (7, 11), (5, 7))
# Stories that ask the question in the story's own terms (towns and roads, clubs of friends, water pipes);
# a multiple-choice one still ends with its choices.
RETOLD = frozenset(
    {
        "dynamath_bipartite",
        "dynamath_components",
        "dynamath_node_degree",
        "isobench_connectivity",
        "isobench_isomorphism",
        "isobench_maxflow",
    }
)


def test_the_registry_holds_the_seeds_named_here() -> None:
    assert RETOLD.issubset(SEEDS)


@pytest.mark.parametrize("seed_id", SEEDS)
def test_every_declared_modality_renders(seed_id: str) -> None:
    seed = SEEDS[seed_id]
    for base_seed, index in RENDERED:
        v = seed.variant(index, base_seed)
        for modality in seed.modalities:
            rep = seed.representation(v, modality)
            assert rep.modality is modality
            text = rep.text.rstrip()
            if modality is Modality.STORY and seed_id in RETOLD:
                if v.answer_type is AnswerType.MULTIPLE_CHOICE:
                    assert text.endswith(format_choices(v.choices)), (modality, v.variant_id)
            else:
                assert text.endswith(v.question), (modality, v.variant_id)
            if v.answer_type is AnswerType.MULTIPLE_CHOICE:
                assert "choices: (A)" in rep.text
            if modality is Modality.IMAGE:
                assert rep.image_png is not None and rep.image_png.startswith(PNG_SIGNATURE)
                assert "image" in rep.text.lower()
                # big enough that labels survive a vision model's downscaling (issue 18)
                width, height = png_size(rep.image_png)
                assert width >= MIN_PX[0] and height >= MIN_PX[1], (v.variant_id, width, height)
            else:
                assert rep.image_png is None


@pytest.mark.parametrize("seed_id", SEEDS)
def test_undeclared_modalities_are_refused(seed_id: str) -> None:
    seed = SEEDS[seed_id]
    v = seed.variant(0)
    for modality in set(Modality) - set(seed.modalities):
        with pytest.raises(UnsupportedModality):
            seed.representation(v, modality)


@pytest.mark.parametrize("seed_id", SEEDS)
def test_same_inputs_give_same_variant_and_renderings(seed_id: str, tmp_path: Path) -> None:
    seed = SEEDS[seed_id]
    for base_seed, index in REPEATED:
        a, b = seed.variant(index, base_seed), seed.variant(index, base_seed)
        assert a.to_json() == b.to_json() and a.fingerprint() == b.fingerprint()
        if (base_seed, index) not in RERENDERED:
            continue
        for modality in seed.modalities:
            ra, rb = seed.representation(a, modality), seed.representation(b, modality)
            assert ra.text == rb.text, (modality, a.variant_id)
            if ra.image_png != rb.image_png:
                pytest.fail(_picture_difference(ra.image_png, rb.image_png, tmp_path / seed_id))


def _picture_difference(a: bytes | None, b: bytes | None, folder: Path) -> str:
    """Both pictures kept on disk, and how they differ: enough to diagnose a rare nondeterminism."""
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "first.png").write_bytes(a or b"")
    (folder / "second.png").write_bytes(b or b"")
    if a is None or b is None:
        return f"one rendering has no picture ({folder})"
    pa, pb = (np.asarray(Image.open(io.BytesIO(x)).convert("RGBA")) for x in (a, b))
    if pa.shape != pb.shape:
        return f"the same variant drew {pa.shape} and then {pb.shape} pixels ({folder})"
    rows, cols = np.nonzero((pa != pb).any(axis=2))
    return (
        f"the same variant drew {len(rows)} different pixels, rows {rows.min()}-{rows.max()}, "
        f"columns {cols.min()}-{cols.max()} ({folder})"
        if len(rows)
        else f"same pixels, different PNG bytes ({folder})"
    )
