"""Blocks shared by several groups' schemas.

Defaults live in the YAML options, not here: a field is ``MISSING`` unless ``None`` means "not set".
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Optional

from omegaconf import MISSING

from harness.config.schemas.choices import Role


@dataclass
class TargetSchema:
    """Every instantiable option names its class."""

    _target_: str = MISSING


@dataclass
class Message:
    role: Role = MISSING
    content: str = MISSING


@dataclass
class RankBand:
    max_rank: int = MISSING
    weight: float = MISSING


@dataclass
class LocalModelSchema(TargetSchema):
    """A transformers causal LM (by id, path, or a GGUF file in that folder), shared by the local
    generator and the local judge."""

    model: str = MISSING
    gguf_file: Optional[str] = None
    device: str = MISSING
    dtype: str = MISSING
    batch_size: int = MISSING
    max_new_tokens: int = MISSING


@dataclass
class ApiClientSchema(TargetSchema):
    """An HTTP chat API (OpenAI-compatible or Anthropic), shared by API generators and judges.

    The key is read from the environment variable ``api_key_env`` names, never from the config.
    """

    model: str = MISSING
    base_url: Optional[str] = None
    api_key_env: str = MISSING
    max_tokens: int = MISSING
    temperature: Optional[float] = None
    timeout: float = MISSING
    max_retries: int = MISSING
    concurrency: int = MISSING
