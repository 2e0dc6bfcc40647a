"""Turning configs and metric names into what trackers accept, without leaking secrets."""

from __future__ import annotations

import hashlib
import re
from pathlib import PurePath
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


def _excluded(key: str, exclude: list[str]) -> bool:
    return any(key == prefix or key.startswith(f"{prefix}.") or key.startswith(f"{prefix}/") for prefix in exclude)


def _parse(overrides: list[str]):
    from hydra.core.override_parser.overrides_parser import OverridesParser

    return OverridesParser.create().parse_overrides(overrides=list(overrides))


def varied_keys(sweep_overrides: list[str], sweeper_params: dict[str, Any], exclude: list[str]) -> list[str]:
    """The keys a sweep varies: its sweep overrides (``a,b``, ``range(...)``...) and its sweeper's
    ``params``, less the excluded ones.

    >>> varied_keys(["generator=predictions", "generator.path=a.jsonl,b.jsonl"], {"retriever": "bm25,dense"}, [])
    ['generator.path', 'retriever']
    """
    parsed = [*_parse(sweep_overrides), *_parse([f"{k}={v}" for k, v in sweeper_params.items()])]
    keys = {o.key_or_group for o in parsed if o.is_sweep_override() and not _excluded(o.key_or_group, exclude)}
    return sorted(keys)


def path_labels(values: list[str]) -> dict[str, str]:
    """Each path named by its file stem, or by as many parent folders as tell it from the others.

    >>> path_labels(["runs/a.jsonl", "runs/b.jsonl"])
    {'runs/a.jsonl': 'a', 'runs/b.jsonl': 'b'}
    >>> path_labels(["x/sys.jsonl", "y/sys.jsonl"])
    {'x/sys.jsonl': 'x/sys', 'y/sys.jsonl': 'y/sys'}
    """
    def label(value: str, depth: int) -> str:
        parts = PurePath(value).parts
        return "/".join([*parts[-depth:-1], PurePath(value).stem])

    labels = {}
    for value in values:
        depth = 1
        while depth < len(PurePath(value).parts) and any(
                label(value, depth) == label(other, depth) for other in values if other != value):
            depth += 1
        labels[value] = label(value, depth)
    return labels


def sweep_path_labels(sweep_overrides: list[str], path_keys: list[str]) -> dict[str, dict[str, str]]:
    """:func:`path_labels` of every path-valued key the sweep lists several values of."""
    labels = {}
    for override in _parse(sweep_overrides):
        if override.key_or_group in path_keys and override.is_sweep_override():
            values = [str(v) for v in getattr(override.value(), "list", [])]
            labels[override.key_or_group] = path_labels(values)
    return labels


def sweep_job_name(overrides: list[str], varied: list[str], path_keys: list[str],
                   labels: dict[str, dict[str, str]]) -> str:
    """A sweep job's name: only the keys the sweep varies, path-valued ones by file stem.

    >>> sweep_job_name(["generator=predictions", "generator.path=/t/b.jsonl"], ["generator.path"],
    ...                ["generator.path"], {})
    'generator.path=b'
    """
    parts = []
    for override in _parse(overrides):
        key = override.key_or_group
        if key not in varied:
            continue
        value = override.input_line.split("=", 1)[1]
        if key in path_keys:
            value = labels.get(key, {}).get(value) or PurePath(value).stem
        parts.append(f"{key}={value}")
    return ",".join(sorted(parts))


def single_run_name(overrides: list[str], exclude: list[str], groups: list[str], experiment: str) -> str:
    """A single run's name: the groups it picks on the command line, else the experiment, then a
    short hash of its other overrides (so two runs differing in a value differ in name).

    >>> single_run_name(["retriever=dense", "generator.model=m", "cache.dir=/x"], ["cache.dir"], ["retriever"], "demo")
    'retriever=dense #d190b5'
    >>> single_run_name([], [], [], "demo")
    'demo'
    """
    kept = [o for o in _parse(overrides) if not _excluded(o.key_or_group, exclude)]
    chosen = sorted(o.input_line for o in kept if o.key_or_group in groups)
    others = sorted(o.input_line for o in kept if o.key_or_group not in groups)
    name = ",".join(chosen) or experiment
    if others:
        name += " #" + hashlib.sha256("\n".join(others).encode()).hexdigest()[:6]
    return name


def unique_names(names: list[str], jobs: list[Any]) -> list[str]:
    """``names`` with ``#<job>`` added to each that several jobs share, so no two are equal.

    >>> unique_names(["a", "b", "a"], [0, 1, 2])
    ['a #0', 'b', 'a #2']
    """
    return [f"{name} #{job}" if names.count(name) > 1 else name for name, job in zip(names, jobs)]


def sweep_naming(overrides: list[str], sweeper_params: dict[str, Any], config: Any) -> dict[str, Any]:
    """What its jobs' names are built from, kept in the sweep's state: the varied keys, the
    path-valued keys (``report.path_keys``) and the labels of the paths the sweep lists."""
    from omegaconf import OmegaConf

    exclude = list(config.hydra.job.config.override_dirname.exclude_keys)
    path_keys = list(OmegaConf.select(config, "report.path_keys", default=None) or [])  # older configs lack it
    return {"varied": varied_keys(overrides, sweeper_params, exclude), "path_keys": path_keys,
            "labels": sweep_path_labels(overrides, path_keys)}
