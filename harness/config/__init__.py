"""Configuration: structured-config schemas (ConfigStore) and OmegaConf resolvers."""

from harness.config.gates_schema import register_gates_schema
from harness.config.judge_schemas import register_judge_schemas
from harness.config.meta_eval_schema import register_meta_eval_schemas
from harness.config.resolvers import register_resolvers
from harness.config.schemas import register_schemas


def register() -> None:
    """Registers schemas and resolvers; safe to call more than once."""
    register_resolvers()
    register_schemas()
    register_meta_eval_schemas()
    register_judge_schemas()
    register_gates_schema()
