"""MLflow's private API is used in one module (harness.tracking.mlflow.compat), for the versions it was
written for: on another MLflow this fails, so that an upgrade reviews each private call."""

from __future__ import annotations

import ast
from pathlib import Path

import mlflow

from harness.tracking.mlflow import compat

ROOT = Path(__file__).resolve().parents[2]


def test_the_installed_mlflow_is_one_the_private_calls_were_written_for():
    version = ".".join(mlflow.__version__.split(".")[:2])
    assert version in compat.WRITTEN_FOR, (
        f"MLflow {mlflow.__version__} is installed, but harness/tracking/mlflow/compat.py was written for "
        f"MLflow {', '.join(compat.WRITTEN_FOR)}: check each of its private calls against this version, "
        f"then add it to WRITTEN_FOR")


def test_the_private_calls_exist_in_the_installed_mlflow():
    from mlflow.data.meta_dataset import MetaDataset
    from mlflow.store.db import utils
    from mlflow.tracing.client import TracingClient

    assert callable(utils._initialize_tables) and callable(MetaDataset._to_mlflow_entity)
    assert "store" in dir(TracingClient)


def test_no_other_module_calls_a_private_name_of_mlflow():
    found = []
    for path in (ROOT / "harness").rglob("*.py"):
        if path == Path(compat.__file__):
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("mlflow"):
                found += [f"{path.name}: {a.name}" for a in node.names if a.name.startswith("_")]
            if isinstance(node, ast.Attribute) and node.attr in {"_initialize_tables", "_to_mlflow_entity"}:
                found.append(f"{path.name}: {node.attr}")
            if isinstance(node, ast.Name) and node.id == "TracingClient":
                found.append(f"{path.name}: TracingClient")
    assert not found
