"""Every chosen option of a config group exists (an optional group such as `experiment` would
otherwise let Hydra drop a misspelt choice silently)."""

from __future__ import annotations

from hydra.core.global_hydra import GlobalHydra
from omegaconf import DictConfig, ListConfig, OmegaConf


_OPTIONS: dict[tuple[int, str], list[str]] = {}


class UnknownOption(ValueError):
    """A group option named on the command line or in a defaults list does not exist."""


def check_choices(cfg: DictConfig) -> None:
    """Raises :class:`UnknownOption` naming the group, the choice and the available options.

    Checks the groups the overrides choose (the defaults lists' own choices are Hydra's to check).
    Needs Hydra's config loader (inside a run, a sweep or ``initialize``); elsewhere it checks nothing.
    """
    choices = OmegaConf.select(cfg, "hydra.runtime.choices", default=None)
    if not choices or not GlobalHydra.instance().is_initialized():
        return
    loader = GlobalHydra.instance().config_loader()
    for group in _overridden_groups(OmegaConf.select(cfg, "hydra.overrides.task", default=None) or []):
        chosen = choices.get(group)
        if chosen is None:
            continue
        available = _options(loader, group)
        for option in (list(chosen) if isinstance(chosen, ListConfig) else [chosen]):
            if option not in available:
                raise UnknownOption(f"unknown {group} '{option}'; available: {', '.join(available)}")


def _options(loader, group: str) -> list[str]:
    # Listing a group builds a config repository (slow); a sweep checks the same groups for every job.
    key = (id(loader), group)
    if key not in _OPTIONS:
        _OPTIONS[key] = loader.get_group_options(group)
    return _OPTIONS[key]


def _overridden_groups(overrides) -> set[str]:
    """``experiment=x``, ``+experiment=x``, ``override /chunker=...`` -> their groups (not ``a.b=...`` values)."""
    groups = set()
    for override in overrides:
        key = str(override).split("=", 1)[0].lstrip("+~").lstrip("/")
        if "=" in str(override) and "." not in key and not key.startswith("hydra/"):
            groups.add(key)
    return groups
