"""Answers that list several items: `(1, 2), (2, 1)`, `x_1 = a, x_2 = b`, `p = -1, p = 15/8`, `a, b`
(pure functions). A list is a set: its items match one to one in any order, each compared by the
caller's own comparison. Names are compared too, except that bare values answer a truth whose items
all name one unknown (`x_1 = a, x_2 = b`: the values `a, b`) and, in order, a truth that names
several (`k = 45, n = 2`: `45, 2`). A label on the first item alone names the list (`(x, y) = (5, 8),
(8, 5)`)."""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

_NAMED = re.compile(
    r"^\s*([A-Za-z](?:_\{?\w+\}?)?'*|\([A-Za-z](?:\s*,\s*[A-Za-z])+\))\s*=(?!=)\s*(.+)$", re.S
)
_INDEX = re.compile(r"_\{?\w+\}?'*$")
_OPEN, _CLOSE = "([{", ")]}"

Same = Callable[[str, str], bool | None]


@dataclass(frozen=True)
class Item:
    name: str | None
    value: str


def split_items(text: str) -> list[str]:
    """`text` cut at its top-level commas (none inside brackets or braces)."""
    items, depth, start = [], 0, 0
    for i, char in enumerate(text):
        if char in _OPEN:
            depth += 1
        elif char in _CLOSE:
            depth -= 1
        elif char == "," and depth == 0:
            items.append(text[start:i])
            start = i + 1
    items.append(text[start:])
    return [item.strip() for item in items]


def list_items(text: str) -> list[Item] | None:
    """The items of a list of two or more, or None. Solutions apart by `;` that each name several
    values are tuples: `p=5,q=2;p=7,q=2` is `(5, 2), (7, 2)`."""
    text = text.replace("\\left", "").replace("\\right", "")
    if ";" in text:
        text = ", ".join(_as_tuple(part) for part in text.split(";"))
    parts = split_items(text)
    if len(parts) < 2 or not all(parts):
        return None
    items = []
    for part in parts:
        named = _NAMED.match(part)
        items.append(
            Item(re.sub(r"\s+", "", named.group(1)), named.group(2).strip()) if named else Item(None, part)
        )
    if items[0].name and all(item.name is None for item in items[1:]):
        items[0] = Item(None, items[0].value)  # `(x, y) = (5, 8), (8, 5)`: the label names the list
    return items


def _as_tuple(solution: str) -> str:
    named = [_NAMED.match(part) for part in split_items(solution)]
    if len(named) < 2 or not all(named):
        return solution
    return "(" + ", ".join(match.group(2).strip() for match in named if match) + ")"


def lists_equal(candidate: str, truth: str, same: Same) -> bool | None:
    """Whether two lists hold the same items (module docstring); None when either is no list or they
    cannot be matched by their names."""
    said, expected = list_items(candidate), list_items(truth)
    if said is None or expected is None:
        return None
    names_said = [item.name for item in said]
    names_expected = [item.name for item in expected]
    if all(names_said) and all(names_expected):
        return _matched([(i.name, i.value) for i in said], [(i.name, i.value) for i in expected], same)
    if any(names_said) or (any(names_expected) and not all(names_expected)):
        return None
    values_said, values_expected = [i.value for i in said], [i.value for i in expected]
    unknowns = {_INDEX.sub("", name) for name in names_expected if name}
    if len(unknowns) > 1:  # `k = 45, n = 2` answered `45, 2`: in order
        pairs = zip(values_said, values_expected, strict=False)
        return len(said) == len(expected) and all(same(a, b) is True for a, b in pairs)
    return _matched([(None, v) for v in values_said], [(None, v) for v in values_expected], same)


def _matched(said: list[tuple[str | None, str]], expected: list[tuple[str | None, str]], same: Same) -> bool:
    """The same set: every said item equals an expected one and every expected item is said (an item
    said twice is said once)."""

    def found(item: tuple[str | None, str], among: list[tuple[str | None, str]]) -> bool:
        return any(item[0] == other[0] and same(item[1], other[1]) is True for other in among)

    return all(found(item, expected) for item in said) and all(
        any(e[0] == s[0] and same(s[1], e[1]) is True for s in said) for e in expected
    )
