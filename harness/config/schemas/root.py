"""The root schema (``harness_schema``): the groups and the top-level blocks of conf/config.yaml."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Dict, List

from omegaconf import MISSING

from harness.config.schemas.choices import ConsoleMode
from harness.config.schemas.generator import GenerationSchema, PricingSchema
from harness.config.schemas.race import RaceSchema


@dataclass
class CacheSchema:
    dir: str = MISSING
    enabled: bool = MISSING


@dataclass
class ModelsSchema:
    encoder: str = MISSING
    device: str = MISSING


@dataclass
class ReportSchema:
    # Columns of the end-of-sweep leaderboard; the first one sorts it.
    headline: List[str] = MISSING
    # The end-of-sweep console summary: one screen (brief) or every table (full).
    console: ConsoleMode = MISSING
    # Keys whose values are paths, named by file stem in run names.
    path_keys: List[str] = MISSING


@dataclass
class PluginsSchema:
    # `_target_`s outside the harness that configs may instantiate (harness/config/allowlist.py).
    allowed_targets: List[str] = MISSING


@dataclass
class HarnessSchema:
    dataset: Any = MISSING
    chunker: Any = MISSING
    retriever: Any = MISSING
    reranker: Any = MISSING
    metrics: Dict[str, Any] = field(default_factory=dict)
    tracking: Any = MISSING
    stats: Any = MISSING
    generator: Any = MISSING
    prompt: Any = MISSING
    judge: Any = MISSING
    rubrics: Dict[str, Any] = field(default_factory=dict)
    pricing: PricingSchema = field(default_factory=PricingSchema)
    generation: GenerationSchema = field(default_factory=GenerationSchema)
    experiment_name: str = MISSING
    seed: int = MISSING
    cache: CacheSchema = field(default_factory=CacheSchema)
    models: ModelsSchema = field(default_factory=ModelsSchema)
    report: ReportSchema = field(default_factory=ReportSchema)
    human: Any = None
    meta_eval: Any = None
    gates: Any = None
    synth: Any = None  # `harness synth` adds the group (+synth=cloze|llm); runs have none
    routes: Any = MISSING
    router: Any = MISSING
    app: Any = None  # your own application in place of the pipeline's parts (conf/app/); none: the harness's
    plugins: PluginsSchema = field(default_factory=PluginsSchema)
    race: RaceSchema = field(default_factory=RaceSchema)
    objectives: List[str] = MISSING
