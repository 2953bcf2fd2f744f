"""Strategies: small objects that turn a variant into model calls, composable with `+`.

`BASES` and `MODIFIERS` find every strategy module of this package on first read (docs/extending.md).
"""

from isodyn.strategies.base import (
    BASES,
    MODIFIERS,
    Ask,
    Modifier,
    Strategy,
    register_base,
    register_modifier,
)
from isodyn.strategies.compose import ComposedStrategy, StrategyError, parse_strategy, valid_names
from isodyn.strategies.context import (
    CellContext,
    Describer,
    Grading,
    Materials,
    ModelFacts,
    Preparation,
    Service,
    Services,
    UndeclaredService,
)

__all__ = [
    "BASES",
    "MODIFIERS",
    "Ask",
    "CellContext",
    "ComposedStrategy",
    "Describer",
    "Grading",
    "Materials",
    "ModelFacts",
    "Modifier",
    "Preparation",
    "Service",
    "Services",
    "Strategy",
    "StrategyError",
    "UndeclaredService",
    "parse_strategy",
    "register_base",
    "register_modifier",
    "valid_names",
]
