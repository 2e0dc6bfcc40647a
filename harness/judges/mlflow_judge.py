"""MLflow's own GenAI judges as the harness's judge (``judge=mlflow``).

MLflow's built-in scorers (``Correctness``, ``RelevanceToQuery``, ``Guidelines``...), the judge
functions they call (``is_grounded``, ``is_context_sufficient``...) and ``make_judge`` rubrics
carry their own prompts and read their own verdicts; an ``mlflow_*`` rubric
(:mod:`harness.judges.rubrics.mlflow_scorer`) names which one fills a column. This judge gives
them the model, a provider URI such as ``openai:/gpt-4o-mini``, optionally served at an
OpenAI-compatible base URL, and runs their calls: concurrently, each failure kept with its reason.

MLflow's judges read the key and base URL from the environment (``OPENAI_API_KEY``,
``OPENAI_API_BASE``...). While the judge's calls run, and only then, the key held by
``api_key_env`` and ``base_url`` are exported under the names ``provider_env`` gives for the model's
provider, and MLflow's download of its remote model catalog (which it reads to size a context
and price a call) and its usage telemetry are switched off, so the judge's own endpoint is the
only one contacted; the environment is restored afterwards. MLflow retries a call that times out
or cannot connect up to 10 times with backoff (minutes in all): a base URL that refuses a
connection fails the batch's items at once instead.
"""

from __future__ import annotations

import math
import os
import socket
import threading
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from importlib.metadata import version
from typing import Any
from urllib.parse import urlsplit

from harness.config.secrets import redact_text
from harness.failures import check_fraction
from harness.generators.api import api_key_from_env, describe_error
from harness.judges.base import Judge, JudgePrompt, Reply
from harness.judges.selfcheck import SelfCheckSettings
from harness.progress import map_with_progress

SCORERS = "scorers"  # what this judge answers: MLflow scorer rubrics, no prompts of its own
# MLflow settings that keep its judges offline but for the judge's endpoint: an empty catalog URI
# reads the model catalog bundled with MLflow instead of downloading it.
OFFLINE = {"MLFLOW_MODEL_CATALOG_URI": "", "MLFLOW_DISABLE_TELEMETRY": "true"}
TIMEOUT = "MLFLOW_GATEWAY_ROUTE_TIMEOUT_SECONDS"  # MLflow's per-request timeout (whole seconds)
# os.environ is the process's: two judges (a sweep's jobs in threads) export one at a time.
_ENVIRONMENT = threading.RLock()


