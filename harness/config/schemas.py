"""Structured-config schemas: one dataclass per config-group option.

Each YAML option names its schema in its defaults list (``/schema/<group>/<name>@_here_``),
so an unknown key or a wrong type fails when Hydra composes the config, before any data or
model loads, with Hydra's message naming the key.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Dict, List, Optional

from hydra.core.config_store import ConfigStore
from omegaconf import MISSING

from harness.config.route_schemas import register_route_schemas
from harness.config.judge_schemas import SelfCheckSchema


# --- dataset -------------------------------------------------------------------------------
@dataclass
class QuestionsJsonlDatasetSchema:
    _target_: str = MISSING
    name: str = MISSING
    questions: str = MISSING
    documents: str = MISSING
    extensions: List[str] = field(default_factory=lambda: [".md", ".markdown", ".txt"])


@dataclass
class BeirDatasetSchema:
    _target_: str = MISSING
    name: str = "beir"
    path: str = MISSING
    split: str = "test"


# --- chunker -------------------------------------------------------------------------------
@dataclass
class WholeDocumentChunkerSchema:
    _target_: str = MISSING


@dataclass
class FixedTokensChunkerSchema:
    _target_: str = MISSING
    tokenizer: str = MISSING
    size: int = 256
    overlap: int = 32


@dataclass
class RecursiveChunkerSchema:
    _target_: str = MISSING
    size: int = 1000
    overlap: int = 100
    separators: List[str] = field(default_factory=lambda: ["\n\n", "\n", ". ", " ", ""])


@dataclass
class MarkdownSectionsChunkerSchema:
    _target_: str = MISSING
    max_level: int = 6
    title_separator: str = " > "


# --- retriever -----------------------------------------------------------------------------
@dataclass
class BM25RetrieverSchema:
    _target_: str = MISSING
    top_k: int = 5
    k1: float = 0.9
    b: float = 0.4
    method: str = "lucene"
    stemmer: Optional[str] = "english"
    stopwords: Optional[str] = "en"
    include_title: bool = True


@dataclass
class DenseRetrieverSchema:
    _target_: str = MISSING
    top_k: int = 5
    model: str = MISSING
    device: str = "auto"
    batch_size: int = 64
    normalize: bool = True
    include_title: bool = True


@dataclass
class HybridRetrieverSchema:
    _target_: str = MISSING
    top_k: int = 5
    rrf_k: int = 60
    candidates: int = 100
    sparse: Any = MISSING
    dense: Any = MISSING


# --- metrics -------------------------------------------------------------------------------
@dataclass
class RetrievalSuiteSchema:
    _target_: str = MISSING
    ks: List[int] = field(default_factory=lambda: [1, 3, 5, 10])


@dataclass
class RankBand:
    max_rank: int = MISSING
    weight: float = MISSING


@dataclass
class KeyFactSuiteSchema:
    _target_: str = MISSING
    matchers: List[str] = field(default_factory=lambda: ["exact", "fuzzy"])
    position_weights: List[float] = MISSING
    position_fact_score: str = "first_hit"
    rank_bands: List[RankBand] = MISSING


# --- tracking ------------------------------------------------------------------------------
@dataclass
class MLflowTrackingSchema:
    _target_: str = MISSING
    tracking_uri: str = "sqlite:///mlflow.db"
    experiment_name: str = MISSING
    artifact_location: Optional[str] = "mlruns"
    ui_hint: bool = True


@dataclass
class NoTrackingSchema:
    _target_: str = MISSING


# --- generator / prompt / generation / pricing ---------------------------------------------
@dataclass
class NoGeneratorSchema:
    _target_: str = MISSING
    price_as: Optional[str] = None


@dataclass
class LocalGeneratorSchema:
    _target_: str = MISSING
    model: str = MISSING
    gguf_file: Optional[str] = None
    max_new_tokens: int = MISSING
    batch_size: int = MISSING
    device: str = "auto"
    dtype: str = "float32"
    price_as: Optional[str] = None


@dataclass
class OpenAIGeneratorSchema:
    _target_: str = MISSING
    model: str = MISSING
    base_url: Optional[str] = None
    api_key_env: str = MISSING
    max_tokens: int = MISSING
    temperature: Optional[float] = None
    timeout: float = MISSING
    max_retries: int = MISSING
    concurrency: int = 1
    price_as: Optional[str] = None


@dataclass
class AnthropicGeneratorSchema:
    _target_: str = MISSING
    model: str = MISSING
    api_key_env: str = MISSING
    max_tokens: int = MISSING
    temperature: Optional[float] = None
    timeout: float = MISSING
    max_retries: int = MISSING
    base_url: Optional[str] = None
    concurrency: int = 1
    price_as: Optional[str] = None


@dataclass
class PredictionsGeneratorSchema:
    _target_: str = MISSING
    path: str = MISSING
    on_missing: str = "error"
    price_as: Optional[str] = None


@dataclass
class SquadDatasetSchema:
    _target_: str = MISSING
    name: str = "squad"
    path: str = MISSING
    documents: str = "paragraphs"


@dataclass
class PromptSchema:
    _target_: str = MISSING
    system: Optional[str] = None
    with_context: str = MISSING
    no_context: str = MISSING
    context_item: str = MISSING
    context_separator: str = MISSING


@dataclass
class GenerationSchema:
    conditions: List[str] = field(default_factory=lambda: ["with_context"])
    contexts: Optional[int] = None
    sample: Optional[int] = None
    stratify: Optional[str] = None
    seed: int = 0
    max_failed_fraction: float = 0.5


@dataclass
class Price:
    input: float = MISSING
    output: float = MISSING


@dataclass
class PricingSchema:
    table: Dict[str, Price] = field(default_factory=dict)


@dataclass
class GenerationSuiteSchema:
    _target_: str = MISSING
    prices: Dict[str, Price] = field(default_factory=dict)
    price_as: Optional[str] = None
    percentiles: List[int] = MISSING


@dataclass
class BERTScoreSettings:
    model: str = MISSING
    num_layers: int = MISSING
    idf: bool = False
    baseline: Optional[Dict[str, float]] = None
    batch_size: int = 64
    device: str = "auto"


@dataclass
class TaxonomySettings:
    correct_f1: float = MISSING
    hallucination_faithfulness: float = MISSING
    low_relevance_faithfulness: float = MISSING
    incomplete_max_tokens: int = MISSING
    incomplete_f1: float = MISSING
    verbose_rouge_l: float = MISSING
    verbose_f1: float = MISSING
    wrong_f1: float = MISSING


@dataclass
class AnswerSuiteSchema:
    _target_: str = MISSING
    bertscore: Optional[BERTScoreSettings] = None
    taxonomy: TaxonomySettings = field(default_factory=TaxonomySettings)
    badness_weights: Dict[str, float] = MISSING
    worst_n: int = MISSING


@dataclass
class InterpretationBand:
    min_delta_pp: Optional[float] = MISSING
    label: str = MISSING
    # True: the delta must exceed min_delta_pp, not merely reach it.
    exclusive: bool = False


@dataclass
class ContextDeltaSignificanceSchema:
    resamples: int = MISSING
    confidence: float = MISSING
    seed: int = 0
    min_pairs: int = MISSING


@dataclass
class ContextDeltaSuiteSchema:
    _target_: str = MISSING
    threshold: float = MISSING
    bands: List[InterpretationBand] = MISSING
    # The rubric whose judgements of both conditions replace the F1 proxy when present (null: proxy only).
    judge_rubric: Optional[str] = None
    pack_name: str = "run"
    significance: Optional[ContextDeltaSignificanceSchema] = None


# --- judge / rubric ------------------------------------------------------------------------
@dataclass
class NoJudgeSchema:
    _target_: str = MISSING


@dataclass
class LocalJudgeSchema:
    _target_: str = MISSING
    model: str = MISSING
    gguf_file: Optional[str] = None
    device: str = "auto"
    dtype: str = "float32"
    batch_size: int = MISSING
    max_new_tokens: int = MISSING
    temperature: float = 0.0
    samples: int = 1
    seed: int = 0
    cache: str = "on"
    selfcheck: Optional[SelfCheckSchema] = None
    max_failed_fraction: float = 0.5


@dataclass
class ApiJudgeSchema:
    _target_: str = MISSING
    model: str = MISSING
    api_key_env: str = MISSING
    max_tokens: int = MISSING
    temperature: Optional[float] = MISSING
    timeout: float = MISSING
    max_retries: int = MISSING
    base_url: Optional[str] = None
    concurrency: int = 1
    samples: int = 1
    cache: str = "on"
    seed: int = 0
    aliases: Dict[str, str] = field(default_factory=dict)
    selfcheck: Optional[SelfCheckSchema] = None
    max_failed_fraction: float = 0.5


@dataclass
class Message:
    role: str = MISSING
    content: str = MISSING


@dataclass
class Scale:
    min: float = MISSING
    max: float = MISSING


@dataclass
class VerdictBand:
    label: str = MISSING
    min_score: Optional[float] = MISSING


@dataclass
class VerdictSpec:
    field: str = MISSING
    bands: List[VerdictBand] = MISSING


@dataclass
class LocalReplies:
    value: float = MISSING
    replies: List[str] = MISSING


@dataclass
class LocalReading:
    prefixes: Dict[str, str] = MISSING
    messages: Optional[List[Message]] = None
    replies: Optional[Dict[str, List[LocalReplies]]] = None


@dataclass
class ScoreRubricSchema:
    _target_: str = MISSING
    column: str = MISSING
    applies_to: List[str] = MISSING
    messages: List[Message] = MISSING
    output: str = MISSING
    scores: Dict[str, Scale] = MISSING
    text_fields: List[str] = field(default_factory=list)
    verdict: Optional[VerdictSpec] = None
    accuracy_threshold: Optional[float] = None
    local: LocalReading = field(default_factory=LocalReading)
    repair: str = MISSING
    context_item: str = "[{rank}] {text}"
    context_separator: str = "\n\n"


@dataclass
class RetrievalGradeRubricSchema(ScoreRubricSchema):
    position_weights: List[RankBand] = MISSING
    not_found_weight: float = MISSING
    total_score_column: str = MISSING


@dataclass
class ClaimsExtraction:
    messages: List[Message] = MISSING
    local_prefix: str = ""


@dataclass
class ClaimsVerification:
    messages: List[Message] = MISSING
    replies: Dict[str, List[str]] = MISSING


@dataclass
class ClaimsRubricSchema:
    _target_: str = MISSING
    column: str = MISSING
    applies_to: List[str] = MISSING
    extract: ClaimsExtraction = field(default_factory=ClaimsExtraction)
    verify: ClaimsVerification = field(default_factory=ClaimsVerification)
    max_claims: int = MISSING
    repair: str = MISSING
    context_item: str = "[{rank}] {text}"
    context_separator: str = "\n\n"


@dataclass
class JudgeSuiteSchema:
    _target_: str = MISSING


# --- stats ---------------------------------------------------------------------------------
@dataclass
class PrimaryMetric:
    name: Optional[str] = None  # null: the first headline metric the runs have
    direction: str = "higher"


@dataclass
class GuardMetric:
    name: str = MISSING
    direction: str = "higher"
    tolerance: float = MISSING


@dataclass
class SweepStatisticsSchema:
    _target_: str = MISSING
    alpha: float = MISSING
    power: float = MISSING
    primary: PrimaryMetric = field(default_factory=PrimaryMetric)
    guards: List[GuardMetric] = field(default_factory=list)
    test: str = "t"
    resamples: int = MISSING
    seed: int = 0
    correction: str = "holm"
    champion: Optional[str] = None
    planning_effects: List[float] = MISSING
    headline: List[str] = field(default_factory=list)


@dataclass
class NoStatisticsSchema:
    _target_: str = MISSING


# --- top level -----------------------------------------------------------------------------
@dataclass
class CacheSchema:
    dir: str = ".cache/harness"
    enabled: bool = True


@dataclass
class ModelsSchema:
    encoder: str = MISSING
    device: str = "auto"


@dataclass
class ReportSchema:
    headline: List[str] = field(default_factory=list)


@dataclass
class PluginsSchema:
    # `_target_`s outside the harness that configs may instantiate (harness/config/allowlist.py).
    allowed_targets: List[str] = field(default_factory=list)


@dataclass
class HarnessSchema:
    dataset: Any = MISSING
    chunker: Any = MISSING
    retriever: Any = MISSING
    metrics: Dict[str, Any] = field(default_factory=dict)
    tracking: Any = MISSING
    stats: Any = MISSING
    generator: Any = MISSING
    prompt: Any = MISSING
    judge: Any = MISSING
    rubrics: Dict[str, Any] = field(default_factory=dict)
    pricing: PricingSchema = field(default_factory=PricingSchema)
    generation: GenerationSchema = field(default_factory=GenerationSchema)
    experiment_name: str = "harness"
    seed: int = 0
    cache: CacheSchema = field(default_factory=CacheSchema)
    models: ModelsSchema = field(default_factory=ModelsSchema)
    report: ReportSchema = field(default_factory=ReportSchema)
    human: Any = None
    meta_eval: Any = None
    gates: Any = None
    routes: Any = MISSING
    router: Any = MISSING
    plugins: PluginsSchema = field(default_factory=PluginsSchema)


_GROUP_SCHEMAS = {
    "dataset": {"questions_jsonl": QuestionsJsonlDatasetSchema, "beir": BeirDatasetSchema,
                "squad": SquadDatasetSchema},
    "chunker": {
        "none": WholeDocumentChunkerSchema,
        "fixed_tokens": FixedTokensChunkerSchema,
        "recursive": RecursiveChunkerSchema,
        "markdown_sections": MarkdownSectionsChunkerSchema,
    },
    "retriever": {
        "bm25": BM25RetrieverSchema,
        "dense": DenseRetrieverSchema,
        "hybrid": HybridRetrieverSchema,
    },
    "metrics": {"retrieval": RetrievalSuiteSchema, "key_facts": KeyFactSuiteSchema,
                "generation": GenerationSuiteSchema, "context_delta": ContextDeltaSuiteSchema,
                "answer": AnswerSuiteSchema, "judge": JudgeSuiteSchema},
    "generator": {"none": NoGeneratorSchema, "local": LocalGeneratorSchema, "openai": OpenAIGeneratorSchema,
                  "anthropic": AnthropicGeneratorSchema, "predictions": PredictionsGeneratorSchema},
    "prompt": {"default": PromptSchema},
    "judge": {"none": NoJudgeSchema, "local": LocalJudgeSchema, "openai": ApiJudgeSchema,
              "anthropic": ApiJudgeSchema},
    "rubric": {"score": ScoreRubricSchema, "retrieval_grade": RetrievalGradeRubricSchema,
               "claims": ClaimsRubricSchema},
    "tracking": {"mlflow": MLflowTrackingSchema, "none": NoTrackingSchema},
    "stats": {"paired": SweepStatisticsSchema, "none": NoStatisticsSchema},
}


def register_schemas() -> None:
    cs = ConfigStore.instance()
    cs.store(name="harness_schema", node=HarnessSchema)
    for group, options in _GROUP_SCHEMAS.items():
        for name, node in options.items():
            cs.store(group=f"schema/{group}", name=name, node=node)
    register_route_schemas(cs)


# --- human evaluation ----------------------------------------------------------------------
@dataclass
class JudgeColumnSchema:
    column: str = MISSING
    min: float = MISSING
    max: float = MISSING


@dataclass
class HumanDimensionSchema:
    prompt: str = MISSING
    levels: List[Any] = MISSING
    rubric: List[str] = MISSING
    judge: Optional[JudgeColumnSchema] = None


@dataclass
class HumanSampleSchema:
    strategy: str = "stratified"
    n: int = MISSING
    seed: int = 0
    worst_column: str = MISSING
    worst_direction: str = "lower"
    category_prefix: str = MISSING
    shuffle: bool = True


@dataclass
class KappaBandSchema:
    min: Optional[float] = MISSING
    label: str = MISSING


@dataclass
class HumanEvalSchema:
    _target_: str = MISSING
    _convert_: str = "all"
    dimensions: Dict[str, HumanDimensionSchema] = MISSING
    sample: HumanSampleSchema = field(default_factory=HumanSampleSchema)
    landis_koch: List[KappaBandSchema] = MISSING
    kappa_decimals: int = MISSING
    target_kappa: float = MISSING
    confidence: float = MISSING
    min_pairs: int = MISSING
    experiment_name: str = "harness"


_GROUP_SCHEMAS["human"] = {"default": HumanEvalSchema}
