"""The package's folders import each other in one direction only: no folder imports from a folder
that (directly or through others) imports it back, and only the tracking layer imports MLflow."""

from __future__ import annotations

import ast
from collections import defaultdict
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[1] / "harness"


def _node(module: str, is_root_module: bool) -> str:
    """A folder (``harness.metrics.routes``); a module at the package root counts on its own."""
    return module if is_root_module else module.rsplit(".", 1)[0]


def _modules() -> dict[str, Path]:
    modules = {}
    for path in PACKAGE.rglob("*.py"):
        parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
        modules[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = path
    return modules


def _imports(path: Path) -> list[str]:
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.append(node.module)
        elif isinstance(node, ast.Import):
            found.extend(alias.name for alias in node.names)
    return found


def _folder_of(module: str, modules: dict[str, Path]) -> str:
    path = modules[module]
    if path.name == "__init__.py":
        return module
    return _node(module, path.parent == PACKAGE)


def folder_graph() -> dict[str, set[str]]:
    modules = _modules()
    graph: dict[str, set[str]] = defaultdict(set)
    for module, path in modules.items():
        source = _folder_of(module, modules)
        for target in _imports(path):
            # "from harness.metrics import key_facts" names a module inside the package it imports from
            while target not in modules and "." in target:
                target = target.rsplit(".", 1)[0]
            if target in modules and target != "harness":
                destination = _folder_of(target, modules)
                if destination != source:
                    graph[source].add(destination)
    return graph


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components with more than one folder (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for nxt in graph.get(node, ()):
            if nxt not in index:
                visit(nxt)
                low[node] = min(low[node], low[nxt])
            elif nxt in on_stack:
                low[node] = min(low[node], index[nxt])
        if low[node] == index[node]:
            component = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                component.append(member)
                if member == node:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for node in list(graph):
        if node not in index:
            visit(node)
    return found


def test_cycle_finder_sees_a_loop():
    assert cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert cycles({"a": {"b"}, "b": set()}) == []


def test_no_folder_imports_back():
    loops = cycles(folder_graph())
    assert not loops, f"import loops between folders: {loops}"


def test_only_tracking_imports_mlflow():
    offenders = [str(path.relative_to(PACKAGE.parent)) for module, path in _modules().items()
                 if not module.startswith("harness.tracking")
                 and any(name == "mlflow" or name.startswith("mlflow.") for name in _imports(path))]
    assert not offenders, f"MLflow imported outside harness/tracking/: {offenders}"
