"""The package's shape: no import cycles among isodyn's modules, counting imports inside functions.

Each module's imports are read from its source (module level, inside functions and under
TYPE_CHECKING alike); an import names the module it reads (`from isodyn.a import b` is `isodyn.a.b`
when that is a module, else `isodyn.a`). A cycle is a strongly connected set of two or more modules.
"""

from __future__ import annotations

import ast
from pathlib import Path

import networkx as nx

import isodyn

ROOT = Path(isodyn.__file__).parent


def module_name(path: Path) -> str:
    parts = path.relative_to(ROOT.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def import_graph() -> nx.DiGraph:
    modules = {module_name(p): p for p in ROOT.rglob("*.py")}
    graph = nx.DiGraph()
    graph.add_nodes_from(modules)
    for name, path in modules.items():
        package = name if path.name == "__init__.py" else name.rpartition(".")[0]
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            targets: list[str] = []
            if isinstance(node, ast.Import):
                targets = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom):
                base = node.module or ""
                if node.level:
                    anchor = package.rsplit(".", node.level - 1)[0] if node.level > 1 else package
                    base = f"{anchor}.{base}" if base else anchor
                targets = [f"{base}.{a.name}" if f"{base}.{a.name}" in modules else base for a in node.names]
            for target in targets:
                if target in modules and target != name:
                    graph.add_edge(name, target)
    return graph


def cycles(graph: nx.DiGraph) -> list[list[str]]:
    return [sorted(c) for c in nx.strongly_connected_components(graph) if len(c) > 1]


def test_the_graph_sees_the_imports_it_should() -> None:
    graph = import_graph()
    assert graph.has_edge("isodyn.runs.results", "isodyn.runs.record")  # a module-level import
    assert len(graph) > 150 and graph.number_of_edges() > 300


def test_a_planted_cycle_is_found() -> None:
    graph = import_graph()
    graph.add_edge("isodyn.runs.record", "isodyn.runs.results")
    assert ["isodyn.runs.record", "isodyn.runs.results"] in cycles(graph)


def test_no_import_cycles() -> None:
    assert cycles(import_graph()) == []
