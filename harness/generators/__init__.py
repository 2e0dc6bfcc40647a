"""Generators: turn a question (and retrieved contexts) into an answer, with timing and token counts."""

from harness.generators.base import Generation, GenerationRequest, Generator

__all__ = ["Generation", "GenerationRequest", "Generator"]
