"""Schemas of the ``dataset`` group."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Dict, List, Optional

from omegaconf import MISSING

from harness.config.schemas.base import TargetSchema
from harness.config.schemas.choices import Duplicates


@dataclass
class QuestionFieldsSchema:
    """The column of each part of a question (null: the usual names, harness/data/question_fields.py)."""

    question: Optional[str] = None
    answers: Optional[str] = None
    id: Optional[str] = None
    relevant: Optional[str] = None
    contexts: Optional[str] = None
    key_facts: Optional[str] = None


@dataclass
class QuestionsJsonlDatasetSchema(TargetSchema):
    name: str = MISSING
    questions: str = MISSING
    documents: str = MISSING
    extensions: List[str] = MISSING
    fields: QuestionFieldsSchema = field(default_factory=QuestionFieldsSchema)
    required: List[str] = MISSING
    passage_overlap: float = MISSING
    duplicates: Duplicates = MISSING  # keep | merge | error: a question without an id asked twice


@dataclass
class MlflowEvalDatasetSchema(TargetSchema):
    """An MLflow evaluation dataset by name, from the tracking store, over a folder of documents."""

    name: str = MISSING
    evaluation_dataset: str = MISSING
    documents: str = MISSING
    tracking_uri: str = MISSING
    extensions: List[str] = MISSING
    fields: QuestionFieldsSchema = field(default_factory=QuestionFieldsSchema)
    required: List[str] = MISSING
    passage_overlap: float = MISSING


@dataclass
class DocumentsDatasetSchema(TargetSchema):
    """A folder of documents and no questions (what ``harness synth`` writes questions from)."""

    name: str = MISSING
    documents: str = MISSING
    extensions: List[str] = MISSING


@dataclass
class SyntheticDatasetSchema(TargetSchema):
    """A set ``harness synth`` wrote, over the corpus its summary names."""

    name: str = MISSING
    questions: str = MISSING


@dataclass
class BeirDatasetSchema(TargetSchema):
    name: str = MISSING
    path: str = MISSING
    split: str = MISSING


@dataclass
class SquadDatasetSchema(TargetSchema):
    name: str = MISSING
    path: str = MISSING
    documents: str = MISSING


@dataclass
class SubsetSchema(TargetSchema):
    """``limit`` (the first N questions) or ``sample`` (N drawn with ``seed``); null: all."""

    limit: Optional[int] = None
    sample: Optional[int] = None
    seed: int = MISSING


@dataclass
class FlashragDatasetSchema(SubsetSchema):
    name: str = MISSING
    questions: str = MISSING
    corpus: str = MISSING


@dataclass
class HfFieldsSchema:
    """Which column holds each part of a question; dotted paths reach into nested columns."""

    question: str = MISSING
    answers: Optional[str] = None
    id: Optional[str] = None
    relevant: Optional[str] = None
    context: Optional[str] = None
    context_title: Optional[str] = None


@dataclass
class HfCorpusFieldsSchema:
    """A corpus row: ``id`` plus ``text`` (and ``title``), or FlashRAG's ``contents`` (title on line one)."""

    id: str = MISSING
    text: Optional[str] = None
    title: Optional[str] = None
    contents: Optional[str] = None


@dataclass
class HfDatasetSchema(SubsetSchema):
    name: str = MISSING
    path: str = MISSING
    config_name: Optional[str] = None
    split: str = MISSING
    revision: Optional[str] = None
    fields: HfFieldsSchema = MISSING
    corpus: Optional[str] = None
    corpus_config_name: Optional[str] = None
    corpus_split: str = MISSING
    corpus_fields: HfCorpusFieldsSchema = MISSING
    cache_dir: Optional[str] = None
    load_options: Dict[str, Any] = MISSING


OPTIONS = {"questions_jsonl": QuestionsJsonlDatasetSchema, "beir": BeirDatasetSchema, "squad": SquadDatasetSchema,
           "flashrag": FlashragDatasetSchema, "hf": HfDatasetSchema, "documents": DocumentsDatasetSchema,
           "synthetic": SyntheticDatasetSchema, "mlflow_eval": MlflowEvalDatasetSchema}
