"""The house's floors: isodyn's packages in the order they may import one another.

A module may import from its own floor and the floors below it, never from one above, counting
imports inside functions and under TYPE_CHECKING (`test_architecture.import_graph`). A new package
or top-level module must be given its floor here, or this test fails. docs/architecture.md draws
the same order.
"""

from __future__ import annotations

import pytest

from test_architecture import import_graph

# Lowest first. A name is a package (every module under it) or one module; the longest name that
# covers a module gives its floor.
FLOORS: tuple[tuple[str, ...], ...] = (
    ("isodyn", "isodyn.errors", "isodyn.core", "isodyn.atomic", "isodyn.textsafe", "isodyn.registry"),
    ("isodyn.prompts",),  # the templates and the answer format they ask for
    ("isodyn.scoring",),  # reading and grading a reply (pure)
    ("isodyn.modalities",),  # drawing and writing a variant
    ("isodyn.generators",),  # seed programs
    ("isodyn.datasets",),  # releases read as seeds; the bounds of every read from outside
    ("isodyn.models",),  # requests, replies, litellm, the local engine
    ("isodyn.strategies",),  # what a cell asks
    ("isodyn.runs",),  # a run folder and its records
    ("isodyn.cache",),  # replies, drawings and cell memos kept on disk
    ("isodyn.experiments",),  # planning and running a grid
    ("isodyn.analysis",),  # metrics, statistics, reports
    ("isodyn.search",),  # worst-variant search
    ("isodyn.view",),  # the browser viewer
    ("isodyn.testing",),  # the loopback stubs and fixtures
    ("isodyn.interop",),  # isodyn inside other tools (inspect's tasks and logs); imports them only there
    ("isodyn.cli.listing", "isodyn.commands"),  # one job per command
    ("isodyn.cli.terminal",),  # what a command prints
    ("isodyn.cli.run_screen", "isodyn.cli.search_screen"),
    ("isodyn.cli", "isodyn.__main__"),  # `exp` (cli/__init__), `exp cache/view/list`, a failure's line
)


def floor_of(module: str) -> int | None:
    best: tuple[int, int] | None = None
    for level, names in enumerate(FLOORS):
        for name in names:
            covers = module == name or (module.startswith(name + ".") and name != "isodyn")
            if covers and (best is None or len(name) > best[1]):
                best = (level, len(name))
    return None if best is None else best[0]


def upward_imports(edges: list[tuple[str, str]]) -> list[str]:
    """Each import of a module on a higher floor than the importer's, as `importer -> imported`."""
    found = []
    for importer, imported in edges:
        low, high = floor_of(importer), floor_of(imported)
        if low is not None and high is not None and high > low:
            found.append(f"{importer} -> {imported}")
    return sorted(found)


def test_every_module_has_a_floor() -> None:
    assert [m for m in import_graph() if floor_of(m) is None] == []


def test_no_import_runs_up_a_floor() -> None:
    assert upward_imports(list(import_graph().edges)) == []


@pytest.mark.parametrize(
    ("importer", "imported"),
    [
        ("isodyn.scoring.judge", "isodyn.runs.record"),  # grading reading a run's record
        ("isodyn.runs.rundir", "isodyn.experiments.cells"),  # the run folder reaching into the runner
        ("isodyn.core", "isodyn.cli"),
    ],
)
def test_a_planted_upward_import_is_found(importer: str, imported: str) -> None:
    graph = import_graph()
    graph.add_edge(importer, imported)
    assert upward_imports(list(graph.edges)) == [f"{importer} -> {imported}"]


def test_a_module_outside_every_floor_is_named() -> None:
    assert floor_of("isodyn.newpackage.thing") is None
    assert floor_of("isodyn.runs.summary") == floor_of("isodyn.runs")
