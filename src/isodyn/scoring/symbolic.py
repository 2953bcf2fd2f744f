"""math-verify's LaTeX parse, configured explicitly and bounded: the one way to SymPy in grading."""

from __future__ import annotations

import contextlib
import threading
from functools import lru_cache
from typing import Any

from isodyn.scoring.bounds import route_math_verify_logs, tame, tame_text


@lru_cache(maxsize=1)
def _math_config() -> list[Any]:
    """math-verify's extraction, spelled out: LaTeX (units stripped, `\\boxed` read) then plain
    expressions, both without needing an "answer is" anchor (the answer is already extracted)."""
    from math_verify import ExprExtractionConfig, LatexExtractionConfig
    from math_verify.parser import NormalizationConfig

    route_math_verify_logs()  # its timeouts are counted, not printed

    normalization = NormalizationConfig(
        basic_latex=True, units=True, malformed_operators=True, nits=True, boxed="all", equations=False
    )
    return [
        LatexExtractionConfig(try_extract_without_anchor=True, normalization_config=normalization),
        ExprExtractionConfig(try_extract_without_anchor=True),
    ]


def _timeout(seconds: int) -> int | None:
    """math-verify's timeouts use SIGALRM, which only the main thread may set; elsewhere (the DSPy
    optimiser grades in a worker thread) it raises, so there the timeout is off."""
    return seconds if threading.current_thread() is threading.main_thread() else None


@lru_cache(maxsize=8192)  # a truth is parsed once however many replies are compared with it
def _parse_math_cached(text: str) -> tuple[Any, ...] | None:
    if not tame_text(text):
        return None
    parsed = tuple(_parse_math_uncached(text))
    return parsed if tame(parsed) else None


def _parse_math(text: str) -> list[Any] | None:
    """math-verify's parse (unevaluated SymPy), or None when the text or its parse is beyond the
    bounds (`bounds.tame_text`, `bounds.tame`: `9^{9^{9^{9}}}`, `1000000!`): the one way to SymPy
    here, so nothing parses or evaluates (evalf, as_set, verify) what the bounds refuse."""
    parsed = _parse_math_cached(text)
    return None if parsed is None else list(parsed)


def _parse_math_uncached(text: str) -> list[Any]:
    from math_verify import parse

    parsed: list[Any] = parse(text, extraction_config=_math_config(), parsing_timeout=_timeout(2))
    return parsed


def _as_math(text: str) -> list[Any] | None:
    """The parse to compare, inequalities as sets; None beyond the bounds (see `_parse_math`)."""
    wrapped = text if "$" in text or "\\(" in text or "\\[" in text else f"${text}$"
    parsed = _parse_math(wrapped)
    if parsed is None:
        return None
    # An inequality such as `1 \le x < 3` is compared as the set it describes.
    out = []
    for item in parsed:
        as_set = getattr(item, "as_set", None)
        if callable(as_set) and item.__class__.__name__ in {
            "And",
            "Or",
            "StrictLessThan",
            "LessThan",
            "StrictGreaterThan",
            "GreaterThan",
        }:
            with contextlib.suppress(Exception):  # not a univariate condition: keep it as written
                item = as_set()
        out.append(item)
    return out
