"""Configuration: structured-config schemas (ConfigStore) and OmegaConf resolvers."""

from harness.config.resolvers import register_resolvers
from harness.config.schemas import register_schemas


def register() -> None:
    """Registers schemas and resolvers; safe to call more than once."""
    register_resolvers()
    register_schemas()