class MlflowJudge(Judge):
    """Args:
        model: the judge model as MLflow names it, ``<provider>:/<model>`` (``openai:/gpt-4o-mini``).
        base_url: an OpenAI-compatible API root (``http://localhost:8000/v1``), or null for the
            provider's own.
        api_key_env: NAME of the environment variable holding the key (read at each batch, never
            stored, logged or part of the cache key); null leaves the environment as it is.
        provider_env: per provider, the variables MLflow reads: ``key_env`` (the key) and
            ``base_url_var`` (the base URL, null where MLflow takes none).
        timeout: seconds per HTTP request (rounded up to whole seconds, as MLflow reads them).
        probe_timeout: seconds a connection to ``base_url`` may take before its items fail.
        concurrency: calls in flight at once.
        cache, seed, selfcheck, max_failed_fraction: as every judge's (:class:`~harness.judges.base.Judge`).
    """

    answers = frozenset({SCORERS})

    def __init__(self, *, model: str, provider_env: Mapping[str, Mapping[str, str | None]], timeout: float,
                 probe_timeout: float, base_url: str | None = None, api_key_env: str | None = None,
                 concurrency: int = 1, cache: str = "on", seed: int = 0, selfcheck: Mapping[str, Any] | None = None,
                 max_failed_fraction: float = 0.5) -> None:
        provider, _, name = model.partition(":/")
        if not provider or not name.strip("/"):
            raise ValueError(f"judge.model must name a provider and a model, as openai:/gpt-4o-mini, got {model!r}")
        names = dict(provider_env.get(provider) or {})
        if (api_key_env or base_url) and not names:
            raise ValueError(f"judge.provider_env has no entry for provider {provider!r} ({sorted(provider_env)}): "
                             "add the variables MLflow reads for it, or set judge.api_key_env and judge.base_url "
                             "to null and export them yourself")
        if base_url and not names.get("base_url_var"):
            raise ValueError(f"judge.base_url: MLflow's {provider} judges take no base URL "
                             f"(judge.provider_env.{provider}.base_url_var is null)")
        if timeout <= 0 or probe_timeout <= 0 or concurrency < 1:
            raise ValueError(f"judge.timeout and judge.probe_timeout must be > 0 and judge.concurrency >= 1, got "
                             f"{timeout}, {probe_timeout} and {concurrency}")
        self.check_sampling(1, 0.0, cache, default_samples=False)
        self.model, self.base_url, self.api_key_env, self.names = model, base_url, api_key_env, names
        self.timeout, self.probe_timeout, self.concurrency = timeout, probe_timeout, concurrency
        self.cache, self.seed = cache, seed
        self.selfcheck = SelfCheckSettings.from_config(selfcheck, seed)
        self.max_failed_fraction = check_fraction("judge.max_failed_fraction", max_failed_fraction)

    def __repr__(self) -> str:
        return f"MlflowJudge(model={self.model!r}, base_url={self.base_url!r}, api_key_env={self.api_key_env!r})"

    def fingerprint(self) -> dict[str, Any]:
        # MLflow's version: its judges' prompts are MLflow's own and change with it.
        return {"judge": "mlflow", "model": self.model, "base_url": redact_text(self.base_url),
                "mlflow": version("mlflow")}

    def describe(self) -> str:
        return f"mlflow:{self.model}"

    def complete(self, prompts: list[JudgePrompt], sample: int = 0) -> list[Reply]:
        return [Reply(error="judge=mlflow runs MLflow's judges (the mlflow_* rubrics); it answers no prompt")
                for _ in prompts]

    def run(self, calls: list[Callable[[], Any]], what: str) -> list[tuple[Any, str | None]]:
        """``(call(), None)`` for each call that returned, ``(None, reason)`` for each that raised,
        in order; the key never appears in a reason."""
        if not calls:
            return []
        try:
            key = api_key_from_env(self.api_key_env, self.model) if self.api_key_env else ""
        except Exception as err:  # every item is missing with the reason; the run goes on
            return [(None, str(err))] * len(calls)
        refused = self._refused()
        if refused:
            return [(None, refused)] * len(calls)

        def one(call: Callable[[], Any]) -> tuple[Any, str | None]:
            try:
                return call(), None
            except Exception as err:  # one failed call never stops the others
                return None, describe_error(err, key) if key else f"{type(err).__name__}: {err}"

        with self._environment(key):
            return map_with_progress(one, calls, self.concurrency, f"judging {what} ({self.model})")

    def _refused(self) -> str | None:
        """Why ``base_url`` cannot be reached (a refused or timed-out connection), or None."""
        if not self.base_url:
            return None
        parts = urlsplit(self.base_url)
        port = parts.port or (443 if parts.scheme == "https" else 80)
        try:
            socket.create_connection((parts.hostname, port), timeout=self.probe_timeout).close()
        except OSError as err:
            return f"cannot connect to {redact_text(self.base_url)}: {type(err).__name__}: {err}"
        return None

    def _environment(self, key: str):
        values = {TIMEOUT: str(max(1, math.ceil(self.timeout)))}
        if key:
            values[self.names["key_env"]] = key
        if self.base_url:
            values[self.names["base_url_var"]] = self.base_url
        return offline(values)


@contextmanager
def offline(values: dict[str, str] | None = None) -> Iterator[None]:
    """MLflow's catalog download and telemetry off, and ``values`` exported, while the block runs;
    the environment as it was afterwards."""
    values = {**OFFLINE, **(values or {})}
    with _ENVIRONMENT:
        saved = {name: os.environ.get(name) for name in values}
        os.environ.update(values)
        try:
            yield
        finally:
            for name, value in saved.items():
                if value is None:
                    os.environ.pop(name, None)
                else:
                    os.environ[name] = value
