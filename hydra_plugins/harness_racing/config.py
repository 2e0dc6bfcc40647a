"""The racing sweeper's config, stored where Hydra looks for sweepers (``hydra/sweeper=racing``).

The race's own settings (block sizes, alpha, the test) are the root ``race`` block of the
harness config (conf/config.yaml, schema harness/config/schemas/race.py): every job reads
``race.questions`` from there too.
"""

from dataclasses import dataclass
from typing import Dict, Optional

from hydra.core.config_store import ConfigStore


@dataclass
class RacingSweeperConf:
    _target_: str = "hydra_plugins.harness_racing.racing_sweeper.RacingSweeper"
    # Sweep parameters, as the basic sweeper takes them (`chunker: fixed_tokens,recursive`).
    params: Optional[Dict[str, str]] = None


ConfigStore.instance().store(group="hydra/sweeper", name="racing", node=RacingSweeperConf, provider="harness")
