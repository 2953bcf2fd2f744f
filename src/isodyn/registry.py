"""The one way to plug things into isodyn: a named, ordered, discoverable registry per kind.

Seven kinds are plugged in the same way: seed programs, base strategies, strategy modifiers,
graders, report sections, dataset importers and render profiles (`KINDS`). Each kind has one
`Registry`. Adding an entry is one registration in one module: `@REGISTRY.register("name",
order=...)` on a definition, or `REGISTRY.add(...)`. A registry finds its entries on first read by
importing every module of its packages, then the modules named by the entry points of its group
(`isodyn.seeds`, `isodyn.strategies`, ...), so a third-party package adds an entry by declaring, in
its own pyproject.toml:

    [project.entry-points."isodyn.strategies"]
    mine = "my_package.my_strategy"

Entries list in an explicit order: by `order` (built-in entries set theirs; a new entry defaults to
`LATE`, after them), then by name. Every entry carries a record (`Entry`): its name, a one-line
summary and the module that defined it, which `exp list KIND` prints in one loop.

How to add each kind, with an example: docs/extending.md.
"""

from __future__ import annotations

import importlib
import pkgutil
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from importlib.metadata import entry_points
from types import ModuleType
from typing import Any, Generic, TypeVar

T = TypeVar("T")

LATE = 1000  # the order of an entry that does not give one: after every built-in entry


@dataclass(frozen=True)
class Entry(Generic[T]):
    """One registered thing and what `exp list` says of it."""

    name: str
    value: T
    summary: str  # one line
    defined_in: str  # the module that registered it
    order: int = LATE


def first_line(value: object) -> str:
    """The first line of an object's docstring, or '' (the default summary of an entry)."""
    doc = getattr(value, "__doc__", None) or ""
    lines = doc.strip().splitlines()
    return lines[0].strip() if lines else ""


class Registry(Mapping[str, T]):
    """Named entries of one kind, read as a mapping (name to value) in the registry's order."""

    def __init__(
        self,
        kind: str,
        *,
        packages: tuple[str, ...] = (),
        group: str | None = None,
        summary: Callable[[Any], str] = first_line,
    ) -> None:
        self.kind = kind  # singular, as an error names it: "unknown grader 'x'"
        self.packages = packages  # imported whole on first read
        self.group = group  # the entry-point group of third-party entries
        self._summary = summary
        self._entries: dict[str, Entry[T]] = {}
        self._ordered: list[Entry[T]] | None = None
        self._discovered = False

    # --- adding ---------------------------------------------------------------------------------
    def register(self, name: str, *, order: int = LATE, summary: str | None = None) -> Callable[[T], T]:
        """A decorator adding the decorated object under `name`."""

        def add(value: T) -> T:
            return self.add(name, value, order=order, summary=summary)

        return add

    def add(self, name: str, value: T, *, order: int = LATE, summary: str | None = None) -> T:
        """Add `value` under `name`; a name is registered once (the same object again is a no-op)."""
        known = self._entries.get(name)
        if known is not None:
            if known.value is value:
                return value
            raise ValueError(
                f"{self.kind} {name!r} is registered twice ({known.defined_in} and {_module_of(value)})"
            )
        said = self._summary(value) if summary is None else summary
        self._entries[name] = Entry(name, value, said, _module_of(value), order)
        self._ordered = None
        return value

    # --- reading --------------------------------------------------------------------------------
    def entries(self) -> list[Entry[T]]:
        """Every entry, discovered, in order: by `order`, then by name."""
        self.discover()
        if self._ordered is None:
            self._ordered = sorted(self._entries.values(), key=lambda e: (e.order, e.name))
        return self._ordered

    def entry(self, name: str) -> Entry[T]:
        """The entry called `name`, or a KeyError whose message lists the valid names."""
        self.discover()
        if name not in self._entries:
            raise KeyError(f"unknown {self.kind} {name!r}; valid: {', '.join(self)}")
        return self._entries[name]

    def get_named(self, name: str) -> T:
        """The value called `name`, or a KeyError whose message lists the valid names."""
        return self.entry(name).value

    def __getitem__(self, name: str) -> T:
        self.discover()
        return self._entries[name].value

    def __iter__(self) -> Iterator[str]:
        return iter([entry.name for entry in self.entries()])

    def __len__(self) -> int:
        self.discover()
        return len(self._entries)

    def __contains__(self, name: object) -> bool:
        self.discover()
        return name in self._entries

    def registered(self) -> dict[str, T]:
        """The values registered so far, by name in order, without discovering: for a caller that
        imported the modules it needs itself (a test of one seed module, which another module's
        error must not hide)."""
        ordered = sorted(self._entries.values(), key=lambda e: (e.order, e.name))
        return {entry.name: entry.value for entry in ordered}

    # --- discovery ------------------------------------------------------------------------------
    def discover(self) -> None:
        """Import every module of the registry's packages and of its entry points, once."""
        if self._discovered:
            return
        self._discovered = True  # first: a module imported below may read this registry
        for package_name in self.packages:
            package = importlib.import_module(package_name)
            for info in pkgutil.walk_packages(package.__path__, prefix=f"{package_name}."):
                importlib.import_module(info.name)
        if self.group:
            for point in entry_points(group=self.group):
                loaded = point.load()  # a module registers its entries as it is imported
                if isinstance(loaded, ModuleType) or self._holds(loaded):
                    continue  # its import registered it (a seed class registers itself)
                self.add(point.name, loaded)  # an object named directly is registered as itself

    def _holds(self, value: object) -> bool:
        return any(entry.value is value for entry in self._entries.values())

    @contextmanager
    def rediscovered(self) -> Iterator[Registry[T]]:
        """For tests: within the block, the next read discovers again (so the entry points of a
        distribution put on `sys.path` inside the block are found); after it, the registry holds
        what it held before, so nothing added in the block leaks into other tests. Enter it before
        the throwaway distribution is on the path: entering first completes the built-in discovery."""
        self.discover()
        entries, discovered = dict(self._entries), self._discovered
        self._discovered = False
        self._ordered = None
        try:
            yield self
        finally:
            self._entries, self._discovered = entries, discovered
            self._ordered = None


def _module_of(value: object) -> str:
    return str(getattr(value, "__module__", None) or type(value).__module__)


# The seven kinds, each as (where its registry lives, what `exp list KIND` calls it). Imported only
# when read, so `exp list graders` does not import the seeds.
KINDS: dict[str, str] = {
    "seeds": "isodyn.generators.base:SEEDS",
    "strategies": "isodyn.strategies.base:BASES",
    "modifiers": "isodyn.strategies.base:MODIFIERS",
    "graders": "isodyn.scoring.graders:GRADERS",
    "metrics": "isodyn.analysis.sections:SECTIONS",
    "datasets": "isodyn.datasets.kinds:DATASETS",
    "perturbations": "isodyn.generators.perturb:PERTURBATIONS",
    "renders": "isodyn.modalities.profiles:RENDERS",
}


def registry_of(kind: str) -> Registry[Any]:
    """The registry of one of the kinds (a KeyError names the valid ones)."""
    if kind not in KINDS:
        raise KeyError(f"unknown kind {kind!r}; valid: {', '.join(KINDS)}")
    module, attribute = KINDS[kind].split(":")
    registry: Registry[Any] = getattr(importlib.import_module(module), attribute)
    return registry
