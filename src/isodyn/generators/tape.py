"""A seed's random draws, recorded and replayable with some of them changed: the searchable space of a seed.

A seed program draws a variant from `rng` alone (`SeedProgram.sample`), so every value `rng` can return
is a legitimate variant and the seed computes its exact truth from whatever it got. `TapedRng` wraps the
variant's generator, records each draw (`DrawRecord`: its method, its range, the value), and can hand
back a chosen value instead of the drawn one (`tweaks`) as long as that value lies in the range the
seed asked for. The underlying generator is always advanced as usual, so the draws after a tweaked one
are those of the original variant wherever the seed's control flow does not change.

A `Genome` names a variant of the search: the seed, the variant index and base seed it starts from, and
its tweaks. `realize` turns one into a `Variant` (or refuses with `TapeError`).

Only the draws with scalar bounds are recorded as tweakable (`integers`, `random`, `uniform`, `choice`,
`permutation`); other methods pass through unrecorded and are never changed.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np

from isodyn.core import Variant
from isodyn.errors import IsodynError
from isodyn.generators.base import SeedProgram, variant_rng

# A seed that draws this many tweakable values for one variant is looping on tweaked values.
MAX_DRAWS = 20_000
# A tweak's value: an int (integers, choice index), a float (random, uniform), or a flat list of them
# (a draw with `size`, a permutation). Longer lists are refused when read from a file.
MAX_TWEAK_LENGTH = 4096

Value = int | float | list[int] | list[float]


class TapeError(IsodynError, ValueError):
    """A genome that cannot be realized: a tweak out of its draw's range, a seed that loops or fails."""


@dataclass(frozen=True, slots=True)
class DrawRecord:
    """One tweakable draw: its position among them, what kind it is, its bounds and what it returned.

    kind: `integers` (low..high inclusive), `random` / `uniform` (low <= x < high), `choice` (an index
    0..high of the population; `weights` kept when the seed passed p), `permutation` (of high + 1 items).
    `size` is the number of values (1 for a scalar draw); `distinct` for choice without replacement.
    """

    position: int
    kind: str
    low: float
    high: float
    size: int
    value: Value
    distinct: bool = False
    weights: tuple[float, ...] | None = None

    @property
    def values(self) -> list[Any]:
        return list(self.value) if isinstance(self.value, list) else [self.value]


@dataclass(frozen=True, slots=True)
class Genome:
    """A variant of a search: variant `index` of `seed_id` (at `base_seed`) with some draws changed."""

    seed_id: str
    index: int
    base_seed: int = 0
    tweaks: tuple[tuple[int, Value], ...] = ()  # (draw position, value), sorted by position

    def with_tweaks(self, changes: Mapping[int, Value]) -> Genome:
        merged = dict(self.tweaks) | dict(changes)
        return Genome(self.seed_id, self.index, self.base_seed, tuple(sorted(merged.items())))

    def key(self) -> str:
        """A stable text form (search records, the hard set, de-duplication)."""
        return json.dumps([self.seed_id, self.index, self.base_seed, [list(t) for t in self.tweaks]])

    def to_json(self) -> dict[str, Any]:
        return {
            "seed_id": self.seed_id,
            "index": self.index,
            "base_seed": self.base_seed,
            "tweaks": [[p, v] for p, v in self.tweaks],
        }

    @classmethod
    def from_json(cls, data: Any) -> Genome:
        """A genome read from a file someone else wrote: every field checked, TapeError otherwise."""
        if not isinstance(data, dict):
            raise TapeError("a genome is an object with seed_id, index, base_seed and tweaks")
        seed_id, index, base_seed = data.get("seed_id"), data.get("index", -1), data.get("base_seed", 0)
        if not isinstance(seed_id, str) or not seed_id or len(seed_id) > 200:
            raise TapeError("seed_id must be a seed's name")
        for name, number in (("index", index), ("base_seed", base_seed)):
            if type(number) is not int or not 0 <= number < 2**53:
                raise TapeError(f"{name} must be a whole number from 0 to 2**53")
        tweaks = data.get("tweaks", [])
        if not isinstance(tweaks, list) or len(tweaks) > MAX_DRAWS:
            raise TapeError("tweaks must be a list of [position, value] pairs")
        parsed: dict[int, Value] = {}
        for tweak in tweaks:
            if not (isinstance(tweak, list) and len(tweak) == 2 and type(tweak[0]) is int):
                raise TapeError("each tweak is [position, value]")
            position, value = tweak
            if not 0 <= position < MAX_DRAWS or position in parsed:
                raise TapeError(f"tweak position {position} is out of range or given twice")
            parsed[position] = _checked_value(value)
        return cls(seed_id, int(index), int(base_seed), tuple(sorted(parsed.items())))


