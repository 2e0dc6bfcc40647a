"""Which ``_target_`` a config may name: the harness's own code and the plugins it declares.

A ``_target_`` is code that Hydra imports and calls, so a config from the command line or a
shared ``--config-dir`` could otherwise call ``shutil.copyfile`` or ``open``. Every target in a
composed config is checked before anything is instantiated: it must be a class or function
defined in the ``harness`` package (Hydra's own launchers and sweepers under ``hydra.``), or be
listed in ``plugins.allowed_targets``. An entry ending in ``.`` allows everything defined in
that package.

Hydra's logging configs (``hydra.job_logging``, ``hydra.hydra_logging``) name code too: Python's
``logging.config.dictConfig`` calls every ``()`` factory and ``class`` it lists. Those must be
defined in the standard ``logging`` package or the harness, or be declared plugins.

Hydra instantiates its callbacks and applies its logging config as soon as it has composed the
config, before any callback sees it; so the harness's entry points (the ``harness`` command, the
Python API) compose the config first and check it (:mod:`harness.cli.start_check`), and the start
check of a sweep (:func:`harness.jobs.check_sweep_jobs`) checks every job's config, its logging
config included, before the first job starts.
"""

from __future__ import annotations

import re
import sys
from typing import Iterator

from hydra._internal.utils import _locate
from omegaconf import DictConfig, ListConfig, OmegaConf, ValueNode

OWN_PACKAGES = ("harness.",)
# Hydra's node configures Hydra itself: its launcher, sweeper (with the Optuna sweeper's sampler,
# hydra/sweeper/sampler) and callbacks.
HYDRA_PACKAGES = ("hydra._internal.core_plugins.", "hydra_plugins.", "optuna.samplers.")
# dictConfig logging setups and what their factories (``()``) and classes may be.
LOGGING_NODES = ("hydra.job_logging.", "hydra.hydra_logging.")
LOGGING_PACKAGES = ("logging.",)
LOGGING_KEYS = ("()", "class")


# One interpolation with no nested one, no dict or list literal and no quoted text (``${seed}``,
# ``${oc.select:stats.guards,null}``): it is a node of the same config, which the walk checks where
# it is, or a resolver's value of plain arguments, which builds no node with a target. It is not
# resolved: each resolution parses OmegaConf's grammar again (~2 ms; 24 of a config's 39).
_NODE_FREE = re.compile(r"\$\{[^${}\[\]'\"]*\}")


class TargetNotAllowed(ValueError):
    """A config names a ``_target_`` outside the harness and its declared plugins."""


def check_targets(cfg: DictConfig) -> None:
    """Raises :class:`TargetNotAllowed` naming every refused key and target; imports nothing foreign.

    >>> from omegaconf import OmegaConf
    >>> check_targets(OmegaConf.create({"chunker": {"_target_": "harness.chunkers.recursive.RecursiveChunker"}}))
    >>> check_targets(OmegaConf.create({"chunker": {"_target_": "shutil.copyfile"}}))
    Traceback (most recent call last):
    ...
    harness.config.allowlist.TargetNotAllowed: config key 'chunker._target_' names 'shutil.copyfile', ...
    """
    declared = _declared(cfg)
    refused = []
    for key, target in _targets(cfg, ""):
        if key.startswith(LOGGING_NODES):
            packages = OWN_PACKAGES + LOGGING_PACKAGES
        else:
            packages = OWN_PACKAGES + (HYDRA_PACKAGES if key.startswith("hydra.") else ())
        if not is_allowed(target, packages, declared):
            refused.append(f"config key '{key}' names '{target}'")
    _refuse(refused, declared)


def _declared(cfg) -> tuple[str, ...]:
    plugins = OmegaConf.select(cfg, "plugins.allowed_targets", default=None) if cfg is not None else None
    return tuple(str(name) for name in plugins or [])


def _refuse(refused: list[str], declared: tuple[str, ...]) -> None:
    if refused:
        raise TargetNotAllowed(
            f"{'; '.join(refused)}, which may not be instantiated: only the harness's own classes and "
            f"functions are allowed (and the logging package's in logging configs), plus what "
            f"plugins.allowed_targets lists (currently {list(declared)})")


def refuse_to_start(cfg: DictConfig) -> None:
    """Ends the process (exit status 2, as the callbacks' own start-up checks end it) when
    :func:`check_targets` refuses ``cfg``, saying why on stderr."""
    try:
        check_targets(cfg)
    except TargetNotAllowed as err:
        print(f"harness: not started, the config is refused:\n{err}", file=sys.stderr)
        raise SystemExit(2) from err


def check_logging_targets(log_config: DictConfig) -> None:
    """Raises :class:`TargetNotAllowed` for a ``()`` or ``class`` of a logging config node that is
    not the logging package's, the harness's or a declared plugin (read from the node's root config)."""
    root = log_config._get_root()
    where = log_config._get_full_key(None) or "logging"
    declared = _declared(root if isinstance(root, DictConfig) else None)
    refused = [f"config key '{key}' names '{target}'" for key, target in _targets(log_config, where, logging=True)
               if not is_allowed(target, OWN_PACKAGES + LOGGING_PACKAGES, declared)]
    _refuse(refused, declared)


def is_allowed(target: str, packages: tuple[str, ...], declared: tuple[str, ...]) -> bool:
    """A declared name, or an object *defined* in one of the packages (not merely reachable from it:
    ``harness.cache.shutil.copyfile`` is ``shutil``'s)."""
    if target in declared:
        return True
    prefixes = packages + tuple(name for name in declared if name.endswith("."))
    if not target.startswith(prefixes):
        return False
    try:
        obj = _locate(target)
    except Exception:  # noqa: BLE001 - an unknown target is refused here; instantiate would fail too
        return False
    module = getattr(obj, "__module__", None) or getattr(obj, "__name__", "")
    return f"{module}.".startswith(prefixes)


def _targets(node, path: str, logging: bool = False) -> Iterator[tuple[str, str]]:
    """(dotted key, target) of every ``_target_`` under node, and of every ``()`` and ``class`` inside
    a logging config; interpolations resolved where they can be."""
    if isinstance(node, DictConfig):
        if node._is_missing() or node._is_none() or node._is_interpolation():
            return
        items = ((str(key), key) for key in node.keys())
    elif isinstance(node, ListConfig):
        if node._is_missing() or node._is_none() or node._is_interpolation():
            return
        items = ((str(i), i) for i in range(len(node)))
    else:
        return
    for name, key in items:
        where = f"{path}.{name}" if path else name
        in_logging = logging or f"{where}.".startswith(LOGGING_NODES)
        if name == "_target_":
            yield where, str(_value(node, key))
            continue
        if in_logging and name in LOGGING_KEYS and isinstance(node._get_node(key), ValueNode):
            yield where, str(_value(node, key))
            continue
        child = node._get_node(key)
        if child is not None and child._is_interpolation():
            if _NODE_FREE.fullmatch(str(child._value())):
                continue
            child = _value(node, key)  # e.g. ${oc.create:...} building a node with a target
        yield from _targets(child, where, in_logging)


def _value(node, key):
    try:
        return node[key]
    except Exception:  # noqa: BLE001 - unresolvable here (e.g. ${hydra:...} outside a job): nothing to check
        return None
