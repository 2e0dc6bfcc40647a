"""The judge interface: what a rubric may ask of a judge model.

A rubric (``harness.judges.rubrics``) renders prompts and reads replies; a judge answers them.
Two primitives cover every rubric:

* :meth:`Judge.complete` — the reply text to each prompt (API judges; the local judge decodes
  greedily, or samples when ``temperature > 0``).
* :meth:`Judge.probabilities` — the probability of each of a fixed set of candidate replies
  (judges that expose the next-token distribution: the local judge). A rubric then reads its
  score as the probability-weighted mean over its scale, which is deterministic and can never be
  unparsable.
* :meth:`Judge.log_likelihoods` — the token log-probabilities of a fixed continuation after each
  prompt (the likelihood rubrics, BARTScore/GPTScore manner; the local judge).
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from dataclasses import dataclass
from typing import Any

from harness.config.schemas.choices import CacheMode, values
from harness.judges.selfcheck import SelfCheckSettings

CACHE_MODES = values(CacheMode)


@dataclass(frozen=True)
class JudgePrompt:
    """Chat messages, plus the start of the assistant's reply for judges that can prefill it, and
    the JSON schema a reply must follow where the rubric has one (for servers with structured output)."""

    messages: tuple[dict[str, str], ...]
    prefix: str = ""
    schema: dict[str, Any] | None = None


@dataclass(frozen=True)
class Reply:
    """A judge's reply text, or why there is none (the error never contains an API key)."""

    text: str = ""
    error: str | None = None


class Judge(ABC):
    """A judge model.

    Attributes:
        enabled: False for ``judge=none``.
        reads_distributions: True when :meth:`probabilities` is available.
        reads_likelihoods: True when :meth:`log_likelihoods` is available.
        samples: judgements per item; > 1 (with temperature > 0) measures the judge's consistency.
        cache: ``on`` (read and write the judgement cache), ``refresh`` (recompute and overwrite),
            ``off`` (neither).
        selfcheck: the self-check run before the first real item (:mod:`harness.judges.selfcheck`).
        max_failed_fraction: the job fails when more than this share of the judge's calls failed
            (``harness.failures``).
        answers: what the judge answers: ``prompts`` (a rubric's own, through the primitives
            above) or ``scorers`` (MLflow's judges, :mod:`harness.judges.mlflow_judge`); a rubric
            asks for one of them (``Rubric.asks``).
    """

    enabled = True
    answers: frozenset[str] = frozenset({"prompts"})
    reads_distributions = False
    reads_likelihoods = False
    samples: int = 1
    cache: str = "on"
    seed: int = 0
    selfcheck: SelfCheckSettings = SelfCheckSettings(enabled=False)
    max_failed_fraction: float = 0.5

    @abstractmethod
    def fingerprint(self) -> dict[str, Any]:
        """Backend, model, model revision or file hash, decoding parameters: the cache key's judge part."""

    def describe(self) -> str:
        """A short name for reports, e.g. ``local:SmolLM2-135M-Instruct.Q4_1.gguf``."""
        fingerprint = self.fingerprint()
        return f"{fingerprint.get('judge')}:{fingerprint.get('model_name', fingerprint.get('model'))}"

    @abstractmethod
    def complete(self, prompts: list[JudgePrompt], sample: int = 0) -> list[Reply]:
        """One reply per prompt, in order; a failed call yields a Reply with ``error`` set
        (never an exception), so one bad item never stops the others. ``sample`` numbers the
        repetition when ``samples > 1`` (seeds sampling where the judge controls it)."""

    def probabilities(self, prompts: list[JudgePrompt], candidates: list[str]) -> list[list[float]]:
        """P(reply == candidate) for each prompt and candidate (unnormalised)."""
        raise NotImplementedError(f"{type(self).__name__} does not expose next-token probabilities")

    def log_likelihoods(self, prompts: list[JudgePrompt], continuations: list[str]) -> list[list[float]]:
        """Per token of ``continuations[i]``, its log-probability after ``prompts[i]`` (and its prefix)."""
        raise NotImplementedError(f"{type(self).__name__} does not expose token log-probabilities")

    def draw(self, weights: dict[float, float], prompt: JudgePrompt, sample: int) -> float:
        """A value drawn from a score distribution (sampling judges that read probabilities)."""
        raise NotImplementedError(f"{type(self).__name__} does not draw from distributions")

    @staticmethod
    def check_sampling(samples: int, temperature: float | None, cache: str, *, default_samples: bool) -> None:
        """Validates the options every judge shares; ``default_samples`` says whether a null
        temperature means the backend's own sampling (Anthropic) rather than greedy."""
        if samples < 1:
            raise ValueError(f"judge.samples must be >= 1, got {samples}")
        if temperature is not None and temperature < 0:
            raise ValueError(f"judge.temperature must be >= 0 or null, got {temperature}")
        deterministic = temperature == 0 or (temperature is None and not default_samples)
        if samples > 1 and deterministic:
            raise ValueError(f"judge.samples={samples} needs judge.temperature > 0: at temperature "
                             f"{temperature} every sample is the same")
        if cache not in CACHE_MODES:
            raise ValueError(f"judge.cache must be one of {list(CACHE_MODES)}, got {cache!r} "
                             f"(in YAML, quote on/off: they are booleans there)")


class NoJudge(Judge):
    """``judge=none``: nothing is judged."""

    enabled = False

    def fingerprint(self) -> dict[str, Any]:
        return {"judge": "none"}

    def complete(self, prompts: list[JudgePrompt], sample: int = 0) -> list[Reply]:
        raise RuntimeError("judge=none judges nothing")
