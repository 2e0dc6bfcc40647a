"""What a job hands to the tracking layer."""

from __future__ import annotations

import traceback
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from harness.config.secrets import redact_text
from harness.results.records import RunResult


@dataclass
class JobOutcome:
    """A finished job: its results, or the traceback of the failure that stopped it."""

    status: str  # "FINISHED" or "FAILED"
    output_dir: Path
    result: RunResult | None = None
    error: str | None = None  # the full traceback
    message: str | None = None  # the root cause, one paragraph
    # A resumed sweep's job that had finished before: its summary, nothing recomputed or logged.
    previous: dict[str, Any] | None = None
    # What a search sweeper (hydra/sweeper=optuna) optimises: the values of the config's
    # ``objectives`` (harness.tracking.sweep.search.objective_values); read with float() or iter().
    objectives: list[float] | None = None

    @classmethod
    def from_exception(cls, error: BaseException, output_dir: Path) -> "JobOutcome":
        """A FAILED outcome; the message is the innermost cause (not Hydra's instantiate wrapper)."""
        root = error
        while root.__cause__ is not None:
            root = root.__cause__
        text = "".join(traceback.format_exception(error))
        return cls(status="FAILED", output_dir=output_dir, error=redact_text(text),
                   message=redact_text(f"{type(root).__name__}: {root}"))

    @classmethod
    def from_failures(cls, result: RunResult, output_dir: Path) -> "JobOutcome":
        """A FAILED outcome that keeps its result: too many of its model calls failed."""
        message = "; ".join(result.info["failed_because"])
        return cls(status="FAILED", output_dir=output_dir, result=result, error=message + "\n", message=message)

    @property
    def failed(self) -> bool:
        return self.status == "FAILED"

    def _values(self) -> list[float]:
        if self.failed or not self.objectives:
            raise ValueError(f"no objective value: {self.message or 'the job computed none'}")
        return list(self.objectives)

    def __float__(self) -> float:
        """The single objective (a search sweeper's trial value); ValueError for a failed job."""
        values = self._values()
        if len(values) != 1:
            raise ValueError(f"{len(values)} objectives: read them with iter(), not float()")
        return values[0]

    def __iter__(self):
        """The objectives, in the order of the config's ``objectives`` (a multi-objective study)."""
        return iter(self._values())


@dataclass
class JobInfo:
    """How a job was configured, in the forms trackers log."""

    name: str
    choices: dict[str, str]
    overrides: list[str]
    params: dict[str, Any]
    config_yaml: str
    tags: dict[str, str] = field(default_factory=dict)
