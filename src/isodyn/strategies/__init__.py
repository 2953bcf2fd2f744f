"""Strategies: small objects that turn a variant into model calls. Importing registers them."""

from isodyn.strategies.base import Ask, Strategy, registered_strategies
from isodyn.strategies.zeroshot import ZeroShot

__all__ = ["Ask", "Strategy", "ZeroShot", "get_strategy", "registered_strategies"]


def get_strategy(name: str) -> Strategy:
    known = registered_strategies()
    if name not in known:
        raise KeyError(f"unknown strategy {name!r}; valid: {', '.join(sorted(known))}")
    return known[name]()