def _is_number(value: Any) -> bool:
    if type(value) is int:  # no draw returns more than 64 bits (and math.isfinite(10**400) overflows)
        return abs(value) < 2**64
    return type(value) is float and math.isfinite(value)


def _checked_value(value: Any) -> Value:
    if _is_number(value):
        return value
    if isinstance(value, list) and 0 < len(value) <= MAX_TWEAK_LENGTH and all(_is_number(v) for v in value):
        return value
    raise TapeError("a tweak's value is a finite number or a list of them")


def _scalar(value: Any) -> bool:
    return np.ndim(value) == 0


def _size_of(size: Any) -> int | None:
    """The number of values a `size` argument asks for; None when it is not a plain shape."""
    if size is None:
        return 1
    shape = (size,) if _scalar(size) else tuple(size)
    try:
        return int(np.prod([int(s) for s in shape]))
    except (TypeError, ValueError):
        return None


class TapedRng:
    """A numpy Generator for a seed's `sample` that records its draws and applies tweaks."""

    def __init__(self, inner: np.random.Generator, tweaks: Mapping[int, Value] | None = None) -> None:
        self._inner = inner
        self._tweaks = dict(tweaks or {})
        self.draws: list[DrawRecord] = []
        self.ignored: list[int] = []  # tweak positions whose value did not fit the draw there

    def __getattr__(self, name: str) -> Any:  # normal, gumbel, dirichlet, ...: passed through
        return getattr(self._inner, name)

    # --- bookkeeping ---------------------------------------------------------------------------------

    def _record(self, kind: str, low: float, high: float, size: int, drawn: Any, **extra: Any) -> Any:
        """Record the draw; return the tweak's value for it when one fits, else the drawn value."""
        position = len(self.draws)
        if position >= MAX_DRAWS:
            raise TapeError(f"the seed drew more than {MAX_DRAWS} values for one variant")
        chosen = drawn
        wanted = self._tweaks.get(position)
        if wanted is not None:
            listed = isinstance(drawn, list)  # an array draw, even of one value (`size=1`): [x]
            if listed and size == 1 and not isinstance(wanted, list):
                wanted = [wanted]
            distinct, weights = extra.get("distinct", False), extra.get("weights")
            if _fits(kind, low, high, size, wanted, distinct, weights, listed):
                chosen = wanted
            else:
                self.ignored.append(position)
        self.draws.append(DrawRecord(position, kind, low, high, size, chosen, **extra))
        return chosen

    # --- the draws seeds make ------------------------------------------------------------------------

    def integers(self, low: Any, high: Any = None, size: Any = None, dtype: Any = np.int64,
                 endpoint: bool = False) -> Any:  # fmt: skip
        drawn = self._inner.integers(low, high, size=size, dtype=dtype, endpoint=endpoint)
        lo, hi = (0, low) if high is None else (low, high)
        count = _size_of(size)
        if not (_scalar(lo) and _scalar(hi)) or count is None:
            return drawn
        top = int(hi) if endpoint else int(hi) - 1
        as_list = _plain(drawn)
        chosen = self._record("integers", int(lo), top, count, as_list)
        return drawn if chosen is as_list else _like(drawn, chosen, dtype)

    def random(self, size: Any = None, dtype: Any = np.float64, out: Any = None) -> Any:
        drawn = self._inner.random(size=size, dtype=dtype, out=out)
        count = _size_of(size)
        if out is not None or count is None:
            return drawn
        as_list = _plain(drawn)
        chosen = self._record("random", 0.0, 1.0, count, as_list)
        return drawn if chosen is as_list else _like(drawn, chosen, dtype)

    def uniform(self, low: Any = 0.0, high: Any = 1.0, size: Any = None) -> Any:
        drawn = self._inner.uniform(low, high, size=size)
        count = _size_of(size)
        if not (_scalar(low) and _scalar(high)) or count is None or not float(low) < float(high):
            return drawn
        as_list = _plain(drawn)
        chosen = self._record("uniform", float(low), float(high), count, as_list)
        return drawn if chosen is as_list else _like(drawn, chosen, np.float64)

    def choice(self, a: Any, size: Any = None, replace: bool = True, p: Any = None, axis: int = 0,
               shuffle: bool = True) -> Any:  # fmt: skip
        count = _size_of(size)
        population = a if isinstance(a, (int, np.integer)) else np.asarray(a)
        if (
            axis != 0
            or count is None
            or (not isinstance(population, (int, np.integer)) and population.ndim == 0)
        ):
            return self._inner.choice(a, size=size, replace=replace, p=p, axis=axis, shuffle=shuffle)
        n = int(population) if isinstance(population, (int, np.integer)) else population.shape[0]
        # The same bits as choice(a, ...): the index draw depends only on the population's size.
        picked = self._inner.choice(n, size=size, replace=replace, p=p, shuffle=shuffle)
        weights = None if p is None else tuple(float(w) for w in np.asarray(p, dtype=float))
        as_list = _plain(picked)
        chosen = self._record("choice", 0, n - 1, count, as_list, distinct=not replace, weights=weights)
        index = picked if chosen is as_list else _like(picked, chosen, np.int64)
        if isinstance(population, (int, np.integer)):
            return index
        return population[index]

    def permutation(self, x: Any, axis: int = 0) -> Any:
        items = None if _scalar(x) else np.asarray(x)
        if axis != 0 or (items is not None and items.ndim == 0):
            return self._inner.permutation(x, axis=axis)  # not reached by any seed; not recorded
        drawn_order = self._inner.permutation(int(x) if items is None else items.shape[0])
        n = len(drawn_order)
        as_list = _plain(drawn_order)
        chosen = self._record("permutation", 0, n - 1, n, as_list)
        order = drawn_order if chosen is as_list else np.asarray(chosen, dtype=np.int64)
        return order if items is None else items[order]


