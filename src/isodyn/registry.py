"""One registry mechanism for everything a user names on the command line: base strategies,
modifiers, graders and report metrics (seeds have their own, `generators.registry`, with the same
decorator shape). Adding one is one decorated definition in one file; `exp list` reads them."""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar

T = TypeVar("T")


class Registry(dict[str, T]):
    """Named entries in registration order; a plain mapping to read, `register` to add."""

    def __init__(self, kind: str) -> None:
        super().__init__()
        self.kind = kind

    def register(self, name: str) -> Callable[[T], T]:
        """A decorator adding the decorated object under `name`; a name is registered once."""

        def add(entry: T) -> T:
            if name in self and self[name] is not entry:
                raise ValueError(f"{self.kind} {name!r} is registered twice")
            self[name] = entry
            return entry

        return add

    def get_named(self, name: str) -> T:
        """The entry called `name`, or a KeyError whose message lists the valid names."""
        if name not in self:
            raise KeyError(f"unknown {self.kind} {name!r}; valid: {', '.join(self)}")
        return self[name]
