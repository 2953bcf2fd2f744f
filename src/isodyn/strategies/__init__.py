"""Strategies: small objects that turn a variant into model calls, composable with `+`."""

from isodyn.strategies import dspy_strategy  # noqa: F401  (registers the "dspy" base strategy)
from isodyn.strategies.base import Ask, CellContext, Materials, ModelFacts, Modifier, Strategy
from isodyn.strategies.compose import (
    BASES,
    MODIFIERS,
    ComposedStrategy,
    StrategyError,
    parse_strategy,
    register_base,
    valid_names,
)

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
    "valid_names",
]
