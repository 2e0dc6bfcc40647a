"""Schemas of the ``chunker`` group."""

from __future__ import annotations

from dataclasses import dataclass
from typing import List

from omegaconf import MISSING

from harness.config.schemas.base import TargetSchema


@dataclass
class WholeDocumentChunkerSchema(TargetSchema):
    pass


@dataclass
class FixedTokensChunkerSchema(TargetSchema):
    tokenizer: str = MISSING
    size: int = MISSING
    overlap: int = MISSING


@dataclass
class RecursiveChunkerSchema(TargetSchema):
    size: int = MISSING
    overlap: int = MISSING
    separators: List[str] = MISSING


@dataclass
class MarkdownSectionsChunkerSchema(TargetSchema):
    max_level: int = MISSING
    title_separator: str = MISSING


OPTIONS = {"none": WholeDocumentChunkerSchema, "fixed_tokens": FixedTokensChunkerSchema,
           "recursive": RecursiveChunkerSchema, "markdown_sections": MarkdownSectionsChunkerSchema}
