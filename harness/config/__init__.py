"""Configuration: structured-config schemas (ConfigStore) and OmegaConf resolvers."""

from harness.config.resolvers import register_resolvers
from harness.config.schemas import register_schemas
from harness.config.speedups import speed_up_omegaconf


def register() -> None:
    """Registers schemas and resolvers (and speeds OmegaConf up: harness.config.speedups); safe to
    call more than once."""
    speed_up_omegaconf()
    register_resolvers()
    register_schemas()
