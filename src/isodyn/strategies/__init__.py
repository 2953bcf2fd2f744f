"""Strategies: small objects that turn a variant into model calls, composable with `+`."""

from isodyn.strategies import dspy_strategy  # noqa: F401  (registers the "dspy" base strategy)
from isodyn.strategies.base import (
    BASES,
    MODIFIERS,
    Ask,
    CellContext,
    Materials,
    ModelFacts,
    Modifier,
    Strategy,
    register_base,
    register_modifier,
)
from isodyn.strategies.compose import ComposedStrategy, StrategyError, parse_strategy, valid_names

__all__ = [
    "BASES",
    "MODIFIERS",
    "Ask",
    "CellContext",
    "ComposedStrategy",
    "Materials",
    "ModelFacts",
    "Modifier",
    "Strategy",
    "StrategyError",
    "parse_strategy",
    "register_base",
    "register_modifier",
    "valid_names",
]
