"""What a job hands to the tracking layer."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from harness.results import RunResult


@dataclass
class JobOutcome:
    """A finished job: its results, or the traceback of the failure that stopped it."""

    status: str  # "FINISHED" or "FAILED"
    output_dir: Path
    result: RunResult | None = None
    error: str | None = None

    @property
    def failed(self) -> bool:
        return self.status == "FAILED"


@dataclass
class JobInfo:
    """How a job was configured, in the forms trackers log."""

    name: str
    choices: dict[str, str]
    overrides: list[str]
    params: dict[str, Any]
    config_yaml: str
    tags: dict[str, str] = field(default_factory=dict)
