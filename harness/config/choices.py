"""Every chosen option of a config group exists (an optional group such as `experiment` would
otherwise let Hydra drop a misspelt choice silently)."""

from __future__ import annotations

from hydra.core.global_hydra import GlobalHydra
from omegaconf import DictConfig, ListConfig, OmegaConf


class UnknownOption(ValueError):
    """A group option named on the command line or in a defaults list does not exist."""


def check_choices(cfg: DictConfig) -> None:
    """Raises :class:`UnknownOption` naming the group, the choice and the available options.

    Needs Hydra's config loader (inside a run, a sweep or ``initialize``); elsewhere it checks nothing.
    """
    choices = OmegaConf.select(cfg, "hydra.runtime.choices", default=None)
    if not choices or not GlobalHydra.instance().is_initialized():
        return
    loader = GlobalHydra.instance().config_loader()
    for group, chosen in choices.items():
        if chosen is None or group.startswith(("hydra/", "schema/")) or "@" in group:
            continue
        available = loader.get_group_options(group)
        for option in (list(chosen) if isinstance(chosen, ListConfig) else [chosen]):
            if option not in available:
                raise UnknownOption(f"unknown {group} '{option}'; available: {', '.join(available)}")
