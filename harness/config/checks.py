"""What a composed config must pass before anything is instantiated (runs, sweeps, each job)."""

from __future__ import annotations

from omegaconf import DictConfig

from harness.config.allowlist import check_targets
from harness.config.options import check_choices
from harness.config.secrets import check_no_secrets


def check_config(cfg: DictConfig) -> None:
    """Raises a ValueError naming the key: an unknown option, a foreign `_target_`, or a secret
    written into the config."""
    check_choices(cfg)
    check_targets(cfg)
    check_no_secrets(cfg)
