"""Dependencies are used through their public surfaces: nothing in the harness or its Hydra plugins
assigns into an object of Hydra, OmegaConf or MLflow, or rebinds one of Hydra's hooks; no harness
module imports a Hydra plugin module of the project."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
FOLDERS = ("harness", "hydra_plugins")
DEPENDENCIES = {"hydra", "omegaconf", "mlflow"}
HOOKS = {"load_sweep_config", "configure_log", "__init__", "run_job", "_save_config", "get_help", "__deepcopy__"}


def _root(node: ast.AST) -> str | None:
    """The name an attribute chain starts from, through calls and subscripts (``A.instance().cfg``: A)."""
    while isinstance(node, (ast.Attribute, ast.Call, ast.Subscript)):
        node = node.func if isinstance(node, ast.Call) else node.value
    return node.id if isinstance(node, ast.Name) else None


def patches(source: str) -> list[tuple[int, str]]:
    """(line, code) of every assignment into an attribute of a name imported from a dependency (or a
    ``setattr`` on one), and of every rebinding of one of Hydra's hooks on any object."""
    tree = ast.parse(source)
    imported = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            imported |= {(a.asname or a.name).split(".")[0] for a in node.names
                         if a.name.split(".")[0] in DEPENDENCIES}
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module.split(".")[0] in DEPENDENCIES:
            imported |= {a.asname or a.name for a in node.names}
    for node in ast.walk(tree):  # a loop over imported names: `for module in (utils, main): module.x = ...`
        if isinstance(node, ast.For) and isinstance(node.target, ast.Name) and isinstance(node.iter, (ast.Tuple, ast.List)):
            if any(_root(e) in imported for e in node.iter.elts):
                imported.add(node.target.id)
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "setattr" and node.args:
            if _root(node.args[0]) in imported:
                found.append(node)
            continue
        targets = node.targets if isinstance(node, ast.Assign) else \
            [node.target] if isinstance(node, (ast.AugAssign, ast.AnnAssign)) else []
        found += [node for target in targets if isinstance(target, ast.Attribute)
                  and (_root(target) in imported or target.attr in HOOKS)]
    lines = source.splitlines()
    return [(node.lineno, lines[node.lineno - 1].strip()) for node in found]


def _modules():
    return sorted(path for folder in FOLDERS for path in (ROOT / folder).rglob("*.py"))


def test_no_module_assigns_into_a_dependency_or_rebinds_a_hydra_hook():
    found = [f"{path.relative_to(ROOT)}:{line}: {code}" for path in _modules()
             for line, code in patches(path.read_text(encoding="utf-8"))]
    assert not found, "assignments into a dependency's objects:\n" + "\n".join(found)


@pytest.mark.parametrize("source", [
    "from hydra._internal.callbacks import Callbacks\nCallbacks.__init__ = lambda self: None\n",
    "import hydra.core.utils as core_utils\ncore_utils.configure_log = print\n",
    "from hydra.core.utils import x\nfrom hydra import main\nfor m in (x, main):\n    m.configure_log = print\n",
    "def f(loader):\n    loader.load_sweep_config = f\n",
    "from hydra.core.hydra_config import HydraConfig\nHydraConfig.instance().cfg = None\n",
    "import mlflow\nsetattr(mlflow.tracking, 'x', 1)\n",
    "from omegaconf import OmegaConf\nOmegaConf.x = 1\n",
])
def test_the_scan_finds_each_kind_of_patch(source):
    assert patches(source)


def test_the_scan_leaves_the_projects_own_objects_alone():
    assert not patches("import hydra\nclass A:\n    def f(self, cfg):\n        self.x = 1\n        cfg.hydra = 2\n")


def test_no_harness_module_imports_a_hydra_plugin_module():
    found = []
    for path in (ROOT / "harness").rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            names = [a.name for a in node.names] if isinstance(node, ast.Import) else \
                [node.module or ""] if isinstance(node, ast.ImportFrom) else []
            found += [f"{path.relative_to(ROOT)}:{node.lineno}" for name in names if name.startswith("hydra_plugins")]
    assert not found
