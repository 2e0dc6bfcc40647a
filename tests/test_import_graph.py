"""The package imports in one direction only: no folder imports from a folder that (directly or
through others) imports it back, no module imports a module of its own folder that imports it back,
nothing imports up into the command line (``harness.cli`` and the entry points that wrap it), the
configuration layer imports no other part of the package, and MLflow is imported only by the tracking
layer's MLflow adapter (``harness/tracking/mlflow/``) and by the adapters named for it (a module file
whose name starts with ``mlflow_``, such as the MLflow judge and the harness's metrics as MLflow
scorers): the pipeline, and the sweep's own bookkeeping, never import it.

Imports inside functions and under ``TYPE_CHECKING`` count: deferring an import hides a loop, it
does not remove it.
"""

from __future__ import annotations

import ast
from collections import defaultdict
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[1] / "harness"
# The top layer: the command line and the entry points into it (``python -m harness``, the Python API).
TOP = ("harness.cli", "harness.__main__", "harness.api")
# The base layer that every part reads its configuration from.
BASE = "harness.config"


def _modules(package: Path = PACKAGE) -> dict[str, Path]:
    modules = {}
    for path in package.rglob("*.py"):
        parts = path.relative_to(package.parent).with_suffix("").parts
        modules[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = path
    return modules


def _imports(path: Path) -> list[str]:
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.append(node.module)
            # "from harness.metrics import key_facts" imports the module harness.metrics.key_facts
            found.extend(f"{node.module}.{alias.name}" for alias in node.names)
        elif isinstance(node, ast.Import):
            found.extend(alias.name for alias in node.names)
    return found


def module_graph(package: Path = PACKAGE) -> dict[str, set[str]]:
    """Module -> the package's modules it imports (anywhere in its body)."""
    modules = _modules(package)
    graph: dict[str, set[str]] = defaultdict(set)
    for module, path in modules.items():
        for target in _imports(path):
            while target not in modules and "." in target:
                target = target.rsplit(".", 1)[0]
            if target in modules and target != module:
                graph[module].add(target)
    return graph


def _folder_of(module: str, modules: dict[str, Path], package: Path) -> str:
    """A folder (``harness.metrics.routes``); a module at the package root counts on its own."""
    path = modules[module]
    if path.name == "__init__.py" or path.parent == package:
        return module
    return module.rsplit(".", 1)[0]


def folder_graph(package: Path = PACKAGE) -> dict[str, set[str]]:
    modules = _modules(package)
    graph: dict[str, set[str]] = defaultdict(set)
    for module, targets in module_graph(package).items():
        source = _folder_of(module, modules, package)
        for target in targets - {package.name}:
            destination = _folder_of(target, modules, package)
            if destination != source:
                graph[source].add(destination)
    return graph


def loops_within_folders(package: Path = PACKAGE) -> list[list[str]]:
    """Import loops among the modules of one folder (its ``__init__`` included)."""
    modules = _modules(package)
    folder = {m: _folder_of(m, modules, package) for m in modules}
    graph = {m: {t for t in targets if folder[t] == folder[m]} for m, targets in module_graph(package).items()}
    return cycles(graph)


def upward_imports(package: Path = PACKAGE) -> list[str]:
    """Imports that run back up the package: into the top layer from outside it, from the package's
    ``__init__`` (run by every ``import harness.x``) into the package, from the base layer out of it."""

    def within(module: str, layer: str) -> bool:
        return module == layer or module.startswith(layer + ".")

    found = []
    for module, targets in module_graph(package).items():
        for target in sorted(targets):
            if module == package.name:
                found.append(f"{module} -> {target}")
            elif any(within(target, top) for top in TOP) and not any(within(module, top) for top in TOP):
                found.append(f"{module} -> {target}")
            elif within(module, BASE) and not within(target, BASE) and target != package.name:
                found.append(f"{module} -> {target}")
    return found


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


def write_package(root: Path, files: dict[str, str]) -> Path:
    """A package ``harness`` under ``root`` holding ``files`` (path -> text)."""
    for name, text in files.items():
        (root / "harness" / name).parent.mkdir(parents=True, exist_ok=True)
        (root / "harness" / name).write_text(text)
    return root / "harness"


def test_cycle_finder_sees_a_loop():
    assert cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert cycles({"a": {"b"}, "b": set()}) == []


def test_no_folder_imports_back():
    loops = cycles(folder_graph())
    assert not loops, f"import loops between folders: {loops}"


def test_no_module_imports_back_within_its_folder():
    loops = loops_within_folders()
    assert not loops, f"import loops between the modules of a folder: {loops}"


def test_nothing_imports_up_the_package():
    upward = upward_imports()
    assert not upward, f"imports that run back up the package: {upward}"


def test_the_checks_see_the_loops_and_upward_imports_they_guard_against(tmp_path):
    """A package laid out as harness was before these checks: each check finds its case."""
    files = {"__init__.py": "def __getattr__(name):\n    from harness.cli import api\n",
             "subcommands.py": "NAMES = {}\n",
             "cli/__init__.py": "", "cli/api.py": "from harness.config import resolvers\n",
             "config/__init__.py": "", "config/resolvers.py": "def f():\n    from harness.subcommands import NAMES\n",
             "metaeval/__init__.py": "", "metaeval/chart.py": "from harness.metaeval.report import Report\n",
             "metaeval/report.py": "def f():\n    from harness.metaeval import chart\n"}
    package = write_package(tmp_path, files)
    assert loops_within_folders(package) == [["harness.metaeval.chart", "harness.metaeval.report"]]
    assert upward_imports(package) == ["harness -> harness.cli", "harness -> harness.cli.api",
                                       "harness.config.resolvers -> harness.subcommands"]


def mlflow_importers_outside_the_seam(package: Path = PACKAGE) -> list[str]:
    """Modules that import MLflow but are neither in the adapter ``harness.tracking.mlflow`` nor named
    for it (``mlflow_*.py``)."""
    seam = f"{package.name}.tracking.mlflow"
    return [str(path.relative_to(package.parent)) for module, path in _modules(package).items()
            if not (module == seam or module.startswith(seam + "."))
            and not path.name.startswith("mlflow_")
            and any(name == "mlflow" or name.startswith("mlflow.") for name in _imports(path))]


def test_only_tracking_and_modules_named_for_mlflow_import_it():
    offenders = mlflow_importers_outside_the_seam()
    assert not offenders, f"MLflow imported outside harness/tracking/mlflow/ and the mlflow_*.py adapters: {offenders}"


def test_the_mlflow_check_catches_an_offender(tmp_path):
    """A pipeline module importing MLflow (even inside a function) is caught; the tracking layer and an
    adapter named for MLflow are not."""
    files = {"__init__.py": "", "stages/__init__.py": "",
             "stages/pipeline.py": "def run():\n    import mlflow.genai\n",
             "stages/judging.py": "from mlflow.entities import Feedback\n",
             "tracking/__init__.py": "", "tracking/mlflow/__init__.py": "",
             "tracking/mlflow/writer.py": "import mlflow\n", "tracking/callback.py": "import mlflow.entities\n",
             "judges/__init__.py": "", "judges/mlflow_judge.py": "from mlflow.genai import judges\n",
             "judges/mlflow.py": "import mlflow\n"}
    assert sorted(mlflow_importers_outside_the_seam(write_package(tmp_path, files))) == [
        "harness/judges/mlflow.py", "harness/stages/judging.py", "harness/stages/pipeline.py",
        "harness/tracking/callback.py"]
