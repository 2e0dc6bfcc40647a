"""Turning configs and metric names into what trackers accept, without leaking secrets."""

from __future__ import annotations

import re
from typing import Any

from harness.config.resolvers import portable_path
from harness.config.secrets import is_secret_key

_UNSAFE_METRIC_CHARS = re.compile(r"[^A-Za-z0-9_\-./ ]")


def portable(value: Any) -> Any:
    """A copy of a nested dict/list config with paths inside installed packages as ``pkg://...``."""
    if isinstance(value, dict):
        return {k: portable(v) for k, v in value.items()}
    if isinstance(value, list):
        return [portable(v) for v in value]
    return portable_path(value)


def flatten(value: Any, prefix: str = "") -> dict[str, Any]:
    """``{"a": {"b": 1}, "c": [1, 2]}`` -> ``{"a.b": 1, "c": "[1, 2]"}``; ``_target_`` dropped."""
    if not isinstance(value, dict):
        return {prefix: value}
    flat: dict[str, Any] = {}
    for key, item in value.items():
        if key == "_target_" or is_secret_key(str(key)):
            continue
        name = f"{prefix}.{key}" if prefix else str(key)
        if isinstance(item, dict):
            flat.update(flatten(item, name))
        else:
            flat[name] = item
    return flat


def metric_name(name: str) -> str:
    """MLflow-safe metric key (``retrieval/ndcg@10`` -> ``retrieval/ndcg_10``)."""
    return _UNSAFE_METRIC_CHARS.sub("_", name)


def run_name(overrides: list[str], exclude: list[str], item_sep: str = ",", kv_sep: str = "=") -> str:
    """A job's name from its overrides, as Hydra's ``override_dirname`` builds it (sorted input
    lines), leaving out every key that is ``exclude``d or lies under an excluded key.

    Hydra excludes exact keys only; here ``stats`` also drops ``stats.test`` and
    ``stats.guards=[...]``, so analysis-only settings never rename the runs they analyse.

    >>> run_name(["retriever=bm25", "stats.test=wilcoxon", "+report.headline=[answer/f1]"], ["stats", "report"])
    'retriever=bm25'
    """
    from hydra.core.override_parser.overrides_parser import OverridesParser

    def excluded(key: str) -> bool:
        return any(key == prefix or key.startswith(f"{prefix}.") or key.startswith(f"{prefix}/")
                   for prefix in exclude)

    parsed = OverridesParser.create().parse_overrides(overrides=list(overrides))
    lines = sorted(o.input_line for o in parsed if not excluded(o.key_or_group))
    return item_sep.join(line.replace("=", kv_sep) for line in lines)