def _plain(value: Any) -> Value:
    """A draw as JSON values: a number, or a flat list."""
    if np.ndim(value) == 0:
        item: Value = value.item() if hasattr(value, "item") else value
        return item
    return [v.item() for v in np.asarray(value).ravel()]


def _like(drawn: Any, value: Value, dtype: Any) -> Any:
    """`value` in the form numpy would have returned `drawn` in."""
    if np.ndim(drawn) == 0:
        return np.dtype(dtype).type(value)
    return np.asarray(value, dtype=dtype).reshape(np.shape(drawn))


def _fits(kind: str, low: float, high: float, size: int, value: Value, distinct: bool,
          weights: tuple[float, ...] | None, listed: bool) -> bool:  # fmt: skip
    """Whether `value` is one the draw could have returned (a list when the draw returned an array)."""
    values = value if isinstance(value, list) else [value]
    if listed != isinstance(value, list) or len(values) != size:
        return False
    if kind in ("random", "uniform"):
        return all(isinstance(v, float) and low <= v < high for v in values)
    if not all(type(v) is int and low <= v <= high for v in values):
        return False
    if kind == "permutation":
        return sorted(values) == list(range(size))
    if kind == "choice":
        if distinct and len(set(values)) != len(values):
            return False
        return weights is None or all(weights[int(v)] > 0 for v in values)
    return True


@dataclass(frozen=True)
class Realized:
    """A genome made concrete: the variant, the draws that made it, and the tweaks that did not fit."""

    genome: Genome
    variant: Variant
    draws: tuple[DrawRecord, ...]
    ignored: tuple[int, ...] = field(default=())


def realize(seed: SeedProgram, genome: Genome, index: int | None = None) -> Realized:
    """The variant `genome` names, drawn by `seed` with the genome's tweaks applied.

    The variant's `index` is `index` when given (a search numbers its proposals), else the genome's.
    With no tweaks the variant is exactly `seed.variant(genome.index, genome.base_seed)`.
    TapeError when the seed fails on the tweaked draws or loops on them.
    """
    if genome.seed_id != seed.seed_id:
        raise TapeError(f"genome of {genome.seed_id!r} given to seed {seed.seed_id!r}")
    tape = TapedRng(variant_rng(seed.seed_id, genome.index, genome.base_seed), dict(genome.tweaks))
    try:
        variant = seed.variant_from(tape, genome.index, genome.base_seed)  # type: ignore[arg-type]
    except TapeError:
        raise
    except Exception as exc:  # a seed that cannot take these values: not a variant of the search
        raise TapeError(f"{seed.seed_id} could not draw {genome.key()}: {type(exc).__name__}: {exc}") from exc
    if index is not None and index != variant.index:
        variant = replace(variant, index=index)
    return Realized(genome, variant, tuple(tape.draws), tuple(tape.ignored))


def tweakable(draws: Sequence[DrawRecord]) -> list[DrawRecord]:
    """The draws a searcher may change: those with more than one possible value."""
    return [d for d in draws if d.high > d.low and d.size > 0]
