"""The provenance of a synthetic question file, summed up for the run that scores it: which kinds,
models, prompts and seeds wrote it, and (from the summary ``harness synth`` wrote beside it) what
each filter removed. Logged as the MLflow dataset's profile (:mod:`harness.tracking.mlflow_inputs`)."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from typing import Any

from harness.synth.output import summary_path

# Summary keys carried into the profile (the rest, e.g. the chunker's settings, stay in the file).
SUMMARY_KEYS = ("kind", "asked", "made", "dataset", "seed", "model", "answer_model", "filters")


def synthetic_profile(questions: str | Path) -> dict[str, Any] | None:
    """The provenance summary of a question file, or None when no line of it has a ``provenance``
    (a set people wrote) or it cannot be read as JSON lines (the dataset loader reports that)."""
    path = Path(questions)
    if not path.is_file():
        return None
    kinds, models, prompts, seeds = Counter(), Counter(), Counter(), Counter()
    synthetic = 0
    try:
        with path.open(encoding="utf-8") as handle:
            for text in handle:
                record = json.loads(text) if text.strip() else {}
                provenance = record.get("provenance") if isinstance(record, dict) else None
                if not isinstance(provenance, dict):
                    continue
                synthetic += 1
                kinds[str(provenance.get("kind"))] += 1
                models[str(provenance.get("model"))] += 1
                prompts[str(provenance.get("prompt_sha256"))] += 1
                seeds[str(provenance.get("seed"))] += 1
    except (OSError, UnicodeDecodeError, json.JSONDecodeError):
        return None
    if not synthetic:
        return None
    profile: dict[str, Any] = {"synthetic_questions": synthetic, "kinds": dict(kinds), "models": dict(models),
                               "prompt_sha256": dict(prompts), "seeds": dict(seeds)}
    summary = summary_path(path)
    if summary.is_file():
        try:
            facts = json.loads(summary.read_text(encoding="utf-8"))
            profile["summary"] = {key: facts.get(key) for key in SUMMARY_KEYS}
        except (OSError, json.JSONDecodeError):
            profile["summary"] = f"unreadable: {summary.name}"
    return profile
