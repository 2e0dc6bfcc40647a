"""What a sweeper's rounds change in a job's overrides, asked of the configured sweeper.

A sweeper that runs the same configurations round after round (the racing sweeper:
hydra_plugins/harness_racing) says which keys alone change from one round of a configuration to
the next (``round_keys()``) and which overrides a round adds to a grid job's (``grid_job()``); a
worker then continues a configuration's config from its round before. Any other sweeper has no
rounds.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Sequence

from hydra.utils import get_class
from omegaconf import DictConfig, OmegaConf


@dataclass(frozen=True)
class Rounds:
    keys: frozenset[str] = frozenset()
    grid: Callable[[Sequence[str]], tuple[str, ...]] = tuple

    def configuration_of(self, overrides: Sequence[str]) -> tuple[str, ...]:
        """The job's overrides but its round's own: the same for every round of one configuration."""
        return tuple(o for o in overrides if o.split("=", 1)[0].strip() not in self.keys)

    def grid_job(self, overrides: Sequence[str]) -> tuple[str, ...]:
        """The grid job a round's job runs (as the start check checked it)."""
        return tuple(self.grid(overrides))


def rounds_of(config: DictConfig) -> Rounds:
    """The rounds of the sweeper ``config`` names (``hydra.sweeper._target_``)."""
    target = OmegaConf.select(config, "hydra.sweeper._target_", default=None)
    try:
        sweeper = get_class(str(target)) if target else None
    except Exception:  # noqa: BLE001 - a sweeper that cannot be located here has no rounds for the launcher
        sweeper = None
    if sweeper is None or not hasattr(sweeper, "round_keys"):
        return Rounds()
    return Rounds(frozenset(sweeper.round_keys()), getattr(sweeper, "grid_job", tuple))
