"""The grid sweeper's config, stored where Hydra looks for sweepers (``hydra/sweeper=grid``): the
basic sweeper's keys."""

from dataclasses import dataclass
from typing import Dict, Optional

from hydra.core.config_store import ConfigStore


@dataclass
class GridSweeperConf:
    _target_: str = "hydra_plugins.harness_grid.grid_sweeper.GridSweeper"
    max_batch_size: Optional[int] = None
    # Sweep parameters, as the basic sweeper takes them (`chunker: fixed_tokens,recursive`).
    params: Optional[Dict[str, str]] = None


ConfigStore.instance().store(group="hydra/sweeper", name="grid", node=GridSweeperConf, provider="harness")
