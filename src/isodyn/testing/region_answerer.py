"""An answerer for the loopback stub that fails only in a hidden region of a seed's parameters.

A worst-variant search is only as good as what it finds: against an answerer that is right everywhere
except on the variants whose `params` satisfy a hidden predicate (a `Region`), a searcher that finds a
confirmed failure in fewer calls than random draws has found structure random draws cannot use.

    answerer = RegionAnswerer([region], fluke=0.02)
    with OpenAIStub(answerer) as stub:
        rounds = SearchRounds(plan, settings, folder, on_variant=answerer.on_variant)
        ...

The answerer learns each variant before it is asked (the search engine's `on_variant` hook): it keeps
the variant's representation text, and recognises a prompt by the (longest) known text inside it, as
`scripts.oracle_from_items` does. Outside the region it answers right, except that with probability
`fluke` a request gets a wrong answer drawn afresh for that request (the nth ask of the same prompt
draws anew), so the search's confirmation has something to reject. With `uniform=` instead of
regions it answers wrong on a fixed pseudo-random share of the variants (by a hash of their text): a
failure with no structure.

The regions themselves are made in `testing/regions.py`.
"""

from __future__ import annotations

import bisect
import hashlib
import json
import random
import threading
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from isodyn.core import Modality, Variant
from isodyn.generators.base import SEEDS, SeedProgram
from isodyn.testing.openai_stub import ScriptedReply
from isodyn.testing.regions import Region
from isodyn.testing.scripts import prompt_text, render_answer, wrong_answer


@dataclass(frozen=True)
class _Known:
    text: str
    variant: Variant
    wrong: bool  # in the region (or among the uniform mode's failures)


def _unit_float(*parts: Any) -> float:
    """A number in [0, 1) fixed by the parts."""
    digest = hashlib.sha256("\x00".join(str(p) for p in parts).encode()).digest()
    return int.from_bytes(digest[:8], "little") / 2**64


class RegionAnswerer:
    """A stub script (`OpenAIStub(answerer)`) that answers right except in its regions (or, with
    `uniform`, on that share of the variants by a hash of their text), plus flukes.

    regions: at most one per seed; a seed without one is answered right.
    fluke: the chance that a request outside the region gets a wrong answer, drawn afresh for each
        request (seeded by the prompt, the answerer's `seed` and how often that prompt was asked, so a
        test is repeatable while a confirming repeat still draws anew).
    uniform: instead of regions, answer wrong on this share of the variants, by a hash of their
        representation text and `seed` (the same variant always wrong).
    Thread-safe: the stub serves requests from threads while the search registers variants.
    """

    def __init__(
        self,
        regions: Iterable[Region] = (),
        *,
        fluke: float = 0.0,
        uniform: float | None = None,
        seed: int = 0,
        style: str = "json",
        seeds: Mapping[str, SeedProgram] | None = None,
    ) -> None:
        self.regions: dict[str, Region] = {}
        for region in regions:
            if region.seed_id in self.regions:
                raise ValueError(f"two regions for {region.seed_id}: run them in separate searches")
            self.regions[region.seed_id] = region
        if uniform is not None and self.regions:
            raise ValueError("an answerer fails either in regions or uniformly, not both")
        self.fluke = fluke
        self.uniform = uniform
        self.seed = seed
        self.style = style
        self._seeds = dict(seeds or {})
        self._lock = threading.Lock()
        self._known: list[_Known] = []  # longest text first
        self._lengths: list[int] = []  # -len(text) of each, for bisect
        self._texts: set[str] = set()
        self._asked: dict[str, int] = {}  # how often each prompt was asked
        self.unknown = 0  # prompts of no known variant
        self.wrong_given = 0
        self.flukes_given = 0

    # --- learning the variants ---------------------------------------------------------------------------

    def _seed_program(self, seed_id: str) -> SeedProgram:
        if seed_id not in self._seeds:
            self._seeds[seed_id] = SEEDS[seed_id]()
        return self._seeds[seed_id]

    def failing(self, variant: Variant, text: str) -> bool:
        """Whether the answerer fails this variant every time (outside flukes)."""
        if self.uniform is not None:
            return _unit_float("uniform", self.seed, text) < self.uniform
        region = self.regions.get(variant.seed_id)
        return region is not None and region(variant.params)

    def on_variant(self, unit: Any, variant: Variant) -> None:
        """The search engine's hook: remember the variant by its representation in the unit's modality."""
        modality: Modality = unit.modality
        text = self._seed_program(variant.seed_id).representation(variant, modality).text
        known = _Known(text, variant, self.failing(variant, text))
        with self._lock:
            if text in self._texts:
                return  # the same problem: the same params that matter, the same verdict
            self._texts.add(text)
            at = bisect.bisect_right(self._lengths, -len(text))
            self._lengths.insert(at, -len(text))
            self._known.insert(at, known)

    def register(self, variant: Variant, modality: Modality) -> None:
        """Remember a variant outside a search (a test asks it directly)."""
        self.on_variant(_ModalityOnly(modality), variant)

    # --- answering ----------------------------------------------------------------------------------------

    def _find(self, text: str) -> _Known | None:
        with self._lock:
            for known in self._known:
                if known.text in text:
                    return known
        return None

    def __call__(self, request: dict[str, Any]) -> ScriptedReply:
        text = prompt_text(request)
        known = self._find(text)
        if known is None:
            with self._lock:
                self.unknown += 1
            return ScriptedReply(text=json.dumps({"solution": "unknown question", "short answer": "?"}))
        with self._lock:
            nth = self._asked.get(text, 0)
            self._asked[text] = nth + 1
        fluke = not known.wrong and self.fluke > 0 and _unit_float("fluke", self.seed, nth, text) < self.fluke
        variant = known.variant
        choices = list(variant.choices)
        rng = random.Random(_unit_float("reply", self.seed, text))
        said = wrong_answer(variant.answer, choices, rng) if known.wrong or fluke else variant.answer
        with self._lock:
            self.wrong_given += said != variant.answer
            self.flukes_given += fluke
        return ScriptedReply(text=render_answer(said, choices, self.style, rng))

    @property
    def variants_known(self) -> int:
        with self._lock:
            return len(self._known)


@dataclass(frozen=True)
class _ModalityOnly:
    modality: Modality
