"""Schemas of the ``dataset`` group."""

from __future__ import annotations

from dataclasses import dataclass
from typing import List

from omegaconf import MISSING

from harness.config.schemas.base import TargetSchema


@dataclass
class QuestionsJsonlDatasetSchema(TargetSchema):
    name: str = MISSING
    questions: str = MISSING
    documents: str = MISSING
    extensions: List[str] = MISSING


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


OPTIONS = {"questions_jsonl": QuestionsJsonlDatasetSchema, "beir": BeirDatasetSchema, "squad": SquadDatasetSchema}
