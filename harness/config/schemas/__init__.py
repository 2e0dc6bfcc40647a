"""Structured-config schemas: one module per config group, one dataclass per option.

Each YAML option names its schema in its defaults list (``/schema/<group>/<name>@_here_``), so an
unknown key, a wrong type or a value outside a choice (:mod:`.choices`) fails when Hydra composes
the config, before any data or model loads, with Hydra's message naming the key. The YAML options
hold every default value; a schema field is ``MISSING`` unless ``None`` means "not set".
"""

from __future__ import annotations

from hydra.core.config_store import ConfigStore

from harness.config.schemas import (app, chunker, dataset, gates, generator, human, judge, meta_eval, metrics,
                                    reranker, retriever, router, routes, rubric, stats, synth, tracking)
from harness.config.schemas.root import HarnessSchema

# config group -> {option name -> schema}; stored as ``schema/<group>/<option>``.
GROUP_SCHEMAS = {
    "dataset": dataset.OPTIONS,
    "chunker": chunker.OPTIONS,
    "retriever": retriever.OPTIONS,
    "reranker": reranker.OPTIONS,
    "metrics": metrics.OPTIONS,
    "generator": generator.OPTIONS,
    "prompt": generator.PROMPT_OPTIONS,
    "judge": judge.OPTIONS,
    "rubric": rubric.OPTIONS,
    "tracking": tracking.OPTIONS,
    "stats": stats.OPTIONS,
    "human": human.OPTIONS,
    "meta_eval": meta_eval.OPTIONS,
    "routes": routes.OPTIONS,
    "router": router.OPTIONS,
    "gates": gates.OPTIONS,
    "synth": synth.OPTIONS,
    "app": app.OPTIONS,
}


def register_schemas() -> None:
    """Stores the root schema and every group's option schemas in Hydra's ConfigStore."""
    store = ConfigStore.instance()
    store.store(name="harness_schema", node=HarnessSchema)
    for group, options in GROUP_SCHEMAS.items():
        for name, node in options.items():
            store.store(group=f"schema/{group}", name=name, node=node)
